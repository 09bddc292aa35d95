package diff

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWindow: any diff text and limit are windowed without a panic,
// within the limit (the header aside), with every range well-formed.
func FuzzWindow(f *testing.F) {
	f.Add("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@ x\n a\n-b\n+c\n+d\n@@ -9 +10 @@\n-x\n+y\n", 60)
	f.Add("@@ -0,0 +1 @@\n+only\n", 5)
	f.Add("@@ -a,b +c,d @@\n+x\n@@ -1,1 +1,1\n", 10)
	f.Fuzz(func(t *testing.T, diff string, limit int) {
		got, omitted := Window(diff, limit)
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
