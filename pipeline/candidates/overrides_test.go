package candidates

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// readLog counts the reads of each file of a tree.
type readLog struct {
	Tree
	mu sync.Mutex
	n  map[string]int
}

func (r *readLog) wrap(t Tree) Tree { r.Tree = t; return r }

func (r *readLog) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r.mu.Lock()
	r.n[p]++
	r.mu.Unlock()
	return r.Tree.ReadFile(ctx, p)
}

func (r *readLog) count(p string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[p]
}

// overrideLang is one class-based reader's fixture for
// TestOverridesInEveryReader: a base class whose method size changes, a
// direct subclass and a subclass two levels down (through a class that
// overrides nothing and never names size) that override it, and an
// unrelated class with a method of the same name.
type overrideLang struct {
	name                    string
	base, baseSrc, baseSrc2 string
	direct, deep, middle    string
	unrelated               string
	files                   map[string]string
}

var overrideLangs = []overrideLang{
	{
		name: "java", base: "src/main/java/n/JsonNode.java",
		baseSrc:   "package n;\n\npublic abstract class JsonNode {\n    public int size() {\n        return 0;\n    }\n}\n",
		baseSrc2:  "package n;\n\npublic abstract class JsonNode {\n    public int size() {\n        return -1;\n    }\n}\n",
		direct:    "src/main/java/n/ArrayNode.java",
		middle:    "src/main/java/n/ContainerNode.java",
		deep:      "src/main/java/n/ObjectNode.java",
		unrelated: "src/main/java/n/Bag.java",
		files: map[string]string{
			"src/main/java/n/ArrayNode.java":     "package n;\n\npublic class ArrayNode extends JsonNode {\n    @Override\n    public int size() {\n        return 1;\n    }\n}\n",
			"src/main/java/n/ContainerNode.java": "package n;\n\npublic abstract class ContainerNode extends JsonNode {\n}\n",
			"src/main/java/n/ObjectNode.java":    "package n;\n\npublic class ObjectNode extends ContainerNode {\n    @Override\n    public int size() {\n        return 2;\n    }\n}\n",
			"src/main/java/n/Bag.java":           "package n;\n\npublic class Bag {\n    public int size() {\n        return 3;\n    }\n}\n",
		},
	},
	{
		name: "typescript", base: "src/node.ts",
		baseSrc:   "export abstract class JsonNode {\n  size(): number {\n    return 0;\n  }\n}\n",
		baseSrc2:  "export abstract class JsonNode {\n  size(): number {\n    return -1;\n  }\n}\n",
		direct:    "src/array.ts",
		middle:    "src/container.ts",
		deep:      "src/object.ts",
		unrelated: "src/bag.ts",
		files: map[string]string{
			"src/array.ts":     "import { JsonNode } from './node';\nexport class ArrayNode extends JsonNode {\n  size(): number {\n    return 1;\n  }\n}\n",
			"src/container.ts": "import { JsonNode } from './node';\nexport abstract class ContainerNode extends JsonNode {}\n",
			"src/object.ts":    "import { ContainerNode } from './container';\nexport class ObjectNode extends ContainerNode {\n  size(): number {\n    return 2;\n  }\n}\n",
			"src/bag.ts":       "export class Bag {\n  size(): number {\n    return 3;\n  }\n}\n",
		},
	},
	{
		name: "python", base: "pkg/node.py",
		baseSrc:   "class JsonNode:\n    def size(self):\n        return 0\n",
		baseSrc2:  "class JsonNode:\n    def size(self):\n        return -1\n",
		direct:    "pkg/array.py",
		middle:    "pkg/container.py",
		deep:      "pkg/obj.py",
		unrelated: "pkg/bag.py",
		files: map[string]string{
			"pkg/__init__.py":  "",
			"pkg/array.py":     "from pkg.node import JsonNode\n\n\nclass ArrayNode(JsonNode):\n    def size(self):\n        return 1\n",
			"pkg/container.py": "from pkg import node\n\n\nclass ContainerNode(node.JsonNode):\n    pass\n",
			"pkg/obj.py":       "from pkg.container import ContainerNode\n\n\nclass ObjectNode(ContainerNode):\n    def size(self):\n        return 2\n",
			"pkg/bag.py":       "class Bag:\n    def size(self):\n        return 3\n",
		},
	},
}

// A changed method reaches the methods that override it, in a direct
// subclass and in one two levels down whose file names neither the
// changed class nor, in between, the method: the same in every reader
// with classes. A class of its own with a method of the same name is not
// an override.
func TestOverridesInEveryReader(t *testing.T) {
	for _, l := range overrideLangs {
		t.Run(l.name, func(t *testing.T) {
			base := map[string]string{l.base: l.baseSrc}
			for p, s := range l.files {
				base[p] = s
			}
			reads := &readLog{n: map[string]int{}}
			got := repo{base: base, changed: map[string]string{l.base: l.baseSrc2}, tree: reads.wrap}.run(t)
			listed := map[string]Candidate{}
			for _, c := range got {
				listed[c.Path] = c
			}
			for _, p := range []string{l.direct, l.deep} {
				c, ok := listed[p]
				if !ok || c.Kind != KindImpact || !strings.Contains(c.Reason, "overrides `JsonNode.size`, whose body changed") {
					t.Errorf("%s: want impact \"overrides `JsonNode.size`\", got:\n%s", p, dump(got))
				}
			}
			if c, ok := listed[l.unrelated]; ok && c.Method != MethodTextual {
				t.Errorf("%s, an unrelated class, listed as %s: %s", l.unrelated, c.Method, c.Reason)
			}
			if _, ok := listed[l.middle]; ok {
				t.Errorf("%s, which overrides nothing, listed:\n%s", l.middle, dump(got))
			}
			// The search for subtypes reads the class in between (and the
			// search by name may find it too): the reader searches that
			// reading instead of reading the file again.
			if n := reads.count(l.middle); n != 1 {
				t.Errorf("%s read %d times, want once", l.middle, n)
			}
		})
	}
}

// Go's counterpart of an override: a changed interface method reaches the
// methods of that name in packages that see the interface (its own, or
// one importing it), not a same-named method elsewhere.
func TestGoInterfaceMethodReachesImplementations(t *testing.T) {
	base := map[string]string{
		"go.mod":         "module example.com/m\n",
		"conf/conf.go":   "package conf\n\ntype Section interface {\n\tValidate() error\n}\n",
		"conf/server.go": "package conf\n\ntype Server struct{}\n\nfunc (Server) Validate() error { return nil }\n",
		"app/client.go":  "package app\n\nimport \"example.com/m/conf\"\n\ntype Client struct{}\n\nfunc (Client) Validate() error { return nil }\n\nvar _ conf.Section = Client{}\n",
		"other/x.go":     "package other\n\ntype X struct{}\n\nfunc (X) Validate() error { return nil }\n",
	}
	got := repo{base: base, changed: map[string]string{"conf/conf.go": "package conf\n\ntype Section interface {\n\tValidate(strict bool) error\n}\n"}}.run(t)
	listed := map[string]string{}
	for _, c := range got {
		listed[c.Path] = c.Reason
	}
	for _, p := range []string{"conf/server.go", "app/client.go"} {
		if !strings.Contains(listed[p], "implements `Section.Validate`, whose signature changed") {
			t.Errorf("%s: want \"implements `Section.Validate`\", got:\n%s", p, dump(got))
		}
	}
	if r, ok := listed["other/x.go"]; ok {
		t.Errorf("other/x.go, which cannot see the interface, listed: %s", r)
	}
}
