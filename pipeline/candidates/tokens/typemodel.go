package tokens

import "slices"

// The declared-type model, shared by the languages of the token engine.
//
// Most calls outside Go are receiver.method(): which file declares method
// depends on the receiver's type. Each language's reader fills a file's
// typeModel from what the source declares (annotations, x = C(),
// x = new C(), self.x = C() / this.x = new C(), fields, parameters, return
// types, await), and a hierarchy over the searched files answers which class
// (or supertype) declares a member. The model is per file, not per scope: a
// name given two types keeps both, so a wrong guess costs precision, never
// a lost candidate.

// typeModel is what one file declares about the types of its names.
type typeModel struct {
	// vars maps a receiver as written ("x", "this.x", "self.x") to type names.
	vars map[string][]string
	// returns maps a function ("f") or method ("C.m") to its return type names.
	returns map[string][]string
	// supers maps a class or interface to its direct supertypes.
	supers map[string][]string
	// calls maps a receiver to the functions whose results it was assigned
	// (x = f(), x = await obj.f()): its types are their return types.
	calls map[string][]string
}

func newTypeModel() *typeModel {
	return &typeModel{vars: map[string][]string{}, returns: map[string][]string{}, supers: map[string][]string{}, calls: map[string][]string{}}
}

func addUnique(m map[string][]string, k, v string) {
	if k == "" || v == "" || slices.Contains(m[k], v) {
		return
	}
	m[k] = append(m[k], v)
}

// addVar records that receiver name holds a value of type typ.
func (m *typeModel) addVar(name, typ string) { addUnique(m.vars, name, typ) }

// addReturn records that function or method fn returns typ.
func (m *typeModel) addReturn(fn, typ string) { addUnique(m.returns, fn, typ) }

// addCall records that receiver name was assigned the result of calling fn.
func (m *typeModel) addCall(name, fn string) { addUnique(m.calls, name, fn) }

// addSuper records that class extends or implements super.
func (m *typeModel) addSuper(class, super string) {
	if class != super {
		addUnique(m.supers, class, super)
	}
}

// receiver returns how the receiver of the member token toks[i] (preceded
// by ".") is written: "x" for x.m, "this.x" / "self.x" for this.x.m, and for
// a call f().m or obj.f().m the callee "f()" (its return type is looked up).
// It answers "" when the receiver is none of these.
func receiver(toks []tok, i int) string {
	if i < 2 || toks[i-1].text != "." {
		return ""
	}
	r := toks[i-2]
	if r.kind == tkIdent {
		if i >= 4 && toks[i-3].text == "." && (toks[i-4].text == "this" || toks[i-4].text == "self") {
			return toks[i-4].text + "." + r.text
		}
		return r.text
	}
	if r.text != ")" {
		return ""
	}
	depth := 0
	for j := i - 2; j >= 0; j-- {
		switch toks[j].text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				if j > 0 && toks[j-1].kind == tkIdent {
					return toks[j-1].text + "()"
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
func (m *typeModel) typesOf(r string) []string {
	if m == nil || r == "" {
		return nil
	}
	if fn, ok := cutSuffix(r, "()"); ok {
		if ts := m.returns[fn]; len(ts) > 0 {
			return ts
		}
		var out []string
		for k, ts := range m.returns {
			if _, name, ok := cutLastDot(k); ok && name == fn {
				for _, t := range ts {
					if !slices.Contains(out, t) {
						out = append(out, t)
					}
				}
			}
		}
		slices.Sort(out)
		return out
	}
	out := m.vars[r]
	for _, fn := range m.calls[r] {
		for _, t := range m.typesOf(fn + "()") {
			if !slices.Contains(out, t) {
				out = append(slices.Clip(out), t)
			}
		}
	}
	return out
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

func cutLastDot(s string) (before, after string, ok bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}

// hierarchy answers, over a set of files, which classes declare which
// members and which classes extend which: the part of the model that
// crosses files.
type hierarchy struct {
	members map[string]map[string]bool // class -> member names it declares
	supers  map[string][]string        // class -> direct supertypes
}

func newHierarchy() *hierarchy {
	return &hierarchy{members: map[string]map[string]bool{}, supers: map[string][]string{}}
}

// add records f's classes, their members and their supertypes.
func (h *hierarchy) add(f *tfile) {
	for _, d := range f.decls {
		if d.container == "" {
			continue
		}
		ms := h.members[d.container]
		if ms == nil {
			ms = map[string]bool{}
			h.members[d.container] = ms
		}
		ms[d.name] = true
	}
	if f.types == nil {
		return
	}
	for c, ss := range f.types.supers {
		for _, s := range ss {
			if !slices.Contains(h.supers[c], s) {
				h.supers[c] = append(h.supers[c], s)
			}
		}
	}
}

// declaring answers the classes among typ and its supertypes (transitively)
// that declare member, nearest first.
func (h *hierarchy) declaring(typ, member string) []string {
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
		if h.members[c][member] {
			out = append(out, c)
		}
		queue = append(queue, h.supers[c]...)
	}
	return out
}
