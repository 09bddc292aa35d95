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
		member := chainMember(nf.Toks, i)
		if member == "" || !s.c.Added[t.Line] {
			continue
		}
		name := t.Text + "." + member
		if seen[name] || len(seen) >= maxNamespaceMembers {
			continue
		}
		if bound, external := bindingImports(nf, t.Text); !bound || external || shadowedAt(nf, i) {
			continue
		}
		seen[name] = true
		p := s.world.NamespaceMemberFile(nf.File, t.Text, member)
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
	if s.world == nil || g.Lang != lexed.LangJS || len(g.Toks) == 0 {
		return nil
	}
	// Only a file holding a touched module-level name can follow a name
	// by it: the others are not walked.
	idents := g.Index().Idents
	if !slices.ContainsFunc(s.topNames(), func(n string) bool { return idents[n] }) {
		return nil
	}
	var out []string
	tried := map[string]bool{}
	for i, x := range g.Toks {
		member := chainMember(g.Toks, i)
		if member == "" || tried[x.Text] || !slices.ContainsFunc(s.impactNames[member], topLevel) {
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

// topNames returns the names of the touched module-level declarations of
// the change (topLevel), listed on first use.
func (s *tokSearch) topNames() []string {
	if s.tops == nil {
		s.tops = []string{}
		for n, ss := range s.impactNames {
			if slices.ContainsFunc(ss, topLevel) {
				s.tops = append(s.tops, n)
			}
		}
	}
	return s.tops
}

// chainMember is the member named after toks[i] when toks[i] is the first
// name of a dotted chain (x.m, x not itself a member), "" otherwise.
func chainMember(toks []lexed.Tok, i int) string {
	if !lexed.IdentAt(toks, i) || lexed.TextAt(toks, i+1) != "." || !lexed.IdentAt(toks, i+2) || i > 0 && toks[i-1].Text == "." {
		return ""
	}
	return toks[i+2].Text
}

// namespaceMember reports whether d is a member of a namespace the changed
// file declares (namespace IndexedAccessor { function Visit() }), within
// its braces: a class merged with a namespace of its name (class Runtype
// {guard()}; namespace Runtype {...}) keeps its members, reached through
// its instances.
func (s *tokSearch) namespaceMember(d lexed.Decl) bool {
	return d.Container != "" && s.nf != nil && slices.ContainsFunc(s.nf.Decls, func(x lexed.Decl) bool {
		return x.Kind == "namespace" && x.Name == d.Container && x.Container == "" && x.From <= d.From && d.To <= x.To
	})
}
