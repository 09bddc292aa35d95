package collect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// mergeRepo is a pull request whose source branch may have merged the
// destination: commits by name, diffs by (base, head, two-dot), merge
// bases by pair, one prscout summary naming the reviewed commit. It counts
// calls per method.
type mergeRepo struct {
	state      string
	head, dest string
	reviewed   string
	diffs      map[string]string // "base..head" (two-dot) or "base...head"
	mergeBases map[string]string // "a|b"
	mbErr      error
	mu         sync.Mutex // ReadFile runs in parallel
	calls      map[string]int
}

func (r *mergeRepo) count(k string) {
	r.mu.Lock()
	r.calls[k]++
	r.mu.Unlock()
}

func (r *mergeRepo) ResolveCommit(_ context.Context, _ pipeline.Repo, rev string) (string, error) {
	r.count("resolve")
	return rev, nil
}

func (r *mergeRepo) ReadFile(_ context.Context, _ pipeline.Repo, commit, p string, _ int64) ([]byte, error) {
	r.count("read")
	return nil, pipeline.ErrNotFound
}

func (r *mergeRepo) ListDir(context.Context, pipeline.Repo, string, string, int) ([]pipeline.DirEntry, bool, error) {
	return nil, false, pipeline.ErrNotFound
}

func (r *mergeRepo) Diff(_ context.Context, _ pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]byte, error) {
	key := base + "..." + head
	if opts.TwoDot {
		key = base + ".." + head
	}
	r.count("diff " + key)
	d, ok := r.diffs[key]
	if !ok {
		return nil, fmt.Errorf("no diff %s: %w", key, pipeline.ErrNotFound)
	}
	return []byte(d), nil
}

func (r *mergeRepo) PullRequest(context.Context, pipeline.Repo, int) (pipeline.PullRequestInfo, error) {
	r.count("pr")
	return pipeline.PullRequestInfo{ID: 3, State: r.state, SourceCommit: r.head, DestinationCommit: r.dest}, nil
}

func (r *mergeRepo) IsAncestor(context.Context, pipeline.Repo, string, string) (bool, error) {
	return true, nil
}

func (r *mergeRepo) MergeBase(_ context.Context, _ pipeline.Repo, a, b string) (string, error) {
	r.count("mergebase")
	if r.mbErr != nil {
		return "", r.mbErr
	}
	mb, ok := r.mergeBases[a+"|"+b]
	if !ok {
		return "", pipeline.ErrNotFound
	}
	return mb, nil
}

func (r *mergeRepo) ListComments(context.Context, pipeline.Repo, int) ([]pipeline.Comment, error) {
	r.count("comments")
	return []pipeline.Comment{{ID: 1, Body: "summary\n\n" + marker.ReviewMarker(r.reviewed)}}, nil
}

func (r *mergeRepo) CreateComment(context.Context, pipeline.Repo, int, pipeline.NewComment) (pipeline.Comment, error) {
	return pipeline.Comment{}, errors.New("read only")
}

func (r *mergeRepo) UpdateComment(context.Context, pipeline.Repo, int, int64, string) (pipeline.Comment, error) {
	return pipeline.Comment{}, errors.New("read only")
}

func (r *mergeRepo) DeleteComment(context.Context, pipeline.Repo, int, int64) error {
	return errors.New("read only")
}

var (
	_ pipeline.MergeBases   = (*mergeRepo)(nil)
	_ pipeline.CommentStore = (*mergeRepo)(nil)
)

