package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/review"
)

// fakeCommentStore is an in-memory CommentStore that lists comments in a
// random order (the port promises none) and can fail or race on demand.
type fakeCommentStore struct {
	mu       sync.Mutex
	next     int64
	comments []pipeline.Comment
	rng      *rand.Rand

	// failCreate, when set, makes CreateComment fail for matching comments.
	failCreate func(pipeline.NewComment) bool
	// beforeCreate runs (without the lock) before each create: a hook for
	// another replica's writes landing at the same time.
	beforeCreate func(pipeline.NewComment)
	failList     bool

	// withURLs gives every comment a web link, as Bitbucket's links.html.
	withURLs bool

	creates, updates, deletes, resolves int
	// foreignWrites counts attempts to update or delete a Foreign comment
	// (refused, as Bitbucket answers 403 for another author's comment).
	foreignWrites int
}

var _ pipeline.CommentStore = (*fakeCommentStore)(nil)

func newFakeCommentStore(seed int64) *fakeCommentStore {
	return &fakeCommentStore{next: 1000, rng: rand.New(rand.NewSource(seed))}
}

func (s *fakeCommentStore) ListComments(ctx context.Context, repo pipeline.Repo, prID int) ([]pipeline.Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failList {
		return nil, fmt.Errorf("list: %w", pipeline.ErrUpstream)
	}
	out := append([]pipeline.Comment(nil), s.comments...)
	s.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

func (s *fakeCommentStore) add(c pipeline.NewComment) pipeline.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	cm := pipeline.Comment{ID: s.next, Body: c.Body, Author: "prscout"}
	if s.withURLs {
		cm.URL = fmt.Sprintf("https://bitbucket.example/acme/shop/pull-requests/42/_/diff#comment-%d", s.next)
	}
	if c.Inline != nil {
		in := *c.Inline
		cm.Inline = &in
	}
	s.comments = append(s.comments, cm)
	return cm
}

func (s *fakeCommentStore) CreateComment(ctx context.Context, repo pipeline.Repo, prID int, c pipeline.NewComment) (pipeline.Comment, error) {
	if s.beforeCreate != nil {
		s.beforeCreate(c)
	}
	if s.failCreate != nil && s.failCreate(c) {
		return pipeline.Comment{}, fmt.Errorf("create: %w", pipeline.ErrUpstream)
	}
	s.mu.Lock()
	s.creates++
	s.mu.Unlock()
	return s.add(c), nil
}

func (s *fakeCommentStore) UpdateComment(ctx context.Context, repo pipeline.Repo, prID int, id int64, body string) (pipeline.Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == id && s.comments[i].Foreign {
			s.foreignWrites++
			return pipeline.Comment{}, fmt.Errorf("update %d: another account's comment: %w", id, pipeline.ErrUpstream)
		}
		if s.comments[i].ID == id && !s.comments[i].Deleted {
			s.comments[i].Body = body
			s.updates++
			return s.comments[i], nil
		}
	}
	return pipeline.Comment{}, fmt.Errorf("update %d: %w", id, pipeline.ErrNotFound)
}

func (s *fakeCommentStore) DeleteComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == id && s.comments[i].Foreign {
			s.foreignWrites++
			return fmt.Errorf("delete %d: another account's comment: %w", id, pipeline.ErrUpstream)
		}
		if s.comments[i].ID == id && !s.comments[i].Deleted {
			s.comments[i].Deleted = true
			s.deletes++
			return nil
		}
	}
	return fmt.Errorf("delete %d: %w", id, pipeline.ErrNotFound)
}

// addForeign adds a comment written by another account.
func (s *fakeCommentStore) addForeign(c pipeline.NewComment) pipeline.Comment {
	cm := s.add(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == cm.ID {
			s.comments[i].Foreign, s.comments[i].Author = true, "participant"
			cm = s.comments[i]
		}
	}
	return cm
}

