package candidates

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/ident"
)

// The helpers the tests share with the engines.

func dirOf(p string) string { return engine.DirOf(p) }

func containsWord(src []byte, w string) bool {
	return ident.Contains(src, w, ident.Dollar|ident.Unicode)
}
