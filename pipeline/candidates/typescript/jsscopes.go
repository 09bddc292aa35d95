package typescript

import (
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
		f.params = jsdecl.ParamScopes(f.File)
	}
	return f.params
}
