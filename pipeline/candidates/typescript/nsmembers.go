package typescript

import (
	"fmt"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// maxNamespaceMembers bounds the members of namespaces followed per change.
const maxNamespaceMembers = 32

// namespaceMembersIn records the files declaring the members that added
// lines reach through a name bound to a module as a namespace (Type.String()
// with import {Type} from 'typebox' and the package's export * as Type from
// './typebox.ts'): the module re-exports the member from the file declaring
// it, which is what the change uses, one hop past the module
// (namespaceUsesIn).
func (s *tokSearch) namespaceMembersIn(ev *engine.Evidence) {
	nf := s.nf
	if nf == nil || s.world == nil || nf.Lang != lexed.LangJS {
		return
	}
	seen := map[string]bool{}
	for i, t := range nf.Toks {
		if t.Kind != lexed.TkIdent || !s.c.Added[t.Line] || lexed.TextAt(nf.Toks, i+1) != "." || i+2 >= len(nf.Toks) ||
			nf.Toks[i+2].Kind != lexed.TkIdent || i > 0 && nf.Toks[i-1].Text == "." {
			continue
		}
		name := t.Text + "." + nf.Toks[i+2].Text
		if seen[name] || len(seen) >= maxNamespaceMembers {
			continue
		}
		if bound, external := bindingImports(nf, t.Text); !bound || external || shadowedAt(nf, i) {
			continue
		}
		seen[name] = true
		p := s.world.NamespaceMemberFile(nf.File, t.Text, nf.Toks[i+2].Text)
		if p == "" || ev.Changed[p] || engine.SkippedPath(p) {
			continue
		}
		ev.Add(p, engine.Item{Kind: engine.KindUses, Symbol: name, Method: engine.MethodTokens, Score: lexed.ScoreImported,
			Reason: fmt.Sprintf("declares `%s`, used by the change in %s", name, engine.PathBase(s.c.Path))})
	}
}
