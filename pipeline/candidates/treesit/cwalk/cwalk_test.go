//go:build cgo

package cwalk

import (
	"context"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/swift"
)

var grammars = map[string]func() *sitter.Language{
	"c": c.GetLanguage, "cpp": cpp.GetLanguage, "csharp": csharp.GetLanguage, "kotlin": kotlin.GetLanguage,
	"php": php.GetLanguage, "ruby": ruby.GetLanguage, "rust": rust.GetLanguage, "scala": scala.GetLanguage,
	"swift": swift.GetLanguage,
}

// sources are sources of every grammar: calls spanning lines, nested
// brackets, keywords before brackets, unterminated and deeply nested ones.
func sources() []string {
	return []string{
		"fn main() {\n    let x = compute(\n        a,\n        b[1],\n    );\n    if (x) { run(x) }\n}\n",
		"class A extends B {\n  void m(int n) {\n    call(n,\n      other(n));\n    while (n > 0) {\n      n--;\n    }\n  }\n}\n",
		"def f(a,\n      b):\n    return g(\n        a, [b,\n            c])\n",
		"<?php\nfunction f($a) {\n  return g(\n    $a, [1,\n    2]);\n}\n",
		"int main(void) {\n  printf(\"%d\",\n    f(1));\n  return (a[\n    0]);\n}\n",
		"x = f(\n  g(\n    h(1,\n",
		"x = " + strings.Repeat("f(", 300) + strings.Repeat(")", 300) + "\n",
		"x = a" + strings.Repeat(" + a", 500) + "\n",
		strings.Repeat("class C { fn m() { if (a[", 40),
	}
}

// TestWalksAgreeWithBindings: the walks in C answer what a walk of the
// same tree node by node through the bindings answers, in every grammar
// the candidates read.
func TestWalksAgreeWithBindings(t *testing.T) {
	if !Supported {
		t.Fatal("the bindings' Node no longer starts with the runtime's node value")
	}
	brackets := 0
	for name, g := range grammars {
		ps := sitter.NewParser()
		ps.SetLanguage(g())
		for _, s := range sources() {
			src := []byte(s)
			tree, err := ps.ParseCtx(context.Background(), nil, src)
			if err != nil {
				t.Fatal(err)
			}
			root := tree.RootNode()
			for _, limit := range []int{1 << 30, 64} {
				n1, ok1 := DepthSum(root, limit)
				n2, ok2 := depthSumBindings(root, limit)
				if n1 != n2 || ok1 != ok2 {
					t.Errorf("%s %q limit %d: %d %v in C, %d %v through the bindings", name, s[:min(len(s), 30)], limit, n1, ok1, n2, ok2)
				}
			}
			b1, ok := Brackets(root)
			b2 := bracketsBindings(root)
			if !ok || !reflect.DeepEqual(b1, b2) {
				t.Errorf("%s %q: brackets %v (%v) in C, %v through the bindings", name, s[:min(len(s), 30)], b1, ok, b2)
			}
			brackets += len(b1)
			tree.Close()
		}
		ps.Close()
	}
	if brackets == 0 {
		t.Fatal("no grammar found a bracket")
	}
}

// depthSumBindings is DepthSum through the bindings' cursor.
func depthSumBindings(n *sitter.Node, limit int) (int, bool) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	depth, sum, nodes := 0, 0, 0
	for {
		nodes++
		if sum += depth; sum > limit {
			return nodes, false
		}
		if c.GoToFirstChild() {
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return nodes, true
			}
			depth--
		}
	}
}

// bracketsBindings is Brackets through the bindings' cursor.
func bracketsBindings(root *sitter.Node) []Bracket {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	out := []Bracket{}
	var prev *sitter.Node
	for {
		n := c.CurrentNode()
		if n.ChildCount() == 0 {
			switch t := n.Type(); t {
			case "(", "[", "{", ")", "]", "}":
				b := Bracket{Open: t == "(" || t == "[" || t == "{", Row: int(n.StartPoint().Row)}
				if t == "(" && prev != nil && prev.IsNamed() && prev.EndByte() <= n.StartByte() {
					b.NameFrom, b.NameTo, b.NameRow = int(prev.StartByte()), int(prev.EndByte()), int(prev.StartPoint().Row)
				}
				out = append(out, b)
			}
			prev = n
		}
		if c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return out
			}
		}
	}
}
