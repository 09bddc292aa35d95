package lexed

import (
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Declarations by token patterns: module-level functions, classes,
// interfaces, enums, types and variables, and the methods and fields of
// class bodies. Declarations inside function bodies are local and left out.

// LastLine is the line of the last token (0 for none).
func LastLine(toks []Tok) int {
	if len(toks) == 0 {
		return 0
	}
	return toks[len(toks)-1].Line
}

// IsTypeName reports whether a name, by the convention of the languages
// that capitalize their types, names a type rather than a value: it
// starts with an ASCII capital.
func IsTypeName(s string) bool { return s != "" && 'A' <= s[0] && s[0] <= 'Z' }

func TypeKind(w string) string {
	if w == "record" {
		return "class"
	}
	return w
}

var (
	jsKeywords   = engine.Words("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected interface private public async of from as type any number string boolean undefined null true false readonly declare keyof unknown never abstract get set")
	pyKeywords   = engine.Words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls print len str int list dict set tuple bool float object super isinstance range")
	javaKeywords = engine.Words("abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var record String Object Override List Map")
)

// IsKeyword reports words of the language (and a few ubiquitous built-ins)
// that are never looked up as declarations.
func IsKeyword(l Lang, w string) bool {
	switch l {
	case LangPython:
		return pyKeywords[w]
	case LangJava:
		return javaKeywords[w]
	case LangJS:
		return jsKeywords[w]
	}
	return jsKeywords[w] || pyKeywords[w]
}

// Snake is a constant's file name by Ruby's autoloading convention:
// UserPolicy is user_policy.
func Snake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			if i > 0 && (s[i-1] < 'A' || s[i-1] > 'Z') {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
