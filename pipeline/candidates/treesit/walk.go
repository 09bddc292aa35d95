//go:build cgo

package treesit

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cwalk"
)

// bracketSpans answers the syntax tree's brackets that span lines, in the
// order they open, for engine.EnclosingCalls: a '(' right after a name leaf
// opens a call of that name (Callee indexes callees). Keywords are
// anonymous leaves in every grammar, so `if (` opens no call.
func bracketSpans(root *sitter.Node, src []byte) (spans []engine.Span, callees []ref) {
	bs, ok := cwalk.Brackets(root)
	if !ok {
		return nil, nil
	}
	var open []int // indices in spans of the brackets open
	for _, b := range bs {
		row := b.Row + 1
		if !b.Open {
			if k := len(open); k > 0 {
				spans[open[k-1]].Close = row
				open = open[:k-1]
			}
			continue
		}
		s := engine.Span{Open: row, Callee: -1}
		if b.NameTo > b.NameFrom && b.NameTo <= len(src) {
			s.Callee, s.CalleeLine = len(callees), b.NameRow+1
			callees = append(callees, ref{name: string(src[b.NameFrom:b.NameTo]), line: s.CalleeLine})
		}
		open = append(open, len(spans))
		spans = append(spans, s)
	}
	return multiLine(spans), callees
}

// multiLine keeps the spans whose brackets are on different lines (or
// never close): only those can be open across a changed line.
func multiLine(spans []engine.Span) []engine.Span {
	out := spans[:0]
	for _, s := range spans {
		if s.Close != s.Open {
			out = append(out, s)
		}
	}
	return out
}
