package pipelinetest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const (
	base = "1111111111111111111111111111111111111111"
	head = "2222222222222222222222222222222222222222"
	side = "3333333333333333333333333333333333333333"
)

var repo = pipeline.Repo{Workspace: "acme", RepoSlug: "app"}

func TestResolveCommit(t *testing.T) {
	f := pipelinetest.New().AddCommit(head, base).AddRef("main", base).AddCommit("head")
	ctx := context.Background()
	for rev, want := range map[string]string{"main": base, head: head, head[:7]: head, base[:12]: base, "head": "head"} {
		if got, err := f.ResolveCommit(ctx, repo, rev); err != nil || got != want {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for _, rev := range []string{"nope", head[:6]} {
		if _, err := f.ResolveCommit(ctx, repo, rev); !errors.Is(err, pipeline.ErrNotFound) {
			t.Errorf("ResolveCommit(%q) = %v, want ErrNotFound", rev, err)
		}
	}
	f.ResolveAll(side)
	if got, err := f.ResolveCommit(ctx, repo, "anything"); err != nil || got != side {
		t.Errorf("ResolveAll: %q, %v", got, err)
	}
	if n := f.Calls(pipelinetest.OpResolve, ""); n != 8 {
		t.Errorf("%d resolve calls recorded, want 8", n)
	}
}

func TestReadFileContract(t *testing.T) {
	f := pipelinetest.New().
		AddFiles("", map[string]string{"shared.txt": "everywhere\n", "a.go": "package old\n"}).
		AddFiles(head, map[string]string{"a.go": "package a\n", "img/x.bin": "GIF\x00", "big.txt": "0123456789", "pkg/sub/b.go": "package b\n"}).
		Careless("loose.bin").AddFiles(head, map[string]string{"loose.bin": "\x00\x01\x02"})
	ctx := context.Background()
	tests := []struct {
		commit, path string
		max          int64
		want         string
		err          error
	}{
		{head, "a.go", 100, "package a\n", nil},
		{base, "a.go", 100, "package old\n", nil},
		{base, "shared.txt", 0, "everywhere\n", nil},
		{head, "a.go", 4, "", pipeline.ErrTooLarge},
		{head, "loose.bin", 1, "\x00\x01\x02", nil},
		{head, "img/x.bin", 100, "", pipeline.ErrBinary},
		{head, "pkg", 100, "", pipeline.ErrIsDir},
		{head, "pkg/sub", 100, "", pipeline.ErrIsDir},
		{base, "img/x.bin", 100, "", pipeline.ErrNotFound},
	}
	for _, tt := range tests {
		got, err := f.ReadFile(ctx, repo, tt.commit, tt.path, tt.max)
		if !errors.Is(err, tt.err) || string(got) != tt.want {
			t.Errorf("ReadFile(%.4s, %s, %d) = %q, %v; want %q, %v", tt.commit, tt.path, tt.max, got, err, tt.want, tt.err)
		}
	}
	_, err := f.ReadFile(ctx, repo, head, "big.txt", 4)
	var tl interface{ FileSize() int64 }
	if !errors.As(err, &tl) || tl.FileSize() != 10 {
		t.Errorf("too large error %v does not carry the size 10", err)
	}
}

func TestListDir(t *testing.T) {
	f := pipelinetest.New().
		AddFiles(head, map[string]string{"src/b.go": "bb", "src/a.go": "a", "src/sub/c.go": "c", "README.md": "r"}).
		SetListing("", "odd", []pipeline.DirEntry{{Path: "odd/z"}, {Path: "odd/y"}, {Path: "odd/x"}}).
		Careless("odd")
	ctx := context.Background()
	entries, truncated, err := f.ListDir(ctx, repo, head, "src", 10)
	one, two := int64(1), int64(2)
	want := []pipeline.DirEntry{{Path: "src/a.go", Type: "file", Size: &one}, {Path: "src/b.go", Type: "file", Size: &two}, {Path: "src/sub", Type: "dir"}}
	if diff := cmp.Diff(want, entries); diff != "" || truncated || err != nil {
		t.Errorf("ListDir(src) %v, %v (-want +got):\n%s", truncated, err, diff)
	}
	if entries, truncated, _ := f.ListDir(ctx, repo, head, "src", 2); len(entries) != 2 || !truncated {
		t.Errorf("ListDir(src, limit 2) = %d entries, truncated %v", len(entries), truncated)
	}
	if entries, _, _ := f.ListDir(ctx, repo, head, "", 10); len(entries) != 2 || entries[0].Path != "README.md" || entries[1].Type != "dir" {
		t.Errorf("ListDir(root) = %+v", entries)
	}
	if entries, truncated, _ := f.ListDir(ctx, repo, base, "odd", 2); len(entries) != 3 || truncated || entries[0].Path != "odd/z" {
		t.Errorf("careless listing = %+v, %v: want all three, as set", entries, truncated)
	}
	if _, _, err := f.ListDir(ctx, repo, head, "src/a.go", 10); !errors.Is(err, pipeline.ErrNotDir) {
		t.Errorf("ListDir(file) = %v, want ErrNotDir", err)
	}
	if _, _, err := f.ListDir(ctx, repo, head, "nope", 10); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ListDir(missing) = %v, want ErrNotFound", err)
	}
}

func TestDiffsAndChangedPaths(t *testing.T) {
	const d = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n"
	f := pipelinetest.New().SetDiff("main...feature", d).SetDiff("old..new", "two-dot")
	ctx := context.Background()
	if got, err := f.Diff(ctx, repo, "main", "feature", pipeline.DiffOptions{}); err != nil || string(got) != d {
		t.Errorf("three-dot diff = %q, %v", got, err)
	}
	if got, err := f.Diff(ctx, repo, "old", "new", pipeline.DiffOptions{TwoDot: true}); err != nil || string(got) != "two-dot" {
		t.Errorf("two-dot diff = %q, %v", got, err)
	}
	if _, err := f.Diff(ctx, repo, "old", "new", pipeline.DiffOptions{}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unset diff = %v, want ErrNotFound", err)
	}
	paths, err := pipelinetest.ListingDiffs{Fake: f}.ChangedPaths(ctx, repo, "main", "feature", pipeline.DiffOptions{})
	if err != nil || strings.Join(paths, ",") != "a.go" {
		t.Errorf("ChangedPaths = %v, %v; want a.go only (gone.go is deleted)", paths, err)
	}
	f.SetDiff("*", "any")
	if got, _ := f.Diff(ctx, repo, "x", "y", pipeline.DiffOptions{TwoDot: true}); string(got) != "any" {
		t.Errorf("wildcard diff = %q", got)
	}
}

func TestAncestryAndMergeBase(t *testing.T) {
	// base <- head, base <- side <- merge(head, side)
	f := pipelinetest.New().AddCommit(head, base).AddCommit(side, base).AddCommit("merge", head, side).AddCommit("lonely")
	ctx := context.Background()
	for _, tt := range []struct {
		anc, head string
		want      bool
	}{{base, head, true}, {head, head, true}, {head, base, false}, {side, "merge", true}, {"lonely", "merge", false}} {
		if got, err := f.IsAncestor(ctx, repo, tt.anc, tt.head); err != nil || got != tt.want {
			t.Errorf("IsAncestor(%.4s, %.4s) = %v, %v", tt.anc, tt.head, got, err)
		}
	}
	mb := pipelinetest.MergeBaseRepo{Fake: f}
	if got, err := mb.MergeBase(ctx, repo, head, side); err != nil || got != base {
		t.Errorf("MergeBase(head, side) = %.4s, %v; want base", got, err)
	}
	if got, err := mb.MergeBase(ctx, repo, "merge", side); err != nil || got != side {
		t.Errorf("MergeBase(merge, side) = %.4s, %v; want side", got, err)
	}
	if _, err := mb.MergeBase(ctx, repo, "lonely", head); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("MergeBase of unrelated commits = %v, want ErrNotFound", err)
	}
}

