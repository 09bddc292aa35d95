package modtypes

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Parameters: the types a callback's parameter or a call's argument takes
// from the callee's declared parameters.

// callbackTypes returns the types of the parameter name at toks[k] of f
// from the call its function is an argument of; nil when it is none.
func (w *World) callbackTypes(f *lexed.File, k, depth int) []Type {
	toks := f.Toks
	name := toks[k].Text
	var scope Scope
	found := false
	for _, p := range w.host.Scopes(f)[name] {
		if p.From <= k && k <= p.To && (!found || p.From > scope.From) {
			scope, found = p, true
		}
	}
	if !found {
		return nil
	}
	pos, start := scope.Pos, scope.From
	if lexed.TextAt(toks, start-1) == "function" {
		start--
	} else if lexed.TextAt(toks, start-2) == "function" && start >= 2 && toks[start-1].Kind == lexed.TkIdent {
		start -= 2 // a named function expression
	}
	if lexed.TextAt(toks, start-1) == "async" {
		start--
	}
	fns := w.argParams(f, start, depth)
	if len(fns) == 0 {
		fns = w.contextTypes(f, start)
	}
	var out []Type
	for _, p := range fns {
		out = engine.AppendNew(out, w.signatureParam(p, pos, depth+1)...)
	}
	if len(out) == 0 {
		out = w.keyParamTypes(f, start, pos, depth)
	}
	return out
}

// keyParamTypes returns the types of parameter pos of a function that is
// the value of a key of an object literal, or its method (validate:
// (value, args) => ..., validate(value, args) {...}), starting at
// toks[start]: those of that member of the literal's types.
func (w *World) keyParamTypes(f *lexed.File, start, pos, depth int) []Type {
	toks := f.Toks
	k := start - 1 // the key
	if lexed.TextAt(toks, k) == ":" {
		k--
	}
	// A quoted key names its member too ('~validate'(dataset) {...}).
	if k < 1 || toks[k].Kind != lexed.TkIdent && toks[k].Kind != lexed.TkString || (toks[k-1].Text != "{" && toks[k-1].Text != ",") {
		return nil
	}
	var out []Type
	for _, t := range w.literalTypes(f, f.Brackets.Enclosing(toks, k), depth+1) {
		out = engine.AppendNew(out, w.memberParams(t, toks[k].Text, pos, depth+1)...)
	}
	return out
}

// literalTypes returns the declared types of the object literal opened by
// toks[b] of f: the parameter's it is passed to as an argument, the
// declared return type of the function returning it or the annotation of
// the variable it is assigned to (contextTypes), or the member's of an
// outer literal it is the value of (ValidateBy({validator: {...}}):
// ValidateByOptions.validator's type).
func (w *World) literalTypes(f *lexed.File, b, depth int) []Type {
	toks := f.Toks
	if b < 1 || toks[b].Text != "{" || w.tooDeep(depth) || !w.step() {
		return nil
	}
	if ts := w.argParams(f, b, depth); len(ts) > 0 {
		return ts
	}
	if ts := w.contextTypes(f, b); len(ts) > 0 {
		return ts
	}
	k := b - 2 // the outer literal's key
	if toks[b-1].Text != ":" || k < 1 || toks[k].Kind != lexed.TkIdent || (toks[k-1].Text != "{" && toks[k-1].Text != ",") {
		return nil
	}
	var out []Type
	for _, t := range w.literalTypes(f, f.Brackets.Enclosing(toks, k), depth+1) {
		out = engine.AppendNew(out, w.memberTypes(t, toks[k].Text, false, depth+1)...)
	}
	return out
}

// maxAnnotationTokens bounds the walk back over a variable's annotation.
const maxAnnotationTokens = 64

// contextTypes returns the declared types a function expression starting
// at toks[start] of f takes from where it stands, when it is no argument:
// returned by, or the arrow body of, a function whose declared return type
// is a function type (return async (c, next) => ... inside
// (): MiddlewareHandler => {...}), or the value of a variable annotated
// with one (const h: Handler = (c) => ...).
func (w *World) contextTypes(f *lexed.File, start int) []Type {
	toks := f.Toks
	switch prev := lexed.TextAt(toks, start-1); {
	case prev == "return" || prev == ">" && lexed.TextAt(toks, start-2) == "=":
		best := -1
		for k, d := range f.Decls {
			if d.From <= toks[start].Line && toks[start].Line <= d.To && (best < 0 || d.From >= f.Decls[best].From) && len(f.Types.Returns[lexed.Display(d)]) > 0 {
				best = k
			}
		}
		if best >= 0 {
			return w.named(f, f.Types.Returns[lexed.Display(f.Decls[best])])
		}
	case prev == "=":
		for k := start - 2; k >= 2 && start-k < maxAnnotationTokens && toks[k].Text != ";" && toks[k].Text != "="; k-- {
			if toks[k].Text == ":" && toks[k-1].Kind == lexed.TkIdent {
				if kw := lexed.TextAt(toks, k-2); kw == "const" || kw == "let" || kw == "var" {
					return w.named(f, f.Types.Vars[toks[k-1].Text])
				}
			}
		}
	}
	return nil
}

