package lexed

import (
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Lang is the family of engine a file is read with.
type Lang int

const (
	LangOther Lang = iota
	LangGo
	LangJS // TypeScript and JavaScript
	LangPython
	LangJava
)

func LangOf(p string) Lang {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return LangGo
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		return LangJS
	case ".py", ".pyi":
		return LangPython
	case ".java":
		return LangJava
	}
	return LangOther
}

// codeExts are the extensions of programming languages that the
// identifier-search fallback reads.
var codeExts = engine.Words(".c .h .cc .cpp .cxx .hh .hpp .hxx .cs .fs .rs .rb .php .kt .kts .swift .scala .sc .groovy .gradle .dart .lua .pl .pm .r .m .mm .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .elm .jl .nim .zig .v .sh .bash .zsh .ps1 .vue .svelte .sol .tf .proto .graphql .sql")

// IsCode reports whether p is a source file of a language without an
// engine of its own, which the identifier search reads.
func IsCode(p string) bool { return codeExts[strings.ToLower(path.Ext(p))] }
