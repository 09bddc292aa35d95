package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/review"
)

// newStore returns the comment store the tests post to:
// pipelinetest's Fake, writing as prscout, with threads that resolve and
// comments listed in an order drawn from seed (the port promises none).
func newStore(seed int64) pipelinetest.ThreadStore {
	return pipelinetest.ThreadStore{Fake: pipelinetest.New().SetAccount("prscout").ShuffleComments(seed)}
}

// errUpstream is the failure the tests' hooks answer, as an adapter wraps
// a refusal.
func errUpstream(op string) error { return fmt.Errorf("%s: %w", op, pipeline.ErrUpstream) }

// live returns prscout's own non-deleted summaries and inline comments on
// pull request prID, by id (Foreign comments are left out).
func live(s pipelinetest.ThreadStore, prID int) (summaries, inline []pipeline.Comment) {
	for _, c := range s.Comments(prID) {
		switch {
		case c.Deleted, c.Foreign:
		case c.Inline != nil:
			inline = append(inline, c)
		case marker.IsSummaryComment(c):
			summaries = append(summaries, c)
		}
	}
	sort.Slice(summaries, func(i, j int) bool { return summaries[i].ID < summaries[j].ID })
	sort.Slice(inline, func(i, j int) bool { return inline[i].ID < inline[j].ID })
	return summaries, inline
}

// assertOneSummaryNoDuplicates checks the store holds exactly one summary
// with wantBody and one inline comment per fingerprint in wantFPs.
func assertOneSummaryNoDuplicates(t *testing.T, s pipelinetest.ThreadStore, prID int, wantBody string, wantFPs []string) {
	t.Helper()
	summaries, inline := live(s, prID)
	if len(summaries) != 1 {
		t.Fatalf("%d summaries, want 1: %v", len(summaries), commentIDs(summaries))
	}
	if wantBody != "" && summaries[0].Body != wantBody {
		t.Errorf("summary body:\n%s\nwant:\n%s", summaries[0].Body, wantBody)
	}
	seen := map[string]int{}
	for _, c := range inline {
		fp, ok := marker.ParseFindingMarker(c.Body)
		if !ok {
			t.Errorf("inline comment %d has no fingerprint", c.ID)
		}
		seen[fp]++
	}
	for _, fp := range wantFPs {
		if seen[fp] != 1 {
			t.Errorf("fingerprint %s posted %d times, want 1", fp, seen[fp])
		}
	}
	if len(inline) != len(wantFPs) {
		t.Errorf("%d inline comments, want %d", len(inline), len(wantFPs))
	}
}

func mustRenderCase(t *testing.T, name string, edit func(*review.CommentsInput)) prepared {
	t.Helper()
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", name+".json"))
	if edit != nil {
		edit(&in)
	}
	r, sum, err := review.Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	return prepared{r, sum}
}

func fingerprints(r prepared) []string {
	var out []string
	for _, ic := range r.Inline {
		out = append(out, ic.Fingerprint)
	}
	return out
}

var testRepo = pipeline.Repo{Workspace: "acme", RepoSlug: "shop"}

// postOpts are the service's default posting options.
var postOpts = PostOptions{ResolveThreads: true}

func TestPostSameRequestThreeTimes(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(1)
	want := []Posted{
		{Summary: summaryCreated, SummaryID: 1004, InlineCreated: 3, Errors: []string{}},
		{Summary: summaryUnchanged, SummaryID: 1004, InlineSkipped: 3, Errors: []string{}},
		{Summary: summaryUnchanged, SummaryID: 1004, InlineSkipped: 3, Errors: []string{}},
	}
	for i, w := range want {
		got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("call %d: posted %+v, want %+v", i+1, got, w)
		}
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
	_, inline := live(store, 42)
	for i, c := range inline {
		if c.Inline.Path != r.Inline[i].Path || c.Inline.Line != r.Inline[i].Line {
			t.Errorf("inline %d anchored at %+v, want %s:%d", i, *c.Inline, r.Inline[i].Path, r.Inline[i].Line)
		}
	}
	if store.Calls(pipelinetest.OpUpdateComment, "") != 0 || store.Calls(pipelinetest.OpDeleteComment, "") != 0 {
		t.Errorf("retries wrote: %d updates, %d deletes", store.Calls(pipelinetest.OpUpdateComment, ""), store.Calls(pipelinetest.OpDeleteComment, ""))
	}
}

