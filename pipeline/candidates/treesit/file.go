package treesit

import (
	"errors"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// The reasons a file is not read (parse's bounds).
var (
	errTooLarge = errors.New("treesit: file too large to parse")
	errTooDeep  = errors.New("treesit: the syntax tree is too deep to query")
	errTooSlow  = errors.New("treesit: the parse took past its bound")
)

// maxParseBytes bounds a file the reader parses: a larger one (generated
// code, a bundle) is not read.
const maxParseBytes = 1 << 20

// file is what the reader keeps of one parsed file; it is shared through
// the readings cache and never changed once made.
type file struct {
	path    string
	lang    *language
	decls   []decl
	refs    []ref // by line
	imports []string
	// importParts are each import's parts (importParts).
	importParts [][]string
	namespaces  []string
	// modPath is the file's module path (modulePath).
	modPath []string
	// subtypes are, by supertype, the names of the file's containers that
	// state it.
	subtypes map[string][]string
	// comments are the byte spans [from, to) of the comments, in order.
	comments [][2]int32
	// mentions are the distinct names of refs.
	mentions map[string]bool
	// declares are the distinct names of decls, but impl blocks'.
	declares map[string]bool
	// locals are the names the file binds as parameters and local
	// variables: an added line's use of one is no use of another file.
	locals map[string]bool
	// spans are the brackets spanning lines, in the order they open, and
	// callees the names of those that open calls (engine.EnclosingCalls).
	spans   []engine.Span
	callees []ref
}

// decl is one declaration.
type decl struct {
	name, kind, container string
	from, to, headTo      int // lines (1-based); headTo the header's last
	// sig is the header's text with its spaces collapsed: a callable's or
	// container's up to its body, another declaration's whole; "" past
	// maxSigBytes.
	sig    string
	supers []string // a container's supertypes, by their last names
	// space is the last name of the innermost C++ namespace around it.
	space string
}

// scope is the name d's identity is qualified by across a change's sides:
// its container's, else its namespace's (a struct that was a namespace
// keeps its members).
func (d *decl) scope() string {
	if d.container != "" {
		return d.container
	}
	return d.space
}

// ref is one reference to a name.
type ref struct {
	name string
	line int
	// recv is a member access's receiver when it is a single name ("" for
	// none, or an expression).
	recv   string
	member bool
}

// The kinds of declarations, as the query files' @decl.KIND name them.
var (
	callableKinds  = map[string]bool{"function": true, "method": true, "constructor": true}
	containerKinds = map[string]bool{"class": true, "interface": true, "struct": true, "enum": true, "trait": true,
		"module": true, "object": true, "protocol": true, "impl": true}
)

// weight estimates the bytes f keeps, for the readings cache.
func (f *file) weight() int64 {
	n := int64(len(f.path)) + 256
	for _, d := range f.decls {
		n += int64(len(d.name)+len(d.container)+len(d.sig)+len(d.space)) + 96
	}
	n += int64(len(f.refs)) * 48
	for m := range f.mentions {
		n += int64(len(m)) + 24
	}
	for _, s := range f.imports {
		n += 2*int64(len(s)) + 64
	}
	n += int64(len(f.path)) + 16*int64(len(f.modPath))
	return n + int64(len(f.comments))*8 + int64(len(f.spans))*32 + int64(len(f.callees))*48
}

// refsOn answers the refs on lines, and the callees of the calls whose
// arguments lines change (engine.EnclosingCalls): the callee's ref on its
// own, unchanged, line.
func (f *file) refsOn(lines map[int]bool) []ref {
	var out []ref
	for _, r := range f.refs {
		if lines[r.line] {
			out = append(out, r)
		}
	}
	for _, k := range engine.EnclosingCalls(f.spans, lines) {
		c := f.callees[k]
		for _, r := range f.refs {
			if r.line == c.line && r.name == c.name {
				out = append(out, r)
			}
		}
	}
	return out
}

// codeLines answers the lines of src among lines that hold something other
// than spaces and comments.
func (f *file) codeLines(src []byte, lines map[int]bool) map[int]bool {
	out := map[int]bool{}
	line, start := 1, 0
	for i := 0; i <= len(src); i++ {
		if i < len(src) && src[i] != '\n' {
			continue
		}
		if lines[line] && f.holdsCode(src, start, i) {
			out[line] = true
		}
		line++
		start = i + 1
	}
	return out
}

// holdsCode reports whether src[from:to] holds a byte outside spaces and
// comments.
func (f *file) holdsCode(src []byte, from, to int) bool {
	k := sort.Search(len(f.comments), func(k int) bool { return int(f.comments[k][1]) > from })
	for i := from; i < to; i++ {
		if strings.IndexByte(" \t\r\f\v", src[i]) >= 0 {
			continue
		}
		for k < len(f.comments) && int(f.comments[k][1]) <= i {
			k++
		}
		if k < len(f.comments) && int(f.comments[k][0]) <= i {
			i = int(f.comments[k][1]) - 1
			continue
		}
		return true
	}
	return false
}

// lastName is the last name of a qualified or generic name: Base<T> is
// Base, a.b.C is C, A\B is B, a::b is b.
func lastName(s string) string {
	if i := strings.IndexAny(s, "<(["); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, " \t\n&*"); i >= 0 {
		s = s[i+1:] // &mut T, struct foo, const T*
	}
	if i := strings.LastIndexAny(s, `.:\/`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimLeft(s, "$@&*")
	if s == "" || strings.ContainsAny(s, " \t\n\"'{};,=") {
		return ""
	}
	return s
}