func TestComments(t *testing.T) {
	f := pipelinetest.New().SetAccount("prscout").SetCommentURLs("https://bitbucket.example/pr/7#comment-%d")
	ctx := context.Background()
	foreign := f.AddComment(7, pipeline.Comment{Body: "mine, not yours", Author: "dana", Foreign: true})
	c, err := f.CreateComment(ctx, repo, 7, pipeline.NewComment{Body: "finding", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 3}})
	if err != nil || c.ID == foreign.ID || c.Author != "prscout" || !strings.HasSuffix(c.URL, "#comment-1002") {
		t.Fatalf("CreateComment = %+v, %v", c, err)
	}
	if u, err := f.UpdateComment(ctx, repo, 7, c.ID, "finding, reworded"); err != nil || u.Body != "finding, reworded" || u.Inline.Line != 3 {
		t.Errorf("UpdateComment = %+v, %v", u, err)
	}
	if _, err := f.UpdateComment(ctx, repo, 7, foreign.ID, "x"); !errors.Is(err, pipeline.ErrUpstream) {
		t.Errorf("updating another account's comment = %v, want a refusal", err)
	}
	if err := f.DeleteComment(ctx, repo, 7, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.DeleteComment(ctx, repo, 7, c.ID); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("deleting twice = %v, want ErrNotFound", err)
	}
	ts := pipelinetest.ThreadStore{Fake: f}
	if err := ts.ResolveThread(ctx, repo, 7, foreign.ID); err != nil {
		t.Errorf("ResolveThread = %v", err)
	}
	if err := ts.ResolveThread(ctx, repo, 7, foreign.ID); !errors.Is(err, pipeline.ErrUpstream) {
		t.Errorf("resolving twice = %v, want the 409-like refusal", err)
	}
	list, _ := f.ListComments(ctx, repo, 7)
	if len(list) != 2 || !list[1].Deleted || !list[0].Resolved || list[1].Body != "finding, reworded" {
		t.Errorf("ListComments = %+v", list)
	}
	list[0].Body = "changed by the caller"
	if f.Comments(7)[0].Body != "mine, not yours" {
		t.Error("ListComments shares its slice with the Fake")
	}
	if other, _ := f.ListComments(ctx, repo, 8); len(other) != 0 {
		t.Errorf("pull request 8 has %d comments, want none", len(other))
	}
}