func TestPostConcurrentRequests(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(2)
	const n = 4
	var wg sync.WaitGroup
	results := make([]Posted, n)
	errs := make([]error, n)
	copies := make([]prepared, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		copies[i] = r
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = Post(context.Background(), store, testRepo, 42, &copies[i].Rendered, copies[i].sum, postOpts)
		}(i)
	}
	wg.Wait()
	r = copies[0]
	created, inlineCreated := 0, 0
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if results[i].Summary == summaryCreated {
			created++
		}
		inlineCreated += results[i].InlineCreated
	}
	if created != 1 || inlineCreated != 3 {
		t.Errorf("summaries created %d, inline created %d; want 1 and 3: %+v", created, inlineCreated, results)
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
}

// TestPostCrossReplicaRace lets "another replica" (which does not
// share this process's lock) create the same summary and the same inline
// comment just before we do: reconciling keeps the lowest ids.
func TestPostCrossReplicaRace(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(3)
	raced := map[bool]bool{}
	store.CreateHook = func(_ context.Context, _ int, c pipeline.NewComment) error {
		isInline := c.Inline != nil
		if raced[isInline] {
			return nil
		}
		raced[isInline] = true
		body := c.Body
		if !isInline {
			body = strings.Replace(body, "## prscout review", "## prscout review (other replica)", 1)
		}
		store.AddComment(42, pipeline.Comment{Author: "prscout", Body: body, Inline: c.Inline})
		return nil
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.SummaryID != 1005 || got.DuplicatesDeleted != 2 || got.InlineCreated != 3 {
		t.Errorf("posted %+v; want the other replica's summary 1005 updated and 2 duplicates deleted", got)
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
	summaries, inline := live(store, 42)
	if !raced[true] || !raced[false] || summaries[0].ID != 1005 || inline[0].ID != 1001 {
		t.Errorf("survivors %d and %d, want the lowest ids 1005 and 1001", summaries[0].ID, inline[0].ID)
	}
}

func TestPostDeltaRunAddsOnlyTheNewFinding(t *testing.T) {
	store := newStore(4)
	first := mustRenderCase(t, "basic", nil)
	if _, err := postCopy(context.Background(), store, testRepo, 42, first); err != nil {
		t.Fatal(err)
	}
	// A later push moved every line down by 100 and the model found one
	// more thing; the old findings keep their fingerprints.
	second := mustRenderCase(t, "basic", func(in *review.CommentsInput) {
		in.Ref = "89abcdef0123456789abcdef0123456789abcdef"
		in.Mode = "delta"
		for i := range in.Files {
			in.Files[i].Diff = strings.Replace(in.Files[i].Diff, "+10,11 @@", "+110,11 @@", 1)
			in.Files[i].Diff = strings.Replace(in.Files[i].Diff, "+1,6 @@", "+101,6 @@", 1)
		}
		var rv struct {
			Summary  string           `json:"summary"`
			Findings []map[string]any `json:"findings"`
		}
		if err := json.Unmarshal(in.Review, &rv); err != nil {
			t.Fatal(err)
		}
		for _, f := range rv.Findings {
			switch l := f["line"].(type) {
			case float64:
				f["line"] = l + 100
			case string:
				f["line"] = "10" + l
			}
		}
		rv.Findings = append(rv.Findings, map[string]any{"path": "api/handler.go", "existingCode": "_ = rows", "severity": "low", "title": "Blank assignment", "body": "Remove it."})
		in.Review, _ = json.Marshal(rv)
	})
	if second.Inline[0].Line != first.Inline[0].Line+100 {
		t.Fatalf("first inline line %d, want %d: the lines did not move", second.Inline[0].Line, first.Inline[0].Line+100)
	}
	got, err := Post(context.Background(), store, testRepo, 42, &second.Rendered, second.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.InlineCreated != 1 || got.InlineSkipped != 3 {
		t.Errorf("posted %+v; want summary updated, 1 created, 3 skipped", got)
	}
	assertOneSummaryNoDuplicates(t, store, 42, second.Markdown, fingerprints(second))
	if sha, _, ok := marker.LastReviewedCommit(store.Comments(42)); !ok || sha != "89abcdef0123456789abcdef0123456789abcdef" {
		t.Errorf("last reviewed commit = %q, %v", sha, ok)
	}
}

func TestPostIgnoresDeletedSummaries(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(5)
	old := store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "old\n\n" + marker.ReviewMarker("aaa")})
	if err := store.DeleteComment(context.Background(), testRepo, 42, old.ID); err != nil {
		t.Fatal(err)
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryCreated || got.SummaryID == old.ID {
		t.Errorf("posted %+v; want a new summary, not the deleted %d", got, old.ID)
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
}

func TestPostCollapsesSeveralSummaries(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(6)
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "human comment"})
	a := store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "<!-- prscout review head=aaa -->"})
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "b\n\n" + marker.ReviewMarker("bbb")})
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "c\n\n" + marker.ReviewMarker("ccc")})
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.SummaryID != a.ID || got.DuplicatesDeleted != 2 {
		t.Errorf("posted %+v; want %d updated and 2 deleted", got, a.ID)
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
}

