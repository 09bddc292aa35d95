package localgit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
)

// TestContextThroughGit runs the context stage on a real repository:
// nothing outside the commits (work tree edits, untracked files, the
// symlink's target) may reach the result.
func TestContextThroughGit(t *testing.T) {
	p, f := rootRepo(t)
	res, err := collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p},
		collect.ContextInput{Base: "main", Head: "feature", Title: "t"}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != f.headSHA || res.Base != f.mainSHA {
		t.Errorf("ref %s base %s, want %s %s", res.Ref, res.Base, f.headSHA, f.mainSHA)
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{outsideSecret, "WORKTREE-ONLY", "main-only.txt"} {
		if strings.Contains(string(js), leak) {
			t.Errorf("context shows %q", leak)
		}
	}
	got := map[string]string{}
	for _, file := range res.Files {
		got[file.Path] = file.Status
	}
	for _, e := range res.Excluded {
		got[e.Path] = "excluded:" + e.Reason
	}
	want := map[string]string{"a.go": "modified", "big.txt": "added", "link": "added",
		"bin.dat": "excluded:binary", "gone.txt": "excluded:deleted", "sub": "excluded:submodule"}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("%s: %q, want %q (all: %v)", p, got[p], s, got)
		}
	}
	for _, file := range res.Files {
		if file.Path == "a.go" && file.Source != "package a\n\nfunc A() int { return 2 }\n" {
			t.Errorf("a.go source %q", file.Source)
		}
	}
}

// TestContextOddNames: names git quotes (tab, quote, backslash) or
// prints raw under core.quotepath=off (non-ASCII) come back as real paths,
// readable with ReadFile.
func TestContextOddNames(t *testing.T) {
	dir := t.TempDir()
	git(t, "", "init", "-q", "-b", "main", dir)
	write(t, dir+"/keep.txt", []byte("x\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	base := git(t, dir, "rev-parse", "HEAD")
	names := []string{"한글 이름.go", "tab\there.txt", `quote"and\back.txt`, "space name/a b.md"}
	for _, n := range names {
		write(t, dir+"/"+n, []byte("content of "+n+"\n"))
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "odd names")
	p := New(dir)
	res, err := collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p},
		collect.ContextInput{Base: base, Head: "HEAD"}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range res.Files {
		got[f.Path] = f.Source
	}
	for _, n := range names {
		if got[n] != "content of "+n+"\n" {
			t.Errorf("%q: source %q (files %v)", n, got[n], got)
		}
	}
}
