package golang

import (
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Reader reads Go changes; it reads the heads of every change of the
// request, since a package's files see each other.
var Reader = lexed.ReaderOf(lexed.LangGo, find)

// CodeLines returns the lines of lines on which src has a token: a line
// that only holds comments changes no behaviour, so it touches no
// declaration. A multi-line raw string covers every line it spans.
func CodeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(nil, engine.SumOf, src, lines)
}

// codeLines is CodeLines with the content's Sum from the engine.
func (e *goEngine) codeLines(src []byte, lines map[int]bool) map[int]bool {
	return codeLinesAt(e.cache, e.sumOf, src, lines)
}

func codeLinesAt(cache *engine.Cache, sum func([]byte) engine.Sum, src []byte, lines map[int]bool) map[int]bool {
	if len(lines) == 0 {
		return lines
	}
	code := engine.CachedAt(cache, engine.KeyAt("go/code", "", sum(src)), func() (engine.Bits, int64) {
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
