package lexed

import (
	"path"
	"strings"
)

// Helpers the language readers share to read import statements; each
// language's own reading is in its package (typescript, python, java).

// StripExt removes a source extension.
func StripExt(p string) string {
	return strings.TrimSuffix(p, path.Ext(p))
}

// Stem is p's file name without its extension.
func Stem(p string) string { return StripExt(path.Base(p)) }

// DottedName reads "a.b.c" or "..a" from toks[i:], returning the name and
// the index after it.
func DottedName(toks []Tok, i int) (string, int) {
	var b strings.Builder
	for i < len(toks) {
		t := toks[i]
		if t.Text == "." || (t.Kind == TkIdent && t.Text != "import" && t.Text != "as") {
			if t.Kind == TkIdent && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				break
			}
			b.WriteString(t.Text)
			i++
			continue
		}
		break
	}
	return b.String(), i
}
