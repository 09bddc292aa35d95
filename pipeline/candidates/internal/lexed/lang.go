package lexed

import (
	"context"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/scope"
)

// Lang is the family of engine a file is read with.
type Lang int

const (
	LangOther Lang = iota
	LangGo
	LangJS // TypeScript and JavaScript
	LangPython
	LangJava
)

// familyLangs are the languages (scope.Language's names) each family of
// reader reads.
var familyLangs = map[Lang][]string{
	LangGo:     {"go"},
	LangJS:     {"typescript", "tsx", "javascript", "jsx"},
	LangPython: {"python"},
	LangJava:   {"java"},
}

// familyGlobs are the pathspecs of each family's files, made once.
var familyGlobs = func() map[Lang][]string {
	out := map[Lang][]string{}
	for l, langs := range familyLangs {
		for _, ext := range scope.Extensions(langs...) {
			out[l] = append(out[l], "*"+ext)
		}
	}
	return out
}()

// langFamily is familyLangs inverted.
var langFamily = func() map[string]Lang {
	out := map[string]Lang{}
	for l, langs := range familyLangs {
		for _, n := range langs {
			out[n] = l
		}
	}
	return out
}()

// langNames name each family in what a cut says of its files.
var langNames = map[Lang]string{LangGo: "Go", LangJS: "TypeScript/JavaScript", LangPython: "Python", LangJava: "Java"}

// String names the family: "TypeScript/JavaScript".
func (l Lang) String() string { return langNames[l] }

// FamilyGlobs are the pathspecs of a language family's files.
func FamilyGlobs(l Lang) []string { return familyGlobs[l] }

// Query is the search (engine.Found) for words among a family's files.
func Query(l Lang, words []string) engine.Query {
	return engine.Query{Words: words, Globs: familyGlobs[l], Limit: GrepLimit}
}

// LangOf is the family of reader of the file at p, by its language
// (scope.Language, the one table of languages by extension).
func LangOf(p string) Lang {
	return langFamily[scope.Language(p)]
}

// IsCode reports whether p is a source file of a programming language
// without a reader of its own, which the identifier search reads.
func IsCode(p string) bool { return LangOf(p) == LangOther && scope.IsCode(scope.Language(p)) }

// ReaderOf is the engine.Reader of family l's files (LangOf): find adds
// the evidence of the changes handed to it (engine.Reader.Find).
func ReaderOf(l Lang, find func(ctx context.Context, tree engine.Tree, all, cs []*engine.Change, ev *engine.Evidence) error) engine.Reader {
	return engine.ReaderOf(func(p string, _ bool) bool { return LangOf(p) == l }, find)
}
