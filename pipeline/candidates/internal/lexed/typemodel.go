package lexed

import (
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// The declared-type model, shared by the TypeScript, Python and Java engines.
//
// Most calls outside Go are receiver.method(): which file declares method
// depends on the receiver's type. Each language's reader fills a file's
// TypeModel from what the source declares (annotations, x = C(),
// x = new C(), self.x = C() / this.x = new C(), fields, parameters, return
// types, await), and a hierarchy over the searched files answers which class
// (or supertype) declares a member. The model is per file, not per scope: a
// name given two types keeps both, so a wrong guess costs precision, never
// a lost candidate.

// TypeModel is what one file declares about the types of its names.
type TypeModel struct {
	// vars maps a receiver as written ("x", "this.x", "self.x") to type names.
	Vars map[string][]string
	// returns maps a function ("f") or method ("C.m") to its return type names.
	Returns map[string][]string
	// supers maps a class or interface to its direct supertypes.
	Supers map[string][]string
	// calls maps a receiver to the functions whose results it was assigned
	// (x = f(), x = await obj.f()): its types are their return types.
	Calls map[string][]string
	// Fields maps a field or property "C.f" to its declared type names.
	Fields map[string][]string
	// Inits maps a JS name to the indexes of the first tokens of the
	// expressions assigned to it (x = a.f().g), evaluated across modules
	// by the TypeScript engine.
	Inits map[string][]int
	// Params maps a function ("f"), method ("C.m") or call signature
	// ("C()") to its parameters' type names by position; overloads merge
	// position by position.
	Params map[string][][]string
}

func NewTypeModel() *TypeModel {
	return &TypeModel{Vars: map[string][]string{}, Returns: map[string][]string{}, Supers: map[string][]string{}, Calls: map[string][]string{},
		Fields: map[string][]string{}, Inits: map[string][]int{}, Params: map[string][][]string{}}
}

// AddField records that field or property "C.f" has type typ.
func (m *TypeModel) AddField(field, typ string) { AddUnique(m.Fields, field, typ) }

// AddParams records the parameter types of fn by position.
func (m *TypeModel) AddParams(fn string, types []string) {
	if fn == "" {
		return
	}
	ps := m.Params[fn]
	for i, t := range types {
		if i >= 16 {
			break
		}
		for len(ps) <= i {
			ps = append(ps, nil)
		}
		if t != "" && !slices.Contains(ps[i], t) {
			ps[i] = append(ps[i], t)
		}
	}
	m.Params[fn] = ps
}

func AddUnique(m map[string][]string, k, v string) {
	if k != "" && v != "" {
		m[k] = engine.AppendNew(m[k], v)
	}
}

// addVar records that receiver name holds a value of type typ.
func (m *TypeModel) AddVar(name, typ string) { AddUnique(m.Vars, name, typ) }

// addReturn records that function or method fn returns typ.
func (m *TypeModel) AddReturn(fn, typ string) { AddUnique(m.Returns, fn, typ) }

// addCall records that receiver name was assigned the result of calling fn.
func (m *TypeModel) AddCall(name, fn string) { AddUnique(m.Calls, name, fn) }

// SupersOf answers m's supertypes by class (nil for no model).
func (m *TypeModel) SupersOf() map[string][]string {
	if m == nil {
		return nil
	}
	return m.Supers
}

// addSuper records that class extends or implements super.
func (m *TypeModel) AddSuper(class, super string) {
	if class != super {
		AddUnique(m.Supers, class, super)
	}
}

// Receiver returns how the receiver of the member token toks[i] (preceded
// by ".") is written: "x" for x.m, "this.x" / "self.x" for this.x.m, and for
// a call f().m or obj.f().m the callee "f()" (its return type is looked up).
// It answers "" when the receiver is none of these.
func Receiver(toks []Tok, i int) string {
	if i < 2 || toks[i-1].Text != "." {
		return ""
	}
	r := toks[i-2]
	if r.Kind == TkIdent {
		if i >= 4 && toks[i-3].Text == "." && (toks[i-4].Text == "this" || toks[i-4].Text == "self") {
			return toks[i-4].Text + "." + r.Text
		}
		return r.Text
	}
	if r.Text != ")" {
		return ""
	}
	depth := 0
	for j := i - 2; j >= 0; j-- {
		switch toks[j].Text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				if j > 0 && toks[j-1].Kind == TkIdent {
					return toks[j-1].Text + "()"
				}
				return ""
			}
		}
	}
	return ""
}

// typesOf answers the type names of receiver r as written by receiver: a
// variable's declared types, or a called function's return types (a method
// call "m()" matches the return types of every C.m the file knows).
func (m *TypeModel) TypesOf(r string) []string {
	if m == nil || r == "" {
		return nil
	}
	if fn, ok := CutSuffix(r, "()"); ok {
		if ts := m.Returns[fn]; len(ts) > 0 {
			return ts
		}
		var out []string
		for k, ts := range m.Returns {
			if _, name, ok := CutLastDot(k); ok && name == fn {
				out = engine.AppendNew(out, ts...)
			}
		}
		slices.Sort(out)
		return out
	}
	out := m.Vars[r]
	for _, fn := range m.Calls[r] {
		out = engine.AppendNew(slices.Clip(out), m.TypesOf(fn+"()")...)
	}
	return out
}

func CutSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

func CutLastDot(s string) (before, after string, ok bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}

// Hierarchy answers, over a set of files, which classes declare which
// members and which classes extend which: the part of the model that
// crosses files.
type Hierarchy struct {
	members map[string][]map[string]bool // class -> the member names each file adding it declares
	Supers  map[string][]string          // class -> direct supertypes
}

func NewHierarchy() *Hierarchy {
	return &Hierarchy{members: map[string][]map[string]bool{}, Supers: map[string][]string{}}
}

// Members is a file's member names by class (MembersOf): made once per
// file, it lets each search add the file without rebuilding them.
type Members map[string]map[string]bool

// MembersOf answers the member names f declares in each class.
func MembersOf(f *File) Members {
	out := Members{}
	for _, d := range f.Decls {
		if d.Container == "" {
			continue
		}
		ms := out[d.Container]
		if ms == nil {
			ms = map[string]bool{}
			out[d.Container] = ms
		}
		ms[d.Name] = true
	}
	return out
}

// Add records f's classes, their members (members, f's MembersOf, made
// once per file: the hierarchy keeps them, so they must not change after)
// and their supertypes.
func (h *Hierarchy) Add(f *File, members Members) {
	for c, ms := range members {
		h.members[c] = append(h.members[c], ms)
	}
	if f.Types == nil {
		return
	}
	for c, ss := range f.Types.Supers {
		h.Supers[c] = engine.AppendNew(h.Supers[c], ss...)
	}
}

// declares reports whether a file added declares member in class c.
func (h *Hierarchy) declares(c, member string) bool {
	for _, ms := range h.members[c] {
		if ms[member] {
			return true
		}
	}
	return false
}

// declaring answers the classes among typ and its supertypes (transitively)
// that declare member, nearest first.
func (h *Hierarchy) Declaring(typ, member string) []string {
	var out []string
	seen := map[string]bool{}
	queue := []string{typ}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if h.declares(c, member) {
			out = append(out, c)
		}
		queue = append(queue, h.Supers[c]...)
	}
	return out
}
