package main

import (
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// TestBitbucketTasks runs the binary with PRSCOUT_TASKS=true on the fake
// Bitbucket: a critical finding gets one task on its inline comment, the
// same review again adds none, and the push that fixes the finding
// resolves the task; prscout_comments_total counts both.
func TestBitbucketTasks(t *testing.T) {
	f := newMemFixture(t)
	const prID = 11
	pr := func(source string) {
		f.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
			ID: prID, Title: "Reject empty tokens", Author: "Mina Park",
			SourceBranch: "feature/tokens", DestinationBranch: "main", SourceCommit: source, DestinationCommit: f.d0,
		})
	}
	pr(f.h1)
	s := startBB(t, f.fake, "PRSCOUT_TASKS=true")
	critical := strings.Replace(findingLookup, `"severity":"high"`, `"severity":"critical"`, 1)
	scout := `{"files":[]}`

	r1 := s.review(t, f.fake, prID, scout, reviewOf("lookup can panic.", critical, findingEmpty))
	if p := obj(r1.comments["posted"]); p["tasksCreated"] != float64(1) {
		t.Fatalf("push 1 posted %v", p)
	}
	tasks := f.fake.Tasks(bbWorkspace, bbSlug, prID)
	c := inlineByTitle(t, f.fake, prID, "lookup panics")
	if len(tasks) != 1 || tasks[0].CommentID != c.ID || tasks[0].Resolved {
		t.Fatalf("tasks after push 1 = %+v (comment %d)", tasks, c.ID)
	}
	// The same review again (n8n's retry-on-fail): no second task.
	code, again := s.post(t, "/v1/comments", commentsRequest(r1.merged, reviewOf("lookup can panic.", critical, findingEmpty)))
	mustOK(t, "/v1/comments", code, again)
	if p := obj(again["posted"]); p["summary"] != "unchanged" || p["tasksCreated"] != nil {
		t.Fatalf("re-sent review posted %v", p)
	}
	if n := f.fake.Calls(bitbuckettest.OpCreateTask); n != 1 {
		t.Fatalf("%d task creations, want 1", n)
	}
	pr(f.h2)
	r2 := s.review(t, f.fake, prID, scout, reviewOf("lookup checks the length now.", memTrim))
	if p := obj(r2.comments["posted"]); p["tasksResolved"] != float64(1) {
		t.Fatalf("push 2 posted %v", p)
	}
	if tasks := f.fake.Tasks(bbWorkspace, bbSlug, prID); len(tasks) != 1 || !tasks[0].Resolved {
		t.Fatalf("tasks after push 2 = %+v", tasks)
	}
	metrics := s.metricsText(t)
	for _, want := range []string{
		`prscout_comments_total{action="created",kind="task"} 1`,
		`prscout_comments_total{action="resolved",kind="task"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
