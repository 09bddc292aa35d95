//go:build cgo

package treesit

import (
	"context"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// walkSources are sources of every grammar: calls spanning lines, nested
// brackets, keywords before brackets, unterminated ones.
var walkSources = []string{
	"fn main() {\n    let x = compute(\n        a,\n        b[1],\n    );\n    if (x) { run(x) }\n}\n",
	"class A extends B {\n  void m(int n) {\n    call(n,\n      other(n));\n    while (n > 0) {\n      n--;\n    }\n  }\n}\n",
	"def f(a,\n      b):\n    return g(\n        a, [b,\n            c])\n",
	"<?php\nfunction f($a) {\n  return g(\n    $a, [1,\n    2]);\n}\n",
	"int main(void) {\n  printf(\"%d\",\n    f(1));\n  return (a[\n    0]);\n}\n",
	"x = f(\n  g(\n    h(1,\n",
}

// TestWalksAgreeWithBindings: the walks in C answer what a walk of the
// same tree node by node through the bindings answers, in every grammar,
// on ordinary and hostile sources.
func TestWalksAgreeWithBindings(t *testing.T) {
	if !nodeLayout {
		t.Fatal("the bindings' Node no longer starts with the runtime's node value")
	}
	srcs := append([]string{}, walkSources...)
	for _, h := range hostile(1 << 10) {
		srcs = append(srcs, h)
	}
	spansSeen := 0
	for _, name := range Languages() {
		c, err := compile(languages[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range srcs {
			src := []byte(s)
			ps := c.parsers.Get().(*sitter.Parser)
			tree, err := ps.ParseCtx(context.Background(), nil, src)
			c.parsers.Put(ps)
			if err != nil {
				t.Fatal(err)
			}
			root := tree.RootNode()
			for _, limit := range []int{1 << 30, 64} {
				n1, ok1 := shallow(root, limit)
				n2, ok2 := shallowBindings(root, limit)
				if n1 != n2 || ok1 != ok2 {
					t.Errorf("%s %q limit %d: depth walk %d %v in C, %d %v through the bindings", name, s[:min(len(s), 30)], limit, n1, ok1, n2, ok2)
				}
			}
			sp1, ca1 := bracketSpans(root, src)
			sp2, ca2 := bracketSpansBindings(root, src)
			if !reflect.DeepEqual(sp1, sp2) || !reflect.DeepEqual(ca1, ca2) {
				t.Errorf("%s %q: spans %v %v in C, %v %v through the bindings", name, s[:min(len(s), 30)], sp1, ca1, sp2, ca2)
			}
			spansSeen += len(sp1) + len(ca1)
			tree.Close()
		}
	}
	if spansSeen == 0 {
		t.Fatal("no grammar found a bracket spanning lines")
	}
}

// TestBracketSpansCallees: a call whose arguments span lines is a span
// naming its callee; `if (` names none.
func TestBracketSpansCallees(t *testing.T) {
	c, err := compile(languages["rust"])
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(walkSources[0])
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

// shallowBindings is shallow through the bindings' cursor.
func shallowBindings(n *sitter.Node, limit int) (int, bool) {
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

// bracketSpansBindings is bracketSpans through the bindings' cursor.
func bracketSpansBindings(root *sitter.Node, src []byte) (spans []engine.Span, callees []ref) {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var open []int
	var prev *sitter.Node
	for {
		n := c.CurrentNode()
		if n.ChildCount() == 0 {
			switch t := n.Type(); t {
			case "(", "[", "{":
				s := engine.Span{Open: line(n), Callee: -1}
				if t == "(" && prev != nil && prev.IsNamed() && prev.EndByte() <= n.StartByte() {
					s.Callee, s.CalleeLine = len(callees), line(prev)
					callees = append(callees, ref{name: string(src[prev.StartByte():prev.EndByte()]), line: line(prev)})
				}
				open = append(open, len(spans))
				spans = append(spans, s)
			case ")", "]", "}":
				if k := len(open); k > 0 {
					spans[open[k-1]].Close = line(n)
					open = open[:k-1]
				}
			}
			prev = n
		}
		if c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return multiLine(spans), callees
			}
		}
	}
}
