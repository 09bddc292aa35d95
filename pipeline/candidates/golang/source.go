package golang

import (
	"bytes"
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/ident"
)

// Reads reports whether the Go engine reads the file at p.
func Reads(p string) bool { return strings.ToLower(path.Ext(p)) == ".go" }

// isGeneratedGo reports whether Go source carries the standard marker
// "// Code generated ... DO NOT EDIT." before its package clause.
func isGeneratedGo(src []byte) bool {
	head := src
	if i := bytes.Index(head, []byte("\npackage ")); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte("// Code generated ")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

// goChars are the bytes of Go identifiers as the engine reads them: every
// non-ASCII byte counts, '$' does not.
const goChars = ident.Unicode