// live returns prscout's own non-deleted summaries and inline comments, by
// id (Foreign comments are left out).
func (s *fakeCommentStore) live() (summaries, inline []pipeline.Comment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
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
func (s *fakeCommentStore) assertOneSummaryNoDuplicates(t *testing.T, wantBody string, wantFPs []string) {
	t.Helper()
	summaries, inline := s.live()
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
	store := newFakeCommentStore(1)
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
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
	_, inline := store.live()
	for i, c := range inline {
		if c.Inline.Path != r.Inline[i].Path || c.Inline.Line != r.Inline[i].Line {
			t.Errorf("inline %d anchored at %+v, want %s:%d", i, *c.Inline, r.Inline[i].Path, r.Inline[i].Line)
		}
	}
	if store.updates != 0 || store.deletes != 0 {
		t.Errorf("retries wrote: %d updates, %d deletes", store.updates, store.deletes)
	}
}

func TestPostConcurrentRequests(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(2)
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
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
}

// TestPostCrossReplicaRace lets "another replica" (which does not
// share this process's lock) create the same summary and the same inline
// comment just before we do: reconciling keeps the lowest ids.
func TestPostCrossReplicaRace(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(3)
	raced := map[bool]bool{}
	store.beforeCreate = func(c pipeline.NewComment) {
		isInline := c.Inline != nil
		if raced[isInline] {
			return
		}
		raced[isInline] = true
		body := c.Body
		if !isInline {
			body = strings.Replace(body, "## prscout review", "## prscout review (other replica)", 1)
		}
		store.add(pipeline.NewComment{Body: body, Inline: c.Inline})
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.SummaryID != 1005 || got.DuplicatesDeleted != 2 || got.InlineCreated != 3 {
		t.Errorf("posted %+v; want the other replica's summary 1005 updated and 2 duplicates deleted", got)
	}
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
	summaries, inline := store.live()
	if !raced[true] || !raced[false] || summaries[0].ID != 1005 || inline[0].ID != 1001 {
		t.Errorf("survivors %d and %d, want the lowest ids 1005 and 1001", summaries[0].ID, inline[0].ID)
	}
}

func TestPostDeltaRunAddsOnlyTheNewFinding(t *testing.T) {
	store := newFakeCommentStore(4)
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
	store.assertOneSummaryNoDuplicates(t, second.Markdown, fingerprints(second))
	if sha, _, ok := marker.LastReviewedCommit(store.comments); !ok || sha != "89abcdef0123456789abcdef0123456789abcdef" {
		t.Errorf("last reviewed commit = %q, %v", sha, ok)
	}
}

func TestPostIgnoresDeletedSummaries(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(5)
	old := store.add(pipeline.NewComment{Body: "old\n\n" + marker.ReviewMarker("aaa")})
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
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
}

func TestPostCollapsesSeveralSummaries(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(6)
	store.add(pipeline.NewComment{Body: "human comment"})
	a := store.add(pipeline.NewComment{Body: "<!-- prscout review head=aaa -->"})
	store.add(pipeline.NewComment{Body: "b\n\n" + marker.ReviewMarker("bbb")})
	store.add(pipeline.NewComment{Body: "c\n\n" + marker.ReviewMarker("ccc")})
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.SummaryID != a.ID || got.DuplicatesDeleted != 2 {
		t.Errorf("posted %+v; want %d updated and 2 deleted", got, a.ID)
	}
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
}

func TestPostFailedInlineGoesToSummary(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(7)
	bad := r.Inline[1]
	store.failCreate = func(c pipeline.NewComment) bool {
		return c.Inline != nil && c.Inline.Line == bad.Line && c.Inline.Path == bad.Path
	}
	got, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryCreated || got.InlineCreated != 2 || got.InlineFailed != 1 || len(got.Errors) != 1 ||
		got.Errors[0] != "create inline comment api/handler.go:16: create: upstream error" {
		t.Errorf("posted %+v", got)
	}
	summaries, _ := store.live()
	if len(summaries) != 1 || !strings.Contains(summaries[0].Body, "### Could not be posted on the diff (1)") ||
		!strings.Contains(summaries[0].Body, bad.Title) {
		t.Fatalf("failed finding not in the summary:\n%s", summaries[0].Body)
	}
	if fp, ok := marker.ParseFindingMarker(summaries[0].Body); ok {
		t.Errorf("summary carries the failed finding's fingerprint %s: a retry would skip it", fp)
	}
	// The retry succeeds: the finding is posted and leaves the summary.
	store.failCreate = nil
	got, err = Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != summaryUpdated || got.InlineCreated != 1 || got.InlineSkipped != 2 {
		t.Errorf("retry posted %+v", got)
	}
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
}

func TestPostErrors(t *testing.T) {
	r := mustRenderCase(t, "basic", nil)
	store := newFakeCommentStore(8)
	store.failList = true
	if _, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, postOpts); !errors.Is(err, pipeline.ErrUpstream) || !strings.HasPrefix(err.Error(), "list PR comments: ") {
		t.Errorf("list failure: err = %v", err)
	}
	store.failList = false
	store.failCreate = func(c pipeline.NewComment) bool { return c.Inline == nil }
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
	store := newFakeCommentStore(9)
	got, err := Post(context.Background(), store, testRepo, 1, &r.Rendered, r.sum, postOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.InlineCreated != review.MaxInlinePerPost || got.InlineDeferred != 10 {
		t.Fatalf("first run posted %+v", got)
	}
	summaries, inline := store.live()
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
	store.assertOneSummaryNoDuplicates(t, r.Markdown, fingerprints(r))
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
		prepare     func(s *fakeCommentStore) (oursID int64)
		wantSummary string
		wantCreated int
	}{
		{
			name: "foreign summary for the head: ours is created",
			prepare: func(s *fakeCommentStore) int64 {
				s.addForeign(pipeline.NewComment{Body: "looks fine\n\n" + marker.ReviewMarker(head)})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
		{
			name: "foreign legacy summary: ours is created",
			prepare: func(s *fakeCommentStore) int64 {
				s.addForeign(pipeline.NewComment{Body: "<!-- prscout review head=" + head + " -->"})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
		{
			name: "older foreign summary next to ours: ours is updated, none deleted",
			prepare: func(s *fakeCommentStore) int64 {
				s.addForeign(pipeline.NewComment{Body: "x\n\n" + marker.ReviewMarker("aaa")})
				return s.add(pipeline.NewComment{Body: "old\n\n" + marker.ReviewMarker("bbb")}).ID
			},
			wantSummary: summaryUpdated, wantCreated: len(fps),
		},
		{
			name: "foreign fingerprint does not suppress the finding",
			prepare: func(s *fakeCommentStore) int64 {
				s.addForeign(pipeline.NewComment{Body: "dup\n\n" + marker.FindingMarker(fps[0]), Inline: &pipeline.InlineAnchor{Path: "x.go", Line: 1}})
				s.addForeign(pipeline.NewComment{Body: "<!-- prscout finding fp=" + fps[0] + " -->"})
				return 0
			},
			wantSummary: summaryCreated, wantCreated: len(fps),
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := newFakeCommentStore(int64(100 + i))
			oursID := tc.prepare(store)
			store.mu.Lock()
			foreignBefore := map[int64]pipeline.Comment{}
			for _, c := range store.comments {
				if c.Foreign {
					foreignBefore[c.ID] = c
				}
			}
			store.mu.Unlock()

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
			if store.foreignWrites != 0 {
				t.Errorf("%d writes attempted on foreign comments", store.foreignWrites)
			}
			store.mu.Lock()
			for _, c := range store.comments {
				if before, ok := foreignBefore[c.ID]; ok && !reflect.DeepEqual(c, before) {
					t.Errorf("foreign comment %d changed: %+v, was %+v", c.ID, c, before)
				}
			}
			store.mu.Unlock()
			store.assertOneSummaryNoDuplicates(t, r.Markdown, fps)
			// The foreign comments, one summary (created or ours updated)
			// and one inline comment per finding: nothing else was written.
			if want := len(foreignBefore) + len(fps) + 1; len(store.comments) != want {
				t.Errorf("%d comments stored, want %d", len(store.comments), want)
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
