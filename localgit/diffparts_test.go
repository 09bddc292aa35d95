package localgit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"

	"github.com/prscout/prscout/internal/chunkread"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// body is a file of n numbered lines, tag in each.
func body(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d of %s\n", i, tag)
	}
	return b.String()
}

// partsRepo commits a base and a head that changes files in every way a
// diff prints: edits, additions, deletions, an exact and an edited
// rename, a binary file, a mode change, a symlink and paths with spaces,
// glob characters, a tab and non-ASCII letters.
func partsRepo(t *testing.T) (dir, base, head string) {
	dir = t.TempDir()
	git(t, dir, "init", "-q")
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("pkg%d/f%02d.go", i%4, i)] = body(fmt.Sprint(i), 40)
	}
	files["old name.txt"] = body("moved", 30)
	files["edited/rename.go"] = body("renamed", 30)
	files["gone.go"] = body("gone", 10)
	files["mode.sh"] = "#!/bin/sh\necho hi\n"
	files["bin.dat"] = "\x00\x01\x02binary\x00"
	pipelinetest.WriteFiles(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	base = git(t, dir, "rev-parse", "HEAD")

	next := map[string]string{
		"old name.txt":        "",
		"new name.txt":        body("moved", 30),
		"edited/rename.go":    "",
		"edited/renamed.go":   body("renamed", 30) + "one more line\n",
		"gone.go":             "",
		"bin.dat":             "\x00\x03binary again\x00",
		"[glob]*?.go":         body("glob", 5),
		"tab\there.go":        body("tab", 5),
		"ünïcode/файл.go":     body("unicode", 5),
		"quote\"d.go":         body("quoted", 5),
		"pkg1/added later.go": body("added", 8),
	}
	for i := range 30 {
		if i%3 != 0 {
			p := fmt.Sprintf("pkg%d/f%02d.go", i%4, i)
			next[p] = strings.Replace(body(fmt.Sprint(i), 40), "line 20 ", "line twenty ", 1)
		}
	}
	pipelinetest.WriteFiles(t, dir, next)
	if err := os.Chmod(filepath.Join(dir, "mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pkg0/f00.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "head")
	return dir, base, git(t, dir, "rev-parse", "HEAD")
}

func diffArgs(from, head string) []string {
	return []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/",
		"--no-relative", "-M", "-U3", "--end-of-options", from, head}
}

// TestDiffPartsJoinToTheWholeDiff: for 2 to 4 parts, the parts' outputs
// joined are byte for byte the whole diff, and Diff answers it too.
func TestDiffPartsJoinToTheWholeDiff(t *testing.T) {
	withDiffPartFiles(t, 3)
	dir, base, head := partsRepo(t)
	ctx := context.Background()
	args := diffArgs(base, head)
	whole, err := runGit(ctx, dir, 0, append(args, "--")...)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := nameStatus(ctx, dir, base, head)
	if err != nil {
		t.Fatal(err)
	}
	renames := 0
	for _, e := range entries {
		if e.renamed() {
			renames++
		}
	}
	if len(entries) < 30 || renames != 2 {
		t.Fatalf("listing has %d entries, %d renames; want >= 30 and 2: %v", len(entries), renames, entries)
	}
	for n := 2; n <= diffPartsMax; n++ {
		parts := diffPartsOf(entries, n)
		if len(parts) != n {
			t.Fatalf("%d parts asked, %d made", n, len(parts))
		}
		out, ok, err := diffParts(ctx, dir, 64<<20, args, parts)
		if err != nil || !ok {
			t.Fatalf("%d parts: ok %t, err %v", n, ok, err)
		}
		if !bytes.Equal(out, whole) {
			t.Fatalf("%d parts joined differ from the whole diff:\n%s\n---- whole:\n%s", n, out, whole)
		}
	}
	p := New(dir)
	got, err := p.Diff(ctx, pipeline.Repo{Workspace: "w", RepoSlug: "r"}, base, head, pipeline.DiffOptions{ContextLines: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, whole) {
		t.Fatalf("Diff differs from the whole diff")
	}
}

// TestDiffPartsRefuseOtherRenames: with a rename limit the whole diff
// exceeds and a part does not, the part pairs files the whole diff
// leaves apart; diffParts says so and Diff answers the whole diff.
func TestDiffPartsRefuseOtherRenames(t *testing.T) {
	withDiffPartFiles(t, 2)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "config", "diff.renameLimit", "1")
	pipelinetest.WriteFiles(t, dir, map[string]string{"p/a.go": body("p", 30), "q/a.go": body("q", 30)})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	base := git(t, dir, "rev-parse", "HEAD")
	pipelinetest.WriteFiles(t, dir, map[string]string{"p/a.go": "", "q/a.go": "", "p/b.go": body("p", 30) + "x\n", "q/b.go": body("q", 30) + "y\n"})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "head")
	head := git(t, dir, "rev-parse", "HEAD")

	ctx := context.Background()
	args := diffArgs(base, head)
	whole, err := runGit(ctx, dir, 0, append(args, "--")...)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(whole, []byte("rename from")) {
		t.Fatalf("the whole diff found renames over the limit:\n%s", whole)
	}
	entries, err := nameStatus(ctx, dir, base, head)
	if err != nil {
		t.Fatal(err)
	}
	parts := diffPartsOf(entries, 2)
	if len(parts) != 2 {
		t.Fatalf("parts of %v: %v", entries, parts)
	}
	if _, ok, err := diffParts(ctx, dir, 64<<20, args, parts); ok || err != nil {
		t.Fatalf("diffParts: ok %t, err %v; want a refusal (a part pairs p/a.go with p/b.go)", ok, err)
	}
	got, err := New(dir).Diff(ctx, pipeline.Repo{Workspace: "w", RepoSlug: "r"}, base, head, pipeline.DiffOptions{ContextLines: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, whole) {
		t.Fatalf("Diff differs from the whole diff:\n%s", got)
	}
}

// TestDiffPartsOfKeepsWholeDiffs: too few files or a path named twice
// keep the diff whole.
func TestDiffPartsOfKeepsWholeDiffs(t *testing.T) {
	many := func(n int) []diffEntry {
		var out []diffEntry
		for i := range n {
			out = append(out, diffEntry{status: 'M', paths: []string{fmt.Sprintf("f%d", i)}})
		}
		return out
	}
	if p := diffPartsOf(many(2*diffPartFiles-1), 4); p != nil {
		t.Errorf("%d files split into %d parts", 2*diffPartFiles-1, len(p))
	}
	if p := diffPartsOf(many(2*diffPartFiles), 4); len(p) != 2 {
		t.Errorf("%d files: %d parts, want 2", 2*diffPartFiles, len(p))
	}
	twice := append(many(4*diffPartFiles), diffEntry{status: 'R', paths: []string{"f0", "g"}})
	if p := diffPartsOf(twice, 4); p != nil {
		t.Errorf("a path named twice split into %d parts", len(p))
	}
}

func FuzzParseNameStatus(f *testing.F) {
	f.Add([]byte("M\x00a.go\x00R087\x00old\x00new\x00D\x00gone\x00"))
	f.Add([]byte("A\x00x\x00C100\x00a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseNameStatus(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if want := map[bool]int{true: 2, false: 1}[e.renamed()]; len(e.paths) != want {
				t.Fatalf("entry %c has %d paths", e.status, len(e.paths))
			}
		}
	})
}

