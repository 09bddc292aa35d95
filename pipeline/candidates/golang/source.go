package golang

import (
	"bytes"
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
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

// containsWord reports whether src contains w as a whole identifier.
func containsWord(src []byte, w string) bool {
	if w == "" {
		return false
	}
	wb := []byte(w)
	for off := 0; ; {
		i := bytes.Index(src[off:], wb)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(wb)
		if (i == 0 || !engine.IsIdentByte(src[i-1])) && (end == len(src) || !engine.IsIdentByte(src[end])) {
			return true
		}
		off = i + 1
	}
}
