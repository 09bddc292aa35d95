// Package touch decides which declarations of a changed file the change
// touched, and how, once for every reader: a reader lists each side's
// declarations with their extents and the changed lines that hold code, and
// Touched applies the one rule.
//
// The rule, the same in every language:
//
//   - A declaration is touched on a side when a changed code line (added on
//     the head, removed on the base) lies in its span. A container (class,
//     interface, enum, struct) counts by its header only: its members are
//     declarations of their own.
//   - A declaration the base touched that the head no longer declares (in
//     the file, or anywhere the reader resolves it, e.g. its Go package) is
//     removed: a rename is the removal of the old name plus a new
//     declaration, since the old name's users still name it.
//   - A function, method or constructor whose header (up to its body) holds
//     a changed line on either side changed its signature, else its body.
//     Where the reader gives both sides' header text, equal texts mean the
//     body changed, whatever lines the diff marked. Any other declaration
//     (field, variable, constant, type, container header) changed its
//     declaration.
package touch

import (
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Decl is one declaration of one side of a changed file.
type Decl struct {
	// Container, Name and Kind identify the declaration across the sides:
	// the class or receiver of a member, its name, and its kind as the
	// reader words it (function, method, field, ...).
	Container, Name, Kind string
	// From and To are its first and last lines (1-based).
	From, To int
	// HeadTo is the last line of its header: a function's up to its body's
	// opening, a container's up to its members' opening. 0 means From.
	HeadTo int
	// Container marks a declaration touched by its header only.
	ByHeader bool
	// Callable marks a function, method or constructor.
	Callable bool
}

type id struct{ container, name, kind string }

func (d *Decl) id() id { return id{d.Container, d.Name, d.Kind} }

// headTo is the header's last line, within the declaration.
func (d *Decl) headTo() int {
	if d.HeadTo < d.From {
		return d.From
	}
	return min(d.HeadTo, max(d.To, d.From))
}

// Side is one side of a changed file as its reader saw it.
type Side struct {
	Decls []Decl
	// Lines are the changed lines that hold code (comments and docstrings
	// left out).
	Lines map[int]bool
	// Sig, when set, answers the header text of Decls[i] with its spaces
	// collapsed; "" when it has none.
	Sig func(i int) string

	sorted []int // Lines in order, made on first use
}

// sort orders the side's lines once: each declaration then asks a binary
// search, however long its span (nested spans cover the file many times).
func (s *Side) sort() {
	s.sorted = make([]int, 0, len(s.Lines))
	for l, ok := range s.Lines {
		if ok {
			s.sorted = append(s.sorted, l)
		}
	}
	slices.Sort(s.sorted)
}

// In reports whether a changed line lies in [from, to].
func (s *Side) In(from, to int) bool {
	if s.sorted == nil {
		s.sort()
	}
	i, _ := slices.BinarySearch(s.sorted, from)
	return i < len(s.sorted) && s.sorted[i] <= to
}

// hit reports whether a changed line lies in d's touching span.
func (s *Side) hit(d *Decl) bool {
	if d.ByHeader {
		return s.In(d.From, d.headTo())
	}
	return s.In(d.From, d.To)
}

// change is how the side's lines changed d.
func (s *Side) change(d *Decl) engine.DeclChange {
	switch {
	case !d.Callable:
		return engine.ChangedDecl
	case s.In(d.From, d.headTo()):
		return engine.ChangedSignature
	}
	return engine.ChangedBody
}

// Touch is one touched declaration: Decls[Index] of the head, or of the
// base when Base (a removed declaration, or one the head declares in
// another file).
type Touch struct {
	Base   bool
	Index  int
	Change engine.DeclChange
}

// Touched answers the declarations the change touched, each once, in the
// order found: the head's first, then the base's. head or base is nil for
// an added or deleted file. declaredElsewhere, when set, reports whether
// the head declares base.Decls[j] outside this file.
func Touched(head, base *Side, declaredElsewhere func(j int) bool) []Touch {
	var out []Touch
	at := map[id]int{} // index in out
	headAt := map[id]int{}
	if head != nil {
		for i := range head.Decls {
			d := &head.Decls[i]
			k := d.id()
			if _, ok := headAt[k]; !ok {
				headAt[k] = i
			}
			if _, ok := at[k]; ok || !head.hit(d) {
				continue
			}
			at[k] = len(out)
			out = append(out, Touch{Index: i, Change: head.change(d)})
		}
	}
	if base == nil {
		return out
	}
	baseAt := map[id][]int{}
	for j := range base.Decls {
		d := &base.Decls[j]
		k := d.id()
		baseAt[k] = append(baseAt[k], j)
		if !base.hit(d) {
			continue
		}
		if i, ok := at[k]; ok {
			if ch := base.change(d); ch > out[i].Change && out[i].Change != engine.RemovedDecl {
				out[i].Change = ch
			}
			continue
		}
		at[k] = len(out)
		if i, ok := headAt[k]; ok {
			out = append(out, Touch{Index: i, Change: base.change(d)})
			continue
		}
		ch := engine.RemovedDecl
		if declaredElsewhere != nil && declaredElsewhere(j) {
			ch = base.change(d)
		}
		out = append(out, Touch{Base: true, Index: j, Change: ch})
	}
	if head == nil || head.Sig == nil || base.Sig == nil {
		return out
	}
	for n, t := range out {
		if t.Base || (t.Change != engine.ChangedBody && t.Change != engine.ChangedSignature) {
			continue
		}
		sig := head.Sig(t.Index)
		olds := baseAt[head.Decls[t.Index].id()]
		if sig == "" || len(olds) == 0 {
			continue
		}
		out[n].Change = engine.ChangedSignature
		for _, j := range olds {
			if base.Sig(j) == sig {
				out[n].Change = engine.ChangedBody
				break
			}
		}
	}
	return out
}
