package evidence_test

import (
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/evidence"
)

const aDiff = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,4 +1,4 @@
 package a
-func Old() { legacyCall() }
+func New() { freshCall() }
 var shared = sharedValue()
`

func TestCheck(t *testing.T) {
	files := []pipeline.ChangedFile{
		{Path: "a.go", Status: "modified", Diff: aDiff, Source: "package a\nfunc New() { freshCall() }\nvar shared = sharedValue()\nfunc outside() { onlyInSource() }\n"},
		{Path: "b.go", Status: "added", Diff: "diff --git a/b.go b/b.go\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1,2 @@\n+package b\n+func B() { bOnly() }\n"},
	}
	context := []pipeline.ContextItem{
		{OK: true, Op: "get_file", Path: "c/c.go", Content: "package c\nfunc C() { contextOnly() }\n"},
		{OK: true, Op: "list_dir", Path: "c", Content: "c/c.go (file)\n"},
		{OK: false, Op: "get_file", Path: "d.go", Error: "not found"},
	}
	ix, _ := anchor.NewIndex(files)
	s := evidence.New(ix, files, context)
	for _, tc := range []struct {
		path, quote, verdict, foundIn, reason string
	}{
		{"a.go", "func New() { freshCall() }", evidence.Verified, "", ""},
		{"a.go", "+func New() {   freshCall() }", evidence.Verified, "", ""},
		{"./a.go", "onlyInSource()", evidence.Verified, "", ""},
		{"a.go", "func Old() { legacyCall() }", evidence.Unverified, "", evidence.ReasonDeleted},
		{"a.go", "-func Old() { legacyCall() }", evidence.Unverified, "", evidence.ReasonDeleted},
		{"a.go", "func Newer() { freshCall() }", evidence.Unverified, "", evidence.ReasonNotFound},
		{"a.go", "  \n ", evidence.Unverified, "", evidence.ReasonNoQuote},
		{"a.go", "func B() { bOnly() }", evidence.Elsewhere, "b.go", ""},
		{"a.go", "func C() { contextOnly() }", evidence.Elsewhere, "c/c.go", ""},
		{"c/c.go", "func C() { contextOnly() }", evidence.Verified, "", ""},
		{"a.go", "c/c.go (file)", evidence.Unverified, "", evidence.ReasonNotFound},
		{"zzz.go", "func B() { bOnly() }", evidence.Elsewhere, "b.go", ""},
	} {
		r := s.Check(pipeline.Finding{Path: tc.path, ExistingCode: tc.quote})
		if r.Verdict != tc.verdict || r.FoundIn != tc.foundIn || (tc.reason != "" && r.Reason != tc.reason) {
			t.Errorf("%s %q: %+v, want %s %q %q", tc.path, tc.quote, r, tc.verdict, tc.foundIn, tc.reason)
		}
	}
	var nilText *anchor.Text
	if nilText.HasQuote("x") {
		t.Error("a nil Text has no quote")
	}
}
