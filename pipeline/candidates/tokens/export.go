package tokens

// Declaration is a declaration as the token engine reads it, for tools that check
// the engine's reading of a file against a parser's.
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

// Declarations returns the declarations the token engine reads in the file
// at p (TypeScript/JavaScript, Python or Java by its extension), in source
// order; nil for other files.
func Declarations(p string, src []byte) []Declaration {
	var f *File
	switch LangOf(p) {
	case LangJS:
		f = readJS(p, src, nil).File
	case LangPython:
		f = readPython(p, src).File
	case LangJava:
		f = readJava(p, src).File
	default:
		return nil
	}
	out := make([]Declaration, 0, len(f.Decls))
	for _, d := range f.Decls {
		out = append(out, Declaration{Name: d.Name, Kind: d.Kind, Container: d.Container, From: d.From, To: d.To})
	}
	return out
}
