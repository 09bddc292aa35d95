// Command structure checks the token engine's reading of declarations
// against tree-sitter's grammars, file by file, on real repositories.
//
//	structure [-v N] [-min 0.97] DIR...
//
// For every TypeScript/JavaScript, Python and Java file of each DIR (a
// checkout; node_modules, build output and dot directories are left out) it
// parses the file with tree-sitter and lists the declarations the engine
// records: functions, classes, interfaces, enums, type aliases, methods,
// constructors and fields, outside function bodies and TS/JS blocks. Each is matched with the
// engine's declaration of the same container and name (candidates.Declarations);
// it prints, per language, the share of tree-sitter's declarations the
// engine found (found), of those the share with the same first line (from)
// and the same last line (to), and the engine's declarations tree-sitter has
// not (extra). -v N prints N mismatches per language. It exits 1 when a
// language's found, from or to falls below -min.
//
// tree-sitter is a C library: this command needs cgo and a C compiler, and
// is no part of prscout's build (the engine stays pure Go).
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/prscout/prscout/pipeline/candidates"
)

type decl struct {
	container, name string
	from, to        int
}

func (d decl) key() string { return d.container + "." + d.name }

type tally struct {
	files, treeDecls, found, from, to, extra, engineDecls, parseErrors int
	mismatches                                                         []string
}

func main() {
	verbose := flag.Int("v", 0, "print this many mismatches per language")
	minShare := flag.Float64("min", 0.97, "exit 1 when found, from or to of a language is below this share")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: structure [-v N] [-min 0.97] DIR...")
		os.Exit(2)
	}
	tallies := map[string]*tally{}
	for _, dir := range flag.Args() {
		if err := walk(dir, tallies, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "structure:", err)
			os.Exit(1)
		}
	}
	langs := make([]string, 0, len(tallies))
	for l := range tallies {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("%-12s %6s %6s %7s %6s %6s %6s %6s\n", "language", "files", "errors", "decls", "found", "from", "to", "extra")
	code := 0
	for _, l := range langs {
		t := tallies[l]
		found := share(t.found, t.treeDecls)
		from, to := share(t.from, t.found), share(t.to, t.found)
		fmt.Printf("%-12s %6d %6d %7d %6.3f %6.3f %6.3f %6.3f\n", l, t.files, t.parseErrors, t.treeDecls, found, from, to, share(t.extra, t.engineDecls))
		if found < *minShare || from < *minShare || to < *minShare {
			code = 1
		}
		for _, m := range t.mismatches {
			fmt.Println("  " + m)
		}
	}
	if code != 0 {
		fmt.Printf("MISS: a language below %.2f\n", *minShare)
	}
	os.Exit(code)
}

