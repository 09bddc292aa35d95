package collect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
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

// The pull request's own diff at r and at h: a.go the same, shared.go the
// same change at another position, b.go changed; and the plain delta r..h,
// which carries the destination's changes.
var (
	mergeDiffAtR = addDiff("a.go", "package a", "var x = 1") + modDiff("shared.go", 10, "old", "pr change") + addDiff("b.go", "package a", "var y = 1")
	mergeDiffAtH = addDiff("a.go", "package a", "var x = 1") + modDiff("shared.go", 40, "old", "pr change") + addDiff("b.go", "package a", "var y = 2")
	mergeDelta   = modDiff("dest.go", 1, "a", "b") + modDiff("shared.go", 1, "x", "dest change") + addDiff("b.go", "package a", "var y = 2")
)

// newMergeRepo is pull request 3: d0 forked; r was reviewed (prscout's
// summary names it); the destination moved to d1 (it changed dest.go and,
// far from the PR's change, shared.go); when merged, the source merged d1
// (m) and then h changed b.go, else h follows r. Comments are read only.
func newMergeRepo(merged bool) *pipelinetest.Fake {
	f := pipelinetest.New().AddCommit("r", "d0").AddCommit("d1", "d0").
		SetDiff("d1...r", mergeDiffAtR).SetDiff("d1...h", mergeDiffAtH).SetDiff("r..h", mergeDelta)
	if merged {
		f.AddCommit("m", "r", "d1").AddCommit("h", "m")
	} else {
		f.AddCommit("h", "r")
	}
	f.AddPullRequest(mergePR("OPEN"))
	f.AddComment(3, pipeline.Comment{ID: 1, Body: "summary\n\n" + marker.ReviewMarker("r")})
	f.Hook = func(_ context.Context, op, _ string) error {
		switch op {
		case pipelinetest.OpCreateComment, pipelinetest.OpUpdateComment, pipelinetest.OpDeleteComment:
			return errors.New("read only")
		}
		return nil
	}
	return f
}

func mergePR(state string) pipeline.PullRequestInfo {
	return pipeline.PullRequestInfo{ID: 3, State: state, SourceCommit: "h", DestinationCommit: "d1"}
}

// failOp makes f's calls of op with arg fail with err, keeping f's hook for
// every other call.
func failOp(f *pipelinetest.Fake, op, arg string, err error) {
	next := f.Hook
	f.Hook = func(ctx context.Context, o, a string) error {
		if o == op && (arg == "" || a == arg) {
			return err
		}
		return next(ctx, o, a)
	}
}

func collectMerge(t *testing.T, r *pipelinetest.Fake) ContextResult {
	t.Helper()
	res, err := Collect(context.Background(), ContextSources{Repo: r, Diffs: r, PRs: pipelinetest.MergeBaseRepo{Fake: r}, Comments: r},
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
	r := newMergeRepo(true)
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
	if d, mb := r.Calls(pipelinetest.OpDiff, "r..h"), r.Calls(pipelinetest.OpMergeBase, ""); d != 0 || mb != 2 {
		t.Errorf("%d plain deltas, %d merge bases: want two merge bases and no plain delta", d, mb)
	}
	if !strings.Contains(res.ScoutPrompt.User, "b.go") || strings.Contains(res.ScoutPrompt.User, "dest.go") {
		t.Errorf("scout prompt shows the destination's files")
	}
}

func TestDeltaAfterMergeOnlyDestination(t *testing.T) {
	r := newMergeRepo(true)
	r.SetDiff("d1...h", mergeDiffAtR)
	res := collectMerge(t, r)
	if res.Mode != "skip" || !res.Skip || res.SkipCode != SkipMergeUnchanged || !strings.Contains(res.SkipReason, "merged the destination") || len(res.Files) != 0 {
		t.Errorf("mode %s skip %v reason %q files %v, want skip: nothing of the pull request changed", res.Mode, res.Skip, res.SkipReason, paths(res))
	}
}

func TestDeltaWithoutMerge(t *testing.T) {
	r := newMergeRepo(false) // the merge base did not move
	r.SetDiff("r..h", addDiff("b.go", "package a", "var y = 2"))
	res := collectMerge(t, r)
	if n := r.Calls(pipelinetest.OpDiff, "r..h"); res.Mode != "delta" || res.Interdiff || strings.Join(paths(res), ",") != "b.go" || n != 1 {
		t.Errorf("mode %s interdiff %v files %v, %d plain deltas; want the plain delta", res.Mode, res.Interdiff, paths(res), n)
	}
}

func TestDeltaMergeBaseFailsFallsBackToFull(t *testing.T) {
	r := newMergeRepo(true)
	failOp(r, pipelinetest.OpMergeBase, "", fmt.Errorf("merge base: %w", pipeline.ErrUpstream))
	res := collectMerge(t, r)
	if res.Mode != "full" || len(res.Files) != 3 {
		t.Errorf("mode %s files %v, want full with the pull request's 3 files", res.Mode, paths(res))
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "could not tell whether the destination was merged") || !strings.Contains(w, "full review") {
		t.Errorf("warnings %q", w)
	}
	r = newMergeRepo(true)
	failOp(r, pipelinetest.OpDiff, "d1...r", fmt.Errorf("no diff d1...r: %w", pipeline.ErrNotFound))
	res = collectMerge(t, r)
	if res.Mode != "full" || len(res.Files) != 3 || !strings.Contains(strings.Join(res.Warnings, "\n"), "could not be read") {
		t.Errorf("missing old PR diff: mode %s files %v warnings %v", res.Mode, paths(res), res.Warnings)
	}
}

// TestClosedPullRequestSkipped: a merged or declined pull request is
// skipped with that reason, after reading only the pull request.
func TestClosedPullRequestSkipped(t *testing.T) {
	for _, state := range []string{"MERGED", "DECLINED", "superseded"} {
		r := newMergeRepo(true)
		r.AddPullRequest(mergePR(state))
		res := collectMerge(t, r)
		want := "the pull request is " + strings.ToUpper(state)
		if res.Mode != "skip" || !res.Skip || res.SkipReason != want || res.SkipCode != SkipClosed || len(res.Files) != 0 {
			t.Errorf("%s: mode %s skip %v reason %q, want skip with %q", state, res.Mode, res.Skip, res.SkipReason, want)
		}
		if n := r.TotalCalls(); n != 1 || r.Calls(pipelinetest.OpPullRequest, "3") != 1 {
			t.Errorf("%s: %d calls, want only the pull request", state, n)
		}
	}
	r := newMergeRepo(true)
	if res := collectMerge(t, r); res.Mode == "skip" {
		t.Errorf("an open pull request was skipped: %q", res.SkipReason)
	}
}
