package modtypes

import (
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Chains of builders: what a link of x.a().b() returns when the member
// returns its receiver, and calls of imported names spelled like keywords.

// selfTypes adds to ts, the types member m of b gives, b itself when
// they name a supertype of b declaring m (Predicate.not(): this, reached
// through a WeakMapPredicate): a builder's member returning its own
// class, "this" included, leaves a subclass's receiver a subclass, whose
// members the next link of the chain may name.
func (w *World) selfTypes(b Type, m string, ts []Type, depth int) []Type {
	if b.File == nil || slices.Contains(ts, b) || len(ts) == 0 {
		return ts
	}
	for _, d := range w.declaring(b, m, depth) {
		if d != b && slices.Contains(ts, d) {
			return append(ts, b)
		}
	}
	return ts
}

// importsBinding reports whether an import clause of f binds name (a
// contextual keyword a schema library exports: import {string}).
func importsBinding(f *lexed.File, name string) bool {
	return slices.ContainsFunc(f.Imports, func(im lexed.Import) bool { return !im.Export && !im.Call && slices.Contains(im.Names, name) })
}
