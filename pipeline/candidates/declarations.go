package candidates

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/java"
	"github.com/prscout/prscout/pipeline/candidates/python"
	"github.com/prscout/prscout/pipeline/candidates/typescript"
)

// Declaration is a declaration as the TypeScript/JavaScript, Python and
// Java engines read it, for tools that check that reading of a file
// against a parser's.
type Declaration struct {
	Name string
	// Kind is function, class, interface, type, enum, method, constructor,
	// field or variable.
	Kind string
	// Container is the class of a method or field.
	Container string
	// From and To are the declaration's first and last line (1-based).
	From, To int
}

// Declarations returns the declarations those engines read in the file
// at p (TypeScript/JavaScript, Python or Java by its extension), in source
// order; nil for other files.
func Declarations(p string, src []byte) []Declaration {
	var decls []lexed.Decl
	switch lexed.LangOf(p) {
	case lexed.LangJS:
		decls = typescript.Decls(p, src)
	case lexed.LangPython:
		decls = python.Decls(p, src)
	case lexed.LangJava:
		decls = java.Decls(p, src)
	default:
		return nil
	}
	out := make([]Declaration, 0, len(decls))
	for _, d := range decls {
		if d.Literal {
			continue // a member of a type alias's object type
		}
		out = append(out, Declaration{Name: d.Name, Kind: d.Kind, Container: d.Container, From: d.From, To: d.To})
	}
	return out
}
