package lexed

import (
	"sync"
	"sync/atomic"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// The lexed file every language reader fills (tokens, declarations,
// imports, the declared-type model of typemodel.go) and the helpers the
// TypeScript, Python and Java searches share.

const (
	ScoreImported   = 0.85 // declared in, or referring through, an import of the file
	ScoreMember     = 0.6  // a method or field of a class in an imported file
	ScoreUnrelated  = 0.3  // a member name only one searched file declares
	GrepLimit       = 1000
	MinMemberLength = 4
)

// Decl is a declaration found by token patterns.
type Decl struct {
	Name      string
	Kind      string // function, class, interface, type, enum, method, field, variable
	Container string // the class of a method or field
	Static    bool   // a static method or field, reached through its class's name
	From, To  int    // line span
	// headTo is the last line of a JS class or interface header (its
	// body's '{'), of an enum its last: a changed line there touches it.
	HeadTo int
	// Literal marks a member of a JS type alias's object type (type T =
	// {m: ...}): it tells which file declares T.m, but a change to it
	// touches the alias, not a member of its own.
	Literal bool
}

// Reading is a reader's reading of a file: a File, or the reader's type
// embedding one, with what it reads besides.
type Reading interface {
	comparable
	Lexed() *File
}

// Lexed is f, the File a reader's reading embeds.
func (f *File) Lexed() *File { return f }

// lexedOf is r's File; nil for a nil r (a side the change does not have).
func lexedOf[R Reading](r R) *File {
	var none R
	if r == none {
		return nil
	}
	return r.Lexed()
}

// File is a lexed file with its declarations and imports.
type File struct {
	Path string
	Lang Lang
	Toks []Tok
	// Brackets pairs the brackets of Toks.
	Brackets Brackets
	Decls    []Decl
	Imports  []Import
	idx      *lazyIndex // built on first use (Index)
	Types    *TypeModel // the declared-type model (typemodel.go), filled by the language's reader
	// Sum names the content f was read from, when a reader read it through
	// the readers' cache (engine.Cache): what the reader keeps of the file
	// besides its reading is kept under it. Zero otherwise.
	Sum engine.Sum
	// cutAfter, when the source held more than MaxTokens tokens, is the
	// line of the last one made: Toks ends before the source does
	// (ReadTo). 0 when the source was read whole.
	cutAfter int
}

// ReadTo answers the last line f's tokens read and the bound that
// stopped them there (engine.Partial); line 0 when f was read whole.
func (f *File) ReadTo() (line, bound int) { return f.cutAfter, MaxTokens }

// Index answers RefersTo, DeclaresAt and moduleReceiver's assignment scan
// in constant time: without it each member access of a file rescanned the
// whole file (quadratic on a file of one-line member accesses).
type Index struct {
	Idents  map[string]bool
	DeclAt  map[DeclAt]bool
	ModVars map[string]bool // names assigned require(...) or (await) import(...)
}

type DeclAt struct {
	Line int
	Name string
}

// lazyIndex is a File's Index, built once by its first user: a File Read
// made may be shared (the readers' cache) before anyone asks, and many
// never are asked (the base side of a changed file).
type lazyIndex struct {
	once sync.Once
	x    *Index
}

func (f *File) Index() *Index {
	if f.idx == nil { // a File Read did not make: its own, as its maker's
		f.idx = new(lazyIndex)
	}
	f.idx.once.Do(func() { f.idx.x = f.buildIndex() })
	return f.idx.x
}

// buildIndex reads f's Index.
func (f *File) buildIndex() *Index {
	x := &Index{Idents: map[string]bool{}, DeclAt: map[DeclAt]bool{}, ModVars: map[string]bool{}}
	for _, t := range f.Toks {
		if t.Kind == TkIdent {
			if !x.Idents[t.Text] { // a look-up: most identifiers were met before
				x.Idents[t.Text] = true
			}
		}
	}
	for _, d := range f.Decls {
		x.DeclAt[DeclAt{d.From, d.Name}] = true
	}
	for j := 0; j+2 < len(f.Toks); j++ {
		if f.Toks[j+1].Text != "=" {
			continue
		}
		k := j + 2
		if f.Toks[k].Text == "await" && k+1 < len(f.Toks) {
			k++
		}
		if f.Toks[k].Text == "require" || f.Toks[k].Text == "import" {
			x.ModVars[f.Toks[j].Text] = true
		}
	}
	return x
}

// Import is one import: the module specifier and the names it brings.
type Import struct {
	Spec  string
	Names []string // local names bound by the import
	// Renamed maps a local name an import clause renames to the name the
	// module exports (import {a as b}: b → a).
	Renamed  map[string]string
	Wildcard bool // Java a.b.*, JS export * from
	Export   bool // JS export ... from: the file re-exports the names
	// call marks require("x") and import("x"): the names their results
	// are destructured into are not listed.
	Call bool
	// namespace is the local name of a JS namespace import (import * as ns,
	// export * as ns): the module's names are reached as ns.name.
	Namespace string
	// dflt is the local name of a JS default import (import x from, import
	// x, {y} from): it binds the module's default export.
	Default string
}

// reads counts the files Read lexed in this process.
var reads atomic.Int64

// Reads is how many files Read has lexed in this process: the work a
// search does that the readers' cache saves (tests count it).
func Reads() int64 { return reads.Load() }

// Read lexes the file at p in its language's mode; the language's
// reader fills its declarations, imports and types.
func Read(p string, src []byte) *File {
	reads.Add(1)
	l := LangOf(p)
	f := &File{Path: p, Lang: l, idx: new(lazyIndex)}
	toks, cut := lex(src, LexModeOf(l))
	if cut {
		f.cutAfter = toks[len(toks)-1].Line
	}
	f.Toks, f.Brackets = toks, PairBrackets(toks)
	return f
}

// Sym is a declaration of the changed file that the change touched.
type Sym struct {
	Decl   Decl
	Change engine.DeclChange
	// ctor marks the class of a touched constructor: its new C(...)
	// expressions are the references.
	Ctor bool
	// Via, when set, says how Decl reaches the touched member through a
	// class hierarchy ("implemented by `C.m`"): Decl is a supertype's
	// member the touched one implements or overrides, or a sibling class's
	// implementing the same one.
	Via string
	// Base marks a declaration read from the base side: the head no longer
	// declares it.
	Base bool
}

// CommonMember names are declared by nearly every class; searching their
// callers lists noise.
var CommonMember = map[string]bool{
	"constructor": true, "__init__": true, "toString": true, "equals": true, "hashCode": true,
	"render": true, "main": true, "get": true, "set": true, "run": true, "init": true,
	"__str__": true, "__repr__": true, "__eq__": true, "__hash__": true,
}

func Display(d Decl) string {
	if d.Container != "" {
		return d.Container + "." + d.Name
	}
	return d.Name
}

// Clone returns a copy of f that shares its tokens and their index, or,
// with dropTokens, holds only its declarations and imports.
func (f *File) Clone(dropTokens bool) *File {
	c := *f
	if dropTokens {
		c.Toks, c.Brackets, c.idx = nil, nil, new(lazyIndex)
	} else {
		f.Index() // built from f's declarations, whatever c's become
		c.idx = f.idx
	}
	return &c
}

// DeclaresAt reports whether token t of f is the name of one of f's
// declarations (its own declaration, not a reference).
func DeclaresAt(f *File, t Tok) bool {
	return f.Index().DeclAt[DeclAt{t.Line, t.Text}]
}

// RefersTo reports whether f mentions name as an identifier.
func RefersTo(f *File, name string) bool {
	return f.Index().Idents[name]
}

// EnclosingClass returns the innermost class of f whose span holds line;
// "" for none.
func EnclosingClass(f *File, line int) string {
	best, span := "", -1
	for _, d := range f.Decls {
		if d.Kind == "class" && d.From <= line && line <= d.To && (span < 0 || d.To-d.From < span) {
			best, span = d.Name, d.To-d.From
		}
	}
	return best
}
