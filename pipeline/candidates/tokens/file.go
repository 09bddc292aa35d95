package tokens

import "github.com/prscout/prscout/pipeline/candidates/internal/engine"

// The lexed file every language reader fills (tokens, declarations,
// imports, the declared-type model of typemodel.go) and the helpers the
// TypeScript, Python and Java searches share.

const (
	scoreTokImported   = 0.85 // declared in, or referring through, an import of the file
	scoreTokMember     = 0.6  // a method or field of a class in an imported file
	scoreTokUnrelated  = 0.3  // a member name only one searched file declares
	tokGrepLimit       = 1000
	tokMinMemberLength = 4
)

// tdecl is a declaration found by token patterns.
type tdecl struct {
	name      string
	kind      string // function, class, interface, type, enum, method, field, variable
	container string // the class of a method or field
	static    bool   // a static method or field, reached through its class's name
	from, to  int    // line span
	// headTo is the last line of a JS class or interface header (its
	// body's '{'), of an enum its last: a changed line there touches it.
	headTo int
}

// tfile is a lexed file with its declarations and imports.
type tfile struct {
	path    string
	lang    lang
	toks    []tok
	decls   []tdecl
	imports []timport
	idx     *tindex    // built on first use (index)
	types   *typeModel // the declared-type model (typemodel.go), filled by the language's reader
}

// tindex answers refersTo, declaresAt and moduleReceiver's assignment scan
// in constant time: without it each member access of a file rescanned the
// whole file (quadratic on a file of one-line member accesses).
type tindex struct {
	idents  map[string]bool
	declAt  map[declAtKey]bool
	modVars map[string]bool // names assigned require(...) or (await) import(...)
	lines   map[int]bool    // lines holding a token (hasCodeOn), built on first use
}

type declAtKey struct {
	line int
	name string
}

func (f *tfile) index() *tindex {
	if f.idx != nil {
		return f.idx
	}
	x := &tindex{idents: map[string]bool{}, declAt: map[declAtKey]bool{}, modVars: map[string]bool{}}
	for _, t := range f.toks {
		if t.kind == tkIdent {
			x.idents[t.text] = true
		}
	}
	for _, d := range f.decls {
		x.declAt[declAtKey{d.from, d.name}] = true
	}
	for j := 0; j+2 < len(f.toks); j++ {
		if f.toks[j+1].text != "=" {
			continue
		}
		k := j + 2
		if f.toks[k].text == "await" && k+1 < len(f.toks) {
			k++
		}
		if f.toks[k].text == "require" || f.toks[k].text == "import" {
			x.modVars[f.toks[j].text] = true
		}
	}
	f.idx = x
	return x
}

// timport is one import: the module specifier and the names it brings.
type timport struct {
	spec     string
	names    []string // local names bound by the import
	wildcard bool     // Java a.b.*, JS export * from
	export   bool     // JS export ... from: the file re-exports the names
	// call marks require("x") and import("x"): the names their results
	// are destructured into are not listed.
	call bool
	// namespace is the local name of a JS namespace import (import * as ns,
	// export * as ns): the module's names are reached as ns.name.
	namespace string
	// dflt is the local name of a JS default import (import x from, import
	// x, {y} from): it binds the module's default export.
	dflt string
}

// lexFile lexes the file at p in its language's mode; the language's
// reader fills its declarations, imports and types.
func lexFile(p string, src []byte) *tfile {
	l := langOf(p)
	return &tfile{path: p, lang: l, toks: lex(src, lexModeOf(l))}
}

// familyGlobs are the pathspecs of a language family's files.
func familyGlobs(l lang) []string {
	switch l {
	case langJS:
		return []string{"*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"}
	case langPython:
		return []string{"*.py", "*.pyi"}
	case langJava:
		return []string{"*.java"}
	}
	return nil
}

// csym is a declaration of the changed file that the change touched.
type csym struct {
	d      tdecl
	change engine.DeclChange
	// ctor marks the class of a touched constructor: its new C(...)
	// expressions are the references.
	ctor bool
}

// commonMember names are declared by nearly every class; searching their
// callers lists noise.
var commonMember = map[string]bool{
	"constructor": true, "__init__": true, "toString": true, "equals": true, "hashCode": true,
	"render": true, "main": true, "get": true, "set": true, "run": true, "init": true,
	"__str__": true, "__repr__": true, "__eq__": true, "__hash__": true,
}

func tokDisplay(d tdecl) string {
	if d.container != "" {
		return d.container + "." + d.name
	}
	return d.name
}

// declaresAt reports whether token t of f is the name of one of f's
// declarations (its own declaration, not a reference).
func declaresAt(f *tfile, t tok) bool {
	return f.index().declAt[declAtKey{t.line, t.text}]
}

// refersTo reports whether f mentions name as an identifier.
func refersTo(f *tfile, name string) bool {
	return f.index().idents[name]
}

// hitDecl reports whether lines touch declaration d: a class, interface or
// enum counts only by its header line (its members count on their own).
func hitDecl(lines map[int]bool, d tdecl) bool {
	if d.headTo > 0 {
		return engine.SpanHit(lines, d.from, d.headTo)
	}
	switch d.kind {
	case "class", "interface", "enum":
		return lines[d.from]
	}
	return engine.SpanHit(lines, d.from, d.to)
}
