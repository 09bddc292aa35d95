package typescript

import (
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// Members through the declared-type model: a member used on an added line,
// recv.m, belongs to the class its receiver's declared type names (this:
// the enclosing class; a field, parameter or local: its annotation or
// new C(); a call: its return type), or to one of that class's supertypes.
// A receiver of a known type rules out the other classes declaring m; one
// of unknown type leaves them all possible.

// maxTypedReceivers bounds the receiver types kept per member name.
const maxTypedReceivers = 4

// receivers is what the receivers of one member name resolve to.
type receivers struct {
	classes map[string]bool // the classes (and their supertypes) receivers resolve to
	unknown bool            // some receiver's type is not known
	files   []string        // the files declaring classes found across modules
	// classFiles maps the classes found across modules to the files declaring
	// them: a class of that name in another file is another class.
	classFiles map[string][]string
	// typed are the receivers' types declared in other files as type
	// aliases where no member of that name was found (Deferred =
	// ReturnType<typeof createDeferred>: its members are not declared one
	// by one; a class's unfound member is more likely an external base
	// class's).
	typed []modtypes.Type
}

// memberReceivers returns, per member name used after a '.' on an added
// line of the JS file nf, what its receivers resolve to.
func memberReceivers(c *engine.Change, nf *jsFile, w *modtypes.World) map[string]*receivers {
	out := map[string]*receivers{}
	if nf == nil || nf.Lang != lexed.LangJS || nf.Types == nil {
		return out
	}
	for i, t := range nf.Toks {
		if t.Kind != lexed.TkIdent || !c.Added[t.Line] || i < 2 || nf.Toks[i-1].Text != "." {
			continue
		}
		rc := out[t.Text]
		if rc == nil {
			rc = &receivers{classes: map[string]bool{}}
			out[t.Text] = rc
		}
		if w != nil && rc.across(w, nf, i) {
			continue
		}
		types := receiverTypes(nf, i)
		if len(types) == 0 {
			rc.unknown = true
			continue
		}
		for _, typ := range types {
			addWithSupers(rc.classes, nf.Types, typ)
		}
	}
	return out
}

// across resolves the receiver of the member token Toks[i] of f across
// modules (modtypes) and records the nearest classes declaring the member;
// it reports whether it found one.
func (rc *receivers) across(w *modtypes.World, f *jsFile, i int) bool {
	recv := w.Receiver(f.File, i)
	found := w.Declaring(recv, f.Toks[i].Text)
	if len(found) == 0 {
		for _, t := range recv {
			if t.File != nil && t.File.Path != f.Path && isTypeAlias(t) && !slices.Contains(rc.typed, t) && len(rc.typed) < maxTypedReceivers {
				rc.typed = append(rc.typed, t)
			}
		}
	}
	for _, t := range found {
		rc.classes[t.Name] = true
		if rc.classFiles == nil {
			rc.classFiles = map[string][]string{}
		}
		if !slices.Contains(rc.classFiles[t.Name], t.File.Path) {
			rc.classFiles[t.Name] = append(rc.classFiles[t.Name], t.File.Path)
		}
		if t.File.Path != f.Path && !slices.Contains(rc.files, t.File.Path) {
			rc.files = append(rc.files, t.File.Path)
		}
	}
	return len(found) > 0
}

// receiverTypes returns the declared types of the receiver of the member
// token toks[i] of f.
func receiverTypes(f *jsFile, i int) []string {
	toks := f.Toks
	// this.#x.m: the private field #x.
	if i >= 5 && toks[i-3].Text == "#" && toks[i-4].Text == "." && toks[i-5].Text == "this" {
		return f.Types.TypesOf("this.#" + toks[i-2].Text)
	}
	r := lexed.Receiver(toks, i)
	if r == "this" {
		if c := lexed.EnclosingClass(f.File, toks[i].Line); c != "" {
			return []string{c}
		}
		return nil
	}
	return f.Types.TypesOf(r)
}

// addWithSupers adds typ and its supertypes (as far as m knows them).
func addWithSupers(set map[string]bool, m *lexed.TypeModel, typ string) {
	if set[typ] {
		return
	}
	set[typ] = true
	for _, s := range m.Supers[typ] {
		addWithSupers(set, m, s)
	}
}

// isTypeAlias reports whether t's file declares t as a type alias, or as
// a value whose members its initializer makes (export const helpers =
// {isString() {...}}, a function's group.if = ...), reached as a field
// holding it (helpers = helpers) or as typeof helpers.
func isTypeAlias(t modtypes.Type) bool {
	return slices.ContainsFunc(t.File.Decls, func(d lexed.Decl) bool {
		return d.Container == "" && d.Name == t.Name && (d.Kind == "type" || d.Kind == "variable" || d.Kind == "function")
	})
}

// typedMembers adds to the used names the members whose receivers on
// added lines resolve, across modules, to types another file declares with
// the member, whatever usedNames left them out for: a name shorter than
// lexed.MinMemberLength (get, url) is noise alone, its receiver's type is
// not (ky.get is the get of the interface ky's file declares); a name the
// changed file declares too, for another class (ctx.data where ctx is
// another file's ParseContext), is no local.
func typedMembers(recv map[string]*receivers, useNames, memberOnly map[string]bool) {
	for n, rc := range recv {
		if len(n) < 2 || useNames[n] || len(rc.files) == 0 {
			continue
		}
		useNames[n], memberOnly[n] = true, true
	}
}
