package java

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// TestFindInPartsAnswersAsOneWalk finds the candidates of a change to a
// class its package's callers use, walked in one part and in parts on
// four cores: the evidence must be the same, item for item, and must name
// the callers of every part.
func TestFindInPartsAnswersAsOneWalk(t *testing.T) {
	tree := mapTree{}
	svcOld := "package a;\n\npublic class Svc {\n  public int run(int x) {\n    return x;\n  }\n  public Svc() {}\n}\n"
	svcNew := "package a;\n\npublic class Svc {\n  public int run(int x) {\n    return x + 1;\n  }\n  public Svc() {\n    int y = 0;\n  }\n}\n"
	tree["src/a/Svc.java"] = svcNew
	tree["src/a/Helper.java"] = "package a;\n\npublic class Helper {\n  public static int twice(int x) { return 2 * x; }\n}\n"
	const callers = 24
	for i := range callers {
		var b strings.Builder
		fmt.Fprintf(&b, "package a;\n\npublic class C%d {\n", i)
		for j := range 3 + i%5 {
			fmt.Fprintf(&b, "  int m%d() {\n    Svc s = new Svc();\n    return s.run(%d) + Helper.twice(%d);\n  }\n", j, j, i)
		}
		b.WriteString("}\n")
		tree[fmt.Sprintf("src/a/C%02d.java", i)] = b.String()
	}
	useOld := "package a;\n\npublic class Use {\n  int go() {\n    return 0;\n  }\n}\n"
	useNew := "package a;\n\npublic class Use {\n  int go() {\n    Svc s = new Svc();\n    return s.run(1) + Helper.twice(2);\n  }\n}\n"
	tree["src/a/Use.java"] = useNew
	use2New := strings.ReplaceAll(useNew, "Use", "Use2")
	tree["src/a/Use2.java"] = use2New
	changes := func() []*engine.Change {
		return []*engine.Change{
			{Path: "src/a/Svc.java", Old: []byte(svcOld), New: []byte(svcNew), Added: map[int]bool{5: true, 7: true, 8: true, 9: true}, Removed: map[int]bool{5: true, 7: true}},
			{Path: "src/a/Use.java", Old: []byte(useOld), New: []byte(useNew), Added: map[int]bool{5: true, 6: true}, Removed: map[int]bool{5: true}},
			{Path: "src/a/Use2.java", New: []byte(use2New), Added: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true}},
		}
	}
	find := func(minTokens int) *engine.Evidence {
		t.Helper()
		defer func(v int) { partMinTokens = v }(partMinTokens)
		partMinTokens = minTokens
		cs := changes()
		ev := engine.NewEvidence(cs)
		if err := find(context.Background(), tree, cs, cs, ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	one := find(1 << 40)
	parts := find(1)
	impact := 0
	for i := range callers {
		if f := one.Files[fmt.Sprintf("src/a/C%02d.java", i)]; f != nil && len(f.Items) > 0 {
			impact++
		}
	}
	if impact != callers {
		t.Fatalf("one walk found %d of the %d callers: the comparison proves little", impact, callers)
	}
	if h := one.Files["src/a/Helper.java"]; h == nil || len(h.Items) < 2 {
		t.Fatalf("one walk found %v for Helper, want its uses by both heads: the comparison proves little", h)
	}
	if !reflect.DeepEqual(one.Files, parts.Files) {
		for p, f := range one.Files {
			if g := parts.Files[p]; g == nil || !reflect.DeepEqual(f.Items, g.Items) {
				t.Errorf("%s: one walk %v, in parts %v", p, f.Items, g)
			}
		}
		for p := range parts.Files {
			if one.Files[p] == nil {
				t.Errorf("%s: only in parts", p)
			}
		}
	}
}
