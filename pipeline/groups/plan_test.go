package groups

import (
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestStem pairs a test file with the file it tests.
func TestStem(t *testing.T) {
	if stem("web/app.spec.ts") != "app" || stem("pkg/test_util.py") != "util" || stem("a/FooTest.java") != "Foo" {
		t.Error("stem does not pair tests with their files")
	}
}

// TestNameLinksGoMethod links a Go method to a removed call of it.
func TestNameLinksGoMethod(t *testing.T) {
	if l := NameLinks([]pipeline.ChangedFile{{Path: "a.go", Diff: "+func (h *H) Serve() {}\n"}, {Path: "b.go", Diff: "-x := h.Serve()\n"}}); len(l) != 1 || l[0] != [2]int{0, 1} {
		t.Errorf("a Go method and its removed call: links %v", l)
	}
}