func TestPostFailedInlineGoesToSummary(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(7)
	bad := r.Inline[1]
	store.CreateHook = func(_ context.Context, _ int, c pipeline.NewComment) error {
		if c.Inline != nil && c.Inline.Line == bad.Line && c.Inline.Path == bad.Path {
			return errUpstream("create")
		}
		return nil
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryCreated || got.InlineCreated != 2 || got.InlineFailed != 1 || len(got.Errors) != 1 ||
		got.Errors[0] != "create inline comment api/handler.go:16: create: upstream error" {
		t.Errorf("posted %+v", got)
	}
	summaries, _ := live(store, 42)
	if len(summaries) != 1 || !strings.Contains(summaries[0].Body, "### Could not be posted on the diff (1)") ||
		!strings.Contains(summaries[0].Body, bad.Title) {
		t.Fatalf("failed finding not in the summary:\n%s", summaries[0].Body)
	}
	if fp, ok := marker.ParseFindingMarker(summaries[0].Body); ok {
		t.Errorf("summary carries the failed finding's fingerprint %s: a retry would skip it", fp)
	}
	// The retry succeeds: the finding is posted and leaves the summary.
	store.CreateHook = nil
	got, err = Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.InlineCreated != 1 || got.InlineSkipped != 2 {
		t.Errorf("retry posted %+v", got)
	}
	assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fingerprints(r))
}

func TestPostErrors(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newStore(8)
	failList := true
	store.Hook = func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpListComments && failList {
			return errUpstream("list")
		}
		return nil
	}
	if _, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts); !errors.Is(err, pipeline.ErrUpstream) || !strings.HasPrefix(err.Error(), "list PR comments: ") {
		t.Errorf("list failure: err = %v", err)
	}
	failList = false
	store.CreateHook = func(_ context.Context, _ int, c pipeline.NewComment) error {
		if c.Inline == nil {
			return errUpstream("create")
		}
		return nil
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if !errors.Is(err, pipeline.ErrUpstream) || !strings.HasPrefix(err.Error(), "create summary comment: ") {
		t.Errorf("summary failure: err = %v", err)
	}
	if got.InlineCreated != 3 {
		t.Errorf("posted %+v: inline work before the failure must be reported", got)
	}
}

