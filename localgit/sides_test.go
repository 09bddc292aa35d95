package localgit

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

func TestChangedSides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	long := "package p\n\n" + strings.Repeat("// a line that makes the file long enough to be found renamed\n", 20)
	write(t, filepath.Join(dir, "kept.go"), []byte("package p\n\nvar A = 1\n"))
	write(t, filepath.Join(dir, "gone.go"), []byte("package p\n\nvar G = 1\n"))
	write(t, filepath.Join(dir, "old name.go"), []byte(long))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	fork := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "-b", "feature")
	write(t, filepath.Join(dir, "kept.go"), []byte("package p\n\nvar A = 2\n"))
	write(t, filepath.Join(dir, "dir", "new.go"), []byte("package dir\n"))
	git(t, dir, "rm", "-q", "gone.go")
	git(t, dir, "mv", "old name.go", "new name.go")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "feature")
	git(t, dir, "checkout", "-q", "main")
	write(t, filepath.Join(dir, "main-only.go"), []byte("package p\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "main moves on")

	p := New(dir)
	ctx := context.Background()
	sides, err := p.ChangedSides(ctx, anyRepo, "main", "feature", pipeline.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.ChangedSides{
		From: fork,
		New:  []string{"dir/new.go", "kept.go", "new name.go"},
		Old:  []string{"gone.go", "kept.go", "old name.go"},
	}
	if diff := cmp.Diff(want, sides); diff != "" {
		t.Errorf("ChangedSides (-want +got):\n%s", diff)
	}
	paths, err := p.ChangedPaths(ctx, anyRepo, "main", "feature", pipeline.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(paths, sides.New); diff != "" {
		t.Errorf("New differs from ChangedPaths (-paths +new):\n%s", diff)
	}
	two, err := p.ChangedSides(ctx, anyRepo, "main", "feature", pipeline.DiffOptions{TwoDot: true})
	if err != nil {
		t.Fatal(err)
	}
	if main := git(t, dir, "rev-parse", "main"); two.From != main || !slices.Contains(two.Old, "main-only.go") {
		t.Errorf("two-dot: From %s (want %s), Old %q (want main-only.go in it)", two.From, main, two.Old)
	}
	if _, err := p.ChangedSides(ctx, anyRepo, "nope", "feature", pipeline.DiffOptions{}); err == nil {
		t.Error("unknown base: no error")
	}
}

func TestParseNameStatus(t *testing.T) {
	got, err := parseNameStatus([]byte("M\x00a\x00A\x00b\x00D\x00c\x00R087\x00d\x00e\x00C100\x00f\x00g\x00T\x00h\x00"))
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.ChangedSides{New: []string{"a", "b", "e", "g", "h"}, Old: []string{"a", "c", "d", "h"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"M\x00", "R100\x00a\x00", "\x00a\x00"} {
		if _, err := parseNameStatus([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got, err := parseNameStatus(nil); err != nil || len(got.New)+len(got.Old) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
}
