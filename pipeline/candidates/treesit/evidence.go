package treesit

import (
	"fmt"
	"slices"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/treesit/constpath"
	"github.com/prscout/prscout/pipeline/candidates/treesit/usesonly"
)

// uses adds, for each name an added line uses, the files declaring it:
// those its file sees when there are any, else all of them when they are
// few; a name more than maxUnseen files declare, none visible, lists none.
// A member whose receiver is of no type declaring it (a local, a property,
// a call's result) is looked for beside the changed file first, and untypedSight says how it sees the others (C and C++
// aside: their include graph decides). In a C or C++ project these are
// scored below the files referring to what the change touched, and only a
// few of the files that nothing else ties to the change are listed
// (usesonly): s.impact runs first.
func (s *search) uses(us []use, files []*file) {
	var only *usesonly.Files
	if s.includes != nil {
		only = usesonly.New(s.ev)
		defer only.Add()
	}
	declaring := map[string][]*file{}
	for _, g := range files {
		for n := range g.declares {
			declaring[n] = append(declaring[n], g)
		}
	}
	autoloaded := autoloadedConsts(us, declaring)
	for _, u := range us {
		gs := declaring[u.name]
		if len(gs) == 0 {
			continue
		}
		// r.name with r of a type some of the files declare the name in:
		// only those, and of them those the change's qualified use of the
		// type autoloads (Foo::Bar.baz: foo/bar.rb's baz).
		var typed []*file
		for _, g := range gs {
			if u.recv != "" && declaresMemberOf(g, u.name, u.recv) && (autoloaded[u.recv] == nil || autoloaded[u.recv][g]) {
				typed = append(typed, g)
			}
		}
		if len(typed) > 0 {
			gs = typed
		} else if top := slices.DeleteFunc(slices.Clone(gs), func(g *file) bool { return !declaresTop(g, u.name) }); !u.member && len(top) > 0 {
			gs = top // a bare name: a type or a free declaration, not another type's member
		}
		untyped := len(typed) == 0 && u.member && s.includes == nil
		if beside := slices.DeleteFunc(slices.Clone(gs), func(g *file) bool { return engine.DirOf(g.path) != engine.DirOf(u.f.path) }); untyped && len(beside) > 0 {
			gs = beside // the nearest declarations first
		}
		best := unseen
		sights := make([]sight, len(gs))
		for i, g := range gs {
			sights[i] = s.sees(u.f, g)
			if untyped {
				sights[i] = untypedSight(sights[i], engine.DirOf(u.f.path) == engine.DirOf(g.path))
			}
			if len(typed) > 0 {
				sights[i] = min(sights[i]+1, visible) // Type.name: the type declares it
			}
			if u.f.lang.rules.constPaths {
				sights[i] = max(sights[i], constSight(u, g.path))
			}
			best = max(best, sights[i])
		}
		if best == unseen && (len(gs) > maxUnseen || untyped) || best > unseen && manyAt(sights, best) && (best == nearby || s.includes == nil) {
			continue
		}
		for i, g := range gs {
			if sights[i] < best {
				continue
			}
			sc := usesScore[sights[i]]
			if len(gs) > 1 && sights[i] < visible {
				sc /= 2
			}
			if only != nil {
				sc *= usesonly.Scale
			}
			it := engine.UseItem(u.name, u.f.path, sc, engine.MethodSyntax)
			if only != nil && s.ev.Files[g.path] == nil {
				only.Hold(g.path, it)
				continue
			}
			s.ev.Add(g.path, it)
		}
	}
}

// untypedSight is how a use of a member of a receiver of unknown type sees
// a file declaring it that its file sees at sg: an import or namespace puts
// the file's types in reach, not the receiver among them; where the whole
// project sees itself (Ruby, Swift) only the same directory is nearby.
func untypedSight(sg sight, sameDir bool) sight {
	switch {
	case sg == visible || sameDir:
		return nearby
	case sg == nearby:
		return unseen
	}
	return sg
}

// manyAt reports whether more than maxUnseen of the files declaring a used
// name are seen at sg: nearby (a Ruby project) or in a namespace the file
// sees (Name, copy), that many say nothing.
func manyAt(sights []sight, sg sight) bool {
	n := 0
	for _, s := range sights {
		if s == sg {
			n++
		}
	}
	return n > maxUnseen
}

