package typescript

import (
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/typescript/jsdecl"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modpaths"
	"github.com/prscout/prscout/pipeline/candidates/typescript/modtypes"
)

// TypeScript/JavaScript imports: reading them and resolving them to files.

// jsFile is a lexed TypeScript/JavaScript file with the path aliases and
// workspace packages its bare imports resolve through.
type jsFile struct {
	*lexed.File
	aliases *modpaths.Aliases
	forms   []importForm                // what each of Imports can name, by index
	params  map[string][]modtypes.Scope // parameters by name (jsscopes.go), read on first use
	cache   *engine.Cache               // the readers' cache File was read through; nil for none
}

// importForm is what one import of a file can name, worked out once when
// the file is read: resolves compares it with each target instead of
// joining and cleaning paths on every comparison (a search compares every
// searched file's imports with every changed file).
type importForm struct {
	rel     bool     // a ./ or ../ specifier
	joined  string   // a relative specifier joined to the file's directory
	mod     string   // joined without its extension
	modJS   string   // a .js specifier's module without the compiled name's extension too
	jsSpec  bool     // the specifier ends in .js: it names a .ts file's module
	ext     bool     // the specifier names its file's extension: no index file
	aliased []string // the alias and workspace targets, without extensions
	tail    string   // a bare specifier with a '/', compared with a path's tail; "" none
}

// specStem returns a module specifier without its file's JS extension, if
// it names one: ./x.js and ./x.ts are the module ./x, while ./script.output
// is the module script.output (of script.output.ts), not script.
func specStem(spec string) string {
	switch e := path.Ext(spec); e {
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return strings.TrimSuffix(spec, e)
	}
	return spec
}

func newImportForm(dir string, aliases *modpaths.Aliases, spec string) importForm {
	if relativeSpec(spec) {
		j := path.Join(dir, spec)
		m := specStem(j)
		return importForm{rel: true, joined: j, mod: m, modJS: specStem(m), jsSpec: strings.HasSuffix(spec, ".js"), ext: m != j}
	}
	var fm importForm
	for _, p := range aliases.Resolve(spec) {
		fm.aliased = append(fm.aliased, specStem(p))
	}
	tail := specStem(strings.TrimPrefix(strings.TrimPrefix(spec, "@/"), "~/"))
	if tail != "" && strings.Contains(tail, "/") {
		fm.tail = tail
	}
	return fm
}

// readJS lexes the TypeScript/JavaScript file at p and reads its
// declarations, declared types and imports.
func readJS(p string, src []byte, aliases *modpaths.Aliases) *jsFile {
	f := &jsFile{File: lexed.Read(p, src), aliases: aliases}
	f.Types = lexed.NewTypeModel()
	f.Decls = jsdecl.Decls(f.File, f.Types)
	f.Imports = jsImports(f.Toks)
	f.readForms()
	return f
}

// readForms works out what each of f's imports can name.
func (f *jsFile) readForms() {
	f.forms = make([]importForm, len(f.Imports))
	for i, im := range f.Imports {
		f.forms[i] = newImportForm(engine.DirOf(f.Path), f.aliases, im.Spec)
	}
}

// cachedJS is readJS for a changed or searched file, through the readers'
// cache: the lexed file (tokens, declarations, types, imports, and its
// index once a search asks for it: a base side seldom does) is
// shared with other requests that read the same content (the next pull
// request's base side is this one's head side), and must not be changed;
// the import forms depend on this request's aliases and are its own.
func cachedJS(c *engine.Cache, p string, src []byte, aliases *modpaths.Aliases) *jsFile {
	if c == nil {
		return readJS(p, src, aliases)
	}
	sum := engine.SumOf(src)
	lf := engine.CachedAt(c, engine.KeyAt("typescript", p, sum), func() (*lexed.File, int64) {
		f := readJS(p, src, nil)
		f.Sum = sum
		return f.File, lexed.Weight(f.File, len(src))
	})
	f := &jsFile{File: lf, aliases: aliases, cache: c}
	f.readForms()
	return f
}

// importsName reports whether f imports name from the module that is
// target (or imports target as a whole).
func importsName(f *jsFile, target, name string) bool {
	t, targetJS := lexed.StripExt(target), strings.HasSuffix(target, ".js")
	for i, im := range f.Imports {
		if !f.forms[i].names(t, targetJS) {
			continue
		}
		if len(im.Names) == 0 || im.Wildcard || im.Namespace != "" {
			return true
		}
		for _, n := range im.Names {
			if n == name || n == "*" || im.Renamed[n] == name {
				return true
			}
		}
	}
	return false
}