func TestPostDryRun(t *testing.T) {
	got, err := postCopy(context.Background(), nil, testRepo, 42, prepared{})
	if err != nil || got.Summary != summaryDryRun {
		t.Errorf("nil store: %+v, %v", got, err)
	}
}

func TestKeyedMutex(t *testing.T) {
	k := newKeyedMutex()
	unlockA, err := k.lock(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	// Another key does not wait.
	unlockB, err := k.lock(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	unlockB()
	// The same key waits until the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := k.lock(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second lock of a held key: err = %v, want deadline exceeded", err)
	}
	unlockA()
	unlockA() // idempotent
	unlockA2, err := k.lock(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	unlockA2()
	k.mu.Lock()
	left := len(k.locks)
	k.mu.Unlock()
	if left != 0 {
		t.Errorf("%d lock entries left after every unlock", left)
	}
}

func TestPostCapDefersTheRest(t *testing.T) {
	const n = review.MaxInlinePerPost + 10
	var diff strings.Builder
	fmt.Fprintf(&diff, "diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -0,0 +1,%d @@\n", n)
	var findings []pipeline.Finding
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&diff, "+line%d()\n", i)
		sev := "low"
		if i > n-10 {
			sev = "critical" // the last ten are the most severe: they must go first
		}
		findings = append(findings, pipeline.Finding{Path: "big.go", Line: i, Severity: sev, Title: fmt.Sprintf("finding %d", i)})
	}
	answer, _ := json.Marshal(pipeline.Review{Summary: "many", Findings: findings})
	r, err := prepare(review.CommentsInput{Ref: "abc123", Files: []pipeline.ChangedFile{{Path: "big.go", Diff: diff.String()}}, Review: answer})
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(9)
	got, err := Post(context.Background(), store, testRepo, 1, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.InlineCreated != review.MaxInlinePerPost || got.InlineDeferred != 10 {
		t.Fatalf("first run posted %+v", got)
	}
	summaries, inline := live(store, 1)
	critical := 0
	for _, c := range inline {
		if strings.HasPrefix(c.Body, "**Critical**") {
			critical++
		}
	}
	if critical != 10 {
		t.Errorf("%d critical findings posted in the first run, want all 10", critical)
	}
	if !strings.Contains(summaries[0].Body, "### Not yet posted on the diff (10)") {
		t.Errorf("deferred findings missing from the summary:\n%s", summaries[0].Body)
	}
	got, err = Post(context.Background(), store, testRepo, 1, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.InlineCreated != 10 || got.InlineSkipped != review.MaxInlinePerPost || got.InlineDeferred != 0 || got.Summary != summaryUpdated {
		t.Errorf("second run posted %+v", got)
	}
	assertOneSummaryNoDuplicates(t, store, 1, r.Markdown, fingerprints(r))
}

// TestPostIgnoresForeignMarkers: markers in another account's
// comments neither stand for prscout's summary nor suppress a finding, and
// prscout never updates or deletes such a comment.
func TestPostIgnoresForeignMarkers(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	head, ok := marker.ParseReviewMarker(r.Markdown)
	if !ok {
		t.Fatal("rendered summary has no review marker")
	}
	fps := fingerprints(r)
	if len(fps) == 0 {
		t.Fatal("basic case renders no inline comment")
	}
	cases := []struct {
		name        string
		prepare     func(s pipelinetest.ThreadStore) (oursID int64)
		wantSummary string
		wantCreated int
	}{
		{
			name: "foreign summary for the head: ours is created",
			prepare: func(s pipelinetest.ThreadStore) int64 {
				s.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "looks fine\n\n" + marker.ReviewMarker(head)})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
		{
			name: "foreign legacy summary: ours is created",
			prepare: func(s pipelinetest.ThreadStore) int64 {
				s.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "<!-- prscout review head=" + head + " -->"})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
		{
			name: "older foreign summary next to ours: ours is updated, none deleted",
			prepare: func(s pipelinetest.ThreadStore) int64 {
				s.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "x\n\n" + marker.ReviewMarker("aaa")})
				return s.AddComment(42, pipeline.Comment{Author: "prscout", Body: "old\n\n" + marker.ReviewMarker("bbb")}).ID
			},
			wantSummary: summaryUpdated, wantCreated: len(fps),
		},
		{
			name: "foreign fingerprint does not suppress the finding",
			prepare: func(s pipelinetest.ThreadStore) int64 {
				s.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "dup\n\n" + marker.FindingMarker(fps[0]), Inline: &pipeline.InlineAnchor{Path: "x.go", Line: 1}})
				s.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "<!-- prscout finding fp=" + fps[0] + " -->"})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := newStore(int64(100 + i))
			oursID := tc.prepare(store)
			// Bitbucket refuses writes to another account's comment (403),
			// as the Fake does; count any attempt.
			var foreignWrites atomic.Int64
			store.Hook = func(_ context.Context, op, arg string) error {
				if op == pipelinetest.OpUpdateComment || op == pipelinetest.OpDeleteComment {
					for _, c := range store.Comments(42) {
						if c.Foreign && strconv.FormatInt(c.ID, 10) == arg {
							foreignWrites.Add(1)
						}
					}
				}
				return nil
			}
			foreignBefore := map[int64]pipeline.Comment{}
			for _, c := range store.Comments(42) {
				if c.Foreign {
					foreignBefore[c.ID] = c
				}
			}

			r := r
			got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Summary != tc.wantSummary || got.InlineCreated != tc.wantCreated || got.InlineSkipped != 0 || got.DuplicatesDeleted != 0 {
				t.Errorf("posted %+v; want summary %s, %d inline created, none skipped or deleted", got, tc.wantSummary, tc.wantCreated)
			}
			if _, foreign := foreignBefore[got.SummaryID]; foreign {
				t.Errorf("summary id %d is a foreign comment", got.SummaryID)
			}
			if oursID != 0 && got.SummaryID != oursID {
				t.Errorf("summary id %d, want ours %d", got.SummaryID, oursID)
			}
			if n := foreignWrites.Load(); n != 0 {
				t.Errorf("%d writes attempted on foreign comments", n)
			}
			for _, c := range store.Comments(42) {
				if before, ok := foreignBefore[c.ID]; ok && !reflect.DeepEqual(c, before) {
					t.Errorf("foreign comment %d changed: %+v, was %+v", c.ID, c, before)
				}
			}
			assertOneSummaryNoDuplicates(t, store, 42, r.Markdown, fps)
			// The foreign comments, one summary (created or ours updated)
			// and one inline comment per finding: nothing else was written.
			if want := len(foreignBefore) + len(fps) + 1; len(store.Comments(42)) != want {
				t.Errorf("%d comments stored, want %d", len(store.Comments(42)), want)
			}
		})
	}
}

func commentIDs(cs []pipeline.Comment) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// postCopy posts a copy of r, as a caller that keeps its rendering would.
func postCopy(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, r prepared) (Posted, error) {
	return Post(ctx, store, repo, prID, &r.Rendered, r.sum, PostOptions{ResolveThreads: true})
}

// mustReadCommentsInput decodes one /v1/comments request from a file.
func mustReadCommentsInput(tb testing.TB, path string) review.CommentsInput {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var in review.CommentsInput
	if err := json.Unmarshal(b, &in); err != nil {
		tb.Fatalf("decode %s: %v", path, err)
	}
	return in
}

// prepared is a rendering with the summary publishing writes again: what
// review.Prepare answers.
type prepared struct {
	review.Rendered
	sum *review.Summary
}

func prepare(in review.CommentsInput) (prepared, error) {
	r, sum, err := review.Prepare(in)
	return prepared{r, sum}, err
}
