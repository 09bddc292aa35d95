package golang

import (
	"bytes"
	"go/scanner"
	"go/token"
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
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

// CodeLines returns the lines of lines on which src has a token: a line
// that only holds comments changes no behaviour, so it touches no
// declaration. A multi-line raw string covers every line it spans.
func CodeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(lexed.SumOf, src, lines)
}

// codeLines is CodeLines with the content's Sum from the engine.
func (e *goEngine) codeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(e.sumOf, src, lines)
}

func codeLinesAt(sum func([]byte) lexed.Sum, src []byte, lines map[int]bool) map[int]bool {
	if len(lines) == 0 {
		return lines
	}
	code := lexed.CachedAt(lexed.KeyAt("go/code", "", sum(src)), func() (codeLines, int64) {
		c := scanCodeLines(src)
		return c, int64(len(c)) * 8
	})
	out := map[int]bool{}
	for l := range lines {
		if code.has(l) {
			out[l] = true
		}
	}
	return out
}

// codeLines is a set of lines (1-based), one bit a line.
type codeLines []uint64

func (c codeLines) has(l int) bool {
	return l >= 0 && l/64 < len(c) && c[l/64]&(1<<(l%64)) != 0
}

// scanCodeLines returns the lines on which src has a token.
func scanCodeLines(src []byte) codeLines {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out codeLines
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end, not written
		}
		first := file.Line(pos)
		for l := first; l <= first+strings.Count(lit, "\n"); l++ {
			for l/64 >= len(out) {
				out = append(out, 0)
			}
			out[l/64] |= 1 << (l % 64)
		}
	}
}
