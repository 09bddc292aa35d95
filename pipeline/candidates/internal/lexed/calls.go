package lexed

// EnclosingCalls answers the callees of the calls whose arguments the
// added lines change while the callee's own line is unchanged: a keyword
// argument added inside a multi-line `Imputer(` call uses Imputer as much
// as a changed call line would. An added line counts for the call whose
// '(' is the innermost bracket open at its first token (an added line in
// a lambda's or a literal's braces inside the arguments does not); the
// callee is the identifier just before that '(' (not a keyword such as
// if or while), on a line the change did not add. The answer holds the
// callees' token indices.
func EnclosingCalls(f *File, added map[int]bool) map[int]bool {
	if f == nil || len(added) == 0 {
		return nil
	}
	var out map[int]bool
	var open []int // indices of the brackets open before token i
	lastLine := 0
	for i, t := range f.Toks {
		if t.Line != lastLine {
			lastLine = t.Line
			if added[t.Line] && len(open) > 0 {
				if c := calleeOf(f, open[len(open)-1], added); c >= 0 {
					if out == nil {
						out = map[int]bool{}
					}
					out[c] = true
				}
			}
		}
		if t.Kind != TkPunct || len(t.Text) != 1 {
			continue
		}
		switch t.Text[0] {
		case '(', '[', '{':
			open = append(open, i)
		case ')', ']', '}':
			if n := len(open); n > 0 {
				open = open[:n-1]
			}
		}
	}
	return out
}

// calleeOf answers the callee token of the call whose '(' is token p, or
// -1: p opens no call, or the callee's line is itself added.
func calleeOf(f *File, p int, added map[int]bool) int {
	if f.Toks[p].Text != "(" || p == 0 {
		return -1
	}
	c := f.Toks[p-1]
	if c.Kind != TkIdent || added[c.Line] || IsKeyword(f.Lang, c.Text) {
		return -1
	}
	return p - 1
}
