package diff

import (
	"reflect"
	"testing"
)

// Summarize answers as ParseSection read section by section, the first
// time and from memory, and its slices are the caller's.
func TestSummarizeAsParsed(t *testing.T) {
	raw := "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,4 @@\n x\n-y\n+z\n+w\n q\n" +
		"diff --git a/b b/c\nsimilarity index 90%\nrename from b\nrename to c\n" +
		"diff --git a/d.png b/d.png\nBinary files a/d.png and b/d.png differ\n" +
		"diff --git a/e b/e\ndeleted file mode 100644\n--- a/e\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n"
	_, sections := Split(raw)
	for range 2 {
		for _, sec := range sections {
			f := ParseSection(sec)
			want := Summary{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Binary: f.Binary, Symlink: f.Symlink,
				Submodule: f.Submodule, Lenient: f.Lenient, NewRanges: f.NewRanges(), Added: f.AddedLines(), Removed: f.RemovedLines()}
			got := Summarize(sec)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: %+v, want %+v", sec, got, want)
			}
			if len(got.NewRanges) > 0 {
				got.NewRanges[0].From = -1
			}
			if len(got.Added) > 0 {
				got.Added[0] = -1
			}
		}
	}
}
