package java

import (
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Resolving a Java receiver: the types named on added lines, the declared
// types of receivers, which files a file sees, and the members of types
// and their supertypes.

// javaNamedTypes answers the type names the added lines of f name or
// reach: capitalized identifiers, receivers' declared types, and the
// supertypes of f's classes (members reached without a receiver). added
// holds the indices of the tokens on the added lines (lexed.TokensOn).
func javaNamedTypes(f *jfile, added []int) map[string]bool {
	out := map[string]bool{}
	for _, i := range added {
		t := f.Toks[i]
		if t.Kind != lexed.TkIdent || f.java.declTok.Has(i) {
			continue
		}
		if lexed.IsTypeName(t.Text) {
			out[f.java.qualify(t.Text)] = true
		}
		if i > 0 && f.Toks[i-1].Text == "." {
			for _, typ := range f.Types.TypesOf(lexed.Receiver(f.Toks, i)) {
				out[typ] = true
			}
		}
	}
	for _, c := range f.java.classes {
		for _, s := range c.supers {
			out[s] = true
		}
	}
	for _, ts := range f.Types.Returns {
		for _, t := range ts {
			out[t] = true
		}
	}
	return out
}

// javaSees reports how g sees the top-level or nested class cls declared
// in file p: scoreJavaTyped through its package or a single-type import,
// scoreJavaOnDemand through an on-demand import, 0 when it does not.
func (s *javaSearch) javaSees(g, p *jfile, cls string) float64 {
	if g == p || g.pkg == p.pkg {
		return scoreJavaTyped
	}
	k := seesKey{g, p, cls}
	if v, ok := s.sees[k]; ok {
		return v
	}
	v := javaSeesImports(g, p, cls)
	if s.sees == nil {
		s.sees = map[seesKey]float64{}
	}
	s.sees[k] = v
	return v
}

type seesKey struct {
	g, p *jfile
	cls  string
}

func javaSeesImports(g, p *jfile, cls string) float64 {
	cls = javaTopName(cls)
	if g == p {
		return scoreJavaTyped
	}
	if g.pkg == p.pkg {
		return scoreJavaTyped
	}
	pkgLen := 0
	if p.pkg != "" {
		pkgLen = strings.Count(p.pkg, ".") + 1
	}
	best := 0.0
	for _, im := range g.java.imports {
		if len(im.parts) < pkgLen || !joinedIs(im.parts[:pkgLen], p.pkg) {
			continue
		}
		rest := im.parts[pkgLen:]
		switch {
		case len(rest) == 0:
			if im.wildcard && !im.static {
				best = max(best, scoreJavaOnDemand)
			}
		case !declaresTop(p, rest[0]):
			// It imports a class of the package that p does not declare.
		case rest[len(rest)-1] == cls || im.wildcard || im.static || rest[0] == cls:
			best = max(best, scoreJavaTyped)
		default:
			best = max(best, scoreJavaOnDemand)
		}
	}
	return best
}

// declaresTop reports whether p declares a top-level class named name.
func declaresTop(p *jfile, name string) bool {
	for _, c := range p.java.classes {
		if c.outer == "" && c.name == name {
			return true
		}
	}
	return false
}

// joinedIs reports whether parts joined by dots are s, without joining
// them.
func joinedIs(parts []string, s string) bool {
	for i, part := range parts {
		if i > 0 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, part) {
			return false
		}
		s = s[len(part):]
	}
	return s == ""
}

// typeFiles answers the files declaring class cls that f sees, with how.
func (s *javaSearch) typeFiles(f *jfile, cls string) ([]*jfile, float64) {
	var out []*jfile
	best := 0.0
	for _, p := range s.classes[cls] {
		sc := s.javaSees(f, p, cls)
		if sc == 0 {
			// A class nested in a class of the same package (or of an
			// imported file) is reached as Outer.Inner or by inheritance.
			if s.nested(p, cls) && (f.pkg == p.pkg || s.javaSees(f, p, javaTop(p)) > 0) {
				sc = scoreJavaOnDemand
			}
		}
		switch {
		case sc > best:
			out, best = []*jfile{p}, sc
		case sc == best && sc > 0:
			out = append(out, p)
		}
	}
	return out, best
}

