package lexed

// MatchOpen returns the index of the bracket opening the one closing at
// toks[i] (')', ']' or '}'), -1 for none.
func MatchOpen(toks []Tok, i int) int {
	depth := 0
	for j := i; j >= 0; j-- {
		switch toks[j].Text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// MatchClose returns the index of the bracket closing the one opening at
// toks[i] ('(', '[' or '{'), -1 for none.
func MatchClose(toks []Tok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
