// Package tokens is the candidates engine for TypeScript/JavaScript, Python
// and Java, read as tokens by a lexer (names in strings and comments do not
// count), with declarations found by token patterns and imports narrowing
// which files can refer to which; and the identifier-search fallback for
// other programming languages (ident.go).
package tokens

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"

	"context"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The token engine serves TypeScript/JavaScript, Python and Java: a file's
// declarations come from token patterns (function, class, interface, def,
// methods in class bodies, module-level variables), its references are
// identifier tokens outside strings and comments, and its imports decide
// which files can see which declarations.

const (
	scoreTokImported   = 0.85 // declared in, or referring through, an import of the file
	scoreTokMember     = 0.6  // a method or field of a class in an imported file
	scoreTokUnrelated  = 0.3  // a member name only one searched file declares
	tokGrepLimit       = 1000
	tokMinMemberLength = 4
)

// tdecl is a declaration found by token patterns.
type tdecl struct {
	name      string
	kind      string // function, class, interface, type, enum, method, field, variable
	container string // the class of a method or field
	static    bool   // a static method or field, reached through its class's name
	from, to  int    // line span
}

// tfile is a lexed file with its declarations and imports.
type tfile struct {
	path    string
	lang    lang
	toks    []tok
	decls   []tdecl
	imports []timport
	pkg     string // Java package
	aliases *pathAliases
}

// timport is one import: the module specifier and the names it brings.
type timport struct {
	spec     string
	names    []string // local names bound by the import
	wildcard bool     // Java a.b.*, JS export * from
	export   bool     // JS export ... from: the file re-exports the names
}

func lexFile(p string, src []byte) *tfile {
	l := langOf(p)
	f := &tfile{path: p, lang: l, toks: lex(src, lexModeOf(l))}
	switch l {
	case langPython:
		f.decls = pythonDecls(f.toks)
		f.imports = pythonImports(f.toks)
	case langJava:
		f.decls = braceDecls(f.toks, langJava)
		f.imports, f.pkg = javaImports(f.toks)
	default:
		f.decls = braceDecls(f.toks, langJS)
		f.imports = jsImports(f.toks)
	}
	return f
}

// family groups languages whose files can refer to each other.
func family(l lang) lang { return l }

// familyGlobs are the pathspecs of a language family's files.
func familyGlobs(l lang) []string {
	switch l {
	case langJS:
		return []string{"*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"}
	case langPython:
		return []string{"*.py", "*.pyi"}
	case langJava:
		return []string{"*.java"}
	}
	return nil
}

func Find(ctx context.Context, tree engine.Tree, cs []*engine.Change, ev *engine.Evidence) error {
	var aliases *pathAliases
	for _, c := range cs {
		if langOf(c.Path) == langJS {
			aliases = loadAliases(ctx, tree)
			break
		}
	}
	for _, c := range cs {
		if err := tokensOf(ctx, tree, c, aliases, ev); err != nil {
			return err
		}
	}
	return nil
}

