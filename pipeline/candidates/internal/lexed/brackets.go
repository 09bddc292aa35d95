package lexed

import "strings"

// Brackets pairs each bracket of a file's tokens ('(', '[', '{' and their
// closers, punctuation only: a string holding one is no bracket) with its
// partner, found in one pass with a stack: matching one is then a lookup,
// however deep the nesting. As with counting depth, a closer pairs with the
// innermost open bracket of any kind. A bracket never closed, or a closer
// with nothing open, has no partner.
type Brackets []int32

// PairBrackets pairs the brackets of toks.
func PairBrackets(toks []Tok) Brackets {
	b := make(Brackets, len(toks))
	var open []int32
	for i, t := range toks {
		b[i] = -1
		if t.Kind != TkPunct || len(t.Text) != 1 {
			continue
		}
		switch t.Text[0] {
		case '(', '[', '{':
			open = append(open, int32(i))
		case ')', ']', '}':
			if n := len(open); n > 0 {
				j := open[n-1]
				open = open[:n-1]
				b[i], b[j] = j, int32(i)
			}
		}
	}
	return b
}

// Close returns the index of the bracket closing the one opening at i; -1
// when it is never closed, or toks[i] opens none.
func (b Brackets) Close(i int) int {
	if i < 0 || i >= len(b) || int(b[i]) < i {
		return -1
	}
	return int(b[i])
}

// CloseOrLast is Close with the last token's index for a bracket never
// closed (or no bracket at i).
func (b Brackets) CloseOrLast(i int) int {
	if c := b.Close(i); c >= 0 {
		return c
	}
	return len(b) - 1
}

// Open returns the index of the bracket opening the one closing at i; -1
// when nothing opened it, or toks[i] closes none.
func (b Brackets) Open(i int) int {
	if i < 0 || i >= len(b) || b[i] < 0 || int(b[i]) > i {
		return -1
	}
	return int(b[i])
}

// Enclosing returns the index of the innermost bracket of toks open around
// token i (an opener before it whose partner, if any, comes after it),
// stepping over the bracketed groups before i whole; -1 when none is.
func (b Brackets) Enclosing(toks []Tok, i int) int {
	for k := i - 1; k >= 0; k-- {
		if t := toks[k]; t.Kind != TkPunct || len(t.Text) != 1 {
			continue
		}
		switch toks[k].Text[0] {
		case '(', '[', '{':
			return k
		case ')', ']', '}':
			if o := b.Open(k); o >= 0 {
				k = o // the group before i, stepped over whole
			}
		}
	}
	return -1
}

// MatchAngle finds the angle bracket matching toks[i], a '<' looking
// forward (step 1) or a '>' looking backward (step -1), counting the nested
// ones, within limit tokens (0: no limit). A one-character token of stops
// (one a type cannot hold) ends the search first. It answers the index
// reached, the match (ok) or else the stop (len(toks) or -1 past the end),
// and whether it matched.
func MatchAngle(toks []Tok, i, step, limit int, stops string) (int, bool) {
	open, close := "<", ">"
	if step < 0 {
		open, close = close, open
	}
	depth := 0
	j := i
	for ; j >= 0 && j < len(toks) && (limit == 0 || (j-i)*step < limit); j += step {
		switch t := toks[j].Text; {
		case t == open:
			depth++
		case t == close:
			depth--
			if depth == 0 {
				return j, true
			}
		case len(t) == 1 && strings.IndexByte(stops, t[0]) >= 0:
			return j, false
		}
	}
	return j, false
}
