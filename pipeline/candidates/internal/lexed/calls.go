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
	var open []int // the brackets open at token i, innermost last
	for i, t := range f.Toks {
		if t.Kind != TkPunct {
			continue
		}
		outer := -1
		switch t.Text {
		case ")", "]", "}":
			if n := len(open); n > 0 && f.Brackets.Open(i) == open[n-1] {
				open = open[:n-1]
			}
			continue
		case "(", "[", "{":
			if n := len(open); n > 0 {
				outer = open[n-1]
			}
			if f.Brackets.Close(i) >= 0 {
				open = append(open, i)
			}
		default:
			continue
		}
		s := engine.Span{Open: t.Line, Callee: -1}
		if c := f.Brackets.Close(i); c >= 0 {
			s.Close = f.Toks[c].Line
		}
		if s.Close == s.Open {
			continue
		}
		switch {
		case t.Text == "(":
			s.Callee, s.CalleeLine = callee(f, i)
		case t.Text == "{" && i > 0 && (f.Toks[i-1].Text == "(" || f.Toks[i-1].Text == ","):
			// An object literal passed as an argument (fn({key: v})): its
			// keys are the call's arguments.
			if outer >= 0 && f.Toks[outer].Text == "(" {
				s.Callee, s.CalleeLine = callee(f, outer)
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

// callee returns the callee of the call whose '(' is f.Toks[i], and its
// line: -1 for a parenthesis that opens no call.
func callee(f *File, i int) (int, int) {
	if i == 0 {
		return -1, 0
	}
	k := typeArgsStart(f.Toks, i-1)
	if p := f.Toks[k]; p.Kind == TkIdent && !IsKeyword(f.Lang, p.Text) {
		return k, p.Line
	}
	return -1, 0
}

// maxTypeArgTokens bounds the walk back over a call's type arguments.
const maxTypeArgTokens = 64

// typeArgsStart returns the index of the token before the type arguments
// that end at toks[j] (createClient<AppRouter>(: the index of
// createClient), or j when toks[j] closes none: the walk stops at a token
// no type argument list holds.
func typeArgsStart(toks []Tok, j int) int {
	if toks[j].Text != ">" && toks[j].Text != ">>" {
		return j
	}
	depth := 0
	for k := j; k > 0 && j-k < maxTypeArgTokens; k-- {
		switch t := toks[k]; {
		case t.Text == ">":
			depth++
		case t.Text == ">>":
			depth += 2
		case t.Text == "<":
			depth--
			if depth == 0 {
				return k - 1
			}
		case t.Kind == TkPunct && t.Text != "," && t.Text != "." && t.Text != "[" && t.Text != "]" && t.Text != "|" && t.Text != "&" && t.Text != "?",
			(t.Text == "&" || t.Text == "|") && toks[k-1].Text == t.Text: // && and || join conditions
			return j
		}
	}
	return j
}
