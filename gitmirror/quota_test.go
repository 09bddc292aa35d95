package gitmirror

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// sizeCounter is an observer that also records the mirror's size.
type sizeCounter struct {
	fetchCounter
	mu      sync.Mutex
	bytes   []int64
	evicted int
}

func (s *sizeCounter) MirrorBytes(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes = append(s.bytes, n)
}

func (s *sizeCounter) MirrorEvicted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evicted++
}

func (s *sizeCounter) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bytes) == 0 {
		return -1
	}
	return s.bytes[len(s.bytes)-1]
}

// missingInMirror lists the objects of commit's tree the mirror lacks,
// without letting git fetch them.
func missingInMirror(t *testing.T, dir, commit string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(git(t, dir, "rev-list", "--objects", "--no-walk", "--missing=print", commit), "\n") {
		if oid, ok := strings.CutPrefix(l, "?"); ok {
			out = append(out, oid)
		}
	}
	return out
}

// TestMirrorSkipsBlobsOverTheReadLimit: a pull request adding a 3 MB
// binary next to small files: with a 1 MiB read limit the fetch brings the
// small files and leaves the binary on the server; the commit counts as
// complete, its small files, listings and code search are served from the
// mirror, the large file is read through REST, the mirror stays small, and
// a new Mirror on the same directory (a restart) still knows the blob is
// left out on purpose.
func TestMirrorSkipsBlobsOverTheReadLimit(t *testing.T) {
	u := newUpstream(t)
	git(t, u.dir, "checkout", "-q", "feature")
	big := make([]byte, 3<<20)
	_, _ = rand.Read(big)
	writeFile(t, u.dir, "assets/README.md", "the model\n")
	if err := os.WriteFile(filepath.Join(u.dir, "assets", "model.onnx"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, u.dir, "pkg/sub/deep.go", "package sub\n\nfunc Deep() {}\n")
	git(t, u.dir, "add", "-A")
	git(t, u.dir, "commit", "-q", "-m", "add a model")
	head := git(t, u.dir, "rev-parse", "HEAD")
	bigOID := git(t, u.dir, "rev-parse", "HEAD:assets/model.onnx")

	obs := &sizeCounter{}
	dir := t.TempDir()
	m, err := New(Config{Dir: dir, BaseURL: u.fake.URL, User: AccessTokenUser, Token: token, Observer: obs, BlobLimit: 1 << 20, ReadWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Fetch(ctx, repo, Want{Branches: []string{"feature", "main"}, Commits: []string{head, u.base}, WithMergeBase: true}); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got := missingInMirror(t, m.Path(repo), head); len(got) != 1 || got[0] != bigOID {
		t.Errorf("the mirror lacks %v, want only the large blob %s", got, bigOID)
	}
	if !m.Has(ctx, repo, head, 0) || !m.Has(ctx, repo, u.base, 0) {
		t.Error("a commit whose only missing blob is over the limit does not count as complete")
	}
	if n := obs.last(); n <= 0 || n > 1<<20 {
		t.Errorf("prscout_mirror_bytes = %d, want the mirror's size, well under the 3 MB blob", n)
	}
	if n := dirSize(dir); n > 1<<20 {
		t.Errorf("the mirror directory holds %d bytes", n)
	}

	rest := pipelinetest.New().AddFiles("", map[string]string{"assets/model.onnx": "from rest: assets/model.onnx"})
	p := NewProvider(m, rest, localgit.New(dir))
	for _, f := range []string{"assets/README.md", "pkg/sub/deep.go", "pkg/add.go", "main.go"} {
		if b, err := p.ReadFile(ctx, repo, head, f, 1<<20); err != nil || strings.HasPrefix(string(b), "from rest") {
			t.Errorf("ReadFile(%s) = %.40q, %v; want it from the mirror", f, b, err)
		}
	}
	if entries, _, err := p.ListDir(ctx, repo, head, "assets", 10); err != nil || len(entries) != 2 {
		t.Errorf("ListDir(assets) = %v, %v", entries, err)
	}
	tree, err := p.OpenTree(ctx, repo, head)
	if err != nil {
		t.Fatalf("OpenTree: %v", err)
	}
	if paths, err := tree.Grep(ctx, []string{"Deep"}, nil, 0); err != nil || strings.Join(paths, ",") != "pkg/sub/deep.go" {
		t.Errorf("Grep(Deep) = %v, %v", paths, err)
	}
	tree.Close()
	if b, err := p.ReadFile(ctx, repo, head, "assets/model.onnx", 8<<20); err != nil || string(b) != "from rest: assets/model.onnx" {
		t.Errorf("ReadFile(the large file) = %.40q, %v; want it from REST", b, err)
	}
	if got := missingInMirror(t, m.Path(repo), head); len(got) != 1 {
		t.Errorf("reading the large file brought it into the mirror: missing %v", got)
	}
	if n, all := rest.Calls(pipelinetest.OpRead, "assets/model.onnx"), rest.TotalCalls(); n != 1 || all != 1 {
		t.Errorf("REST calls: %d reads of the large file, %d in all; want the one read", n, all)
	}

	again, err := New(Config{Dir: dir, BaseURL: u.fake.URL, User: AccessTokenUser, Token: token, BlobLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Has(ctx, repo, head, 0) {
		t.Error("after a restart the commit no longer counts as complete")
	}
}

// TestMirrorQuotaRemovesLeastRecentlyUsed: over PRSCOUT_MIRROR_MAX_BYTES,
// a fetch removes the least recently used repositories, never the one it
// fetched; a removed repository is cloned again on its next fetch; the
// size gauge follows and each removal is counted.
func TestMirrorQuotaRemovesLeastRecentlyUsed(t *testing.T) {
	u := newUpstream(t)
	other := pipeline.Repo{Workspace: "acme", RepoSlug: "other"}
	third := pipeline.Repo{Workspace: "beta", RepoSlug: "third"}
	for _, r := range []pipeline.Repo{other, third} {
		if err := u.fake.ServeGit(r.Workspace, r.RepoSlug, filepath.Join(u.dir, ".git")); err != nil {
			t.Fatal(err)
		}
	}
	obs := &sizeCounter{}
	dir := t.TempDir()
	// First without a quota, to learn one mirror's size.
	m, err := New(Config{Dir: dir, BaseURL: u.fake.URL, User: AccessTokenUser, Token: token, Observer: obs, MaxBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := Want{Branches: []string{"main"}, Commits: []string{u.base}}
	if err := m.Fetch(ctx, repo, want); err != nil {
		t.Fatal(err)
	}
	one := obs.last()
	if one <= 0 {
		t.Fatalf("size gauge %d after one fetch", one)
	}
	// A quota for two and a half mirrors.
	m, err = New(Config{Dir: dir, BaseURL: u.fake.URL, User: AccessTokenUser, Token: token, Observer: obs, MaxBytes: one * 5 / 2})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(filepath.Join(m.Path(repo), usedFile), old, old)
	_ = os.Chtimes(filepath.Join(m.Path(repo), "HEAD"), old, old)
	if err := m.Fetch(ctx, other, want); err != nil {
		t.Fatal(err)
	}
	if !m.exists(repo) || !m.exists(other) || obs.evicted != 0 {
		t.Fatalf("two mirrors under a quota of two and a half: %v %v, %d removed", m.exists(repo), m.exists(other), obs.evicted)
	}
	if err := m.Fetch(ctx, third, want); err != nil {
		t.Fatal(err)
	}
	if m.exists(repo) || !m.exists(other) || !m.exists(third) || obs.evicted != 1 {
		t.Errorf("over the quota: app %v (least recently used), other %v, third %v, %d removed; want app removed only",
			m.exists(repo), m.exists(other), m.exists(third), obs.evicted)
	}
	if n := obs.last(); n > one*5/2 {
		t.Errorf("size gauge %d over the quota %d", n, one*5/2)
	}
	if m.Has(ctx, repo, u.base, 0) {
		t.Error("a removed mirror still answers Has")
	}
	// The removed repository comes back on its next fetch; the least
	// recently used of the others makes room.
	if err := m.Fetch(ctx, repo, want); err != nil {
		t.Fatalf("fetch after removal: %v", err)
	}
	if !m.Has(ctx, repo, u.base, 0) || obs.evicted != 2 {
		t.Errorf("after the second fetch: Has %v, %d removed", m.Has(ctx, repo, u.base, 0), obs.evicted)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "acme"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover %s", e.Name())
		}
	}
	if err := m.Ensure(ctx, pipeline.Repo{Workspace: "x", RepoSlug: ".."}, u.base); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Errorf("Ensure(..) = %v", err)
	}
}
