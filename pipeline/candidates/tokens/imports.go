package tokens

import (
	"path"
	"strings"
)

// Helpers the language readers share to read import statements; each
// language's own reading is in jsimports.go, python.go and javaparse.go.

// stripExt removes a source extension.
func stripExt(p string) string {
	return strings.TrimSuffix(p, path.Ext(p))
}

// dottedName reads "a.b.c" or "..a" from toks[i:], returning the name and
// the index after it.
func dottedName(toks []tok, i int) (string, int) {
	var b strings.Builder
	for i < len(toks) {
		t := toks[i]
		if t.text == "." || (t.kind == tkIdent && t.text != "import" && t.text != "as") {
			if t.kind == tkIdent && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				break
			}
			b.WriteString(t.text)
			i++
			continue
		}
		break
	}
	return b.String(), i
}
