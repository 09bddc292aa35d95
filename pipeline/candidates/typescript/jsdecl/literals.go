package jsdecl

import "github.com/prscout/prscout/pipeline/candidates/internal/lexed"

// Object literals' keys: where a token names a member of the type a
// literal is declared as or passed as.

// objectLiteralAfter are the tokens before a '{' that opens an object
// literal (a value) rather than a block, a type or a pattern: an argument,
// an element, an assignment's, a return's or a default export's value, a
// conditional's branch (punctuation is lexed one character a token, so =>
// before a block ends in '>', not '='; | and & are left out, as they also
// join type literals in unions and intersections).
var objectLiteralAfter = map[string]bool{"(": true, ",": true, "=": true, "return": true, "?": true, "[": true,
	"yield": true, "await": true, "default": true}

// ObjectKeyAt returns the '{' of the object literal whose key toks[i] is
// ({k: v}, {k} or {..., k, ...}), the '{' following a token of
// objectLiteralAfter and opening no type alias's body (type T = {k: V});
// -1 when toks[i] is no such key.
func ObjectKeyAt(f *lexed.File, i int) int {
	toks := f.Toks
	if i == 0 || i+1 >= len(toks) {
		return -1
	}
	if p := toks[i-1].Text; p != "{" && p != "," {
		return -1
	}
	if n := toks[i+1].Text; n != ":" && n != "," && n != "}" && !methodShorthandAt(f, i) {
		return -1
	}
	b := f.Brackets.Enclosing(toks, i)
	if b < 1 || toks[b].Text != "{" || !objectLiteralAfter[toks[b-1].Text] || toks[b-1].Text == "=" && typeAliasBefore(toks, b-1) {
		return -1
	}
	return b
}

// methodShorthandAt reports whether toks[i] names a method shorthand
// (code(cxt) {...}, code(cxt): void {...}): its parameters' ')' is
// followed by the body's '{' or a return type's ':'.
func methodShorthandAt(f *lexed.File, i int) bool {
	toks := f.Toks
	if toks[i+1].Text != "(" {
		return false
	}
	c := f.Brackets.Close(i + 1)
	return c > i && c+1 < len(toks) && (toks[c+1].Text == "{" || toks[c+1].Text == ":")
}

// typeAliasBefore reports whether the statement holding toks[eq] (an '=')
// declares a type alias: `type` opens it, after export or declare.
func typeAliasBefore(toks []lexed.Tok, eq int) bool {
	k := eq - 1
	for k > 0 && toks[k-1].Text != ";" && toks[k-1].Text != "{" && toks[k-1].Text != "}" && toks[k-1].Line == toks[k].Line {
		k--
	}
	for k < eq && (toks[k].Text == "export" || toks[k].Text == "declare") {
		k++
	}
	return toks[k].Text == "type"
}