// tokensOf adds the evidence of one changed file.
func tokensOf(ctx context.Context, tree engine.Tree, c *engine.Change, aliases *pathAliases, ev *engine.Evidence) error {
	var nf, of *tfile
	if c.New != nil {
		nf = lexFile(c.Path, c.New)
		nf.aliases = aliases
	}
	if c.Old != nil {
		op := c.Path
		if c.OldPath != "" {
			op = c.OldPath
		}
		of = lexFile(op, c.Old)
		of.aliases = aliases
	}
	type csym struct {
		d      tdecl
		change engine.DeclChange
	}
	syms := map[string]*csym{}
	var order []string
	if nf != nil {
		for _, d := range nf.decls {
			if hitDecl(c.Added, d) {
				k := d.container + "." + d.name
				if syms[k] == nil {
					order = append(order, k)
					ch := engine.ChangedBody
					if c.Added[d.from] {
						ch = engine.ChangedSignature
					}
					syms[k] = &csym{d, ch}
				}
			}
		}
	}
	if of != nil {
		newNames := map[string]bool{}
		if nf != nil {
			for _, d := range nf.decls {
				newNames[d.container+"."+d.name] = true
			}
		}
		for _, d := range of.decls {
			if !hitDecl(c.Removed, d) {
				continue
			}
			k := d.container + "." + d.name
			ch := engine.ChangedBody
			if !newNames[k] {
				ch = engine.RemovedDecl
			}
			if s := syms[k]; s != nil {
				if ch == engine.RemovedDecl {
					s.change = ch
				}
				continue
			}
			order = append(order, k)
			syms[k] = &csym{d, ch}
		}
	}
	// Names used on added lines that the file does not declare itself;
	// memberOnly marks those used only after a '.' whose receiver is no
	// module (a JS top-level declaration cannot be reached that way:
	// this.#options.timeout is not the function timeout).
	useNames := map[string]bool{}
	memberOnly := map[string]bool{}
	if nf != nil {
		own := map[string]bool{}
		for _, d := range nf.decls {
			own[d.name] = true
		}
		for i, t := range nf.toks {
			if t.kind != tkIdent || !c.Added[t.line] || own[t.text] || isKeyword(nf.lang, t.text) {
				continue
			}
			member := i > 0 && nf.toks[i-1].text == "."
			if member && len(t.text) < tokMinMemberLength {
				continue
			}
			if !useNames[t.text] {
				memberOnly[t.text] = true
			}
			useNames[t.text] = true
			if !member || nf.lang != langJS || moduleReceiver(nf, i) {
				memberOnly[t.text] = false
			}
		}
	}
	var words []string
	impactNames := map[string][]*csym{}
	for _, k := range order {
		s := syms[k]
		if len(s.d.name) < 2 || isKeyword(langOf(c.Path), s.d.name) || commonMember[s.d.name] {
			continue
		}
		if _, ok := impactNames[s.d.name]; !ok {
			words = append(words, s.d.name)
		}
		impactNames[s.d.name] = append(impactNames[s.d.name], s)
	}
	for n := range useNames {
		if _, ok := impactNames[n]; !ok {
			words = append(words, n)
		}
	}
	if len(words) == 0 {
		return nil
	}
	paths, err := tree.Grep(ctx, words, familyGlobs(langOf(c.Path)), tokGrepLimit)
	if err != nil {
		return fmt.Errorf("search for changed names: %w", err)
	}
	var files []*tfile
	declaredBy := map[string]int{} // member name -> files declaring it
	for _, p := range paths {
		if ev.Changed[p] || engine.SkippedPath(p) || family(langOf(p)) != family(langOf(c.Path)) {
			continue
		}
		src, err := tree.ReadFile(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		f := lexFile(p, src)
		f.aliases = aliases
		files = append(files, f)
		seen := map[string]bool{}
		for _, d := range f.decls {
			if !seen[d.name] {
				seen[d.name] = true
				declaredBy[d.name]++
			}
		}
	}
	// indexes are the searched files that re-export other files' names.
	var indexes []*tfile
	for _, f := range files {
		if slices.ContainsFunc(f.imports, func(im timport) bool { return im.export }) {
			indexes = append(indexes, f)
		}
	}
	for _, g := range files {
		// Impact: g refers to a changed declaration of c.
		gImportsC := importsFile(g, c.Path) || (c.OldPath != "" && importsFile(g, c.OldPath))
		viaIndex := map[string]bool{} // top-level names g imports from a file re-exporting c's
		if !gImportsC && len(indexes) > 0 {
			for name, ss := range impactNames {
				if ss[0].d.container == "" && reexported(indexes, g, c.Path, name) {
					viaIndex[name] = true
				}
			}
		}
		for i, t := range g.toks {
			ss := impactNames[t.text]
			if t.kind != tkIdent || len(ss) == 0 {
				continue
			}
			member := i > 0 && g.toks[i-1].text == "."
			call := i+1 < len(g.toks) && g.toks[i+1].text == "("
			if declaresAt(g, t) {
				continue
			}
			for _, s := range ss {
				// A static member is reached through its class's name:
				// x.create is not a call of the static Ky.create.
				if s.d.static && member && (i < 2 || g.toks[i-2].text != s.d.container) {
					continue
				}
				score := 0.0
				switch {
				case s.d.container == "" && !member && (gImportsC || viaIndex[s.d.name]):
					score = scoreTokImported
				case s.d.container != "" && member && (gImportsC || refersTo(g, s.d.container)):
					score = scoreTokMember
				case s.d.container != "" && member && declaredBy[s.d.name] == 0 && len(s.d.name) >= 6:
					score = scoreTokUnrelated
				case s.d.container != "" && !member && s.d.kind != "method" && s.d.kind != "field" && gImportsC:
					score = scoreTokImported
				}
				if score == 0 {
					continue
				}
				verb := "uses"
				if call {
					verb = "calls"
				}
				name := tokDisplay(s.d)
				ev.Add(g.path, engine.Item{Kind: engine.KindImpact, Symbol: name, Method: engine.MethodTokens, Score: score, Call: call,
					Reason: fmt.Sprintf("%s `%s`, %s", verb, name, s.change.Phrase())})
			}
		}
		// Uses: g declares a name used on an added line of c.
		if nf == nil {
			continue
		}
		cImportsG := importsFile(nf, g.path)
		for _, d := range g.decls {
			if !useNames[d.name] || (d.container == "" && memberOnly[d.name]) {
				continue
			}
			score := 0.0
			switch {
			case d.container == "" && (cImportsG && importsName(nf, g.path, d.name)):
				score = scoreTokImported
			case d.container == "" && reexported(indexes, nf, g.path, d.name):
				score = scoreTokImported
			case d.container == "" && cImportsG:
				score = scoreTokMember
			case d.container != "" && cImportsG:
				score = scoreTokMember
			case d.container == "" && d.kind == "class" && samePackage(nf, g):
				score = scoreTokImported
			case d.container != "" && samePackage(nf, g) && refersTo(nf, d.container):
				score = scoreTokMember
			}
			if score == 0 {
				continue
			}
			name := tokDisplay(d)
			ev.Add(g.path, engine.Item{Kind: engine.KindUses, Symbol: name, Method: engine.MethodTokens, Score: score,
				Reason: fmt.Sprintf("declares `%s`, used by the change in %s", name, engine.PathBase(c.Path))})
		}
	}
	return nil
}

// commonMember names are declared by nearly every class; searching their
// callers lists noise.
var commonMember = map[string]bool{
	"constructor": true, "__init__": true, "toString": true, "equals": true, "hashCode": true,
	"render": true, "main": true, "get": true, "set": true, "run": true, "init": true,
	"__str__": true, "__repr__": true, "__eq__": true, "__hash__": true,
}

func tokDisplay(d tdecl) string {
	if d.container != "" {
		return d.container + "." + d.name
	}
	return d.name
}

// declaresAt reports whether token t of f is the name of one of f's
// declarations (its own declaration, not a reference).
func declaresAt(f *tfile, t tok) bool {
	for _, d := range f.decls {
		if d.from == t.line && d.name == t.text {
			return true
		}
	}
	return false
}

// refersTo reports whether f mentions name as an identifier.
func refersTo(f *tfile, name string) bool {
	for _, t := range f.toks {
		if t.kind == tkIdent && t.text == name {
			return true
		}
	}
	return false
}

// samePackage: Java files of one directory share a package.
func samePackage(a, b *tfile) bool {
	return a.lang == langJava && b.lang == langJava && engine.DirOf(a.path) == engine.DirOf(b.path)
}

// hitDecl reports whether lines touch declaration d: a class, interface or
// enum counts only by its header line (its members count on their own).
func hitDecl(lines map[int]bool, d tdecl) bool {
	switch d.kind {
	case "class", "interface", "enum":
		return lines[d.from]
	}
	return engine.SpanHit(lines, d.from, d.to)
}

// moduleReceiver reports whether the member token toks[i] of JS file f
// follows a name bound to a module: a namespace or default import,
// x = require(...), x = import(...) or x = await import(...).
func moduleReceiver(f *tfile, i int) bool {
	if i < 2 || f.toks[i-2].kind != tkIdent || (i >= 3 && f.toks[i-3].text == ".") {
		return false
	}
	r := f.toks[i-2].text
	for _, im := range f.imports {
		if slices.Contains(im.names, r) {
			return true
		}
	}
	for j := 0; j+2 < len(f.toks); j++ {
		if f.toks[j].text != r || f.toks[j+1].text != "=" {
			continue
		}
		k := j + 2
		if f.toks[k].text == "await" && k+1 < len(f.toks) {
			k++
		}
		if f.toks[k].text == "require" || f.toks[k].text == "import" {
			return true
		}
	}
	return false
}

// reexported reports whether f imports name from one of indexes that
// re-exports it from target (export {name} from "./target", export * from),
// as a package's index does.
func reexported(indexes []*tfile, f *tfile, target, name string) bool {
	if f.lang != langJS {
		return false
	}
	for _, i := range indexes {
		if i == f || i.path == target || !importsName(f, i.path, name) {
			continue
		}
		for _, im := range i.imports {
			if !im.export || !resolves(i, im, target) {
				continue
			}
			if im.wildcard || slices.Contains(im.names, name) {
				return true
			}
		}
	}
	return false
}

// importsName reports whether f imports name from the module that is
// target (or imports target as a whole, which Python and Java allow).
func importsName(f *tfile, target, name string) bool {
	for _, im := range f.imports {
		if !resolves(f, im, target) {
			continue
		}
		if len(im.names) == 0 || im.wildcard {
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

// importsFile reports whether one of f's imports resolves to target, or,
// for Java, whether they share a package.
func importsFile(f *tfile, target string) bool {
	if f.lang == langJava && engine.DirOf(f.path) == engine.DirOf(target) {
		return true
	}
	for _, im := range f.imports {
		if resolves(f, im, target) {
			return true
		}
	}
	return false
}

// stripExt removes a source extension.
func stripExt(p string) string {
	return strings.TrimSuffix(p, path.Ext(p))
}

// resolves reports whether import im of file f can name file target.
func resolves(f *tfile, im timport, target string) bool {
	t := stripExt(target)
	switch f.lang {
	case langJava:
		mod := strings.ReplaceAll(im.spec, ".", "/")
		if im.wildcard {
			return strings.HasSuffix("/"+engine.DirOf(target), "/"+mod)
		}
		return strings.HasSuffix("/"+t, "/"+mod)
	case langPython:
		spec := im.spec
		base := ""
		if strings.HasPrefix(spec, ".") {
			dots := len(spec) - len(strings.TrimLeft(spec, "."))
			base = engine.DirOf(f.path)
			for i := 1; i < dots; i++ {
				base = engine.DirOf(base)
			}
			spec = spec[dots:]
		}
		mod := strings.ReplaceAll(spec, ".", "/")
		cands := []string{engine.JoinDir(base, mod)}
		for _, n := range im.names {
			cands = append(cands, engine.JoinDir(engine.JoinDir(base, mod), n))
		}
		for _, m := range cands {
			m = strings.Trim(m, "/")
			if m == "" {
				continue
			}
			if base != "" {
				if t == m || t == m+"/__init__" {
					return true
				}
				continue
			}
			if strings.HasSuffix("/"+t, "/"+m) || strings.HasSuffix("/"+t, "/"+m+"/__init__") {
				return true
			}
		}
		return false
	default:
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
		if f.lang == langJS {
			for _, p := range f.aliases.resolve(spec) {
				if m := stripExt(p); t == m || t == m+"/index" {
					return true
				}
			}
		}
		spec = strings.TrimPrefix(strings.TrimPrefix(spec, "@/"), "~/")
		spec = stripExt(spec)
		if spec == "" || !strings.Contains(spec, "/") {
			return false
		}
		return strings.HasSuffix("/"+t, "/"+spec) || strings.HasSuffix("/"+t, "/"+spec+"/index")
	}
}

// jsImports reads import/export ... from "x", import "x", require("x") and
// import("x"), with the names bound by import clauses.
func jsImports(toks []tok) []timport {
	var out []timport
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tkIdent {
			continue
		}
		switch t.text {
		case "require", "import":
			if i+2 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == tkString {
				out = append(out, timport{spec: toks[i+2].text})
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
			for j := i + 1; j < len(toks) && j < i+200; j++ {
				u := toks[j]
				if u.kind == tkIdent && u.text == "from" && j+1 < len(toks) && toks[j+1].kind == tkString {
					out = append(out, timport{spec: toks[j+1].text, names: names})
					i = j + 1
					break
				}
				if u.text == ";" {
					break
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
			star := false
			for j := i + 1; j < len(toks) && j < i+200; j++ {
				u := toks[j]
				if u.text == ";" || (u.kind == tkIdent && (u.text == "function" || u.text == "class" || u.text == "const" || u.text == "interface")) {
					break
				}
				if u.kind == tkIdent && u.text == "from" && j+1 < len(toks) && toks[j+1].kind == tkString {
					// export {a, b as c} from "x" binds both a name of x
					// and the name it exports; export * from "x" all of x.
					out = append(out, timport{spec: toks[j+1].text, names: names, wildcard: star && len(names) == 0, export: true})
					break
				}
				if u.text == "*" {
					star = true
				} else if u.kind == tkIdent && u.text != "type" && u.text != "as" {
					names = append(names, u.text)
				}
			}
		}
	}
	return out
}

// pythonImports reads "import a.b [as c]" and "from x import a, b as c".
func pythonImports(toks []tok) []timport {
	var out []timport
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tkIdent || t.col != t.indentCol() {
			continue
		}
		switch t.text {
		case "import":
			j := i + 1
			for j < len(toks) && toks[j].line == t.line {
				mod, next := dottedName(toks, j)
				if mod == "" {
					break
				}
				j = next
				local := mod
				if k := strings.IndexByte(mod, '.'); k >= 0 {
					local = mod[:k]
				}
				if j+1 < len(toks) && toks[j].text == "as" {
					local = toks[j+1].text
					j += 2
				}
				out = append(out, timport{spec: mod, names: nil})
				_ = local
				if j < len(toks) && toks[j].text == "," {
					j++
					continue
				}
				break
			}
			i = j - 1
		case "from":
			mod, j := dottedName(toks, i+1)
			if j >= len(toks) || toks[j].text != "import" {
				continue
			}
			im := timport{spec: mod}
			paren := false
			for j++; j < len(toks); j++ {
				u := toks[j]
				if u.text == "(" {
					paren = true
					continue
				}
				if u.text == ")" || (!paren && u.line != t.line && toks[j-1].text != "\\") {
					break
				}
				if u.text == "*" {
					im.wildcard = true
				}
				if u.kind == tkIdent && u.text != "as" {
					if j+1 < len(toks) && toks[j+1].text == "as" {
						im.names = append(im.names, u.text)
						j += 2
						continue
					}
					im.names = append(im.names, u.text)
				}
			}
			out = append(out, im)
			i = j - 1
		}
	}
	return out
}

// indentCol is the column where the token's line starts.
func (t tok) indentCol() int { return t.indent }

// dottedName reads "a.b.c" or "..a" from toks[i:], returning the name and
// the index after it.
func dottedName(toks []tok, i int) (string, int) {
	var b strings.Builder
	for i < len(toks) {
		t := toks[i]
		if t.text == "." || (t.kind == tkIdent && t.text != "import" && t.text != "as") {
			if t.kind == tkIdent && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				break
			}
			b.WriteString(t.text)
			i++
			continue
		}
		break
	}
	return b.String(), i
}

// javaImports reads "package a.b;" and "import [static] a.b.C;" / "a.b.*;".
func javaImports(toks []tok) ([]timport, string) {
	var out []timport
	pkg := ""
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tkIdent || (t.text != "import" && t.text != "package") {
			continue
		}
		if i > 0 && toks[i-1].text != ";" && toks[i-1].text != "}" {
			continue
		}
		j := i + 1
		static := false
		if j < len(toks) && toks[j].text == "static" {
			static = true
			j++
		}
		var parts []string
		wildcard := false
		for ; j < len(toks) && toks[j].text != ";"; j++ {
			switch {
			case toks[j].kind == tkIdent:
				parts = append(parts, toks[j].text)
			case toks[j].text == "*":
				wildcard = true
			}
		}
		if t.text == "package" {
			pkg = strings.Join(parts, ".")
			continue
		}
		if len(parts) == 0 {
			continue
		}
		if static && !wildcard && len(parts) > 1 {
			// import static a.b.C.member: the file is a/b/C.
			out = append(out, timport{spec: strings.Join(parts[:len(parts)-1], "."), names: []string{parts[len(parts)-1]}})
			continue
		}
		if static && wildcard {
			out = append(out, timport{spec: strings.Join(parts, ".")})
			continue
		}
		im := timport{spec: strings.Join(parts, "."), wildcard: wildcard}
		if !wildcard {
			im.names = []string{parts[len(parts)-1]}
		}
		out = append(out, im)
		i = j
	}
	return out, pkg
}
