package typescript

import (
	"context"
	"maps"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
)

// Members with common names. A touched member named like what nearly
// every class declares (get, set, run: lexed.CommonMember) is not among
// the search's words: its name alone ties a file to nothing. Its
// references are the member accesses whose receiver's type, read across
// modules, is the member's class (c.set(...) inside a handler given the
// changed Context), looked for in the files holding the name, and only
// those.

// maxCommonFiles bounds the files read for the members with common names
// of one change.
const maxCommonFiles = 256

// commonMember reports whether the touched declaration d of the JS file
// at p is a member with a common name, looked up by its receivers' types
// only (commonIn).
func commonMember(p string, d lexed.Decl) bool {
	return lexed.LangOf(p) == lexed.LangJS && d.Container != "" && !d.Static && d.Name != "constructor" &&
		(d.Kind == "method" || d.Kind == "field")
}

// commonIn records the files whose member accesses of the common names
// of s.common resolve to the touched members' classes.
func (s *tokSearch) commonIn(ctx context.Context, tree engine.Tree, aliases *modpaths.Aliases, ev *engine.Evidence) error {
	if len(s.common) == 0 || s.world == nil {
		return nil
	}
	paths, err := engine.Found(ctx, tree, ev, lexed.Query(lexed.LangJS, slices.Sorted(maps.Keys(s.common))))
	if err != nil {
		return err
	}
	return s.eachSearched(ctx, tree, aliases, ev, paths, maxCommonFiles, nil, func(_ string, g *jsFile) { s.commonRefsIn(g, ev) })
}

// commonRefsIn records g's member accesses of s.common's names whose
// receivers resolve to the touched members' classes.
func (s *tokSearch) commonRefsIn(g *jsFile, ev *engine.Evidence) {
	if g.Types == nil {
		return
	}
	seen := map[*lexed.Sym]bool{}
	for i, t := range g.Toks {
		ss := s.common[t.Text]
		if t.Kind != lexed.TkIdent || len(ss) == 0 || i < 2 || g.Toks[i-1].Text != "." {
			continue
		}
		for _, sym := range ss {
			if seen[sym] || !s.receiverIs(g, i, sym) {
				continue
			}
			seen[sym] = true
			addRef(ev, g.Path, sym, lexed.ScoreMember, i+1 < len(g.Toks) && g.Toks[i+1].Text == "(", false)
		}
	}
}
