package treesit

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/scope"
)

// rules are a language family's resolution rules: how a file's imports and
// declared namespaces say which other files it sees.
type rules struct {
	// namespaces: a file sees the files declaring its own namespace (or an
	// enclosing one) and those whose namespace it imports, alone (using
	// A.B) or as the parent of an imported name (import a.b.C, use A\B\C).
	namespaces bool
	// sep separates the parts of a namespace or import path.
	sep string
	// paths: an import names files by path: "last" by its last part's stem
	// (#include "x/foo.h", require_relative "../foo", use App\Foo), "any"
	// by any part (use crate::config::Settings reaches config.rs).
	paths string
	// global: every file of the project sees every other (Ruby's
	// autoloaded constants, a Swift module's files).
	global bool
	// constPaths: a constant Admin::UserPolicy lives in
	// admin/user_policy.rb under lib/ or app/*/ (Ruby's autoloading,
	// constSight): that file is seen, and for a bare UserPolicy the file
	// whose stem is its snake_case name.
	constPaths bool
	// includes: an import is an #include, resolved by the search path
	// (includes) before the trailing-parts rule.
	includes bool
	// classMacros: a class head may hold an export macro (class API Foo),
	// blanked before the parse (ctext.BlankClassMacros).
	classMacros bool
}

// language is one language the reader reads.
type language struct {
	name   string // scope.Language's name, and the query file's
	family string // the languages whose files see each other's names
	rules  rules
	// calls are the functions whose calls' arguments are imports or
	// supertypes (a query's @call): Ruby's require and include.
	calls map[string]bool
}

// languages are the languages read, by name. A new language is an entry
// here, a grammar (grammars) and a query file (queries/NAME.scm).
var languages = map[string]*language{
	"csharp": {name: "csharp", family: "csharp", rules: rules{namespaces: true, sep: "."}},
	"kotlin": {name: "kotlin", family: "kotlin", rules: rules{namespaces: true, sep: ".", paths: "last"}},
	"scala":  {name: "scala", family: "scala", rules: rules{namespaces: true, sep: ".", paths: "last"}},
	"php":    {name: "php", family: "php", rules: rules{namespaces: true, sep: `\`, paths: "last"}},
	"ruby": {name: "ruby", family: "ruby", rules: rules{global: true, sep: "::", paths: "last", constPaths: true},
		calls: map[string]bool{"require": true, "require_relative": true, "load": true, "include": true, "extend": true, "prepend": true}},
	"rust":  {name: "rust", family: "rust", rules: rules{sep: "::", paths: "any"}},
	"c":     {name: "c", family: "c", rules: rules{paths: "last", includes: true}},
	"cpp":   {name: "cpp", family: "c", rules: rules{namespaces: true, sep: "::", paths: "last", includes: true, classMacros: true}},
	"swift": {name: "swift", family: "swift", rules: rules{global: true, sep: "."}},
}

// headerAs reads these extensions with another language's grammar than the
// table of languages says: a .h file is as often C++ as C, and the C++
// grammar reads both.
var headerAs = map[string]string{".h": "cpp"}

// languageOf is the language the reader reads p in; nil for none.
func languageOf(p string) *language {
	if l, ok := headerAs[strings.ToLower(path.Ext(p))]; ok {
		return languages[l]
	}
	return languages[scope.Language(p)]
}

// Covers reports whether p is in a language of this reader, whether or not
// this build can read it (Built), and names the language.
func Covers(p string) (string, bool) {
	l := languageOf(p)
	if l == nil {
		return "", false
	}
	return l.name, true
}

// familyGlobs are the pathspec globs of a family's files.
func familyGlobs(family string) []string {
	var names []string
	for _, l := range languages {
		if l.family == family {
			names = append(names, l.name)
		}
	}
	var out []string
	for _, ext := range scope.Extensions(names...) {
		out = append(out, "*"+ext)
	}
	slices.Sort(out)
	return out
}

// familyIncludes reports whether a language of family resolves #include
// paths.
func familyIncludes(family string) bool {
	for _, l := range languages {
		if l.family == family && l.rules.includes {
			return true
		}
	}
	return false
}

// Prepare compiles the grammars' queries of the languages of paths (a
// repository's files) ahead of the first change in them, so a fresh
// server's first request does not wait for it: compiling a query takes
// tenths of a second (C, Ruby) to seconds (C++, Swift) and is done once a
// process. It stops when ctx ends; a build without cgo compiles nothing.
func Prepare(ctx context.Context, paths []string) {
	seen := map[*language]bool{}
	for _, p := range paths {
		if ctx.Err() != nil {
			return
		}
		if l := languageOf(p); l != nil && !seen[l] {
			seen[l] = true
			prepareLanguage(l)
		}
	}
}