// ArgumentTypes returns the types of the parameter that the argument
// starting at f.Toks[k] is passed to (got('u', {retry: 2}): the type of
// got's second parameter), as far as the files read tell; nil when
// f.Toks[k] starts no argument of a call.
func (w *World) ArgumentTypes(f *lexed.File, k int) []Type {
	if f == nil || f.Types == nil {
		return nil
	}
	return w.argParams(f, k, 0)
}

// argParams returns the types of the callee's parameter that the argument
// starting at toks[start] of f is passed to.
func (w *World) argParams(f *lexed.File, start, depth int) []Type {
	toks := f.Toks
	// The argument list holding the argument: back over the arguments
	// before it to the call's '('.
	n := 0
	j := start - 1
	for ; j >= 0; j-- {
		t := toks[j]
		if t.Text == "," {
			n++
			continue
		}
		if t.Text == ")" || t.Text == "]" || t.Text == "}" {
			if j = f.Brackets.Open(j); j < 0 {
				return nil
			}
			continue
		}
		if t.Text == "(" || t.Text == "[" || t.Text == "{" || t.Text == ";" {
			break
		}
	}
	if j < 1 || toks[j].Text != "(" {
		return nil
	}
	c := j - 1
	if toks[c].Text == ">" {
		if q := openOf(f, c); q > 0 {
			c = q - 1
		}
	}
	if toks[c].Kind != lexed.TkIdent {
		return nil
	}
	var params []Type // the types of the callee's parameter n
	if r, ok := memberReceiverEnd(toks, c); ok {
		for _, b := range w.exprTypes(f, r, depth+1) {
			params = engine.AppendNew(params, w.memberParams(b, toks[c].Text, n, depth+1)...)
		}
	} else {
		params = w.funcParams(f, toks[c].Text, n, depth+1)
	}
	return params
}

// at returns the type names of position n of a parameter list's types.
func at(ps [][]string, n int) []string {
	if n < 0 || n >= len(ps) {
		return nil
	}
	return ps[n]
}

// memberParams returns the types of parameter n of member m of t: a
// method's, or the call signature of a property's type
// (get: HandlerInterface), looked up in t's supertypes too.
func (w *World) memberParams(t Type, m string, n, depth int) []Type {
	if t.File == nil || w.tooDeep(depth) || !w.step() {
		return nil
	}
	key := t.Name + "." + m
	if ps := at(t.File.Types.Params[key], n); len(ps) > 0 {
		return w.named(t.File, ps)
	}
	var out []Type
	for _, ft := range w.named(t.File, t.File.Types.Fields[key]) {
		out = engine.AppendNew(out, w.signatureParam(ft, n, depth+1)...)
	}
	if len(out) > 0 {
		return out
	}
	for _, s := range w.named(t.File, t.File.Types.Supers[t.Name]) {
		out = engine.AppendNew(out, w.memberParams(s, m, n, depth+1)...)
	}
	return out
}

// funcParams returns the types of parameter n of the function fn as f
// sees it (declared there or imported).
func (w *World) funcParams(f *lexed.File, fn string, n, depth int) []Type {
	if ps := at(f.Types.Params[fn], n); len(ps) > 0 {
		return w.named(f, ps)
	}
	g, name := w.declOf(f, fn, 0)
	if g == nil {
		return nil
	}
	if ps := at(g.Types.Params[name], n); len(ps) > 0 {
		return w.named(g, ps)
	}
	var out []Type
	for _, t := range w.valueTypes(g, name, depth+1) {
		out = engine.AppendNew(out, w.signatureParam(t, n, depth+1)...)
	}
	return out
}

// signatureParam returns the types of parameter n of calling a t: of its
// call signature (a function type alias, an interface's call signature),
// or of those of the types it unites or extends.
func (w *World) signatureParam(t Type, n, depth int) []Type {
	if t.File == nil || w.tooDeep(depth) || !w.step() {
		return nil
	}
	if ps := at(t.File.Types.Params[t.Name+"()"], n); len(ps) > 0 {
		return w.named(t.File, ps)
	}
	var out []Type
	for _, s := range w.named(t.File, t.File.Types.Supers[t.Name]) {
		out = engine.AppendNew(out, w.signatureParam(s, n, depth+1)...)
	}
	return out
}