// importsFile reports whether one of f's imports resolves to target.
func importsFile(f *jsFile, target string) bool {
	t, targetJS := lexed.StripExt(target), strings.HasSuffix(target, ".js")
	for i := range f.forms {
		if f.forms[i].names(t, targetJS) {
			return true
		}
	}
	return false
}

// resolves reports whether import i of file f can name file target.
func resolves(f *jsFile, i int, target string) bool {
	return f.forms[i].names(lexed.StripExt(target), strings.HasSuffix(target, ".js"))
}

// names reports whether the import can name the file whose path without
// extension is t (targetJS: the file is a .js file).
func (fm *importForm) names(t string, targetJS bool) bool {
	if fm.rel {
		m := fm.mod
		if fm.jsSpec && !targetJS {
			m = fm.modJS // TypeScript imports compiled names: ./x.js is ./x.ts
		}
		// ./x names x.ts or x/index.ts, ./x.js names x.js, x.ts or the
		// folder x.js's index.
		return t == m || !fm.ext && isIndexOf(t, m) || isIndexOf(t, fm.joined)
	}
	// A tsconfig path alias or workspace package; else another alias or a
	// package name: compare the tail.
	for _, m := range fm.aliased {
		if t == m || isIndexOf(t, m) {
			return true
		}
	}
	if fm.tail == "" {
		return false
	}
	if endsWithPath(t, fm.tail) {
		return true
	}
	rest, ok := strings.CutSuffix(t, "/index")
	return ok && endsWithPath(rest, fm.tail)
}

// isIndexOf reports whether t is m + "/index" (the root's "index" when m
// is ".", the repository's root folder).
func isIndexOf(t, m string) bool {
	if m == "." {
		return t == "index"
	}
	return len(t) == len(m)+len("/index") && strings.HasPrefix(t, m) && strings.HasSuffix(t, "/index")
}

// relativeSpec reports whether an import specifier is a path relative to
// the importing file: ./x, ../x, or the folders "." and ".." themselves
// (import {test} from '..' names ../index).
func relativeSpec(spec string) bool {
	return strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".."
}

// endsWithPath reports whether t is tail or ends with "/" + tail.
func endsWithPath(t, tail string) bool {
	return t == tail || len(t) > len(tail) && strings.HasSuffix(t, tail) && t[len(t)-len(tail)-1] == '/'
}

// externalImport reports whether the JS import im of f can name no file of
// the repository: a bare package name ("vitest", "node:fs/promises") that no
// path alias or workspace package maps, which resolves matches with no
// path.
func externalImport(f *jsFile, im lexed.Import) bool {
	spec := im.Spec
	if relativeSpec(spec) {
		return false
	}
	if len(f.aliases.Resolve(spec)) > 0 {
		return false
	}
	if strings.HasPrefix(spec, "node:") {
		return true
	}
	spec = specStem(strings.TrimPrefix(strings.TrimPrefix(spec, "@/"), "~/"))
	return spec == "" || !strings.Contains(spec, "/")
}

// bindingImports reports whether a JS import of f binds name (as an
// imported name or a namespace), and whether every import binding it is
// external.
func bindingImports(f *jsFile, name string) (bound, external bool) {
	external = true
	for _, im := range f.Imports {
		if im.Export || im.Namespace != name && !slices.Contains(im.Names, name) {
			continue
		}
		bound = true
		if !externalImport(f, im) {
			external = false
		}
	}
	return bound, bound && external
}

// maxClauseTokens bounds the tokens of one import or export clause: a
// package index re-exports a hundred names in one export {...} from.
const maxClauseTokens = 8192

