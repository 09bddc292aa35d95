package typescript

import (
	"fmt"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// renamedUsesIn records the files declaring the names an added line uses
// that an import binds under a name no declaration has: an index importing
// a module's create as stringCreate and exporting it as string (import
// {string} from '../src'; string()) leads to the module declaring create,
// which the search by words never reads (no file declares string).
func (s *tokSearch) renamedUsesIn(ev *engine.Evidence) {
	if s.world == nil || s.nf == nil || s.nf.Lang != lexed.LangJS {
		return
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range s.useNames {
			if !s.memberOnly[n] && !yield(n) {
				return
			}
		}
	}) {
		// A default import is usesIn's ("exports ... by default").
		if s.declares(n) || !slices.ContainsFunc(s.nf.Imports, func(im lexed.Import) bool { return !im.Export && im.Default != n && slices.Contains(im.Names, n) }) {
			continue
		}
		p := s.world.DeclaredIn(s.nf.File, n)
		if p == "" || p == s.nf.Path || ev.Changed[p] || engine.SkippedPath(p) {
			continue
		}
		ev.Add(p, engine.Item{Kind: engine.KindUses, Symbol: n, Method: engine.MethodTokens, Score: lexed.ScoreImported,
			Reason: fmt.Sprintf("declares what `%s` names through the imports renaming it, used by the change in %s", n, engine.PathBase(s.c.Path))})
	}
}
