package tokens

// Decl is a declaration as the token engine reads it, for tools that check
// the engine's reading of a file against a parser's.
type Decl struct {
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
func Declarations(p string, src []byte) []Decl {
	var f *tfile
	switch langOf(p) {
	case langJS:
		f = readJS(p, src, nil).tfile
	case langPython:
		f = readPython(p, src).tfile
	case langJava:
		f = readJava(p, src).tfile
	default:
		return nil
	}
	out := make([]Decl, 0, len(f.decls))
	for _, d := range f.decls {
		out = append(out, Decl{Name: d.name, Kind: d.kind, Container: d.container, From: d.from, To: d.to})
	}
	return out
}