func TestShuffleComments(t *testing.T) {
	f := pipelinetest.New().ShuffleComments(1)
	for i := range 20 {
		f.AddComment(1, pipeline.Comment{ID: int64(i + 1)})
	}
	list, _ := f.ListComments(context.Background(), repo, 1)
	sorted := true
	for i := range list {
		sorted = sorted && list[i].ID == int64(i+1)
	}
	if sorted || len(list) != 20 {
		t.Errorf("ShuffleComments listed %d comments in written order", len(list))
	}
}

func TestPullRequestsIssuesReports(t *testing.T) {
	f := pipelinetest.New().AddPullRequest(pipeline.PullRequestInfo{ID: 3, State: "OPEN", SourceCommit: head[:12]}).
		AddIssue(pipeline.Issue{Key: "PAY-1", Summary: "round"})
	ctx := context.Background()
	if pr, err := f.PullRequest(ctx, repo, 3); err != nil || pr.SourceCommit != head[:12] {
		t.Errorf("PullRequest(3) = %+v, %v", pr, err)
	}
	if _, err := f.PullRequest(ctx, repo, 4); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("PullRequest(4) = %v, want ErrNotFound", err)
	}
	if is, err := f.LookupIssue(ctx, "PAY-1"); err != nil || is.Summary != "round" {
		t.Errorf("LookupIssue = %+v, %v", is, err)
	}
	if _, err := f.LookupIssue(ctx, "PAY-2"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("LookupIssue(missing) = %v", err)
	}
	ok := pipeline.BuildStatus{Key: "prscout", State: pipeline.StatusSuccessful, URL: "https://x.example/1"}
	if err := f.SetBuildStatus(ctx, repo, head, ok); err != nil {
		t.Fatal(err)
	}
	var inv *pipeline.InvalidError
	if err := f.SetBuildStatus(ctx, repo, head, pipeline.BuildStatus{Key: "prscout", State: "DONE"}); !errors.As(err, &inv) {
		t.Errorf("invalid status accepted: %v", err)
	}
	if got := f.Statuses(); len(got) != 1 || got[0].Commit != head || got[0].Status != ok {
		t.Errorf("Statuses = %+v", got)
	}
}

