package treesit

// A member is called through a receiver of a subtype of its container as
// often as through one of the container (a generator's subclass calling
// its base's method): such a reference is the member's, not another
// type's. The subtypes are those the files read declare; when the
// receiver's type is declared in none of them, a C or C++ file that
// includes the container's declaration may be calling the inherited
// member.

// kinship is how a receiver's type relates to a member's container.
type kinship int

const (
	unrelated kinship = iota // another type: not the member
	maybe                    // unknown, and the file sees the container
	derived                  // a subtype of the container
)

// maxSuperDepth bounds the supertypes walked up from a type.
const maxSuperDepth = 8

// supertypes maps each type the files and the touched declarations' files
// declare to its stated supertypes (none for a type stating none).
func supertypes(files []*file, ts []touched) map[string][]string {
	out := map[string][]string{}
	add := func(f *file) {
		for _, d := range f.decls {
			if containerKinds[d.kind] && d.kind != "impl" {
				out[d.name] = append(out[d.name], d.supers...)
			}
		}
	}
	for _, f := range files {
		add(f)
	}
	seen := map[*file]bool{}
	for _, t := range ts {
		if !seen[t.f] {
			seen[t.f] = true
			add(t.f)
		}
	}
	return out
}

// inherits is how typ, the type of a receiver in g, relates to the
// container of t's declaration.
func (s *search) inherits(g *file, typ string, t touched) kinship {
	base := t.d.container
	frontier, seen := []string{typ}, map[string]bool{typ: true}
	for depth := 0; depth < maxSuperDepth && len(frontier) > 0; depth++ {
		var next []string
		for _, n := range frontier {
			for _, sup := range s.supers[n] {
				if sup == base {
					return derived
				}
				if !seen[sup] {
					seen[sup] = true
					next = append(next, sup)
				}
			}
		}
		frontier = next
	}
	if _, known := s.supers[typ]; known || !s.includesDecl(g, t) {
		return unrelated
	}
	return maybe
}

// includesDecl reports whether g includes, directly or not, the file of
// t's declaration or a header standing for it (C and C++, by the include
// graph the gate built).
func (s *search) includesDecl(g *file, t touched) bool {
	if s.graph == nil {
		return false
	}
	k := [2]string{g.path, t.f.path}
	if v, ok := s.reach[k]; ok {
		return v
	}
	if s.reach == nil {
		s.reach = map[[2]string]bool{}
	}
	v := false
	for q := range s.graph.reachable(g.path) {
		if v = q == t.f.path || s.includes.Reaches(q, t.f.path); v {
			break
		}
	}
	s.reach[k] = v
	return v
}
