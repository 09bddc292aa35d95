package modtypes

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Names bound by an object pattern: const {response, options} = this gives
// response the type of this's member response, and const {data: d} =
// useQuery() gives d the type of the member data of what useQuery returns.

// maxPatternBindings bounds the bindings of one name kept per file.
const maxPatternBindings = 4

// binding is a name bound by an object pattern of a declaration: the
// member key of the expression starting at init (const {key: name} = ...).
type binding struct {
	key  string
	init int
}

// bindingsOf returns the names f's declarations bind by object patterns,
// read once per file.
func (w *World) bindingsOf(f *lexed.File) map[string][]binding {
	if b, ok := w.bindings[f]; ok {
		return b
	}
	b := patternBindings(f)
	if w.bindings == nil {
		w.bindings = map[*lexed.File]map[string][]binding{}
	}
	w.bindings[f] = b
	return b
}

// patternBindings scans f for const|let|var {k, k2: name} = init and
// returns each bound name's key and init; nested patterns, rest elements
// and annotated patterns bind nothing here.
func patternBindings(f *lexed.File) map[string][]binding {
	toks := f.Toks
	var out map[string][]binding
	for i := 0; i+1 < len(toks); i++ {
		if t := toks[i].Text; t != "const" && t != "let" && t != "var" || toks[i+1].Text != "{" {
			continue
		}
		c := f.Brackets.Close(i + 1)
		if c < 0 || c+2 >= len(toks) || toks[c+1].Text != "=" || toks[c+2].Text == "=" {
			continue
		}
		for k := i + 2; k < c; k++ {
			switch toks[k].Text {
			case "{", "[", "(":
				if e := f.Brackets.Close(k); e > k {
					k = e
				}
				continue
			}
			if toks[k].Kind != lexed.TkIdent || toks[k-1].Text != "{" && toks[k-1].Text != "," {
				continue
			}
			key, name := toks[k].Text, toks[k].Text
			if lexed.TextAt(toks, k+1) == ":" {
				if lexed.TextAt(toks, k+2) == "" || toks[k+2].Kind != lexed.TkIdent {
					continue // a nested pattern
				}
				name = toks[k+2].Text
			}
			if out == nil {
				out = map[string][]binding{}
			}
			if len(out[name]) < maxPatternBindings {
				out[name] = append(out[name], binding{key: key, init: c + 2})
			}
		}
		i = c
	}
	return out
}

// patternTypes returns the types of the name f binds by object patterns:
// the types of the keyed members of what the patterns destructure.
func (w *World) patternTypes(f *lexed.File, name string, depth int) []Type {
	var out []Type
	for _, b := range w.bindingsOf(f)[name] {
		for _, t := range w.exprTypes(f, chainEnd(f, b.init), depth+1) {
			out = engine.AppendNew(out, w.memberTypes(t, b.key, false, depth+1)...)
		}
	}
	return out
}
