package diff

import (
	"slices"
	"testing"
)

// The behaviours review anchoring relies on (pinned from its tests): the
// new-side lines (added and context) of each kind of file diff, a cut hunk
// read leniently with a reason, and the old side a delta's memory follows.

const handlerDiff = `diff --git a/api/handler.go b/api/handler.go
index 1111111..2222222 100644
--- a/api/handler.go
+++ b/api/handler.go
@@ -10,8 +10,11 @@ func Handle(w http.ResponseWriter, r *http.Request) {
 	id := r.URL.Query().Get("id")
 	if id == "" {
 		http.Error(w, "missing id", 400)
 		return
 	}
+	q := "SELECT * FROM users WHERE id = " + id
+	rows, err := db.Query(q)
+	_ = rows
 	if err != nil {
 		return
 	}
`

const renamedDiff = `diff --git a/old/name.go b/new/name.go
similarity index 90%
rename from old/name.go
rename to new/name.go
--- a/old/name.go
+++ b/new/name.go
@@ -3,3 +3,3 @@ package x
 func keep() {}
-func gone() {}
+func added() {}
 func tail() {}
`

const deletedDiff = `diff --git a/dead.go b/dead.go
deleted file mode 100644
--- a/dead.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package dead
-func f() {}
`

const memDelta2 = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,10 +1,17 @@
 package a
 
 func A() {
-	x := load()
+	x, err := load()
+	if err != nil {
+		return
+	}
 	use(x)
 }
 
 func B() {
 	y := 1 / n
 }
+
+func C() {
+	z := unsafe()
+}
`

// newSide returns the new-side line numbers of f and their texts.
func newSide(f File) ([]int, map[int]string) {
	var ns []int
	text := map[int]string{}
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op != Delete {
				ns = append(ns, l.New)
				text[l.New] = l.Text
			}
		}
	}
	return ns, text
}

func TestNewSideForAnchoring(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		in, out    []int
		lenient    bool
	}{
		{"handler", handlerDiff, []int{10, 14, 15, 16, 17, 20}, []int{0, 9, 21}, false},
		{"renamed", renamedDiff, []int{3, 4, 5}, []int{2, 6}, false},
		{"bare hunk", bareHunk, []int{1, 2, 3}, []int{4}, false},
		{"deleted", deletedDiff, nil, []int{1, 2}, false},
		{"cut hunk", cutHunk, []int{5, 6, 7}, []int{8}, true},
	} {
		d := Parse(tt.diff)
		if len(d.Files) != 1 {
			t.Fatalf("%s: %d files", tt.name, len(d.Files))
		}
		f := d.Files[0]
		if (f.Lenient != nil) != tt.lenient {
			t.Errorf("%s: lenient %v, want %v", tt.name, f.Lenient, tt.lenient)
		}
		ns, _ := newSide(f)
		for _, n := range tt.in {
			if !slices.Contains(ns, n) {
				t.Errorf("%s:%d should be a new-side line (%v)", tt.name, n, ns)
			}
		}
		for _, n := range tt.out {
			if slices.Contains(ns, n) {
				t.Errorf("%s:%d should not be a new-side line", tt.name, n)
			}
		}
	}
	_, text := newSide(ParseSection(cutHunk))
	if text[7] != "added two" {
		t.Errorf("cut hunk line 7 is %q, want the second added line", text[7])
	}
	_, text = newSide(ParseSection(handlerDiff))
	if text[16] != "\trows, err := db.Query(q)" {
		t.Errorf("line 16 is %q", text[16])
	}
}

// follow is review memory's walk of an old line into the new version,
// written on the model: the new number of line, or removed.
func follow(f File, line, n int) (int, bool) {
	removed, toNew := map[int]bool{}, map[int]int{}
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case Delete:
				removed[l.Old] = true
			case Context:
				toNew[l.Old] = l.New
			}
		}
	}
	for l := line; l < line+n; l++ {
		if removed[l] {
			return 0, true
		}
	}
	if nl, ok := toNew[line]; ok {
		return nl, false
	}
	offset := 0
	for _, h := range f.Hunks {
		if h.OldLines == 0 {
			if line <= h.OldStart {
				break
			}
			offset += h.NewLines
			continue
		}
		if line < h.OldStart {
			break
		}
		offset += h.NewLines - h.OldLines
	}
	return line + offset, false
}

func TestOldSideFollow(t *testing.T) {
	f := ParseSection(memDelta2)
	if f.Lenient != nil {
		t.Fatal(f.Lenient)
	}
	for _, tc := range []struct{ line, n, want int }{{1, 1, 1}, {4, 1, 0}, {5, 1, 8}, {9, 1, 12}, {3, 2, 0}} {
		got, removed := follow(f, tc.line, tc.n)
		if removed != (tc.want == 0) || got != tc.want {
			t.Errorf("follow(%d, %d) = %d, %v; want %d", tc.line, tc.n, got, removed, tc.want)
		}
	}
	// Outside every hunk: shifted by the hunks before it, strictly and leniently.
	text := "--- a/x\n+++ b/x\n@@ -10,2 +10,4 @@\n a\n+b\n+c\n d\n@@ -30,0 +33,2 @@\n+e\n+f\n"
	for _, f := range []File{ParseSection(text), {Hunks: walkHunks(text)}} {
		for _, tc := range []struct{ line, want int }{{5, 5}, {11, 13}, {20, 22}, {30, 32}, {31, 35}} {
			if got, removed := follow(f, tc.line, 1); removed || got != tc.want {
				t.Errorf("follow(%d) = %d, %v; want %d", tc.line, got, removed, tc.want)
			}
		}
	}
}

// The context stage's file list: statuses, cleaned paths and counts of a
// whole diff, and a preamble kept apart.
func TestParseForContext(t *testing.T) {
	d := Parse("junk\n" + modified + renamed + deleted + binary)
	if d.Preamble != "junk\n" || len(d.Files) != 4 {
		t.Fatalf("preamble %q, %d files", d.Preamble, len(d.Files))
	}
	got := ""
	for _, f := range d.Files {
		got += string(f.Status) + " " + f.Path + " " + f.OldPath + ";"
	}
	if want := "modified a.go ;renamed new.go old.go;deleted gone.go ;modified i.png ;"; got != want {
		t.Errorf("files %s, want %s", got, want)
	}
	if f := d.Files[0]; f.Additions() != 2 || f.Deletions() != 1 {
		t.Errorf("counts +%d -%d", f.Additions(), f.Deletions())
	}
}