// constSight is how well a use of a constant sees the file p by Ruby's
// autoloading convention (constpath): a qualified Foo::BarBaz the file
// the convention puts it in, a bare BarBaz any bar_baz.rb. A qualified
// constant whose path p does not end in is only nearby, whatever its
// file's name.
func constSight(u use, p string) sight {
	typed := lexed.IsTypeName(u.recv)
	if typed && constpath.Reaches(u.recv, u.name, p) || !typed && stem(p) == lexed.Snake(u.name) {
		return visible
	}
	return unseen
}

// autoloadedConsts are, by name, the files the qualified constants of us
// resolve to by the autoloading convention (constSight), for languages
// that have it.
func autoloadedConsts(us []use, declaring map[string][]*file) map[string]map[*file]bool {
	out := map[string]map[*file]bool{}
	for _, u := range us {
		if !u.f.lang.rules.constPaths || !lexed.IsTypeName(u.recv) {
			continue
		}
		for _, g := range declaring[u.name] {
			if constSight(u, g.path) == visible {
				if out[u.name] == nil {
					out[u.name] = map[*file]bool{}
				}
				out[u.name][g] = true
			}
		}
	}
	return out
}

// declaresTop reports whether g declares name as a type or outside types.
func declaresTop(g *file, name string) bool {
	return slices.ContainsFunc(g.decls, func(d decl) bool { return d.name == name && (d.container == "" || containerKinds[d.kind]) })
}

// declaresMemberOf reports whether g declares name as a member of the type
// recv names (a static call Type.name), or of a type that is.
func declaresMemberOf(g *file, name, recv string) bool {
	for _, d := range g.decls {
		if d.name == name && d.container == recv {
			return true
		}
	}
	return false
}

// impact adds, for each touched declaration, the files referring to it:
// those that see its file when there are any, else all of them when they
// are few; a file overriding a touched member in a subtype counts too.
func (s *search) impact(ts []touched, files []*file) {
	// The receivers of each file's references to the touched names, found
	// in one pass over each file's references.
	names := map[string]bool{}
	for _, t := range ts {
		names[t.d.name] = true
	}
	recvs := make([]map[string][]string, len(files))
	pipeline.Parallel(len(files), func(i int) {
		for _, r := range files[i].refs {
			if names[r.name] {
				if recvs[i] == nil {
					recvs[i] = map[string][]string{}
				}
				recvs[i][r.name] = append(recvs[i][r.name], r.recv)
			}
		}
	})
	for _, t := range ts {
		var refs, protos []impactHit
		for i, g := range files {
			h, ok := s.refersTo(g, recvs[i][t.d.name], t)
			if !ok {
				continue
			}
			if h.why == whyDeclares {
				protos = append(protos, impactHit{g, h})
			} else {
				refs = append(refs, impactHit{g, h})
			}
		}
		if s.includes == nil {
			s.addImpact(t, append(protos, refs...))
			continue
		}
		// A file including a prototype the definition's file sees
		// includes the declaration it refers to. A prototype does not
		// compete with the references: each is listed by the best sight
		// of its own kind.
		for k, r := range refs {
			if r.sight < visible && slices.ContainsFunc(protos, func(p impactHit) bool {
				return p.sight == visible && s.sees(r.g, p.g) == visible
			}) {
				refs[k].sight = visible
			}
		}
		s.addImpact(t, protos)
		s.addImpact(t, refs)
	}
}

// impactHit is a file referring to a touched declaration.
type impactHit struct {
	g *file
	reference
}

// addImpact lists the hits of the best sight among hits, unless that is
// unseen and they are many, or they refer to a declaration whose body alone
// changed and more than maxUnseen files do (not in C, C++): none says more.
func (s *search) addImpact(t touched, hits []impactHit) {
	best, refs := unseen, 0
	for _, h := range hits {
		best = max(best, h.sight)
	}
	for _, h := range hits {
		if h.sight == best && h.why == whyRefers {
			refs++
		}
	}
	if best == unseen && len(hits) > maxUnseen {
		return
	}
	manyCallers := t.change == engine.ChangedBody && s.includes == nil && refs > maxUnseen
	for _, h := range hits {
		if h.sight < best || manyCallers && h.why == whyRefers {
			continue
		}
		sc := impactScore[h.sight]
		if h.own {
			sc = ownDeclScore
		}
		s.ev.Add(h.g.path, engine.Item{Kind: engine.KindImpact, Symbol: t.d.name, Score: sc, Method: engine.MethodSyntax, Change: t.change,
			Reason: fmt.Sprintf("%s `%s`, %s in %s", h.why, qualified(t.d), t.change.Phrase(), engine.PathBase(t.f.path))})
	}
}

