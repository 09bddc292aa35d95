package candidates

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// The helpers the tests share with the engines.

func dirOf(p string) string { return engine.DirOf(p) }

// containsWord reports whether src contains w as a whole identifier.
func containsWord(src []byte, w string) bool {
	for off := 0; w != ""; {
		i := bytes.Index(src[off:], []byte(w))
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !engine.IsIdentByte(src[i-1])) && (end == len(src) || !engine.IsIdentByte(src[end])) {
			return true
		}
		off = i + 1
	}
	return false
}