func (s *javaSearch) nested(p *jfile, cls string) bool {
	for _, c := range p.java.classes {
		if c.name == cls && c.outer != "" {
			return true
		}
	}
	return false
}

func javaTop(p *jfile) string {
	for _, c := range p.java.classes {
		if c.outer == "" {
			return c.name
		}
	}
	return ""
}

// resolveTypes answers the types of the receiver of the member toks[i] of
// f: a variable's declared types, a type name (static access), this and
// super, or a call's return types (a chain a.b().c() resolved left to
// right through the hierarchy).
func (s *javaSearch) resolveTypes(f *jfile, i, depth int) []string {
	toks := f.Toks
	if i < 2 || toks[i-1].Text != "." || depth > 4 {
		return nil
	}
	r := toks[i-2]
	if r.Kind == lexed.TkIdent {
		if i >= 3 && toks[i-3].Text == "." && r.Text != "this" {
			if i >= 4 && toks[i-4].Text == "this" {
				return f.Types.TypesOf("this." + r.Text)
			}
			// a.b.c: b's type through a's.
			var out []string
			for _, t := range s.resolveTypes(f, i-2, depth+1) {
				out = append(out, s.memberType(t, r.Text, false)...)
			}
			return out
		}
		switch r.Text {
		case "this":
			if c := f.java.classAt(i); c != nil {
				return []string{c.name}
			}
			return nil
		case "super":
			if c := f.java.classAt(i); c != nil {
				return c.supers
			}
			return nil
		}
		if ts := f.Types.TypesOf(r.Text); len(ts) > 0 {
			return ts
		}
		if lexed.IsTypeName(r.Text) {
			return []string{f.java.qualify(r.Text)}
		}
		return nil
	}
	if r.Text != ")" {
		return nil
	}
	open := f.Brackets.Open(i - 2)
	if open < 1 || toks[open-1].Kind != lexed.TkIdent {
		return nil
	}
	fn := open - 1
	name := toks[fn].Text
	if fn >= 1 && toks[fn-1].Text == "new" {
		return []string{f.java.qualify(name)}
	}
	if fn >= 1 && toks[fn-1].Text == "." {
		var out []string
		for _, t := range s.resolveTypes(f, fn, depth+1) {
			out = append(out, s.memberType(t, name, true)...)
		}
		return out
	}
	// An unqualified call: a method of the enclosing class or its supertypes.
	if c := f.java.classAt(i); c != nil {
		if ts := s.memberType(c.name, name, true); len(ts) > 0 {
			return ts
		}
	}
	return f.Types.TypesOf(name + "()")
}

// memberType answers the type of member name of class typ (a method's
// return type when call), looked up in typ and its supertypes.
func (s *javaSearch) memberType(typ, name string, call bool) []string {
	for _, c := range s.h.Declaring(typ, name) {
		for _, f := range s.classes[c] {
			if call {
				if ts := f.Types.Returns[c+"."+name]; len(ts) > 0 {
					return ts
				}
				continue
			}
			if ts := f.Types.Vars["this."+name]; len(ts) > 0 {
				return ts
			}
		}
	}
	return nil
}

// declaringFiles answers the files declaring member name in typ or a
// supertype, nearest first.
func (s *javaSearch) declaringFiles(from *jfile, typ, name string) []*jfile {
	var out []*jfile
	for _, c := range s.h.Declaring(typ, name) {
		fs, _ := s.typeFiles(from, c)
		if len(fs) == 0 {
			fs = s.classes[c]
		}
		for _, f := range fs {
			if !slices.Contains(out, f) && slices.ContainsFunc(f.Decls, func(d lexed.Decl) bool { return d.Container == c && d.Name == name }) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}
