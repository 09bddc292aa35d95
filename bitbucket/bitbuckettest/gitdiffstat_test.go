package bitbuckettest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitDiffstat: an added, a modified and a deleted file of a real
// repository, with their line counts, in path order.
func TestGitDiffstat(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return string(out), nil
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(_ string, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(git("init", "-q"))
	write("keep.go", "a\nb\n")
	write("gone.go", "x\n")
	must(git("add", "-A"))
	must(git("commit", "-qm", "base"))
	write("keep.go", "a\nB\nc\n")
	write("new.go", "n\n")
	must("", os.Remove(filepath.Join(dir, "gone.go")))
	must(git("add", "-A"))
	must(git("commit", "-qm", "head"))
	got, err := GitDiffstat(git, "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]DiffstatEntry{
		{Status: "removed", OldPath: "gone.go", LinesRemoved: 1},
		{Status: "modified", Path: "keep.go", OldPath: "keep.go", LinesAdded: 2, LinesRemoved: 1},
		{Status: "added", Path: "new.go", LinesAdded: 1},
	})
	if fmt.Sprint(got) != want {
		t.Errorf("GitDiffstat = %v\nwant %v", got, want)
	}
}
