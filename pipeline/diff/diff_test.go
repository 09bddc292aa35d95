package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

const modified = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -2,3 +2,4 @@ package a
 func A() {
-	x()
+	y()
+	z()
 }
`

const renamed = `diff --git a/old.go b/new.go
similarity index 90%
rename from old.go
rename to new.go
index 3333333..4444444 100644
--- a/old.go
+++ b/new.go
@@ -1,2 +1,2 @@
-package b
+package c
 
`

const deleted = `diff --git a/gone.go b/gone.go
deleted file mode 100644
index 5555555..0000000
--- a/gone.go
+++ /dev/null
@@ -1 +0,0 @@
-package gone
`

const copied = `diff --git a/src.go b/dst.go
similarity index 100%
copy from src.go
copy to dst.go
`

const binary = `diff --git a/i.png b/i.png
index 1111111..2222222 100644
Binary files a/i.png and b/i.png differ
`

const symlink = `diff --git a/link b/link
new file mode 120000
index 0000000..1111111
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+target
\ No newline at end of file
`

const submodule = `diff --git a/vendor/lib b/vendor/lib
index 1111111..2222222 160000
--- a/vendor/lib
+++ b/vendor/lib
@@ -1 +1 @@
-Subproject commit 1111111111111111111111111111111111111111
+Subproject commit 2222222222222222222222222222222222222222
`

// bareHunk has no file header; cutHunk claims more lines than it holds.
const bareHunk = "@@ -1,2 +1,3 @@\n a := 1\n+b := 2\n c := 3\n"
const cutHunk = "diff --git a/cut.go b/cut.go\n--- a/cut.go\n+++ b/cut.go\n@@ -5,9 +5,12 @@\n ctx line\n+added one\n+added two\n"

// fileSummary is what a File says, without its text.
type fileSummary struct {
	Path, OldPath string
	Status        Status
	Binary        bool
	Symlink       bool
	Submodule     bool
	Ranges        []pipeline.LineRange
	Added         []int
	Removed       []int
	Lenient       bool
}

func summarize(f File) fileSummary {
	return fileSummary{f.Path, f.OldPath, f.Status, f.Binary, f.Symlink, f.Submodule, f.NewRanges(), f.AddedLines(), f.RemovedLines(), f.Lenient != nil}
}

func TestParseSection(t *testing.T) {
	r := func(from, to int) pipeline.LineRange { return pipeline.LineRange{From: from, To: to} }
	tests := []struct {
		name    string
		section string
		want    fileSummary
	}{
		{"modified", modified, fileSummary{Path: "a.go", Status: Modified, Ranges: []pipeline.LineRange{r(2, 5)}, Added: []int{3, 4}, Removed: []int{3}}},
		{"renamed", renamed, fileSummary{Path: "new.go", OldPath: "old.go", Status: Renamed, Ranges: []pipeline.LineRange{r(1, 2)}, Added: []int{1}, Removed: []int{1}}},
		{"deleted: the old path, a pure deletion's range", deleted, fileSummary{Path: "gone.go", Status: Deleted, Ranges: []pipeline.LineRange{r(1, 1)}, Removed: []int{1}}},
		{"a copy is added", copied, fileSummary{Path: "dst.go", Status: Added, Ranges: []pipeline.LineRange{}}},
		{"binary", binary, fileSummary{Path: "i.png", Status: Modified, Binary: true, Ranges: []pipeline.LineRange{}}},
		{"symlink", symlink, fileSummary{Path: "link", Status: Added, Symlink: true, Ranges: []pipeline.LineRange{r(1, 1)}, Added: []int{1}}},
		{"submodule, its mode on the index line", submodule, fileSummary{Path: "vendor/lib", Status: Modified, Submodule: true, Ranges: []pipeline.LineRange{r(1, 1)}, Added: []int{1}, Removed: []int{1}}},
		{"bare hunk", bareHunk, fileSummary{Status: Modified, Ranges: []pipeline.LineRange{r(1, 3)}, Added: []int{2}}},
		{"cut hunk read leniently", cutHunk, fileSummary{Path: "cut.go", Status: Modified, Ranges: []pipeline.LineRange{r(5, 7)}, Added: []int{6, 7}, Lenient: true}},
		{"empty", "", fileSummary{Status: Modified, Ranges: []pipeline.LineRange{}}},
		{"cut hunk of a deleted file", "diff --git a/d.go b/d.go\ndeleted file mode 100644\n--- a/d.go\n+++ /dev/null\n@@ -1,5 +0,0 @@\n-a\n-b\n",
			fileSummary{Path: "d.go", Status: Deleted, Ranges: []pipeline.LineRange{r(1, 1)}, Removed: []int{1, 2}, Lenient: true}},
		{"traditional header read leniently", "--- a/t.go\t2024-01-01\n+++ b/t.go\t2024-01-02\n@@ -1,4 +1,4 @@\n-x\n+y\n",
			fileSummary{Path: "t.go", Status: Modified, Ranges: []pipeline.LineRange{r(1, 1)}, Added: []int{1}, Removed: []int{1}, Lenient: true}},
		{"a header beyond the line bound is not read", "@@ -1 +2147483647,2 @@\n+x\n+y\n", fileSummary{Status: Modified, Ranges: []pipeline.LineRange{}, Lenient: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseSection(tt.section)
			if d := cmp.Diff(tt.want, summarize(f)); d != "" {
				t.Errorf("(-want +got):\n%s\nlenient: %v", d, f.Lenient)
			}
			if f.Section != tt.section {
				t.Errorf("section %q, want the text verbatim", f.Section)
			}
			sum := Summarize(tt.section)
			if (sum.Lenient == nil) != (f.Lenient == nil) || (f.Lenient != nil && sum.Lenient.Error() != f.Lenient.Error()) {
				t.Errorf("Summarize: lenient %v, ParseSection's %v", sum.Lenient, f.Lenient)
			}
			sum.Lenient = nil
			want := Summary{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Binary: f.Binary, Symlink: f.Symlink, Submodule: f.Submodule,
				NewRanges: f.NewRanges(), Added: f.AddedLines(), Removed: f.RemovedLines()}
			if d := cmp.Diff(want, sum); d != "" {
				t.Errorf("Summarize differs from ParseSection (-parse +summary):\n%s", d)
			}
		})
	}
}

// The lines of a hunk carry both sides' numbers and their text without the
// marker and the line end.
func TestParseSectionLines(t *testing.T) {
	for _, text := range []string{modified, strings.ReplaceAll(modified, "@@ -2,3 +2,4 @@", "@@ -2,9 +2,9 @@")} {
		f := ParseSection(text)
		want := []Line{
			{Op: Context, Old: 2, New: 2, Text: "func A() {"},
			{Op: Delete, Old: 3, Text: "\tx()"},
			{Op: Add, New: 3, Text: "\ty()"},
			{Op: Add, New: 4, Text: "\tz()"},
			{Op: Context, Old: 4, New: 5, Text: "}"},
		}
		if len(f.Hunks) != 1 {
			t.Fatalf("%d hunks", len(f.Hunks))
		}
		if d := cmp.Diff(want, f.Hunks[0].Lines); d != "" {
			t.Errorf("lines (-want +got), lenient %v:\n%s", f.Lenient, d)
		}
		if h := f.Hunks[0]; h.Comment != "package a" || h.OldStart != 2 || h.NewStart != 2 {
			t.Errorf("hunk %+v", h)
		}
	}
}

// The lenient walker: an empty line inside a hunk is a context line, empty
// lines at its end are not; a removed line starting "-- " stays a line
// unless a "+++" line follows; a line that is no hunk line ends the hunk.
func TestWalkHunks(t *testing.T) {
	text := "@@ -1,20 +1,20 @@\n a\n\n b\n--- not a header\n-c\n+d\n\n\n@@ -30 +30 @@\n-x\n+y\nnot a hunk line\n+ignored\n"
	hunks := walkHunks(text)
	if len(hunks) != 2 {
		t.Fatalf("%d hunks: %+v", len(hunks), hunks)
	}
	got := fmt.Sprint(hunks[0].OldStart, hunks[0].OldLines, hunks[0].NewStart, hunks[0].NewLines, len(hunks[0].Lines))
	if want := "1 5 1 4 6"; got != want {
		t.Errorf("first hunk counts %s, want %s: %+v", got, want, hunks[0].Lines)
	}
	if l := hunks[0].Lines[1]; l.Op != Context || l.Old != 2 || l.New != 2 || l.Text != "" {
		t.Errorf("the empty line is %+v, want a context line", l)
	}
	if l := hunks[0].Lines[3]; l.Op != Delete || l.Text != "-- not a header" {
		t.Errorf("the removed line is %+v", l)
	}
	if len(hunks[1].Lines) != 2 || hunks[1].NewLines != 1 {
		t.Errorf("the second hunk ends at the line that is no hunk line: %+v", hunks[1])
	}
	// A cut hunk followed by the next file's header.
	p := Parse("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,9 +1,9 @@\n-x\n+y\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-u\n+v\n")
	if len(p.Files) != 1 || len(p.Files[0].Hunks) != 2 || len(p.Files[0].Hunks[0].Lines) != 2 {
		t.Errorf("a cut hunk ran into the next header: %+v", p.Files)
	}
}

// TestLenientSpans: the counts of hunks read leniently equal the headers'
// when the lines add up (pinned from comments' old-side follow test).
func TestLenientSpans(t *testing.T) {
	text := "--- a/x\n+++ b/x\n@@ -10,2 +10,4 @@\n a\n+b\n+c\n d\n@@ -30,0 +33,2 @@\n+e\n+f\n"
	strict := ParseSection(text)
	if strict.Lenient != nil {
		t.Fatal(strict.Lenient)
	}
	lenient := walkHunks(text)
	span := func(hs []Hunk) string {
		var b strings.Builder
		for _, h := range hs {
			fmt.Fprintf(&b, "%d,%d %d,%d;", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		}
		return b.String()
	}
	if span(lenient) != span(strict.Hunks) || span(lenient) != "10,2 10,4;30,0 33,2;" {
		t.Errorf("lenient spans %s, strict %s", span(lenient), span(strict.Hunks))
	}
}

func TestSplit(t *testing.T) {
	raw := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-diff --git a/y b/y\n+ diff --git a/z b/z\n" +
		"diff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"
	pre, secs := Split(raw)
	if pre != "" || len(secs) != 2 || strings.Join(secs, "") != raw || !strings.HasPrefix(secs[1], "diff --git a/y b/y\n--- a/y") {
		t.Fatalf("preamble %q, sections %q", pre, secs)
	}
	pre, secs = Split("no diff here\n")
	if pre != "no diff here\n" || secs != nil {
		t.Errorf("preamble %q, sections %q", pre, secs)
	}
	trad := "From: someone\n--- a/p\n+++ b/p\n@@ -1 +1 @@\n-a\n+b\n--- a/q\n+++ b/q\n@@ -1 +1 @@\n-c\n+d\n"
	pre, secs = Split(trad)
	if pre != "From: someone\n" || len(secs) != 2 || !strings.HasPrefix(secs[1], "--- a/q") {
		t.Errorf("traditional: preamble %q, sections %q", pre, secs)
	}
	d := Parse(trad)
	if len(d.Files) != 2 || d.Files[0].Path != "p" || d.Files[1].Path != "q" || d.Files[1].Lenient != nil {
		t.Errorf("traditional files %+v", d.Files)
	}
	pre, secs = Split("note\n" + bareHunk)
	if pre != "note\n" || len(secs) != 1 || secs[0] != bareHunk {
		t.Errorf("bare: preamble %q, sections %q", pre, secs)
	}
}

// Parse reads what go-gitdiff reads, file by file.
func TestParseMatchesGitdiff(t *testing.T) {
	raw := modified + renamed + deleted + copied + binary + symlink + submodule
	files, _, err := gitdiff.Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	d := Parse(raw)
	if len(d.Files) != len(files) {
		t.Fatalf("%d files, go-gitdiff %d", len(d.Files), len(files))
	}
	for i, g := range files {
		f := d.Files[i]
		if f.Lenient != nil {
			t.Errorf("%s read leniently: %v", f.Path, f.Lenient)
		}
		var adds, dels int64
		for _, frag := range g.TextFragments {
			adds += frag.LinesAdded
			dels += frag.LinesDeleted
		}
		if int64(f.Additions()) != adds || int64(f.Deletions()) != dels || len(f.Hunks) != len(g.TextFragments) {
			t.Errorf("%s: +%d -%d in %d hunks, go-gitdiff +%d -%d in %d", f.Path, f.Additions(), f.Deletions(), len(f.Hunks), adds, dels, len(g.TextFragments))
		}
	}
}

// TestWindow cuts a multi-hunk diff: whole hunks first, the first hunk that
// does not fit cut at a line with its header recounted, the rest named
// (pinned from the review groups' windowing).
func TestWindow(t *testing.T) {
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
		got, omitted := Window(diff, tt.limit)
		if fmt.Sprint(omitted) != fmt.Sprint(tt.omitted) {
			t.Errorf("%s: omitted %v, want %v\n%s", tt.name, omitted, tt.omitted, got)
		}
		if len(got) > max(tt.limit, hd) {
			t.Errorf("%s: kept %d chars over the limit %d", tt.name, len(got), tt.limit)
		}
		if !strings.Contains(got, tt.has) {
			t.Errorf("%s: no %q in\n%s", tt.name, tt.has, got)
		}
		w := ParseSection(got)
		if w.Lenient != nil {
			t.Errorf("%s: windowed diff does not parse: %v\n%s", tt.name, w.Lenient, got)
			continue
		}
		// Every new-file line of the original hunks is either shown or named.
		shown := map[int]bool{}
		for _, r := range append(w.NewRanges(), omitted...) {
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

func TestSignature(t *testing.T) {
	mod := func(at int, oldLine, newLine string) string {
		return fmt.Sprintf("diff --git a/x.go b/x.go\nindex 1111111..%07x 100644\n--- a/x.go\n+++ b/x.go\n@@ -%d,2 +%d,2 @@\n ctx\n-%s\n+%s\n", at, at, at, oldLine, newLine)
	}
	if Signature(mod(10, "old", "new")) != Signature(mod(90, "old", "new")) {
		t.Error("the same change at another position differs")
	}
	if Signature(mod(10, "old", "new")) == Signature(mod(10, "old", "newer")) {
		t.Error("another change has the same signature")
	}
	bin2 := strings.Replace(binary, "1111111..", "3333333..", 1)
	if Signature(binary) != Signature(bin2) {
		t.Error("a hunkless section's signature depends on the index line")
	}
}

// FuzzParse: no input panics the reader, its sections are the diff's text,
// and the hunks it reads strictly hold the lines their headers count.
func FuzzParse(f *testing.F) {
	for _, s := range []string{modified, renamed, deleted, copied, binary, symlink, submodule, bareHunk, cutHunk,
		modified + cutHunk + renamed, "@@ -1 +2147483647,2 @@\n+x\n+y\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "@@ -a,b +c,d @@\n+x\n@@ -1,1 +1,1\n",
		"diff --git a/x b/x\n@@ -1,3 +1,3 @@\n\n\n-a\n+b\n", "diff --git \"a/q\\tx\" \"b/q\\tx\"\n"} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, raw string, limit int) {
		d := Parse(raw)
		var b strings.Builder
		b.WriteString(d.Preamble)
		for _, file := range d.Files {
			b.WriteString(file.Section)
			for _, r := range file.NewRanges() {
				if r.From < 1 || r.To < r.From {
					t.Fatalf("bad range %+v", r)
				}
			}
			for _, h := range file.Hunks {
				if file.Lenient != nil {
					continue
				}
				old, new := 0, 0
				for _, l := range h.Lines {
					if l.Op != Add {
						old++
					}
					if l.Op != Delete {
						new++
					}
				}
				if old != h.OldLines || new != h.NewLines {
					t.Fatalf("hunk %+v holds %d old and %d new lines", h, old, new)
				}
			}
		}
		if b.String() != raw {
			t.Fatalf("sections do not make up the diff")
		}
		got, omitted := Window(raw, limit)
		if len(omitted) == 0 && got != raw && len([]rune(raw)) <= limit {
			t.Fatalf("a diff within the limit changed")
		}
		for _, r := range omitted {
			if r.From < 1 || r.To < r.From {
				t.Fatalf("bad omitted range %+v", r)
			}
		}
	})
}