// TestDiffPartsJoinWithOneCopy: a parted diff allocates what reading each
// part's output takes (measured in the same test on the same bytes) and
// one copy of the whole, not a copy of each part besides.
func TestDiffPartsJoinWithOneCopy(t *testing.T) {
	withDiffPartFiles(t, 2)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	pipelinetest.WriteFiles(t, dir, map[string]string{"README": "x\n"})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	base := git(t, dir, "rev-parse", "HEAD")
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("p/f%d.go", i)] = body(fmt.Sprint(i), 40_000) // about 0.7 MB each
	}
	pipelinetest.WriteFiles(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "head")
	head := git(t, dir, "rev-parse", "HEAD")
	ctx := context.Background()
	entries, err := nameStatus(ctx, dir, base, head)
	if err != nil {
		t.Fatal(err)
	}
	parts := diffPartsOf(entries, 4)
	if len(parts) != 4 {
		t.Fatalf("%d parts of %d files, want 4", len(parts), len(entries))
	}
	args := diffArgs(base, head)
	reading := uint64(0)
	for _, part := range parts {
		a := append(append([]string(nil), args...), "--")
		for _, e := range part {
			a = append(a, e.paths...)
		}
		out, err := runGit(ctx, dir, 0, a...)
		if err != nil {
			t.Fatal(err)
		}
		reading += testalloc.Bytes(func() { _, _ = chunkread.Read(bytes.NewReader(out)) })
	}
	var out []byte
	var ok bool
	parted := testalloc.Bytes(func() { out, ok, err = diffParts(ctx, dir, 64<<20, args, parts) })
	if err != nil || !ok {
		t.Fatalf("diffParts: ok %v, %v", ok, err)
	}
	want := reading + uint64(len(out))
	t.Logf("%d bytes of diff: parted %d bytes allocated, reading the parts and one copy %d", len(out), parted, want)
	// The processes' own bookkeeping (exec, pipes) is the slack.
	if parted > want+want/10+(1<<20) {
		t.Errorf("diffParts allocated %d bytes for %d bytes of diff, want about %d (reading the parts and one copy)", parted, len(out), want)
	}
}

// withDiffPartFiles sets diffPartFiles to n for one test.
func withDiffPartFiles(t *testing.T, n int) {
	old := diffPartFiles
	diffPartFiles = n
	t.Cleanup(func() { diffPartFiles = old })
}
