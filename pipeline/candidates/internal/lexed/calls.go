package lexed

import "github.com/prscout/prscout/pipeline/candidates/internal/engine"

// EnclosingCalls answers, as token indices, the callees of the calls
// whose arguments the added lines change (engine.EnclosingCalls): the
// callee is the identifier just before a '(' (not a keyword such as if or
// while).
func EnclosingCalls(f *File, added map[int]bool) map[int]bool {
	if f == nil || len(added) == 0 {
		return nil
	}
	var spans []engine.Span
	for i, t := range f.Toks {
		if t.Kind != TkPunct || t.Text != "(" && t.Text != "[" && t.Text != "{" {
			continue
		}
		s := engine.Span{Open: t.Line, Callee: -1}
		if c := f.Brackets.Close(i); c >= 0 {
			s.Close = f.Toks[c].Line
		}
		if s.Close == s.Open {
			continue
		}
		if t.Text == "(" && i > 0 {
			if p := f.Toks[i-1]; p.Kind == TkIdent && !IsKeyword(f.Lang, p.Text) {
				s.Callee, s.CalleeLine = i-1, p.Line
			}
		}
		spans = append(spans, s)
	}
	var out map[int]bool
	for _, c := range engine.EnclosingCalls(spans, added) {
		if out == nil {
			out = map[int]bool{}
		}
		out[c] = true
	}
	return out
}
