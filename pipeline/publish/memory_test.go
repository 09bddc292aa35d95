package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/review"
)

// The memory scenario's file, a.go, at three heads.
const (
	memH1 = "1111111111111111111111111111111111111111"
	memH2 = "2222222222222222222222222222222222222222"
	memH3 = "3333333333333333333333333333333333333333"
)

// memFull1 is the pull request's diff at h1 (a new file).
const memFull1 = `diff --git a/a.go b/a.go
new file mode 100644
--- /dev/null
+++ b/a.go
@@ -0,0 +1,10 @@
+package a
+
+func A() {
+	x := load()
+	use(x)
+}
+
+func B() {
+	y := 1 / n
+}
`

// memDelta2 is h1..h2: A's load error is handled now, C is added.
const memDelta2 = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,10 +1,17 @@
 package a
 
 func A() {
-	x := load()
+	x, err := load()
+	if err != nil {
+		return
+	}
 	use(x)
 }
 
 func B() {
 	y := 1 / n
 }
+
+func C() {
+	z := unsafe()
+}
`

var (
	findLoad   = pipeline.Finding{Path: "a.go", Line: 4, ExistingCode: "x := load()", Severity: "high", Title: "load error ignored", Body: "Check it."}
	findDiv    = pipeline.Finding{Path: "a.go", Line: 9, ExistingCode: "y := 1 / n", Severity: "medium", Title: "division by zero", Body: "n may be 0."}
	findUnsafe = pipeline.Finding{Path: "a.go", Line: 16, ExistingCode: "z := unsafe()", Severity: "low", Title: "unsafe call", Body: "Why?"}
)

func renderMem(t *testing.T, ref, mode, diff string, findings ...pipeline.Finding) prepared {
	t.Helper()
	return renderMemFiles(t, ref, mode, false, []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: diff}}, nil, findings...)
}

func renderMemFiles(t *testing.T, ref, mode string, interdiff bool, files []pipeline.ChangedFile, excluded []pipeline.Excluded, findings ...pipeline.Finding) prepared {
	t.Helper()
	if findings == nil {
		findings = []pipeline.Finding{}
	}
	answer, _ := json.Marshal(pipeline.Review{Summary: "review at " + ref[:4], Findings: findings})
	r, sum, err := review.Prepare(review.CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 42, Ref: ref, Mode: mode, Interdiff: interdiff,
		Files: files, Excluded: excluded, Review: answer})
	if err != nil {
		t.Fatal(err)
	}
	return prepared{r, sum}
}

func mustPost(t *testing.T, store pipelinetest.ThreadStore, r *prepared, opt PostOptions) Posted {
	t.Helper()
	p, err := Post(context.Background(), store, testRepo, 42, &r.Rendered, r.sum, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory == nil {
		t.Fatal("no memory after posting")
	}
	return p
}

// states returns the memory's shown entries as "state title" lines.
func states(m *review.Memory) []string {
	var out []string
	for _, e := range m.Entries {
		if e.State == review.StateNew || e.State == review.StateStillOpen || e.State == review.StateUnreviewed || strings.Contains(e.Reason, "this review") ||
			e.State == review.StateResolved && e.Reason != "" || e.State == review.StateOutdated && e.Reason != "" {
			out = append(out, e.State+" "+e.Title)
		}
	}
	sort.Strings(out)
	return out
}

func wantStates(t *testing.T, step string, m *review.Memory, want ...string) {
	t.Helper()
	got := states(m)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: states\n  %s\nwant\n  %s\nentries: %+v", step, strings.Join(got, "\n  "), strings.Join(want, "\n  "), m.Entries)
	}
}

func summaryOf(t *testing.T, store pipelinetest.ThreadStore) string {
	t.Helper()
	sums, _ := live(store, 42)
	if len(sums) != 1 {
		t.Fatalf("%d summaries", len(sums))
	}
	return sums[0].Body
}

func commentOf(t *testing.T, store pipelinetest.ThreadStore, title string) pipeline.Comment {
	t.Helper()
	_, inline := live(store, 42)
	for _, c := range inline {
		if strings.Contains(pipeline.FirstLine(c.Body), title) {
			return c
		}
	}
	t.Fatalf("no inline comment %q", title)
	return pipeline.Comment{}
}

// TestMemoryDeltaResolvesAndKeeps: a full review posts two findings; a
// delta that rewrites one finding's line resolves it (thread resolved), the
// other is still open (its code is unchanged), a third is new. A retry of
// the second request changes nothing and counts nothing.
func TestMemoryDeltaResolvesAndKeeps(t *testing.T) {
	store := newStore(11)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad, findDiv)
	p1 := mustPost(t, store, &r1, postOpts)
	if p1.InlineCreated != 2 || p1.Summary != summaryCreated {
		t.Fatalf("run 1 posted %+v", p1)
	}
	wantStates(t, "run 1", r1.Memory, "new load error ignored", "new division by zero")
	if c := r1.Memory.Counted; c["posted"] != 2 || c["resolved"] != 0 || c["still_open"] != 0 {
		t.Errorf("run 1 counted %v", c)
	}
	data := marker.ParseFindingData(summaryOf(t, store))
	if len(data) != 2 || data[0].CommentID == 0 || data[0].CodeHash == "" || data[0].Since != memH1[:12] {
		t.Fatalf("run 1 data = %+v", data)
	}

	r2 := renderMem(t, memH2, "delta", memDelta2, findUnsafe)
	p2 := mustPost(t, store, &r2, postOpts)
	if p2.InlineCreated != 1 || p2.ThreadsResolved != 1 || p2.ThreadsLeftOpen != 0 || p2.Summary != summaryUpdated {
		t.Errorf("run 2 posted %+v", p2)
	}
	wantStates(t, "run 2", r2.Memory, "resolved load error ignored", "still_open division by zero", "new unsafe call")
	if c := r2.Memory.Counted; c["posted"] != 1 || c["resolved"] != 1 || c["still_open"] != 1 || c["outdated"] != 0 {
		t.Errorf("run 2 counted %v", c)
	}
	if c := commentOf(t, store, "load error ignored"); !c.Resolved {
		t.Errorf("the resolved finding's thread is open")
	}
	if c := commentOf(t, store, "division by zero"); c.Resolved {
		t.Errorf("the open finding's thread was resolved")
	}
	body := summaryOf(t, store)
	for _, want := range []string{
		"| New | Low | `a.go:16` ([comment](#comment-", "| Still open | Medium | `a.go:12` ([comment](#comment-",
		"| Resolved | High | `a.go:4` ([comment](#comment-", "**Findings by state:** 1 new, 1 still open, 1 resolved.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run 2 summary lacks %q:\n%s", want, body)
		}
	}
	for _, e := range r2.Memory.Entries {
		if e.Title == "division by zero" && e.Line != 12 {
			t.Errorf("still-open finding followed to line %d, want 12", e.Line)
		}
		if e.Title == "load error ignored" && (e.Thread != "resolved" || e.Reason != "its anchored lines changed") {
			t.Errorf("resolved entry = %+v", e)
		}
	}

	// n8n's retry-on-fail: the same request again.
	again := renderMem(t, memH2, "delta", memDelta2, findUnsafe)
	p3 := mustPost(t, store, &again, postOpts)
	if p3.Summary != summaryUnchanged || p3.InlineCreated != 0 || p3.ThreadsResolved != 0 {
		t.Errorf("retry posted %+v", p3)
	}
	wantStates(t, "retry", again.Memory, "resolved load error ignored", "still_open division by zero", "new unsafe call")
	for k, n := range again.Memory.Counted {
		if n != 0 {
			t.Errorf("retry counted %s=%d, want nothing counted twice", k, n)
		}
	}
	if store.Calls(pipelinetest.OpResolveThread, "") != 1 {
		t.Errorf("%d resolve calls, want 1", store.Calls(pipelinetest.OpResolveThread, ""))
	}
}

// TestMemoryThreadRules: a thread with a reply is left open; the setting
// off leaves threads open; a store that cannot resolve is no error.
func TestMemoryThreadRules(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reply      bool
		opt        PostOptions
		wantThread string
	}{
		{"a reply keeps the thread open", true, postOpts, "left open: someone replied in the thread"},
		{"setting off", false, PostOptions{}, "left open: thread resolution is switched off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := newStore(12)
			r1 := renderMem(t, memH1, "full", memFull1, findLoad, findDiv)
			mustPost(t, store, &r1, postOpts)
			if tc.reply {
				store.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: "I don't think this is fixed.", ParentID: commentOf(t, store, "load error ignored").ID})
			}
			r2 := renderMem(t, memH2, "delta", memDelta2)
			p := mustPost(t, store, &r2, tc.opt)
			if p.ThreadsResolved != 0 || p.ThreadsLeftOpen != 1 || store.Calls(pipelinetest.OpResolveThread, "") != 0 {
				t.Errorf("posted %+v, %d resolve calls", p, store.Calls(pipelinetest.OpResolveThread, ""))
			}
			for _, e := range r2.Memory.Entries {
				if e.Title == "load error ignored" && (e.State != review.StateResolved || e.Thread != tc.wantThread) {
					t.Errorf("entry %+v, want resolved with thread %q", e, tc.wantThread)
				}
			}
			if commentOf(t, store, "load error ignored").Resolved {
				t.Error("thread resolved")
			}
		})
	}
}

// TestMemoryNeverResolvesForeign: a data line naming another account's
// comment (a forged id) never gets that comment resolved.
func TestMemoryNeverResolvesForeign(t *testing.T) {
	store := newStore(13)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad)
	mustPost(t, store, &r1, postOpts)
	own := commentOf(t, store, "load error ignored")
	forged := store.AddComment(42, pipeline.Comment{Foreign: true, Author: "participant", Body: own.Body, Inline: own.Inline})
	// Point the data at the foreign comment.
	sums, _ := live(store, 42)
	body := strings.Replace(sums[0].Body, fmt.Sprintf("c=%d ", own.ID), fmt.Sprintf("c=%d ", forged.ID), 1)
	if _, err := store.UpdateComment(context.Background(), testRepo, 42, sums[0].ID, body); err != nil {
		t.Fatal(err)
	}
	r2 := renderMem(t, memH2, "delta", memDelta2)
	p := mustPost(t, store, &r2, postOpts)
	if p.ThreadsResolved != 1 {
		t.Errorf("posted %+v", p)
	}
	for _, c := range store.Comments(42) {
		if c.Foreign && c.Resolved {
			t.Errorf("foreign comment %d resolved", c.ID)
		}
		if c.ID == own.ID && !c.Resolved {
			t.Errorf("own comment %d not resolved", c.ID)
		}
	}
}

// TestMemoryFullReview: after a force-push the review is full: the
// finding whose code is still in the diff stays open, the one whose code is
// gone is resolved, a finding in a file that left the pull request is
// outdated, and one in an excluded file is unreviewed.
func TestMemoryFullReview(t *testing.T) {
	store := newStore(14)
	other := pipeline.ChangedFile{Path: "b.go", Status: "added", Diff: "diff --git a/b.go b/b.go\nnew file mode 100644\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1,2 @@\n+package a\n+var v = 1\n"}
	big := pipeline.ChangedFile{Path: "c.go", Status: "added", Diff: "diff --git a/c.go b/c.go\nnew file mode 100644\n--- /dev/null\n+++ b/c.go\n@@ -0,0 +1,2 @@\n+package a\n+var w = 2\n"}
	a1 := pipeline.ChangedFile{Path: "a.go", Status: "added", Diff: memFull1}
	fB := pipeline.Finding{Path: "b.go", Line: 2, Severity: "low", Title: "global var", Body: "."}
	fC := pipeline.Finding{Path: "c.go", Line: 2, Severity: "low", Title: "another global", Body: "."}
	r1 := renderMemFiles(t, memH1, "full", false, []pipeline.ChangedFile{a1, other, big}, nil, findLoad, findDiv, fB, fC)
	mustPost(t, store, &r1, postOpts)

	// h3 rewrote a.go's A() (B unchanged), b.go left the PR, c.go is now excluded.
	full3 := strings.Replace(memFull1, "+\tx := load()\n+\tuse(x)\n", "+\tuse(mustLoad())\n", 1)
	full3 = strings.Replace(full3, "@@ -0,0 +1,10 @@", "@@ -0,0 +1,9 @@", 1)
	a3 := pipeline.ChangedFile{Path: "a.go", Status: "added", Diff: full3}
	r3 := renderMemFiles(t, memH3, "full", false, []pipeline.ChangedFile{a3}, []pipeline.Excluded{{Path: "c.go", Reason: "too_large"}})
	p := mustPost(t, store, &r3, postOpts)
	wantStates(t, "full", r3.Memory, "resolved load error ignored", "still_open division by zero", "outdated global var", "unreviewed another global")
	if c := r3.Memory.Counted; c["resolved"] != 1 || c["outdated"] != 1 || c["still_open"] != 2 || c["posted"] != 0 {
		t.Errorf("counted %v", c)
	}
	if p.ThreadsResolved != 1 {
		t.Errorf("posted %+v", p)
	}
	for _, e := range r3.Memory.Entries {
		if e.Title == "division by zero" && e.Line != 8 {
			t.Errorf("still-open finding at line %d, want 8", e.Line)
		}
	}
	body := summaryOf(t, store)
	if !strings.Contains(body, "| Still open (not reviewed this time) | Low | `c.go:2`") || !strings.Contains(body, "| Outdated | Low | `b.go:2`") {
		t.Errorf("summary:\n%s", body)
	}
}

// TestMemoryReportedAgainOnChangedCode: the author changed the anchored
// line but the review reports the same title there again: still open, and
// no second inline comment.
func TestMemoryReportedAgainOnChangedCode(t *testing.T) {
	store := newStore(15)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad)
	mustPost(t, store, &r1, postOpts)
	again := findLoad
	again.Line, again.ExistingCode = 4, "x, err := load()"
	r2 := renderMem(t, memH2, "delta", memDelta2, again)
	p := mustPost(t, store, &r2, postOpts)
	if p.InlineCreated != 0 || p.InlineSkipped != 1 || p.ThreadsResolved != 0 {
		t.Errorf("posted %+v", p)
	}
	wantStates(t, "run 2", r2.Memory, "still_open load error ignored")
	// The next delta (no change to a.go) still knows it by its new code.
	r3 := renderMemFiles(t, memH3, "delta", false, []pipeline.ChangedFile{}, nil, again)
	p = mustPost(t, store, &r3, postOpts)
	if p.InlineCreated != 0 {
		t.Errorf("run 3 posted %+v", p)
	}
	wantStates(t, "run 3", r3.Memory, "still_open load error ignored")
}

// TestMemoryLegacyComments: a pull request reviewed by a prscout without
// summary data: its inline comments are the memory; without recorded code
// a full review resolves nothing, a delta follows the lines.
func TestMemoryLegacyComments(t *testing.T) {
	store := newStore(16)
	fp := marker.Fingerprint("a.go", findLoad.Title, findLoad.ExistingCode)
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "**High** · load error ignored\n\nCheck it.\n\n<!-- prscout finding fp=" + fp + " -->", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 4}})
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "old summary\n\n<!-- prscout review head=" + memH1 + " -->"})
	r := renderMemFiles(t, memH2, "full", false, []pipeline.ChangedFile{{Path: "a.go", Status: "added", Diff: memFull1}}, nil)
	mustPost(t, store, &r, postOpts)
	wantStates(t, "legacy full", r.Memory, "still_open load error ignored")
	for _, e := range r.Memory.Entries {
		if e.Reason != "its code was not recorded, so no change can be shown" || e.Severity != "high" {
			t.Errorf("entry %+v", e)
		}
	}

	store = newStore(17)
	store.AddComment(42, pipeline.Comment{Author: "prscout", Body: "**High** · load error ignored\n\n" + marker.FindingMarker(fp), Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 4}})
	r = renderMem(t, memH2, "delta", memDelta2)
	p := mustPost(t, store, &r, postOpts)
	wantStates(t, "legacy delta", r.Memory, "resolved load error ignored")
	if p.ThreadsResolved != 1 {
		t.Errorf("posted %+v", p)
	}
}

// TestMemoryInterdiff: with the pull request's own diff (interdiff), an
// earlier finding in a file the interdiff leaves out did not change.
func TestMemoryInterdiff(t *testing.T) {
	store := newStore(18)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad, findDiv)
	mustPost(t, store, &r1, postOpts)
	other := pipeline.ChangedFile{Path: "b.go", Status: "added", Diff: "diff --git a/b.go b/b.go\nnew file mode 100644\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1,1 @@\n+package a\n"}
	r2 := renderMemFiles(t, memH2, "delta", true, []pipeline.ChangedFile{other}, nil)
	mustPost(t, store, &r2, postOpts)
	wantStates(t, "interdiff", r2.Memory, "still_open load error ignored", "still_open division by zero")
	// The PR diff of a.go changes (A rewritten): text decides, not line numbers.
	full3 := strings.Replace(memFull1, "+\tx := load()\n+\tuse(x)\n", "+\tuse(mustLoad())\n", 1)
	full3 = strings.Replace(full3, "@@ -0,0 +1,10 @@", "@@ -0,0 +1,9 @@", 1)
	r3 := renderMemFiles(t, memH3, "delta", true, []pipeline.ChangedFile{{Path: "a.go", Status: "added", Diff: full3}}, nil)
	mustPost(t, store, &r3, postOpts)
	wantStates(t, "interdiff 2", r3.Memory, "resolved load error ignored", "still_open division by zero")
}

// TestMemoryDeletedFile: a finding whose file the pull request now deletes
// (the context excludes it as "deleted") is outdated, not unreviewed.
func TestMemoryDeletedFile(t *testing.T) {
	store := newStore(19)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad)
	mustPost(t, store, &r1, postOpts)
	r2 := renderMemFiles(t, memH2, "delta", false, []pipeline.ChangedFile{}, []pipeline.Excluded{{Path: "a.go", Reason: pipeline.GateDeleted}})
	p := mustPost(t, store, &r2, postOpts)
	wantStates(t, "deleted", r2.Memory, "outdated load error ignored")
	if r2.Memory.Counted["outdated"] != 1 || p.ThreadsResolved != 0 {
		t.Errorf("counted %v, posted %+v: an outdated finding's thread is not resolved", r2.Memory.Counted, p)
	}
}

// TestMemoryUnverifiedNotResolved: with prscout's account unknown, its
// comments are unverified: never remembered as its own, never resolved.
func TestMemoryUnverifiedNotResolved(t *testing.T) {
	store := newStore(20)
	r1 := renderMem(t, memH1, "full", memFull1, findLoad)
	mustPost(t, store, &r1, postOpts)
	var ids []int64
	for _, c := range store.Comments(42) {
		ids = append(ids, c.ID)
	}
	store.SetUnverified(42, ids...)
	r2 := renderMem(t, memH2, "delta", memDelta2)
	p := mustPost(t, store, &r2, postOpts)
	if p.ThreadsResolved != 0 || store.Calls(pipelinetest.OpResolveThread, "") != 0 || len(r2.Memory.Entries) != 0 {
		t.Errorf("posted %+v, %d resolve calls, memory %+v: unverified comments were taken for prscout's", p, store.Calls(pipelinetest.OpResolveThread, ""), r2.Memory.Entries)
	}
}
