package typescript

import (
	"fmt"
	"slices"

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

// namedNamespaces returns the names g imports by name that bind the changed
// file as a namespace (import {Value} from './value' where an index holds
// export * as Value from './value/value'), looked up only for names followed
// by a touched module-level name (Value.Clean): their members are the
// changed file's declarations, as those of import * as Value would be.
func (s *tokSearch) namedNamespaces(g *jsFile) []string {
	if s.world == nil || g.Lang != lexed.LangJS {
		return nil
	}
	var out []string
	tried := map[string]bool{}
	for i := 0; i+2 < len(g.Toks); i++ {
		x := g.Toks[i]
		if x.Kind != lexed.TkIdent || tried[x.Text] || g.Toks[i+1].Text != "." || i > 0 && g.Toks[i-1].Text == "." ||
			!slices.ContainsFunc(s.impactNames[g.Toks[i+2].Text], topLevel) {
			continue
		}
		tried[x.Text] = true
		if bound, external := bindingImports(g, x.Text); !bound || external {
			continue
		}
		if p := s.world.NamespaceFile(g.File, x.Text); p != "" && (p == s.c.Path || s.c.OldPath != "" && p == s.c.OldPath) {
			out = append(out, x.Text)
		}
	}
	return out
}

// namespaceMember reports whether d is a member of a namespace the changed
// file declares (namespace IndexedAccessor { function Visit() }).
func (s *tokSearch) namespaceMember(d lexed.Decl) bool {
	return d.Container != "" && s.nf != nil && slices.ContainsFunc(s.nf.Decls, func(x lexed.Decl) bool {
		return x.Kind == "namespace" && x.Name == d.Container && x.Container == ""
	})
}
