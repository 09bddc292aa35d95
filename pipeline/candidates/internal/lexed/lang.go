package lexed

import "github.com/prscout/prscout/pipeline/scope"

// Lang is the family of engine a file is read with.
type Lang int

const (
	LangOther Lang = iota
	LangGo
	LangJS // TypeScript and JavaScript
	LangPython
	LangJava
)

// LangOf is the family of reader of the file at p, by its language
// (scope.Language, the one table of languages by extension).
func LangOf(p string) Lang {
	switch scope.Language(p) {
	case "go":
		return LangGo
	case "typescript", "tsx", "javascript", "jsx":
		return LangJS
	case "python":
		return LangPython
	case "java":
		return LangJava
	}
	return LangOther
}

// IsCode reports whether p is a source file of a programming language
// without a reader of its own, which the identifier search reads.
func IsCode(p string) bool { return LangOf(p) == LangOther && scope.IsCode(scope.Language(p)) }
