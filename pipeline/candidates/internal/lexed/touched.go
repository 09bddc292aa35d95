package lexed

import (
	"cmp"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/touch"
)

// maxSigBytes bounds a header's text: a longer one is compared by its
// changed lines alone.
const maxSigBytes = 4 << 10

// Touched answers the declarations of c's file that the change touched, by
// package touch's rule, each with how it changed: head and base are the
// sides' readings (nil for an added or deleted file). A Sym read from the
// base (a removed declaration) has Base set.
func Touched[R Reading](c *engine.Change, head, base R) []*Sym {
	nf, of := lexedOf(head), lexedOf(base)
	hs, heads := touchSide(nf, c.Added)
	bs, bases := touchSide(of, c.Removed)
	var out []*Sym
	for _, t := range touch.Touched(hs, bs, nil) {
		if t.Base {
			out = append(out, &Sym{Decl: of.Decls[bases[t.Index]], Change: t.Change, Base: true})
			continue
		}
		out = append(out, &Sym{Decl: nf.Decls[heads[t.Index]], Change: t.Change})
	}
	return out
}

// touchSide is f's side for package touch, with the index in f.Decls of
// each of its declarations (a member of a type alias's object type is no
// declaration of its own there: a change to it touches the alias).
func touchSide(f *File, lines map[int]bool) (*touch.Side, []int) {
	if f == nil {
		return nil, nil
	}
	s := &touch.Side{Lines: CodeLines(f, lines)}
	idx := make([]int, 0, len(f.Decls))
	for i, d := range f.Decls {
		if d.Literal {
			continue
		}
		td := touch.Decl{Container: d.Container, Name: d.Name, Kind: d.Kind, From: d.From, To: d.To, HeadTo: d.HeadTo}
		switch d.Kind {
		case "class", "interface", "enum", "namespace":
			td.ByHeader = true
		case "function", "method", "constructor":
			td.Callable = true
		}
		if td.HeadTo == 0 && (td.ByHeader || td.Callable) && s.In(d.From, d.To) {
			td.HeadTo, _ = header(f, d, false)
		}
		s.Decls = append(s.Decls, td)
		idx = append(idx, i)
	}
	s.Sig = func(i int) string {
		_, sig := header(f, f.Decls[idx[i]], true)
		return sig
	}
	return s, idx
}

// header finds the end of d's header: the '{' opening its body or members
// (':' in Python) or the ';' ending a declaration without one, outside
// brackets, within d's lines. It answers that line (d.To when there is
// none) and, when text is set, the header's tokens joined by spaces ("" past
// maxSigBytes).
func header(f *File, d Decl, text bool) (int, string) {
	i, _ := slices.BinarySearchFunc(f.Toks, d.From, func(t Tok, l int) int { return cmp.Compare(t.Line, l) })
	var b strings.Builder
	depth := 0
	for ; i < len(f.Toks) && f.Toks[i].Line <= d.To; i++ {
		t := f.Toks[i]
		if depth == 0 && (t.Text == ";" || (f.Lang == LangPython && t.Text == ":") || (f.Lang != LangPython && t.Text == "{")) {
			return t.Line, sig(&b, text)
		}
		switch t.Text {
		case "(", "[", "{": // a '{' here is inside brackets, or Python's
			depth++
		case ")", "]", "}":
			depth = max(depth-1, 0)
		}
		if text && b.Len() <= maxSigBytes {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t.Text)
		}
	}
	return d.To, sig(&b, text)
}

func sig(b *strings.Builder, text bool) string {
	if !text || b.Len() > maxSigBytes {
		return ""
	}
	return b.String()
}
