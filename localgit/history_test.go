package localgit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/prscout/prscout/pipeline/cochange"
)

// commitFiles writes each file with a new line and commits them.
func commitFiles(t *testing.T, dir, msg string, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		write(t, filepath.Join(dir, p), []byte(msg+" "+p+"\n"))
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
	return git(t, dir, "rev-parse", "HEAD")
}

// coChanged opens the tree at commit and asks about paths as of at.
func coChanged(t *testing.T, p *Provider, commit, at string, paths ...string) map[string]string {
	t.Helper()
	tree, err := p.OpenTree(context.Background(), anyRepo, commit)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	h, ok := tree.(interface {
		CoChanged(context.Context, string, []string) ([]cochange.Pair, error)
	})
	if !ok {
		t.Fatal("the code tree keeps no history")
	}
	pairs, err := h.CoChanged(context.Background(), at, paths)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, pr := range pairs {
		out[pr.Path+">"+pr.With] = fmt.Sprintf("%d/%d", pr.Together, pr.Touching)
	}
	return out
}

func TestCoChangedFirstParentHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	commitFiles(t, dir, "one", "a.go", "b.go")
	commitFiles(t, dir, "two", "a.go", "b.go", "c.go")
	commitFiles(t, dir, "three", "a.go", "c.go")
	// A branch of two commits, each changing a.go with d.go, merged: the
	// destination's first-parent history sees one commit (the merge).
	git(t, dir, "checkout", "-q", "-b", "topic")
	commitFiles(t, dir, "topic1", "a.go", "d.go")
	commitFiles(t, dir, "topic2", "a.go", "d.go")
	git(t, dir, "checkout", "-q", "main")
	commitFiles(t, dir, "four", "e.go")
	git(t, dir, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	merged := git(t, dir, "rev-parse", "HEAD")
	p := New(dir)

	got := coChanged(t, p, merged, "main", "a.go")
	want := map[string]string{"a.go>b.go": "2/4", "a.go>c.go": "2/4"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("as of the merge: %v, want %v (the branch's commits are one merge on the first-parent history)", got, want)
	}
	// The destination moves on: the new commits count.
	commitFiles(t, dir, "five", "a.go", "d.go")
	head := commitFiles(t, dir, "six", "e.go", "f.go")
	got = coChanged(t, p, head, head, "a.go", "e.go")
	want = map[string]string{"a.go>b.go": "2/5", "a.go>c.go": "2/5", "a.go>d.go": "2/5"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("as of a later head: %v, want %v", got, want)
	}
	// The same as a provider that kept nothing.
	if fresh := coChanged(t, New(dir), head, head, "a.go", "e.go"); fmt.Sprint(fresh) != fmt.Sprint(got) {
		t.Errorf("a fresh provider answers %v, the one that kept the earlier window %v", fresh, got)
	}
	// An older destination commit sees only its own past.
	if got := coChanged(t, p, head, git(t, dir, "rev-parse", merged+"~1"), "a.go"); fmt.Sprint(got) != fmt.Sprint(map[string]string{"a.go>b.go": "2/3", "a.go>c.go": "2/3"}) {
		t.Errorf("as of an older commit: %v", got)
	}
	tree, _ := p.OpenTree(context.Background(), anyRepo, head)
	defer tree.Close()
	if _, err := tree.(interface {
		CoChanged(context.Context, string, []string) ([]cochange.Pair, error)
	}).CoChanged(context.Background(), "no-such-commit", []string{"a.go"}); err == nil {
		t.Error("an unknown commit did not fail")
	}
}

// A blob-less clone (the Bitbucket mirror's kind) answers without any blob:
// its remote is gone, so a lazy fetch would fail.
func TestCoChangedBloblessClone(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	git(t, "", "init", "-q", "-b", "main", src)
	commitFiles(t, src, "one", "a.go", "b.go")
	commitFiles(t, src, "two", "a.go", "b.go")
	commitFiles(t, src, "three", "a.go", "c.go")
	git(t, src, "config", "uploadpack.allowfilter", "true")
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	git(t, "", "clone", "-q", "--bare", "--filter=blob:none", "file://"+src, mirror)
	git(t, mirror, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone"))
	head := git(t, mirror, "rev-parse", "HEAD")
	got := coChanged(t, New(mirror), head, head, "a.go")
	if fmt.Sprint(got) != fmt.Sprint(map[string]string{"a.go>b.go": "2/3"}) {
		t.Errorf("blob-less clone: %v", got)
	}
}
