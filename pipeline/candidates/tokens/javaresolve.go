package tokens

import (
	"slices"
	"strings"
)

// Resolving a Java receiver: the types named on added lines, the declared
// types of receivers, which files a file sees, and the members of types
// and their supertypes.

// javaNamedTypes answers the type names the added lines of f name or
// reach: capitalized identifiers, receivers' declared types, and the
// supertypes of f's classes (members reached without a receiver).
func javaNamedTypes(f *jfile, added map[int]bool) map[string]bool {
	out := map[string]bool{}
	for i, t := range f.toks {
		if t.kind != tkIdent || !added[t.line] || f.java.declTok[i] {
			continue
		}
		if isUpper(t.text) {
			out[f.java.qualify(t.text)] = true
		}
		if i > 0 && f.toks[i-1].text == "." {
			for _, typ := range f.types.typesOf(receiver(f.toks, i)) {
				out[typ] = true
			}
		}
	}
	for _, c := range f.java.classes {
		for _, s := range c.supers {
			out[s] = true
		}
	}
	for _, ts := range f.types.returns {
		for _, t := range ts {
			out[t] = true
		}
	}
	return out
}

// javaReceiverTypes answers the declared types of the receivers of the
// names in g (so that their hierarchy is known).
func javaReceiverTypes(g *jfile, names map[string]bool) map[string]bool {
	out := map[string]bool{}
	for i, t := range g.toks {
		if t.kind != tkIdent || !names[t.text] || i == 0 || g.toks[i-1].text != "." {
			continue
		}
		for _, typ := range g.types.typesOf(receiver(g.toks, i)) {
			out[typ] = true
		}
	}
	return out
}

// sees reports how g sees the top-level or nested class cls declared in
// file p: scoreJavaTyped through its package or a single-type import,
// scoreJavaOnDemand through an on-demand import, 0 when it does not.
func javaSees(g, p *jfile, cls string) float64 {
	if g == p || g.pkg == p.pkg {
		return scoreJavaTyped
	}
	k := seesKey{p, cls}
	if v, ok := g.java.sees[k]; ok {
		return v
	}
	v := javaSeesImports(g, p, cls)
	if g.java.sees == nil {
		g.java.sees = map[seesKey]float64{}
	}
	g.java.sees[k] = v
	return v
}

type seesKey struct {
	p   *jfile
	cls string
}

func javaSeesImports(g, p *jfile, cls string) float64 {
	cls = javaTopName(cls)
	if g == p {
		return scoreJavaTyped
	}
	if g.pkg == p.pkg {
		return scoreJavaTyped
	}
	tops := map[string]bool{}
	for _, c := range p.java.classes {
		if c.outer == "" {
			tops[c.name] = true
		}
	}
	best := 0.0
	for _, im := range g.java.imports {
		n := len(im.parts)
		pkgLen := len(strings.Split(p.pkg, "."))
		if p.pkg == "" {
			pkgLen = 0
		}
		if n < pkgLen || strings.Join(im.parts[:pkgLen], ".") != p.pkg {
			continue
		}
		rest := im.parts[pkgLen:]
		switch {
		case len(rest) == 0 && im.wildcard && !im.static:
			best = max(best, scoreJavaOnDemand)
		case len(rest) > 0 && tops[rest[0]] && (rest[len(rest)-1] == cls || im.wildcard || im.static || rest[0] == cls):
			best = max(best, scoreJavaTyped)
		case len(rest) > 0 && tops[rest[0]]:
			best = max(best, scoreJavaOnDemand)
		}
	}
	return best
}

// typeFiles answers the files declaring class cls that f sees, with how.
func (s *javaSearch) typeFiles(f *jfile, cls string) ([]*jfile, float64) {
	var out []*jfile
	best := 0.0
	for _, p := range s.classes[cls] {
		sc := javaSees(f, p, cls)
		if sc == 0 {
			// A class nested in a class of the same package (or of an
			// imported file) is reached as Outer.Inner or by inheritance.
			if s.nested(p, cls) && (f.pkg == p.pkg || javaSees(f, p, javaTop(p)) > 0) {
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
	toks := f.toks
	if i < 2 || toks[i-1].text != "." || depth > 4 {
		return nil
	}
	r := toks[i-2]
	if r.kind == tkIdent {
		if i >= 3 && toks[i-3].text == "." && r.text != "this" {
			if i >= 4 && toks[i-4].text == "this" {
				return f.types.typesOf("this." + r.text)
			}
			// a.b.c: b's type through a's.
			var out []string
			for _, t := range s.resolveTypes(f, i-2, depth+1) {
				out = append(out, s.memberType(t, r.text, false)...)
			}
			return out
		}
		switch r.text {
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
		if ts := f.types.typesOf(r.text); len(ts) > 0 {
			return ts
		}
		if isUpper(r.text) {
			return []string{f.java.qualify(r.text)}
		}
		return nil
	}
	if r.text != ")" {
		return nil
	}
	open := -1
	depthP := 0
	for j := i - 2; j >= 0; j-- {
		if toks[j].text == ")" {
			depthP++
		} else if toks[j].text == "(" {
			depthP--
			if depthP == 0 {
				open = j
				break
			}
		}
	}
	if open < 1 || toks[open-1].kind != tkIdent {
		return nil
	}
	fn := open - 1
	name := toks[fn].text
	if fn >= 1 && toks[fn-1].text == "new" {
		return []string{f.java.qualify(name)}
	}
	if fn >= 1 && toks[fn-1].text == "." {
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
	return f.types.typesOf(name + "()")
}

// memberType answers the type of member name of class typ (a method's
// return type when call), looked up in typ and its supertypes.
func (s *javaSearch) memberType(typ, name string, call bool) []string {
	for _, c := range s.h.declaring(typ, name) {
		for _, f := range s.classes[c] {
			if call {
				if ts := f.types.returns[c+"."+name]; len(ts) > 0 {
					return ts
				}
				continue
			}
			if ts := f.types.vars["this."+name]; len(ts) > 0 {
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
	for _, c := range s.h.declaring(typ, name) {
		fs, _ := s.typeFiles(from, c)
		if len(fs) == 0 {
			fs = s.classes[c]
		}
		for _, f := range fs {
			if !slices.Contains(out, f) && slices.ContainsFunc(f.decls, func(d tdecl) bool { return d.container == c && d.name == name }) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}