// jsImports reads import/export ... from "x", import "x", require("x") and
// import("x"), with the names bound by import clauses.
func jsImports(toks []lexed.Tok) []lexed.Import {
	var out []lexed.Import
	var reexports []string // the names of export {a, b} without from
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != lexed.TkIdent {
			continue
		}
		switch t.Text {
		case "require", "import":
			if i+2 < len(toks) && toks[i+1].Text == "(" && toks[i+2].Kind == lexed.TkString {
				out = append(out, lexed.Import{Spec: toks[i+2].Text, Call: true})
				continue
			}
			if t.Text != "import" || (i > 0 && toks[i-1].Text == ".") {
				continue
			}
			if i+1 < len(toks) && toks[i+1].Kind == lexed.TkString {
				out = append(out, lexed.Import{Spec: toks[i+1].Text})
				continue
			}
			var names []string
			var renamed map[string]string
			ns, dflt := "", ""
			if i+1 < len(toks) && toks[i+1].Kind == lexed.TkIdent && toks[i+1].Text != "type" && toks[i+1].Text != "from" {
				dflt = toks[i+1].Text
			}
			for j := i + 1; j < len(toks) && j < i+maxClauseTokens; j++ {
				u := toks[j]
				if u.Kind == lexed.TkIdent && u.Text == "from" && j+1 < len(toks) && toks[j+1].Kind == lexed.TkString {
					out = append(out, lexed.Import{Spec: toks[j+1].Text, Names: names, Renamed: renamed, Namespace: ns, Default: dflt})
					i = j + 1
					break
				}
				if u.Text == ";" || u.Text == "=" || u.Kind == lexed.TkIdent && (u.Text == "import" || u.Text == "export") {
					break // import x = require(...), or the next statement
				}
				if u.Text == "*" && j+2 < len(toks) && toks[j+1].Text == "as" && toks[j+2].Kind == lexed.TkIdent {
					ns = toks[j+2].Text
				}
				if u.Text == "default" && j+2 < len(toks) && toks[j+1].Text == "as" && toks[j+2].Kind == lexed.TkIdent && dflt == "" {
					dflt = toks[j+2].Text // import {default as x}: a default import, x among the names
				}
				if u.Kind == lexed.TkIdent && u.Text != "type" && u.Text != "as" && u.Text != "from" {
					if j+2 < len(toks) && toks[j+1].Text == "as" {
						if local := toks[j+2]; local.Kind == lexed.TkIdent && u.Text != "default" {
							if renamed == nil {
								renamed = map[string]string{}
							}
							renamed[local.Text] = u.Text
						}
						continue // the local name follows "as"
					}
					names = append(names, u.Text)
				}
			}
		case "export":
			var names []string
			star, braces, ns := false, false, ""
			j := i + 1
			for ; j < len(toks) && j < i+maxClauseTokens; j++ {
				u := toks[j]
				if u.Text == ";" || u.Text == "=" || (u.Kind == lexed.TkIdent && (u.Text == "function" || u.Text == "class" || u.Text == "const" ||
					u.Text == "let" || u.Text == "var" || u.Text == "interface" || u.Text == "enum" || u.Text == "import" || u.Text == "export")) {
					break
				}
				if u.Kind == lexed.TkIdent && u.Text == "from" && j+1 < len(toks) && toks[j+1].Kind == lexed.TkString {
					// export {a, b as c} from "x" binds both a name of x
					// and the name it exports; export * from "x" all of x.
					out = append(out, lexed.Import{Spec: toks[j+1].Text, Names: names, Wildcard: star && len(names) == 0, Export: true, Namespace: ns})
					braces = false
					break
				}
				if u.Text == "{" {
					braces = true
				}
				if u.Text == "}" && braces {
					if j+1 >= len(toks) || toks[j+1].Text != "from" {
						break
					}
				}
				if u.Text == "*" {
					star = true
					if j+2 < len(toks) && toks[j+1].Text == "as" {
						ns = toks[j+2].Text
					}
				} else if u.Kind == lexed.TkIdent && u.Text != "type" && u.Text != "as" {
					names = append(names, u.Text)
				}
			}
			if braces && j < len(toks) && toks[j].Text == "}" {
				reexports = append(reexports, names...)
			}
		}
	}
	// export {x} of a name the file imports re-exports it from there.
	for _, name := range reexports {
		for _, im := range out {
			if !im.Export && slices.Contains(im.Names, name) {
				out = append(out, lexed.Import{Spec: im.Spec, Names: []string{name}, Export: true})
				break
			}
		}
	}
	return out
}

// Decls reads the declarations of the TypeScript/JavaScript file at p, in
// source order.
func Decls(p string, src []byte) []lexed.Decl { return readJS(p, src, nil).Decls }
