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

// TestBraceIsNoEvidence: a quote with too few identifier characters ("}",
// "});", "i++") verifies a finding only when it is the one match near the
// finding's line and covers it; "}" in a file of many closing braces, or
// with no line, never does. A quote with identifiers verifies as before.
func TestBraceIsNoEvidence(t *testing.T) {
	src := "package a\n\nfunc A() {\n\tif x {\n\t\ty()\n\t}\n}\n\nfunc B() {\n\tfor i := 0; i < 3; i++ {\n\t\tz(i)\n\t}\n}\n"
	d := "diff --git a/a.go b/a.go\nnew file mode 100644\n--- /dev/null\n+++ b/a.go\n@@ -0,0 +1,13 @@\n"
	for _, l := range splitForDiff(src) {
		d += "+" + l + "\n"
	}
	files := []pipeline.ChangedFile{{Path: "a.go", Status: "added", Diff: d, Source: src}}
	ix, _ := anchor.NewIndex(files)
	s := evidence.New(ix, files, nil)
	for _, tc := range []struct {
		quote string
		line  int
		want  string
	}{
		{"}", 7, evidence.Unverified},  // four "}" lines within reach
		{"}", 0, evidence.Unverified},  // no line: nothing says which
		{"}", 99, evidence.Unverified}, // none near
		{"\t}\n}", 6, evidence.Unverified},
		{"z(i)", 11, evidence.Verified}, // the one match, on its line
		{"z(i)", 30, evidence.Unverified},
		{"y()", 5, evidence.Verified},
		{"func B() {", 0, evidence.Verified}, // identifiers enough: found anywhere in the file
	} {
		r := s.Check(pipeline.Finding{Path: "a.go", Line: tc.line, ExistingCode: tc.quote, Severity: "critical"})
		if r.Verdict != tc.want {
			t.Errorf("quote %q at line %d: %+v, want %s", tc.quote, tc.line, r, tc.want)
		}
	}
}

func splitForDiff(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
