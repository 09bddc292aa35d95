//go:build cgo

package treesit

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// bracketSpans walks the syntax tree's leaves in order and answers its
// brackets that span lines, in the order they open, for
// engine.EnclosingCalls: a '(' right after a name leaf opens a call of
// that name (Callee indexes callees). Keywords are anonymous leaves in
// every grammar, so `if (` opens no call.
func bracketSpans(root *sitter.Node, src []byte) (spans []engine.Span, callees []ref) {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var open []int // indices in spans of the brackets open
	var prev *sitter.Node
	for {
		n := c.CurrentNode()
		if n.ChildCount() == 0 {
			switch t := n.Type(); t {
			case "(", "[", "{":
				s := engine.Span{Open: line(n), Callee: -1}
				if t == "(" && prev != nil && prev.IsNamed() && prev.EndByte() <= n.StartByte() {
					s.Callee, s.CalleeLine = len(callees), line(prev)
					callees = append(callees, ref{name: string(src[prev.StartByte():prev.EndByte()]), line: line(prev)})
				}
				open = append(open, len(spans))
				spans = append(spans, s)
			case ")", "]", "}":
				if k := len(open); k > 0 {
					spans[open[k-1]].Close = line(n)
					open = open[:k-1]
				}
			}
			prev = n
		}
		if c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return multiLine(spans), callees
			}
		}
	}
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
