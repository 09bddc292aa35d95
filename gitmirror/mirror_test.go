package gitmirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const token = "mirror-test-token-5f1e"

var repo = pipeline.Repo{Workspace: "acme", RepoSlug: "app"}

// git runs a git command in dir for test setup and returns its trimmed output.
var git = pipelinetest.Git

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// upstream is a git repository served by the fake Bitbucket over smart HTTP:
// main, and a feature branch that changes Add's body (main.go calls Add).
type upstream struct {
	dir        string
	fake       *bitbuckettest.Server
	base, head string
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir, "go.mod", "module example.com/app\n")
	writeFile(t, dir, "pkg/add.go", "package pkg\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	writeFile(t, dir, "main.go", "package main\n\nimport \"example.com/app/pkg\"\n\nfunc main() { println(pkg.Add(1, 2)) }\n")
	writeFile(t, dir, "big/model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12345\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	u := &upstream{dir: dir, fake: bitbuckettest.NewServer()}
	t.Cleanup(u.fake.Close)
	u.base = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFile(t, dir, "pkg/add.go", "package pkg\n\n// Add adds.\nfunc Add(a, b int) int { return a + b + 0 }\n")
	git(t, dir, "commit", "-q", "-am", "feature")
	u.head = git(t, dir, "rev-parse", "HEAD")
	u.fake.RequireBearer(token)
	if err := u.fake.ServeGit(repo.Workspace, repo.RepoSlug, filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	return u
}

type fetchCounter struct {
	mu        sync.Mutex
	ok, fails int
	mirror    int
	rest      int
}

func (c *fetchCounter) MirrorFetch(ok bool, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		c.ok++
	} else {
		c.fails++
	}
}

func (c *fetchCounter) MirrorRead(fromMirror bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fromMirror {
		c.mirror++
	} else {
		c.rest++
	}
}

func newMirror(t *testing.T, u *upstream, tok string) (*Mirror, *fetchCounter) {
	t.Helper()
	obs := &fetchCounter{}
	m, err := New(Config{Dir: t.TempDir(), BaseURL: u.fake.URL, User: AccessTokenUser, Token: tok, Observer: obs, ReadWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return m, obs
}

// TestMirrorFetch: a first fetch clones a bare, blob-less partial clone with
// the access token in git's form, brings the pull request's branches and
// the blobs of its commits (abbreviated ids, as Bitbucket's payloads give
// them) and the merge base, and leaves the token nowhere on disk.
func TestMirrorFetch(t *testing.T) {
	u := newUpstream(t)
	m, obs := newMirror(t, u, token)
	err := m.Fetch(context.Background(), repo, Want{
		Branches: []string{"feature", "main"}, Commits: []string{u.head[:12], u.base[:12]}, WithMergeBase: true,
	})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	dir := m.Path(repo)
	if got := git(t, dir, "rev-parse", "--is-bare-repository"); got != "true" {
		t.Errorf("mirror is not bare")
	}
	if got := git(t, dir, "config", "remote.origin.partialclonefilter"); got != "blob:none" {
		t.Errorf("partial clone filter = %q, want blob:none", got)
	}
	if got := git(t, dir, "rev-parse", "feature"); got != u.head {
		t.Errorf("mirror feature = %s, want %s", got, u.head)
	}
	for _, c := range []string{u.head, u.base} {
		if !m.Has(context.Background(), repo, c, 0) {
			t.Errorf("Has(%s) = false after the fetch", c[:12])
		}
	}
	// The token is in no file of the mirror (config, packs, logs).
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(token)) {
				t.Errorf("the token is stored in %s", p)
			}
		}
		return nil
	})
	if got := git(t, dir, "config", "remote.origin.url"); got != u.fake.URL+"/acme/app.git" {
		t.Errorf("remote url = %q, want the clone URL without credentials", got)
	}
	for _, r := range u.fake.Requests() {
		if !bitbuckettest.IsGitOp(r.Op) {
			t.Errorf("the fetch made REST call %s", r.Op)
		}
	}
	if obs.ok != 1 || obs.fails != 0 {
		t.Errorf("observer saw %d ok, %d failed fetches; want 1 ok", obs.ok, obs.fails)
	}
	// A second fetch of the same commits is incremental and cheap.
	calls := len(u.fake.Requests())
	if err := m.Fetch(context.Background(), repo, Want{Commits: []string{u.head}}); err != nil {
		t.Fatal(err)
	}
	if n := len(u.fake.Requests()) - calls; n != 0 {
		t.Errorf("fetching a commit the mirror has made %d requests", n)
	}
}

