package typescript

import (
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// The names a changed file's added lines use, and those it binds by require.

// usedNames returns the names used on added lines that the file does not
// declare itself; memberOnly marks those used only after a '.' whose
// Receiver is no module (a JS top-level declaration cannot be reached that
// way: this.#options.timeout is not the function timeout), and importedOnly
// those searched in the files the changed file imports only: members
// shorter than lexed.MinMemberLength of a module (C.M of import * as C
// from './constant': a module's member is its export, whatever its
// length), and contextual keywords an import binds (string() and type() of
// import {string, type} from '../src': names of a schema library that
// nearly every TypeScript file holds as keywords).
func usedNames(c *engine.Change, nf *jsFile) (useNames, memberOnly, importedOnly map[string]bool) {
	useNames, memberOnly, importedOnly = map[string]bool{}, map[string]bool{}, map[string]bool{}
	if nf == nil {
		return useNames, memberOnly, importedOnly
	}
	own := map[string]bool{}
	for _, d := range nf.Decls {
		own[d.Name] = true
	}
	// A JS name that no import of the repository's files binds names no
	// declaration of another file: it is a local, a parameter or a global,
	// unless it is bound to (or destructured from) a require(...) or
	// import(...) of such a file. Names of external packages
	// (import {it} from 'vitest', path.join) are not searched either.
	var required map[string]bool
	if nf.Lang == lexed.LangJS {
		required = requiredNames(nf)
	}
	calls := lexed.EnclosingCalls(nf.File, c.Added)
	aliases := importAliases(nf)
	for i, t := range nf.Toks {
		if t.Kind != lexed.TkIdent || !c.Added[t.Line] && !calls[i] {
			continue
		}
		if a := aliases[t.Text]; a != "" && (i == 0 || nf.Toks[i-1].Text != ".") && !shadowedAt(nf, i) {
			// const Utils = U: Utils.s(...) uses the import U.
			useNames[a], memberOnly[a], importedOnly[a] = true, false, false
			continue
		}
		if own[t.Text] {
			continue
		}
		member := i > 0 && nf.Toks[i-1].Text == "."
		keyword := lexed.IsKeyword(nf.Lang, t.Text)
		if keyword && (member || !importedKeyword(nf, t.Text)) {
			continue
		}
		short := member && len(t.Text) < lexed.MinMemberLength
		if short && (nf.Lang != lexed.LangJS || !moduleReceiver(nf, i)) {
			continue
		}
		restricted := short || keyword
		if nf.Lang == lexed.LangJS {
			if !member {
				if bound, external := bindingImports(nf, t.Text); external || !bound && !required[t.Text] || shadowedAt(nf, i) {
					continue
				}
			} else if i < 2 {
				continue // a member with no receiver: ".name" opens the file
			} else if r := nf.Toks[i-2]; r.Kind == lexed.TkIdent && (i < 3 || nf.Toks[i-3].Text != ".") && !shadowedAt(nf, i-2) {
				if _, external := bindingImports(nf, r.Text); external {
					continue
				}
			}
		}
		if !useNames[t.Text] {
			memberOnly[t.Text] = true
			importedOnly[t.Text] = restricted
		} else if !restricted {
			importedOnly[t.Text] = false
		}
		useNames[t.Text] = true
		if !member || nf.Lang != lexed.LangJS || moduleReceiver(nf, i) {
			memberOnly[t.Text] = false
		}
	}
	return useNames, memberOnly, importedOnly
}

// requiredNames returns the names f binds to the result of a require(...)
// or import(...) of a module that is no external package: x in
// x = require('./x'), a and b in {a, b: c} = await import('./y').
func requiredNames(f *jsFile) map[string]bool {
	out := map[string]bool{}
	toks := f.Toks
	for i := 1; i+2 < len(toks); i++ {
		if (toks[i].Text != "require" && toks[i].Text != "import") || toks[i+1].Text != "(" || toks[i+2].Kind != lexed.TkString {
			continue
		}
		if externalImport(f, lexed.Import{Spec: toks[i+2].Text}) {
			continue
		}
		j := i - 1
		if toks[j].Text == "await" {
			j--
		}
		if j < 1 || toks[j].Text != "=" {
			continue
		}
		j--
		switch {
		case toks[j].Kind == lexed.TkIdent:
			out[toks[j].Text] = true
		case toks[j].Text == "}" || toks[j].Text == "]":
			for k := max(f.Brackets.Open(j), 0); k < j; k++ {
				if toks[k].Kind == lexed.TkIdent {
					out[toks[k].Text] = true
				}
			}
		}
	}
	return out
}

// contextualKeywords are the words of TypeScript's keywords a module may
// declare and export as names: a schema library's string(), number() and
// type().
var contextualKeywords = engine.Words("of from as type any number string boolean unknown never abstract get set readonly declare keyof async")

// importedKeyword reports whether the keyword name is, in the JS file f, a
// contextual keyword that an import of a repository module binds.
func importedKeyword(f *jsFile, name string) bool {
	if f.Lang != lexed.LangJS || !contextualKeywords[name] {
		return false
	}
	bound, external := bindingImports(f, name)
	return bound && !external
}

// importAliases maps the names the JS file f declares as another name that
// an import of a repository module binds (const Utils = U, U the default
// import of './utils') to that name: a use of the alias uses the import.
func importAliases(f *jsFile) map[string]string {
	if f.Lang != lexed.LangJS {
		return nil
	}
	var out map[string]string
	toks := f.Toks
	for i := 0; i+4 < len(toks); i++ {
		if t := toks[i].Text; t != "const" && t != "let" && t != "var" {
			continue
		}
		if toks[i+1].Kind != lexed.TkIdent || toks[i+2].Text != "=" || toks[i+3].Kind != lexed.TkIdent {
			continue
		}
		if n := toks[i+4]; n.Line == toks[i+3].Line && n.Text != ";" {
			continue // = U.x, = U(...): not U itself
		}
		if bound, external := bindingImports(f, toks[i+3].Text); !bound || external {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[toks[i+1].Text] = toks[i+3].Text
	}
	return out
}
