package tokens

import (
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// TypeScript/JavaScript imports: reading them and resolving them to files.

// jsFile is a lexed TypeScript/JavaScript file with the path aliases and
// workspace packages its bare imports resolve through.
type jsFile struct {
	*tfile
	aliases *pathAliases
}

// readJS lexes the TypeScript/JavaScript file at p and reads its
// declarations, declared types and imports.
func readJS(p string, src []byte, aliases *pathAliases) *jsFile {
	f := &jsFile{tfile: lexFile(p, src), aliases: aliases}
	f.types = newTypeModel()
	f.decls = jsDecls(f.toks, f.types)
	f.imports = jsImports(f.toks)
	return f
}

// base is f's lexed file; nil when f is nil.
func (f *jsFile) base() *tfile {
	if f == nil {
		return nil
	}
	return f.tfile
}

// importsName reports whether f imports name from the module that is
// target (or imports target as a whole).
func importsName(f *jsFile, target, name string) bool {
	for _, im := range f.imports {
		if !resolves(f, im, target) {
			continue
		}
		if len(im.names) == 0 || im.wildcard || im.namespace != "" {
			return true
		}
		for _, n := range im.names {
			if n == name || n == "*" {
				return true
			}
		}
	}
	return false
}

// importsFile reports whether one of f's imports resolves to target.
func importsFile(f *jsFile, target string) bool {
	for _, im := range f.imports {
		if resolves(f, im, target) {
			return true
		}
	}
	return false
}

// resolves reports whether import im of file f can name file target.
func resolves(f *jsFile, im timport, target string) bool {
	t := stripExt(target)
	spec := im.spec
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		m := stripExt(path.Join(engine.DirOf(f.path), spec))
		if strings.HasSuffix(spec, ".js") && !strings.HasSuffix(target, ".js") {
			m = stripExt(m) // TypeScript imports compiled names: ./x.js is ./x.ts
		}
		return t == m || t == m+"/index" || t == path.Join(engine.DirOf(f.path), spec)+"/index"
	}
	// A tsconfig path alias; else another alias or a package name:
	// compare the tail.
	for _, p := range f.aliases.resolve(spec) {
		if m := stripExt(p); t == m || t == m+"/index" {
			return true
		}
	}
	spec = strings.TrimPrefix(strings.TrimPrefix(spec, "@/"), "~/")
	spec = stripExt(spec)
	if spec == "" || !strings.Contains(spec, "/") {
		return false
	}
	return strings.HasSuffix("/"+t, "/"+spec) || strings.HasSuffix("/"+t, "/"+spec+"/index")
}

// externalImport reports whether the JS import im of f can name no file of
// the repository: a bare package name ("vitest", "node:fs/promises") that no
// path alias or workspace package maps, which resolves matches with no
// path.
func externalImport(f *jsFile, im timport) bool {
	spec := im.spec
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		return false
	}
	if len(f.aliases.resolve(spec)) > 0 {
		return false
	}
	if strings.HasPrefix(spec, "node:") {
		return true
	}
	spec = stripExt(strings.TrimPrefix(strings.TrimPrefix(spec, "@/"), "~/"))
	return spec == "" || !strings.Contains(spec, "/")
}

// bindingImports reports whether a JS import of f binds name (as an
// imported name or a namespace), and whether every import binding it is
// external.
func bindingImports(f *jsFile, name string) (bound, external bool) {
	external = true
	for _, im := range f.imports {
		if im.export || im.namespace != name && !slices.Contains(im.names, name) {
			continue
		}
		bound = true
		if !externalImport(f, im) {
			external = false
		}
	}
	return bound, bound && external
}

// jsImports reads import/export ... from "x", import "x", require("x") and
// import("x"), with the names bound by import clauses.
func jsImports(toks []tok) []timport {
	var out []timport
	var reexports []string // the names of export {a, b} without from
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tkIdent {
			continue
		}
		switch t.text {
		case "require", "import":
			if i+2 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == tkString {
				out = append(out, timport{spec: toks[i+2].text, call: true})
				continue
			}
			if t.text != "import" || (i > 0 && toks[i-1].text == ".") {
				continue
			}
			if i+1 < len(toks) && toks[i+1].kind == tkString {
				out = append(out, timport{spec: toks[i+1].text})
				continue
			}
			var names []string
			ns, dflt := "", ""
			if i+1 < len(toks) && toks[i+1].kind == tkIdent && toks[i+1].text != "type" && toks[i+1].text != "from" {
				dflt = toks[i+1].text
			}
			for j := i + 1; j < len(toks) && j < i+200; j++ {
				u := toks[j]
				if u.kind == tkIdent && u.text == "from" && j+1 < len(toks) && toks[j+1].kind == tkString {
					out = append(out, timport{spec: toks[j+1].text, names: names, namespace: ns, dflt: dflt})
					i = j + 1
					break
				}
				if u.text == ";" {
					break
				}
				if u.text == "*" && j+2 < len(toks) && toks[j+1].text == "as" && toks[j+2].kind == tkIdent {
					ns = toks[j+2].text
				}
				if u.kind == tkIdent && u.text != "type" && u.text != "as" && u.text != "from" {
					if j+1 < len(toks) && toks[j+1].text == "as" {
						continue // the local name follows "as"
					}
					names = append(names, u.text)
				}
			}
		case "export":
			var names []string
			star, braces, ns := false, false, ""
			j := i + 1
			for ; j < len(toks) && j < i+200; j++ {
				u := toks[j]
				if u.text == ";" || (u.kind == tkIdent && (u.text == "function" || u.text == "class" || u.text == "const" || u.text == "interface")) {
					break
				}
				if u.kind == tkIdent && u.text == "from" && j+1 < len(toks) && toks[j+1].kind == tkString {
					// export {a, b as c} from "x" binds both a name of x
					// and the name it exports; export * from "x" all of x.
					out = append(out, timport{spec: toks[j+1].text, names: names, wildcard: star && len(names) == 0, export: true, namespace: ns})
					braces = false
					break
				}
				if u.text == "{" {
					braces = true
				}
				if u.text == "}" && braces {
					if j+1 >= len(toks) || toks[j+1].text != "from" {
						break
					}
				}
				if u.text == "*" {
					star = true
					if j+2 < len(toks) && toks[j+1].text == "as" {
						ns = toks[j+2].text
					}
				} else if u.kind == tkIdent && u.text != "type" && u.text != "as" {
					names = append(names, u.text)
				}
			}
			if braces && j < len(toks) && toks[j].text == "}" {
				reexports = append(reexports, names...)
			}
		}
	}
	// export {x} of a name the file imports re-exports it from there.
	for _, name := range reexports {
		for _, im := range out {
			if !im.export && slices.Contains(im.names, name) {
				out = append(out, timport{spec: im.spec, names: []string{name}, export: true})
				break
			}
		}
	}
	return out
}