func share(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

var skipDirs = map[string]bool{"node_modules": true, "dist": true, "build": true, "target": true, "out": true, "coverage": true, "vendor": true}

func walk(dir string, tallies map[string]*tally, verbose int) error {
	parser := sitter.NewParser()
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir && (strings.HasPrefix(e.Name(), ".") || skipDirs[e.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		lang, grammar := grammarOf(p)
		if grammar == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 1<<20 {
			return nil
		}
		t := tallies[lang]
		if t == nil {
			t = &tally{}
			tallies[lang] = t
		}
		parser.SetLanguage(grammar)
		tree, err := parser.ParseCtx(context.Background(), nil, src)
		if err != nil {
			return err
		}
		defer tree.Close()
		root := tree.RootNode()
		t.files++
		if root.HasError() {
			// A file the grammar cannot parse says nothing of the engine.
			t.parseErrors++
			return nil
		}
		var want []decl
		collect(lang, root, src, "", &want)
		got := map[string][]decl{}
		n := 0
		for _, d := range candidates.Declarations(p, src) {
			if !compared(lang, d.Kind) {
				continue
			}
			n++
			k := d.Container + "." + d.Name
			got[k] = append(got[k], decl{d.Container, d.Name, d.From, d.To})
		}
		t.engineDecls += n
		rel, _ := filepath.Rel(dir, p)
		matched := map[string]int{}
		for _, w := range want {
			t.treeDecls++
			cands := got[w.key()]
			i := matched[w.key()]
			if i >= len(cands) {
				if len(t.mismatches) < verbose {
					t.mismatches = append(t.mismatches, fmt.Sprintf("%s:%d %s: not found", rel, w.from, w.key()))
				}
				continue
			}
			matched[w.key()]++
			g := cands[i]
			t.found++
			if g.from == w.from {
				t.from++
			}
			if g.to == w.to {
				t.to++
			}
			if (g.from != w.from || g.to != w.to) && len(t.mismatches) < verbose {
				t.mismatches = append(t.mismatches, fmt.Sprintf("%s %s: engine %d-%d, tree-sitter %d-%d", rel, w.key(), g.from, g.to, w.from, w.to))
			}
		}
		for k, ds := range got {
			if extra := len(ds) - matched[k]; extra > 0 {
				t.extra += extra
				if len(t.mismatches) < verbose {
					t.mismatches = append(t.mismatches, fmt.Sprintf("%s:%d %s: the engine's only", rel, ds[len(ds)-1].from, k))
				}
			}
		}
		return nil
	})
}

func grammarOf(p string) (string, *sitter.Language) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".py":
		return "python", python.GetLanguage()
	case ".java":
		return "java", java.GetLanguage()
	case ".ts", ".mts", ".cts":
		if strings.HasSuffix(p, ".d.ts") {
			return "", nil
		}
		return "typescript", typescript.GetLanguage()
	case ".tsx":
		return "typescript", tsx.GetLanguage()
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript", javascript.GetLanguage()
	}
	return "", nil
}

// compared says which of the engine's kinds are compared: those whose
// tree-sitter counterparts collect lists.
func compared(lang, kind string) bool {
	switch kind {
	case "function", "class", "interface", "enum", "method", "constructor":
		return true
	case "type":
		return lang == "typescript"
	case "field":
		return lang == "java"
	}
	return false
}

// collect appends the declarations under n outside function bodies;
// container is the enclosing class.
func collect(lang string, n *sitter.Node, src []byte, container string, out *[]decl) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		name := func() string {
			if f := c.ChildByFieldName("name"); f != nil {
				return f.Content(src)
			}
			return ""
		}
		add := func(nm string) {
			if nm == "" {
				return
			}
			start := c.StartPoint().Row
			if n.Type() == "decorated_definition" {
				// A Python declaration starts at its first decorator:
				// a changed decorator changes the declaration.
				start = n.StartPoint().Row
			}
			*out = append(*out, decl{container, nm, int(start) + 1, int(c.EndPoint().Row) + 1})
		}
		switch c.Type() {
		case "function_definition", "function_declaration", "generator_function_declaration",
			"method_declaration", "constructor_declaration", "method_definition", "method_signature",
			"abstract_method_signature", "function_signature":
			// Python decorators and a TS/JS export keyword precede the
			// node; the engine's span starts at the keyword too.
			add(name())
			continue // nothing inside a function body is compared
		case "class_definition", "class_declaration", "abstract_class_declaration", "interface_declaration",
			"enum_declaration", "record_declaration", "annotation_type_declaration", "type_alias_declaration":
			nm := name()
			add(nm)
			inner := nm
			if lang == "java" && container != "" {
				// Java's nested classes are read as Outer.Inner: two
				// nested Builders are two classes.
				inner = container + "." + nm
			}
			if body := c.ChildByFieldName("body"); body != nil && nm != "" {
				collect(lang, body, src, inner, out)
			}
			continue
		case "field_declaration":
			if lang == "java" {
				for j := 0; j < int(c.NamedChildCount()); j++ {
					if v := c.NamedChild(j); v.Type() == "variable_declarator" {
						if f := v.ChildByFieldName("name"); f != nil {
							add(f.Content(src))
						}
					}
				}
			}
			continue
		case "lexical_declaration", "variable_declaration", "expression_statement", "arrow_function", "function_expression", "function":
			continue
		case "statement_block":
			// A TS/JS block's declarations are the block's, not the
			// module's (the engine reads module and class scope).
			continue
		}
		collect(lang, c, src, container, out)
	}
}
