package identsearch

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/scope"
)

// The identifier-search fallback serves languages without an engine. It
// cannot resolve names, so it keeps only names that look declared: a changed
// line that declares a name (after fn, func, def, function, class, struct,
// interface, trait, type, module, sub, proc, ...) makes the files that
// mention the name "impact"; a name used on an added line makes the files
// that declare it that way "uses". Both are scored low, and only files in
// the changed file's language (by extension) count.

const (
	scoreIdentImpact = 0.35
	scoreIdentUses   = 0.4
	identGrepLimit   = 200
	// identMaxFiles drops a name that too many files mention: it says little.
	identMaxFiles = 15
)

var declKeywords = engine.Words("fn func function def class struct interface trait type module sub proc procedure enum union impl object record macro defmodule defp defn let val var const")

// find adds the evidence of the changes cs, by their identifiers, to ev.
func find(ctx context.Context, tree engine.Tree, _, cs []*engine.Change, ev *engine.Evidence) error {
	for _, c := range cs {
		if err := identifiersOf(ctx, tree, c, ev); err != nil {
			return err
		}
	}
	return nil
}

// declaredNames returns the names that toks declare, by line.
func declaredNames(toks []lexed.Tok) map[string]int {
	out := map[string]int{}
	for _, d := range declSites(toks) {
		out[d.name] = d.line
	}
	return out
}

// declSite is a name after a declaring keyword, with its line's indentation.
type declSite struct {
	name         string
	line, indent int
}

func declSites(toks []lexed.Tok) []declSite {
	var out []declSite
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].Kind == lexed.TkIdent && declKeywords[toks[i].Text] && toks[i+1].Kind == lexed.TkIdent && !declKeywords[toks[i+1].Text] {
			out = append(out, declSite{toks[i+1].Text, toks[i+1].Line, int(toks[i].Indent)})
		}
	}
	return out
}

// enclosingDecls returns, for each of lines, the nearest declaration at or
// above it that is less indented than the line (or on it): the function or
// type the line most likely belongs to.
func enclosingDecls(toks []lexed.Tok, lines map[int]bool) map[string]bool {
	sites := declSites(toks)
	indentOf := map[int]int{}
	for _, t := range toks {
		if _, ok := indentOf[t.Line]; !ok {
			indentOf[t.Line] = int(t.Indent)
		}
	}
	out := map[string]bool{}
	for l := range lines {
		ind, ok := indentOf[l]
		if !ok {
			continue
		}
		// The sites are in line order: the last one at or above l, then
		// back at most maxEnclosingWalk sites to a less indented one.
		k, _ := slices.BinarySearchFunc(sites, l+1, func(s declSite, l int) int { return cmp.Compare(s.line, l) })
		for j := k - 1; j >= 0 && j >= k-maxEnclosingWalk; j-- {
			s := sites[j]
			if s.line == l || s.indent < ind {
				out[s.name] = true
				break
			}
		}
	}
	return out
}

// maxEnclosingWalk bounds the declarations enclosingDecls looks back over
// from one line: each changed line walking back over every declaration
// was quadratic in a file of thousands of them.
const maxEnclosingWalk = 256

// changedNames returns the names of the declarations enclosing changed
// lines, and the names used on added lines (of at least four characters)
// that the file does not declare.
func changedNames(c *engine.Change, mode lexed.LexMode) (changedDecl, useNames map[string]bool) {
	changedDecl, useNames = map[string]bool{}, map[string]bool{}
	if c.New != nil {
		newToks := lexed.Tokens(c.New, mode)
		for n := range enclosingDecls(newToks, c.Added) {
			changedDecl[n] = true
		}
		own := declaredNames(newToks)
		for _, t := range newToks {
			if t.Kind == lexed.TkIdent && c.Added[t.Line] && len(t.Text) >= 4 && !declKeywords[t.Text] && !lexed.IsKeyword(lexed.LangOther, t.Text) {
				if _, mine := own[t.Text]; !mine {
					useNames[t.Text] = true
				}
			}
		}
	}
	if c.Old != nil {
		for n := range enclosingDecls(lexed.Tokens(c.Old, mode), c.Removed) {
			changedDecl[n] = true
		}
	}
	return changedDecl, useNames
}

func identifiersOf(ctx context.Context, tree engine.Tree, c *engine.Change, ev *engine.Evidence) error {
	mode := lexed.LexCLike
	if scope.HashComments(scope.Language(c.Path)) {
		mode = lexed.LexHash
	}
	changedDecl, useNames := changedNames(c, mode)
	var words []string
	for n := range changedDecl {
		words = append(words, n)
	}
	for n := range useNames {
		if !changedDecl[n] {
			words = append(words, n)
		}
	}
	if len(words) == 0 {
		return nil
	}
	var globs []string
	if ext := path.Ext(c.Path); ext != "" {
		globs = []string{"*" + ext}
	}
	ext := strings.ToLower(path.Ext(c.Path))
	q := engine.Query{Words: words, Globs: globs, Limit: identGrepLimit, Skip: func(p string) bool { return strings.ToLower(path.Ext(p)) != ext }}
	type names struct {
		decl      map[string]int
		mentioned map[string]bool
	}
	paths, read, err := engine.Search(ctx, tree, ev, "identifier", q, func(_ string, src []byte) (names, int, bool) {
		toks := lexed.Tokens(src, mode)
		out := names{declaredNames(toks), map[string]bool{}}
		for _, t := range toks {
			if t.Kind == lexed.TkIdent {
				out.mentioned[t.Text] = true
			}
		}
		return out, 0, true
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	type hit struct {
		path string
		kind engine.Kind
	}
	byName := map[string][]hit{}
	for i, p := range paths {
		decl, mentioned := read[i].decl, read[i].mentioned
		for n := range changedDecl {
			if mentioned[n] {
				if _, d := decl[n]; !d {
					byName[n] = append(byName[n], hit{p, engine.KindImpact})
				}
			}
		}
		for n := range useNames {
			if _, d := decl[n]; d {
				byName[n] = append(byName[n], hit{p, engine.KindUses})
			}
		}
	}
	for n, hits := range byName {
		if len(hits) > identMaxFiles {
			continue
		}
		for _, h := range hits {
			it := engine.Item{Kind: h.kind, Symbol: n, Method: engine.MethodIdentifier}
			if h.kind == engine.KindImpact {
				it.Score = scoreIdentImpact
				it.Reason = fmt.Sprintf("mentions `%s`, which the change declares or alters in %s (identifier search)", n, engine.PathBase(c.Path))
			} else {
				it.Score = scoreIdentUses
				if len(hits) > 1 {
					it.Score /= 2
				}
				it.Reason = fmt.Sprintf("seems to declare `%s`, used by the change in %s (identifier search)", n, engine.PathBase(c.Path))
			}
			ev.Add(h.path, it)
		}
	}
	return nil
}

// Reader reads the changed lines of files of programming languages without
// a reader of their own; it comes last in a list of readers.
var Reader = engine.ReaderOf(func(p string, changesLines bool) bool { return changesLines && lexed.IsCode(p) }, find)