// reference is how a file refers to a touched declaration.
type reference struct {
	sight sight
	why   string
	// own: the file holds the touched definition's own declaration (a C
	// or C++ header the definition's file includes or stands for): the
	// surest of impacts, above every other.
	own bool
}

// The reasons of a file declaring a touched callable again (a prototype,
// an interface's member) and of one referring to it.
const (
	whyDeclares = "declares"
	whyRefers   = "refers to"
)

// refersTo reports whether g refers to t's declaration, and how well it
// sees it; recvs are the receivers of g's references to its name ("" for
// none).
func (s *search) refersTo(g *file, recvs []string, t touched) (reference, bool) {
	d := t.d
	if d.container != "" && overrides(g, d) {
		return reference{sight: visible, why: "overrides"}, true
	}
	if callableKinds[d.kind] && declaresToo(g, d) {
		// A prototype or an interface's member declaring it again. One
		// the changed file includes, or the header of its name, is its
		// own declaration, whose contract a changed body must keep: it
		// counts for any change; another only for a changed signature.
		sg, own := s.sees(g, t.f), false
		if stem(g.path) == stem(t.f.path) && (engine.DirOf(g.path) == engine.DirOf(t.f.path) ||
			s.includes != nil && s.includes.Reaches(g.path, t.f.path)) {
			sg, own = visible, true // calc.h beside calc.c, include/x/calc.h for src/calc.c
		}
		if s.includes != nil && s.sees(t.f, g) == visible {
			sg, own = visible, true // the definition's file includes it
		}
		if t.change >= engine.ChangedSignature || sg == visible && s.includes != nil {
			return reference{sight: sg, why: whyDeclares, own: own && s.includes != nil}, true
		}
	}
	if !g.mentions[d.name] {
		return reference{}, false
	}
	if d.container == "" && g.declares[d.name] && !callableKinds[d.kind] {
		return reference{}, false // its own declaration of the name
	}
	sg := s.sees(g, t.f)
	if d.container != "" {
		if s.includes == nil && ownNested(g, t) {
			return reference{}, false
		}
		byType := g.mentions[d.container]
		if commonName(d.name) && !byType {
			return reference{}, false
		}
		if byType {
			sg = max(sg, nearby)
		}
		own, typedOther, untyped := false, false, false
		for _, recv := range recvs {
			switch {
			case recv == d.container:
				own = true
			case recv != "" && lexed.IsTypeName(recv) && !byType:
				// Sub.name, Sub a subtype of the container (derived) or a
				// type the file may see as one (maybe): the member
				// inherited, its declaration included through Sub's.
				k := s.inherits(g, recv, t)
				if k == unrelated {
					typedOther = true // Other.name: another type's member
					break
				}
				own, untyped = own || k == derived, untyped || k == maybe
				if s.includesDecl(g, t) {
					sg = visible
				}
			default:
				untyped = true
			}
		}
		if own {
			sg = min(sg+1, visible)
		} else if typedOther && !untyped {
			return reference{}, false
		}
	}
	return reference{sight: sg, why: whyRefers}, true
}

// ownNested reports whether g, never naming the outer type of t's
// container (TypeSpec of TypeSpec.Builder), declares a type of the
// container's name nested in another (FunSpec.Builder): its references are
// to its own type's members.
func ownNested(g *file, t touched) bool {
	isType := func(m decl) bool { return m.name == t.d.container && containerKinds[m.kind] && m.kind != "impl" }
	i := slices.IndexFunc(t.f.decls, isType)
	if i < 0 || t.f.decls[i].container == "" || g.mentions[t.f.decls[i].container] {
		return false
	}
	outer := t.f.decls[i].container
	return slices.ContainsFunc(g.decls, func(m decl) bool { return isType(m) && m.container != "" && m.container != outer })
}

// declaresToo reports whether g declares a callable of d's name in d's
// container.
func declaresToo(g *file, d *decl) bool {
	for _, m := range g.decls {
		if m.name == d.name && m.container == d.container && callableKinds[m.kind] {
			return true
		}
	}
	return false
}

// overrides reports whether g declares d's name in a type whose stated
// supertypes include d's container.
func overrides(g *file, d *decl) bool {
	subs := g.subtypes[d.container]
	if len(subs) == 0 {
		return false
	}
	for _, m := range g.decls {
		if m.name == d.name && slices.Contains(subs, m.container) {
			return true
		}
	}
	return false
}

// qualified names a declaration with its container: Calc.compute.
func qualified(d *decl) string {
	if d.container == "" {
		return d.name
	}
	return d.container + "." + d.name
}