func TestHookAndCounts(t *testing.T) {
	f := pipelinetest.New().AddFiles("", map[string]string{"a": "a"})
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	down := errors.New("upstream down")
	f.Hook = func(ctx context.Context, op, arg string) error {
		if arg == "fail" {
			return down
		}
		started <- struct{}{}
		<-release
		return nil
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := f.ReadFile(ctx, repo, head, "a", 0); err != nil {
				t.Error(err)
			}
		})
	}
	for range 3 {
		<-started
	}
	if n := f.MaxInFlight(); n != 3 {
		t.Errorf("MaxInFlight = %d while three reads wait, want 3", n)
	}
	close(release)
	wg.Wait()
	if _, err := f.ReadFile(ctx, repo, head, "fail", 0); !errors.Is(err, down) {
		t.Errorf("hook error not returned: %v", err)
	}
	if f.Calls(pipelinetest.OpRead, "a") != 3 || f.Calls(pipelinetest.OpRead, "") != 4 || f.TotalCalls() != 4 {
		t.Errorf("counts: a %d, reads %d, total %d", f.Calls(pipelinetest.OpRead, "a"), f.Calls(pipelinetest.OpRead, ""), f.TotalCalls())
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	f.Hook = nil
	if _, err := f.ReadFile(cancelled, repo, head, "a", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile on a cancelled context = %v", err)
	}
	fr := pipelinetest.FilesRepo{Fake: f}
	var got []string
	if err := fr.ReadFiles(ctx, repo, head, []string{"a", "b"}, 0, func(i int, data []byte, err error) {
		got = append(got, string(data)+"|"+map[bool]string{true: "missing", false: "ok"}[errors.Is(err, pipeline.ErrNotFound)])
	}); err != nil || strings.Join(got, " ") != "a|ok |missing" {
		t.Errorf("ReadFiles = %v, %v", got, err)
	}
}

func TestCommitMessages(t *testing.T) {
	// base <- c1 <- c2 (the pull request's source), base <- side (the destination moved on)
	f := pipelinetest.New().AddCommit(base).SetCommitMessage(base, "base").
		AddCommit(head, base).SetCommitMessage(head, "PAY-1 first").
		AddCommit("c2", head).SetCommitMessage("c2", "PAY-2 second").
		AddCommit(side, base).SetCommitMessage(side, "main moves").
		AddPullRequest(pipeline.PullRequestInfo{ID: 5, SourceCommit: "c2", DestinationCommit: side[:12]})
	r := pipelinetest.CommitsRepo{Fake: f}
	ctx := context.Background()
	if got, err := r.PullRequestCommitMessages(ctx, repo, 5, 10); err != nil || strings.Join(got, "|") != "PAY-2 second|PAY-1 first" {
		t.Errorf("pull request messages = %q, %v", got, err)
	}
	if got, _ := r.PullRequestCommitMessages(ctx, repo, 5, 1); len(got) != 1 {
		t.Errorf("limit 1 gave %q", got)
	}
	if _, err := r.PullRequestCommitMessages(ctx, repo, 6, 10); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown pull request: %v", err)
	}
	if got, err := r.CommitMessages(ctx, repo, side, "c2", 10); err != nil || strings.Join(got, "|") != "PAY-2 second|PAY-1 first" {
		t.Errorf("range messages = %q, %v", got, err)
	}
	if _, err := r.CommitMessages(ctx, repo, "nope", "c2", 10); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown base: %v", err)
	}
	// The limit is part of what a call records: a stage's bound is asserted with it.
	if f.Calls(pipelinetest.OpPRCommits, "5 10") != 1 || f.Calls(pipelinetest.OpPRCommits, "5 1") != 1 ||
		f.Calls(pipelinetest.OpRangeCommits, side+"..c2 10") != 1 || f.Calls(pipelinetest.OpRangeCommits, "") != 2 {
		t.Errorf("calls: pr %d %d, range %d of %d", f.Calls(pipelinetest.OpPRCommits, "5 10"), f.Calls(pipelinetest.OpPRCommits, "5 1"),
			f.Calls(pipelinetest.OpRangeCommits, side+"..c2 10"), f.Calls(pipelinetest.OpRangeCommits, ""))
	}
	is := pipelinetest.Issues{Fake: f, Max: 3, ProjectKeys: []string{"PAY"}}
	if is.MaxIssues() != 3 || is.Projects()[0] != "PAY" {
		t.Errorf("Issues = %d %v", is.MaxIssues(), is.Projects())
	}
}

