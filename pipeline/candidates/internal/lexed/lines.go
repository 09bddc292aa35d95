package lexed

import (
	"cmp"
	"slices"
)

// TokensOn returns the indices of the tokens of toks (in line order, as
// Tokens gives them) that start on a line set in lines, in order. A search
// that looks only at a change's added lines walks these instead of every
// token of the file: a large file with a few added lines costs a few binary
// searches, not a map lookup per token.
func TokensOn(toks []Tok, lines map[int]bool) []int {
	ls := make([]int, 0, len(lines))
	for l, ok := range lines {
		if ok {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	var out []int
	i := 0
	for _, l := range ls {
		j, _ := slices.BinarySearchFunc(toks[i:], l, func(t Tok, l int) int { return cmp.Compare(t.Line, l) })
		i += j
		for i < len(toks) && toks[i].Line == l {
			out = append(out, i)
			i++
		}
	}
	return out
}

// TextAt is the text of toks[i]; "" past either end.
func TextAt(toks []Tok, i int) string {
	if i < 0 || i >= len(toks) {
		return ""
	}
	return toks[i].Text
}

// IdentAt reports whether toks[i] is an identifier; false past either end.
func IdentAt(toks []Tok, i int) bool { return i >= 0 && i < len(toks) && toks[i].Kind == TkIdent }
