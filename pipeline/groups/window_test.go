package groups

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	gitdiff "github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
)

// TestWindowDiff cuts a multi-hunk diff: whole hunks first, the first hunk
// that does not fit cut at a line with its header recounted, the rest named.
func TestWindowDiff(t *testing.T) {
	header := "diff --git a/f.go b/f.go\nindex 1..2 100644\n--- a/f.go\n+++ b/f.go\n"
	h1 := "@@ -1,2 +1,2 @@ func a() {\n ctx1\n-old1\n+new1\n"
	h2 := "@@ -10,3 +10,5 @@ func b() {\n ctx10\n-old11\n+new11\n+new12\n ctx13\n+new14\n"
	h3 := "@@ -40,2 +42,2 @@\n-old40\n+new42\n ctx43\n"
	diff := header + h1 + h2 + h3
	hd, l1 := len(header), len(h1)
	h2head := "@@ -10,3 +10,5 @@ func b() {\n"
	tests := []struct {
		name    string
		limit   int
		omitted []pipeline.LineRange
		has     string
	}{
		{"all fits", len(diff), nil, h3},
		{"first hunk only", hd + l1 + 30, []pipeline.LineRange{{From: 10, To: 14}, {From: 42, To: 43}}, h1},
		{"second hunk cut after two lines", hd + l1 + len(h2head) + 8 + len(" ctx10\n-old11\n"),
			[]pipeline.LineRange{{From: 11, To: 14}, {From: 42, To: 43}}, "@@ -10,2 +10,1 @@ func b() {\n ctx10\n-old11\n"},
		{"a later hunk that fits is kept", hd + l1 + len(h3) + 5, []pipeline.LineRange{{From: 10, To: 14}}, h3},
		{"header only", hd, []pipeline.LineRange{{From: 1, To: 2}, {From: 10, To: 14}, {From: 42, To: 43}}, ""},
	}
	for _, tt := range tests {
		got, omitted := WindowDiff(diff, tt.limit)
		if fmt.Sprint(omitted) != fmt.Sprint(tt.omitted) {
			t.Errorf("%s: omitted %v, want %v\n%s", tt.name, omitted, tt.omitted, got)
		}
		if utf8.RuneCountInString(got) > max(tt.limit, hd) {
			t.Errorf("%s: kept %d chars over the limit %d", tt.name, utf8.RuneCountInString(got), tt.limit)
		}
		if !strings.Contains(got, tt.has) {
			t.Errorf("%s: no %q in\n%s", tt.name, tt.has, got)
		}
		files, _, err := gitdiff.Parse(strings.NewReader(got))
		if err != nil {
			t.Errorf("%s: windowed diff does not parse: %v\n%s", tt.name, err, got)
			continue
		}
		// Every new-file line of the original hunks is either shown or named.
		shown := map[int]bool{}
		for _, f := range files {
			for _, fr := range f.TextFragments {
				for l := fr.NewPosition; l < fr.NewPosition+fr.NewLines; l++ {
					shown[int(l)] = true
				}
			}
		}
		for _, r := range omitted {
			for l := r.From; l <= r.To; l++ {
				shown[l] = true
			}
		}
		for _, l := range []int{1, 2, 10, 11, 12, 13, 14, 42, 43} {
			if !shown[l] {
				t.Errorf("%s: new-file line %d neither shown nor named as omitted", tt.name, l)
			}
		}
	}
}

// FuzzWindowDiff: any diff text and limit are windowed without a panic,
// within the limit (the header aside), with every range well-formed.
func FuzzWindowDiff(f *testing.F) {
	f.Add("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@ x\n a\n-b\n+c\n+d\n@@ -9 +10 @@\n-x\n+y\n", 60)
	f.Add("@@ -0,0 +1 @@\n+only\n", 5)
	f.Add("@@ -a,b +c,d @@\n+x\n@@ -1,1 +1,1\n", 10)
	f.Fuzz(func(t *testing.T, diff string, limit int) {
		got, omitted := WindowDiff(diff, limit)
		head, _, _ := strings.Cut(diff, "\n@@ ")
		if len(omitted) > 0 && utf8.RuneCountInString(got) > max(limit, utf8.RuneCountInString(head)+1) {
			t.Fatalf("kept %d chars over the limit %d", utf8.RuneCountInString(got), limit)
		}
		for _, r := range omitted {
			if r.From < 1 || r.To < r.From {
				t.Fatalf("bad range %+v", r)
			}
		}
	})
}