// addDiff is a new file's diff section.
func addDiff(p string, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..%07x\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, len(p)*len(lines), p, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// modDiff is a modified file's diff section: one changed line at line at.
func modDiff(p string, at int, oldLine, newLine string) string {
	return fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..%07x 100644\n--- a/%s\n+++ b/%s\n@@ -%d,2 +%d,2 @@\n ctx\n-%s\n+%s\n", p, p, at, p, p, at, at, oldLine, newLine)
}

// newMergeRepo: d0 forked; r was reviewed; the destination moved to d1
// (it changed dest.go and, far from the PR's change, shared.go); the
// source merged d1 (m) and then h changed b.go.
func newMergeRepo() *mergeRepo {
	return &mergeRepo{
		head: "h", dest: "d1", reviewed: "r",
		mergeBases: map[string]string{"r|d1": "d0", "h|d1": "d1"},
		diffs: map[string]string{
			// The pull request's own diff at r and at h: a.go the same,
			// shared.go the same change at another position, b.go changed.
			"d1...r": addDiff("a.go", "package a", "var x = 1") + modDiff("shared.go", 10, "old", "pr change") + addDiff("b.go", "package a", "var y = 1"),
			"d1...h": addDiff("a.go", "package a", "var x = 1") + modDiff("shared.go", 40, "old", "pr change") + addDiff("b.go", "package a", "var y = 2"),
			// The plain delta would carry the destination's changes.
			"r..h": modDiff("dest.go", 1, "a", "b") + modDiff("shared.go", 1, "x", "dest change") + addDiff("b.go", "package a", "var y = 2"),
		},
		calls: map[string]int{},
	}
}

func collectMerge(t *testing.T, r *mergeRepo) ContextResult {
	t.Helper()
	res, err := Collect(context.Background(), ContextSources{Repo: r, Diffs: r, PRs: r, Comments: r},
		ContextInput{Workspace: "w", RepoSlug: "s", PRID: 3}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func paths(res ContextResult) []string {
	var out []string
	for _, f := range res.Files {
		out = append(out, f.Path)
	}
	sort.Strings(out)
	return out
}

// TestDeltaAfterMergeFromDestination: the delta reviews only the files
// whose own changes differ (b.go), with their pull request diff; nothing of
// the destination (dest.go, the destination's change in shared.go).
func TestDeltaAfterMergeFromDestination(t *testing.T) {
	r := newMergeRepo()
	res := collectMerge(t, r)
	if res.Mode != "delta" || !res.Interdiff || res.ReviewedCommit != "r" {
		t.Fatalf("mode %s interdiff %v reviewed %s, want an interdiff delta from r; warnings %v", res.Mode, res.Interdiff, res.ReviewedCommit, res.Warnings)
	}
	if got := paths(res); strings.Join(got, ",") != "b.go" {
		t.Errorf("files %v, want only b.go", got)
	}
	for _, f := range res.Files {
		if strings.Contains(f.Diff, "dest change") || !strings.Contains(f.Diff, "+var y = 2") {
			t.Errorf("%s diff is not the pull request's own:\n%s", f.Path, f.Diff)
		}
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "merged the destination") || !strings.Contains(w, "interdiff") {
		t.Errorf("warnings %q do not say why", w)
	}
	if r.calls["diff r..h"] != 0 || r.calls["mergebase"] != 2 {
		t.Errorf("calls %v: want two merge bases and no plain delta", r.calls)
	}
	if !strings.Contains(res.ScoutPrompt.User, "b.go") || strings.Contains(res.ScoutPrompt.User, "dest.go") {
		t.Errorf("scout prompt shows the destination's files")
	}
}

func TestDeltaAfterMergeOnlyDestination(t *testing.T) {
	r := newMergeRepo()
	r.diffs["d1...h"] = r.diffs["d1...r"]
	res := collectMerge(t, r)
	if res.Mode != "skip" || !res.Skip || !strings.Contains(res.SkipReason, "merged the destination") || len(res.Files) != 0 {
		t.Errorf("mode %s skip %v reason %q files %v, want skip: nothing of the pull request changed", res.Mode, res.Skip, res.SkipReason, paths(res))
	}
}

func TestDeltaWithoutMerge(t *testing.T) {
	r := newMergeRepo()
	r.mergeBases["h|d1"] = "d0" // the merge base did not move
	r.diffs["r..h"] = addDiff("b.go", "package a", "var y = 2")
	res := collectMerge(t, r)
	if res.Mode != "delta" || res.Interdiff || strings.Join(paths(res), ",") != "b.go" || r.calls["diff r..h"] != 1 {
		t.Errorf("mode %s interdiff %v files %v calls %v, want the plain delta", res.Mode, res.Interdiff, paths(res), r.calls)
	}
}

func TestDeltaMergeBaseFailsFallsBackToFull(t *testing.T) {
	r := newMergeRepo()
	r.mbErr = fmt.Errorf("merge base: %w", pipeline.ErrUpstream)
	res := collectMerge(t, r)
	if res.Mode != "full" || len(res.Files) != 3 {
		t.Errorf("mode %s files %v, want full with the pull request's 3 files", res.Mode, paths(res))
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "could not tell whether the destination was merged") || !strings.Contains(w, "full review") {
		t.Errorf("warnings %q", w)
	}
	r = newMergeRepo()
	delete(r.diffs, "d1...r")
	res = collectMerge(t, r)
	if res.Mode != "full" || len(res.Files) != 3 || !strings.Contains(strings.Join(res.Warnings, "\n"), "could not be read") {
		t.Errorf("missing old PR diff: mode %s files %v warnings %v", res.Mode, paths(res), res.Warnings)
	}
}

// TestClosedPullRequestSkipped: a merged or declined pull request is
// skipped with that reason, after reading only the pull request.
func TestClosedPullRequestSkipped(t *testing.T) {
	for _, state := range []string{"MERGED", "DECLINED", "superseded"} {
		r := newMergeRepo()
		r.state = state
		res := collectMerge(t, r)
		want := "the pull request is " + strings.ToUpper(state)
		if res.Mode != "skip" || !res.Skip || res.SkipReason != want || len(res.Files) != 0 {
			t.Errorf("%s: mode %s skip %v reason %q, want skip with %q", state, res.Mode, res.Skip, res.SkipReason, want)
		}
		if len(r.calls) != 1 || r.calls["pr"] != 1 {
			t.Errorf("%s: calls %v, want only the pull request", state, r.calls)
		}
	}
	r := newMergeRepo()
	r.state = "OPEN"
	if res := collectMerge(t, r); res.Mode == "skip" {
		t.Errorf("an open pull request was skipped: %q", res.SkipReason)
	}
}

func TestChangeSignature(t *testing.T) {
	a := modDiff("x.go", 10, "old", "new")
	b := modDiff("x.go", 90, "old", "new")
	if changeSignature(a) != changeSignature(b) {
		t.Error("the same change at another position differs")
	}
	if changeSignature(a) == changeSignature(modDiff("x.go", 10, "old", "newer")) {
		t.Error("another change has the same signature")
	}
	bin1 := "diff --git a/i.png b/i.png\nindex 1111111..2222222 100644\nBinary files a/i.png and b/i.png differ\n"
	bin2 := "diff --git a/i.png b/i.png\nindex 3333333..2222222 100644\nBinary files a/i.png and b/i.png differ\n"
	if changeSignature(bin1) != changeSignature(bin2) {
		t.Error("a hunkless section's signature depends on the index line")
	}
}
