//go:build cgo

package treesit

import (
	"context"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestBracketSpansCallees: a call whose arguments span lines is a span
// naming its callee; `if (` names none.
func TestBracketSpansCallees(t *testing.T) {
	c, err := compile(languages["rust"])
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("fn main() {\n    let x = compute(\n        a,\n        b[1],\n    );\n    if (x) { run(x) }\n}\n")
	ps := c.parsers.Get().(*sitter.Parser)
	tree, err := ps.ParseCtx(context.Background(), nil, src)
	c.parsers.Put(ps)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	spans, callees := bracketSpans(tree.RootNode(), src)
	var names []string
	for _, s := range spans {
		if s.Callee >= 0 {
			names = append(names, callees[s.Callee].name)
		}
	}
	if strings.Join(names, ",") != "compute" {
		t.Fatalf("callees of the spans: %v (spans %v)", names, spans)
	}
}

// TestPrepareCompilesTheRepositorysLanguages: Prepare compiles each
// language of the paths once, none other, and nothing once ctx has ended.
func TestPrepareCompilesTheRepositorysLanguages(t *testing.T) {
	var got []string
	old := prepareLanguage
	prepareLanguage = func(l *language) { got = append(got, l.name) }
	defer func() { prepareLanguage = old }()
	paths := []string{"src/main.rs", "README.md", "lib/a.rs", "include/x.hpp", "app/models/user.rb", "x.go", "src/b.rs"}
	Prepare(context.Background(), paths)
	if strings.Join(got, ",") != "rust,cpp,ruby" {
		t.Fatalf("prepared %v, want rust, cpp and ruby", got)
	}
	got = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Prepare(ctx, paths)
	if len(got) != 0 {
		t.Fatalf("prepared %v after the context ended", got)
	}
}
