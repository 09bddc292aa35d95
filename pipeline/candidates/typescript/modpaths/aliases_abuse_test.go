package modpaths

import (
	"fmt"
	"strings"
	"testing"
)

// TestAbuseAliasTable: a tsconfig with 4,000 path aliases, each with many
// targets, is read within its bounds (at most maxAliasRules patterns, at most
// maxAliasTargets targets each), deterministically, and 20,000 imports
// resolve through it within seconds even under the race detector.
func TestAbuseAliasTable(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"compilerOptions": {"paths": {`)
	targets := strings.Repeat(`"src/*", `, 20) + `"lib/*"`
	for i := range 2_000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%05d/*": [%s], "p%05dx": ["src/e.ts"]`, i, targets, i)
	}
	b.WriteString(`}}}`)
	a := Parse([]byte(b.String()))
	if a == nil {
		t.Fatal("the table was not read")
	}
	if n := len(a.exact) + len(a.wild); n != maxAliasRules {
		t.Errorf("%d patterns kept, want the bound %d", n, maxAliasRules)
	}
	for _, r := range a.wild {
		if len(r.targets) > maxAliasTargets {
			t.Fatalf("%s keeps %d targets, over %d", r.pattern, len(r.targets), maxAliasTargets)
		}
	}
	if again := Parse([]byte(b.String())); fmt.Sprint(again.wild) != fmt.Sprint(a.wild) {
		t.Error("the patterns kept depend on the map's order")
	}
	// Each import costs the kept patterns at most (bounded above), and
	// answers at most their targets.
	hits := 0
	for i := range 20_000 {
		got := a.Resolve(fmt.Sprintf("p%05d/x", i%100))
		if len(got) > maxAliasTargets*2 {
			t.Fatalf("%d paths for one import", len(got))
		}
		hits += len(got)
	}
	if hits == 0 {
		t.Error("no import resolved through the kept patterns")
	}
	if got := a.Resolve("p00000x"); len(got) != 1 || got[0] != "src/e.ts" {
		t.Errorf("exact pattern: %v", got)
	}
}
