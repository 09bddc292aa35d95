package collect

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
)

// sideRepo is a local repository whose diff waits until the old sides at
// the merge base have been read: it answers only when they are read ahead.
type sideRepo struct {
	*localgit.Provider
	mb string

	once     sync.Once
	oldRead  chan struct{}
	mu       sync.Mutex
	oldCalls int
}

func (s *sideRepo) ReadFiles(ctx context.Context, repo pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(int, []byte, error)) error {
	if commit == s.mb {
		s.mu.Lock()
		s.oldCalls++
		s.mu.Unlock()
		s.once.Do(func() { close(s.oldRead) })
	}
	return s.Provider.ReadFiles(ctx, repo, commit, paths, maxBytes, fn)
}

func (s *sideRepo) Diff(ctx context.Context, repo pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]byte, error) {
	select {
	case <-s.oldRead:
	case <-time.After(10 * time.Second):
		return nil, errors.New("the old sides were not read ahead of the diff")
	}
	return s.Provider.Diff(ctx, repo, base, head, opts)
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitWrite(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrefetchReadsOldSides: with a diff source that names both sides, the
// old sides the candidates compare are read ahead of the diff, in one
// batch, and the answer is the one the stage gives without any read-ahead.
func TestPrefetchReadsOldSides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "app")
	gitRun(t, "", "init", "-q", "-b", "main", dir)
	gitWrite(t, dir, map[string]string{
		"go.mod":        "module example.com/app\n",
		"pkg/add.go":    candAddOld,
		"pkg/sub.go":    "package pkg\n\n// Sub subtracts.\nfunc Sub(a, b int) int { return a - b }\n",
		"pkg/gone.go":   "package pkg\n\n// Gone goes.\nfunc Gone() {}\n",
		"main.go":       candCaller,
		"tool/use.go":   "package tool\n\nimport \"example.com/app/pkg\"\n\nvar _ = pkg.Sub(2, 1) + pkg.Add(1, 1)\n",
		"tool/other.go": "package tool\n\nfunc init() { Gone() }\n\nfunc Gone() {}\n",
	})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "base")
	mb := gitRun(t, dir, "rev-parse", "HEAD")
	gitRun(t, dir, "checkout", "-q", "-b", "feature")
	gitWrite(t, dir, map[string]string{"pkg/add.go": candAddNew, "pkg/mul.go": "package pkg\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n"})
	gitRun(t, dir, "rm", "-q", "pkg/gone.go")
	gitRun(t, dir, "mv", "pkg/sub.go", "pkg/minus.go")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "feature")

	in := ContextInput{Workspace: "acme", RepoSlug: "app", Base: "main", Head: "feature"}
	lim := pipeline.DefaultLimits()
	plainRepo := localgit.New(dir)
	plain, err := collectRange(context.Background(), plainRepo, struct{ pipeline.DiffSource }{plainRepo}, in, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Candidates) == 0 {
		t.Fatal("no candidates: the change tests nothing")
	}
	side := &sideRepo{Provider: localgit.New(dir), mb: mb, oldRead: make(chan struct{})}
	ahead, err := collectRange(context.Background(), side, side, in, lim)
	if err != nil {
		t.Fatal(err)
	}
	if side.oldCalls != 1 {
		t.Errorf("old sides read in %d batches, want 1 (ahead of the diff)", side.oldCalls)
	}
	a, b := contextJSON(t, plain), contextJSON(t, ahead)
	if a != b {
		t.Errorf("read-ahead result differs:\n%s", ctxFirstDiff(a, b))
	}
}

// contextJSON is res as JSON without its timings.
func contextJSON(t *testing.T, res ContextResult) string {
	t.Helper()
	res.Stats.CandidatesMs = 0
	for i := range res.Groups {
		res.Groups[i].Stats.CandidatesMs = 0
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
