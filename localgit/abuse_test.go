package localgit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
)

// TestAbuseStashRefRefused: the stash, reflog entries and revision syntax
// never resolve, so stashed or discarded work cannot be served; the error
// is bad input on the request's field, never an internal error.
func TestAbuseStashRefRefused(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	// Stash work that was never committed, and leave a ref outside
	// refs/heads and refs/tags that points at it.
	write(t, filepath.Join(f.dir, "a.go"), []byte("package a\n\n// STASHED-SECRET\n"))
	git(t, f.dir, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "stash", "-q")
	stashID := git(t, f.dir, "rev-parse", "stash@{0}")
	git(t, f.dir, "update-ref", "refs/prscout-test/hidden", stashID)
	git(t, f.dir, "checkout", "-q", "main")
	git(t, f.dir, "checkout", "-q", "feature")

	refused := []string{
		"stash", "refs/stash", "stash@{0}", "stash@{1}", "HEAD@{1}", "@{-1}", "@{1}", "main@{0}",
		"HEAD@{upstream}", "@{u}", "HEAD@{push}", "main@{2.days.ago}", "@",
		"HEAD~1", "HEAD^", "main^2", "feature~", "main:a.go", ":a.go", "HEAD^{tree}", "v1^{}",
		"-p", "--all", "--output=/tmp/x", "main..feature", "main...feature", "a b", "ma*n", "refs/heads/", ".hidden", "x.lock",
		"refs/prscout-test/hidden", "prscout-test/hidden",
	}
	for _, rev := range refused {
		t.Run(rev, func(t *testing.T) {
			sha, err := p.ResolveCommit(ctx, anyRepo, rev)
			var inv *pipeline.InvalidError
			if !errors.As(err, &inv) || inv.Field != "ref" {
				t.Fatalf("ResolveCommit(%q) = %q, %v; want an InvalidError on ref", rev, sha, err)
			}
			if _, err := p.ReadFile(ctx, anyRepo, rev, "a.go", 0); !errors.As(err, &inv) {
				t.Errorf("ReadFile at %q: %v, want an InvalidError", rev, err)
			}
		})
	}
	// A commit id is accepted, as the contract says, and shows committed
	// content only.
	if data, err := p.ReadFile(ctx, anyRepo, f.headSHA[:12], "a.go", 0); err != nil || strings.Contains(string(data), "STASHED") {
		t.Errorf("ReadFile at the head commit: %q, %v", data, err)
	}
}

// TestAbuseBadRefIs4xx: a bad base (HEAD@{upstream} answered 500 and fired
// the internal-error alert) is bad input naming the request's field.
func TestAbuseBadRefIs4xx(t *testing.T) {
	p, f := rootRepo(t)
	for _, tc := range []struct{ base, head, field string }{
		{"HEAD@{upstream}", "HEAD", "base"},
		{f.forkSHA, "stash@{0}", "head"},
		{"main", "feature~2", "head"},
	} {
		_, err := collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p}, collect.ContextInput{Base: tc.base, Head: tc.head}, pipeline.DefaultLimits())
		var inv *pipeline.InvalidError
		if !errors.As(err, &inv) || inv.Field != tc.field {
			t.Errorf("base %q head %q: %v, want an InvalidError on %s", tc.base, tc.head, err, tc.field)
		}
	}
}

// TestAbuseGitStopsWithClient: git runs bound to the request's context, so
// when the client goes away the process is killed and the call returns at
// once instead of finishing its work.
func TestAbuseGitStopsWithClient(t *testing.T) {
	p, f := rootRepo(t)
	// A git that never answers stands in for a slow one: the wrapper
	// sleeps, and must be killed with the context.
	bin := t.TempDir()
	// It sleeps an hour: a git not killed with the context would outlast
	// go test's timeout.
	script := "#!/bin/sh\nexec sleep 3600\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := p.Diff(ctx, anyRepo, f.forkSHA, f.headSHA, pipeline.DiffOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
}
