package typescript

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/jsdecl"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// Parameters that shadow imports. A test's callback often names a
// parameter like the module it imports (import got from '../source';
// test('x', withServer, async (t, server, got) => got.stream(...))): inside
// the callback the name is the parameter, not the import, and the module's
// file is no evidence of it.

// shadowedAt reports whether the name token f.Toks[i] is a parameter of a
// function enclosing it.
func shadowedAt(f *jsFile, i int) bool {
	return modtypes.InScope(f.scopes()[f.Toks[i].Text], i)
}

// scopes returns f's parameter scopes by name, read on first use (on the
// request's own jsFile: the lexed file is shared and not changed).
func (f *jsFile) scopes() map[string][]modtypes.Scope {
	if f.params == nil {
		f.params = paramScopes(f.cache, f.File)
	}
	return f.params
}

// paramScopes returns the parameter scopes of f by name, kept in the
// readers' cache with f's reading: the next request reading the same
// content (a file the next pull request leaves unchanged) finds them
// there, as does every search of this one.
func paramScopes(c *engine.Cache, f *lexed.File) map[string][]modtypes.Scope {
	if c == nil || f.Sum == (engine.Sum{}) || len(f.Toks) == 0 {
		return jsdecl.ParamScopes(f)
	}
	return engine.CachedAt(c, engine.KeyAt("typescript-scopes", f.Path, f.Sum), func() (map[string][]modtypes.Scope, int64) {
		s := jsdecl.ParamScopes(f)
		w := int64(0)
		for _, ps := range s {
			w += 64 + int64(len(ps))*48
		}
		return s, w
	})
}