// TestMirrorWrongToken: a wrong token is refused; no half-made mirror stays
// behind, the failure is counted, and Ensure says why.
func TestMirrorWrongToken(t *testing.T) {
	u := newUpstream(t)
	m, obs := newMirror(t, u, "not-the-token")
	err := m.Fetch(context.Background(), repo, Want{Branches: []string{"main"}})
	if err == nil {
		t.Fatal("Fetch with a wrong token succeeded")
	}
	if strings.Contains(err.Error(), "not-the-token") {
		t.Errorf("the error shows the token: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(m.Path(repo))); len(entries) != 0 || m.exists(repo) {
		t.Errorf("a failed clone left %v", entries)
	}
	if obs.fails != 1 {
		t.Errorf("observer saw %d failed fetches, want 1", obs.fails)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Ensure(ctx, repo, u.head); err == nil || !strings.Contains(err.Error(), "has no commit") {
		t.Errorf("Ensure = %v, want an error saying the mirror has no commit", err)
	}
	if n := u.fake.Calls(bitbuckettest.OpGitInfoRefs); n == 0 {
		t.Errorf("no git request reached the fake")
	}
	for _, r := range u.fake.Requests() {
		if r.Authorization == "" {
			t.Errorf("git sent %s without credentials", r.Op)
		}
	}
}

// TestMirrorFetchByID: a commit on no branch the mirror knows is fetched by
// its id.
func TestMirrorFetchByID(t *testing.T) {
	u := newUpstream(t)
	m, _ := newMirror(t, u, token)
	if err := m.Fetch(context.Background(), repo, Want{Branches: []string{"main"}}); err != nil {
		t.Fatal(err)
	}
	git(t, u.dir, "checkout", "-q", "-b", "later", u.head)
	writeFile(t, u.dir, "later.go", "package main\n")
	git(t, u.dir, "add", "-A")
	git(t, u.dir, "commit", "-q", "-m", "later")
	later := git(t, u.dir, "rev-parse", "HEAD")
	git(t, u.dir, "checkout", "-q", "main")
	git(t, u.dir, "branch", "-D", "later") // reachable from no ref any more
	if m.Has(context.Background(), repo, later, 0) {
		t.Fatal("Has(later) before it was fetched")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Ensure(ctx, repo, later); err != nil {
		t.Fatalf("Ensure(later): %v", err)
	}
	if !m.Has(ctx, repo, later, 0) {
		t.Error("Has(later) = false after Ensure")
	}
}

// TestProviderReads: with the commit in the mirror, reads, listings, commit
// resolution, ancestry and code search make no REST call; a commit the mirror
// lacks is read through REST.
func TestProviderReads(t *testing.T) {
	u := newUpstream(t)
	m, obs := newMirror(t, u, token)
	if err := m.Fetch(context.Background(), repo, Want{Branches: []string{"feature", "main"}, Commits: []string{u.head, u.base}}); err != nil {
		t.Fatal(err)
	}
	// The REST side knows one file at every commit, and no branch.
	rest := pipelinetest.New().AddFiles("", map[string]string{"pkg/add.go": "from rest: pkg/add.go"})
	p := NewProvider(m, rest, localgit.New(m.cfg.Dir))
	ctx := context.Background()

	if b, err := p.ReadFile(ctx, repo, u.head, "pkg/add.go", 1<<20); err != nil || !strings.Contains(string(b), "a + b + 0") {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := p.ReadFile(ctx, repo, u.head, "nope.go", 1<<20); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotFound from the mirror", err)
	}
	if _, err := p.ReadFile(ctx, repo, u.head, "big/model.bin", 1<<20); !errors.Is(err, pipeline.ErrBinary) {
		t.Errorf("ReadFile(LFS pointer) = %v, want ErrBinary", err)
	}
	entries, _, err := p.ListDir(ctx, repo, u.head, "pkg", 100)
	if err != nil || len(entries) != 1 || entries[0].Path != "pkg/add.go" {
		t.Errorf("ListDir = %v, %v", entries, err)
	}
	var got []string
	if err := p.ReadFiles(ctx, repo, u.base, []string{"pkg/add.go", "main.go", "gone.go"}, 1<<20, func(i int, data []byte, err error) {
		got = append(got, fmt.Sprintf("%d:%d:%v", i, len(data), errors.Is(err, pipeline.ErrNotFound)))
	}); err != nil || strings.Join(got, " ") != "0:66:false 1:83:false 2:0:true" {
		t.Errorf("ReadFiles = %v, %v", got, err)
	}
	if sha, err := p.ResolveCommit(ctx, repo, u.head[:12]); err != nil || sha != u.head {
		t.Errorf("ResolveCommit(short) = %s, %v", sha, err)
	}
	if anc, err := p.IsAncestor(ctx, repo, u.base, u.head); err != nil || !anc {
		t.Errorf("IsAncestor(base, head) = %v, %v", anc, err)
	}
	if anc, err := p.IsAncestor(ctx, repo, u.head, u.base); err != nil || anc {
		t.Errorf("IsAncestor(head, base) = %v, %v", anc, err)
	}
	tree, err := p.OpenTree(ctx, repo, u.head)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if paths, err := tree.Grep(ctx, []string{"Add"}, []string{"*.go"}, 0); err != nil || strings.Join(paths, ",") != "main.go,pkg/add.go" {
		t.Errorf("Grep = %v, %v", paths, err)
	}
	if mb, err := p.MergeBase(ctx, repo, u.base, u.head); err != nil || mb != u.base {
		t.Errorf("MergeBase = %s, %v", mb, err)
	}
	if n := rest.TotalCalls(); n != 0 {
		t.Errorf("%d REST calls with a warm mirror", n)
	}
	if obs.mirror == 0 || obs.rest != 0 {
		t.Errorf("reads: %d from the mirror, %d from REST", obs.mirror, obs.rest)
	}

	// A commit the mirror does not have goes to REST.
	other := strings.Repeat("e", 40)
	if b, err := p.ReadFile(ctx, repo, other, "pkg/add.go", 1<<20); err != nil || string(b) != "from rest: pkg/add.go" {
		t.Errorf("ReadFile(unknown commit) = %q, %v", b, err)
	}
	if _, _, err := p.ListDir(ctx, repo, other, "pkg", 10); err != nil || rest.Calls(pipelinetest.OpList, "") != 1 {
		t.Errorf("ListDir(unknown commit) went to REST %d times, err %v", rest.Calls(pipelinetest.OpList, ""), err)
	}
	if _, err := p.ResolveCommit(ctx, repo, "main"); err == nil || rest.Calls(pipelinetest.OpResolve, "main") != 1 {
		t.Errorf("a branch name is resolved by REST (the mirror's may be stale): %d calls, %v", rest.Calls(pipelinetest.OpResolve, "main"), err)
	}
}

// TestProviderConcurrentReads reads from many goroutines while a fetch runs
// (go test -race).
func TestProviderConcurrentReads(t *testing.T) {
	u := newUpstream(t)
	m, _ := newMirror(t, u, token)
	if err := m.Fetch(context.Background(), repo, Want{Branches: []string{"main"}, Commits: []string{u.base}}); err != nil {
		t.Fatal(err)
	}
	p := NewProvider(m, pipelinetest.New(), localgit.New(m.cfg.Dir))
	m.Prefetch(repo, Want{Branches: []string{"feature"}, Commits: []string{u.head}})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			commit := []string{u.base, u.head}[i%2]
			b, err := p.ReadFile(context.Background(), repo, commit, "pkg/add.go", 1<<20)
			if err != nil || !strings.HasPrefix(string(b), "package pkg") {
				errs <- fmt.Errorf("read at %s: %q, %v", commit[:7], b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var names []string
	for _, e := range mustReadDir(t, filepath.Dir(m.Path(repo))) {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "app" {
		t.Errorf("mirror directory holds %v, want only app", names)
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	e, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
