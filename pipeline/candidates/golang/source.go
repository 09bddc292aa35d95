package golang

import (
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Reads reports whether the Go engine reads the file at p.
func Reads(p string) bool { return lexed.LangOf(p) == lexed.LangGo }

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
	code := lexed.CachedAt(lexed.KeyAt("go/code", "", sum(src)), func() (goscan.Lines, int64) {
		c := goscan.ScanLines(src)
		return c, int64(len(c)) * 8
	})
	out := map[int]bool{}
	for l := range lines {
		if code.Has(l) {
			out[l] = true
		}
	}
	return out
}
