package engine

import "slices"

// Span is a bracketed stretch of a file that spans lines: the lines of
// its opening and closing brackets (Close 0: never closed) and, for a
// call's parentheses, its callee (Callee, an index the reader gives it, and
// CalleeLine); Callee is -1 for any other bracket.
type Span struct {
	Open, Close        int
	Callee, CalleeLine int
}

// EnclosingCalls answers the callees of the calls whose arguments the
// added lines change while the callee's own line is unchanged: an added
// keyword argument inside a multi-line `Imputer(` call uses Imputer as
// much as a changed call line would. An added line counts for the call
// whose parentheses are the innermost brackets open across it (an added
// line in a lambda's or a literal's braces inside the arguments does not).
// spans are a file's bracket spans in the order of their opening brackets;
// every reader finds its calls this way.
func EnclosingCalls(spans []Span, added map[int]bool) []int {
	var lines []int
	for l, ok := range added {
		if ok {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 || len(spans) == 0 {
		return nil
	}
	slices.Sort(lines)
	var out []int
	var open []Span // each inside the one before
	next := 0
	for _, l := range lines {
		for next < len(spans) && spans[next].Open < l {
			open = append(open, spans[next])
			next++
		}
		// Spans nest: the innermost closes first.
		for n := len(open); n > 0 && open[n-1].Close != 0 && open[n-1].Close < l; n = len(open) {
			open = open[:n-1]
		}
		if n := len(open); n > 0 {
			if s := open[n-1]; s.Callee >= 0 && !added[s.CalleeLine] {
				out = append(out, s.Callee)
			}
		}
	}
	return out
}