func TestSearchRepo(t *testing.T) {
	f := pipelinetest.New().AddCommit(head).AddFiles(head, map[string]string{
		"pkg/add.go":      "package pkg\n\nfunc Add(a, b int) int { return a + b }\n",
		"pkg/add_test.go": "package pkg\n\nfunc TestAddAll(t *testing.T) {}\n",
		"main.go":         "package main\n\nfunc main() { pkg.Add(1, 2) }\n",
		"docs/add.md":     "Add adds.\n",
		"logo.bin":        "Add\x00",
	})
	s := pipelinetest.NewSearchRepo(f)
	ctx := context.Background()
	if _, err := s.OpenTree(ctx, repo, base); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("OpenTree(unknown) = %v", err)
	}
	tree, err := s.OpenTree(ctx, repo, head)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	for _, tt := range []struct {
		words, globs []string
		limit        int
		want         string
	}{
		{[]string{"Add"}, nil, 0, "docs/add.md,main.go,pkg/add.go"}, // not TestAddAll, not the binary
		{[]string{"Add"}, []string{"*.go"}, 0, "main.go,pkg/add.go"},
		{[]string{"Add"}, []string{"pkg"}, 0, "pkg/add.go"},
		{[]string{"t", "main"}, []string{"*_test.go", "m?in.go"}, 0, "main.go,pkg/add_test.go"},
		{[]string{"package"}, nil, 1, "main.go"},
	} {
		got, err := tree.Grep(ctx, tt.words, tt.globs, tt.limit)
		if err != nil || strings.Join(got, ",") != tt.want {
			t.Errorf("Grep(%v, %v, %d) = %v, %v; want %s", tt.words, tt.globs, tt.limit, got, err, tt.want)
		}
	}
	if _, err := tree.ReadFile(ctx, "logo.bin"); !errors.Is(err, pipeline.ErrBinary) {
		t.Errorf("ReadFile(binary) = %v", err)
	}
	if _, err := tree.ReadFile(ctx, "pkg"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ReadFile(dir) = %v", err)
	}
	if got, _ := tree.ListDir(ctx, "."); strings.Join(got, ",") != "logo.bin,main.go" {
		t.Errorf("ListDir(.) = %v", got)
	}
	if got, _ := tree.ListDir(ctx, "pkg"); strings.Join(got, ",") != "pkg/add.go,pkg/add_test.go" {
		t.Errorf("ListDir(pkg) = %v", got)
	}
	standalone := pipelinetest.NewTree(map[string]string{"a.go": "x := Add(1)"})
	if got, _ := standalone.Grep(ctx, []string{"Add"}, nil, 0); strings.Join(got, ",") != "a.go" {
		t.Errorf("NewTree Grep = %v", got)
	}
}

func TestCreateHookAndUnverified(t *testing.T) {
	f := pipelinetest.New().SetAccount("prscout")
	ctx := context.Background()
	refused := errors.New("refused")
	f.CreateHook = func(ctx context.Context, prID int, c pipeline.NewComment) error {
		if c.Inline != nil {
			return refused
		}
		// Another writer lands first; the hook runs outside the lock.
		f.AddComment(prID, pipeline.Comment{Body: "other " + c.Body, Author: "prscout"})
		return nil
	}
	if _, err := f.CreateComment(ctx, pipeline.Repo{}, 7, pipeline.NewComment{Body: "x", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 1}}); !errors.Is(err, refused) {
		t.Fatalf("inline create: err = %v, want the hook's", err)
	}
	c, err := f.CreateComment(ctx, pipeline.Repo{}, 7, pipeline.NewComment{Body: "s"})
	if err != nil {
		t.Fatal(err)
	}
	got := f.Comments(7)
	if len(got) != 2 || got[0].Body != "other s" || got[1].ID != c.ID || got[1].Body != "s" {
		t.Fatalf("comments %+v", got)
	}
	if n := f.Calls(pipelinetest.OpCreateComment, "7"); n != 2 {
		t.Errorf("%d create calls, want 2", n)
	}
	f.SetUnverified(7, c.ID)
	got = f.Comments(7)
	if got[0].Unverified || !got[1].Unverified {
		t.Errorf("unverified: %v, %v; want only comment %d", got[0].Unverified, got[1].Unverified, c.ID)
	}
}
