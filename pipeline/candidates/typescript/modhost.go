package typescript

import (
	"context"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// modHost gives the reading of types across modules (modtypes) this
// engine's lexing, import resolution and parameter scopes, for one Find.
type modHost struct {
	aliases *modpaths.Aliases
	cache   *engine.Cache
	scopes  map[*lexed.File]map[string][]modtypes.Scope
}

func newTypeWorld(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, cache *engine.Cache) *modtypes.World {
	return modtypes.New(ctx, tree, &modHost{aliases: aliases, cache: cache, scopes: map[*lexed.File]map[string][]modtypes.Scope{}})
}

func (h *modHost) Lex(p string, src []byte) *lexed.File {
	return cachedJS(h.cache, p, src, h.aliases).File
}

func (h *modHost) Aliases(spec string) []string { return h.aliases.Resolve(spec) }

func (h *modHost) External(f *lexed.File, im lexed.Import) bool {
	return externalImport(&jsFile{File: f, aliases: h.aliases}, im)
}

func (h *modHost) Scopes(f *lexed.File) map[string][]modtypes.Scope {
	s, ok := h.scopes[f]
	if !ok {
		s = paramScopes(h.cache, f)
		h.scopes[f] = s
	}
	return s
}
