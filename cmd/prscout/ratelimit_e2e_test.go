package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// These tests run the real binary against the fake Bitbucket with its rate
// limit: near the limit /v1/comments posts the comments and defers the
// commit surfaces, and a 429 on one pull request's calls delays only that
// pull request.

// prepareComments runs /v1/context and /v1/merge for prID on s and returns
// the /v1/comments request of a two-finding review.
func prepareComments(t *testing.T, s *server, prID int) map[string]any {
	t.Helper()
	code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": prID})
	mustOK(t, "/v1/context", code, ctxAns)
	code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": []any{}})
	mustOK(t, "/v1/merge", code, merged)
	return commentsRequest(merged, reviewOf("Two findings.", findingLookup, findingEmpty))
}

// TestBitbucketDefersNearLimit: with an access token (the credential
// Bitbucket sends rate-limit headers to) and X-RateLimit-NearLimit true the
// comments are posted and the annotations and the report are deferred, in
// that order, each with a warning and a count in prscout_deferred_total;
// the build status (the budget is not spent) is set. Once the budget
// recovers the same request writes the report. A remaining count below PRSCOUT_DEFER_BELOW defers as well, and
// PRSCOUT_DEFER_BELOW=-1 never defers.
func TestBitbucketDefersNearLimit(t *testing.T) {
	f := newBBFixture(t)
	f.pr(11, "Reject empty tokens", f.h1, f.base)
	s := startBBAccessToken(t, f.fake)
	in := prepareComments(t, s, 11)

	f.fake.SetRateLimit(bitbuckettest.RateLimit{}, 850) // 150 left: NearLimit true
	code, out := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	posted := obj(out["posted"])
	if got := fmt.Sprint(posted["deferred"]); got != "[annotations report]" {
		t.Errorf("posted.deferred = %s, want [annotations report]", got)
	}
	summaries, inline := live(f.fake, 11)
	if len(summaries) != 1 || len(inline) != 2 || posted["summary"] != "created" {
		t.Errorf("near the limit: %d summaries, %d inline, summary %v; want the comments posted all the same", len(summaries), len(inline), posted["summary"])
	}
	if rr, bs := obj(posted["report"]), obj(posted["buildStatus"]); rr["outcome"] != "deferred" || bs["outcome"] != "ok" || bs["state"] != "SUCCESSFUL" {
		t.Errorf("posted.report %v, posted.buildStatus %v; want the report deferred, the status set", rr, bs)
	}
	if reps := f.fake.Reports(bbWorkspace, bbSlug, f.h1); len(reps) != 0 {
		t.Errorf("reports written near the limit: %v", reps)
	}
	if st := bbStatus(t, f.fake, f.h1); st.State != "SUCCESSFUL" {
		t.Errorf("status %s near the limit, want SUCCESSFUL: one call, and merge checks wait for it", st.State)
	}
	if w := fmt.Sprint(out["warnings"]); !strings.Contains(w, "deferred") || !strings.Contains(w, "X-RateLimit-NearLimit") {
		t.Errorf("warnings = %s, want the deferrals and why", w)
	}
	text := s.metricsText(t)
	for what, want := range map[string]float64{"annotations": 1, "report": 1, "status": 0} {
		if v := metricValue(text, `prscout_deferred_total{what="`+what+`"}`); v != want {
			t.Errorf("prscout_deferred_total{what=%q} = %v, want %v", what, v, want)
		}
	}
	if v := metricValue(text, `prscout_upstream_ratelimit_limit{service="bitbucket"}`); v != 1000 {
		t.Errorf("prscout_upstream_ratelimit_limit = %v, want 1000", v)
	}
	if v := metricValue(text, `prscout_upstream_ratelimit_near{service="bitbucket"}`); v != 1 {
		t.Errorf("prscout_upstream_ratelimit_near = %v, want 1", v)
	}
	if !strings.Contains(text, `prscout_upstream_ratelimit_seen_timestamp_seconds{resource="api",service="bitbucket"}`) {
		t.Error("no prscout_upstream_ratelimit_seen_timestamp_seconds for resource api")
	}

	// A new window: the same request (n8n's retry, or the next review)
	// writes what was deferred and no comment twice.
	f.fake.SetRateLimit(bitbuckettest.RateLimit{}, 0)
	code, out = s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	posted = obj(out["posted"])
	if posted["deferred"] != nil || obj(posted["report"])["outcome"] != "ok" || obj(posted["buildStatus"])["outcome"] != "ok" {
		t.Errorf("after the window: posted = %v, want the report and status written", posted)
	}
	if n := len(f.fake.Annotations(bbWorkspace, bbSlug, f.h1, "prscout")); n != 2 {
		t.Errorf("%d annotations after the window, want 2", n)
	}
	summaries, inline = live(f.fake, 11)
	if len(summaries) != 1 || len(inline) != 2 {
		t.Errorf("after the window: %d summaries, %d inline; want 1 and 2", len(summaries), len(inline))
	}

	// A remaining count (where an upstream sends one) below the setting,
	// without NearLimit: 400 left of 1000 is above Bitbucket's fifth.
	strict := startBBAccessToken(t, f.fake, "PRSCOUT_DEFER_BELOW=500")
	off := startBBAccessToken(t, f.fake, "PRSCOUT_DEFER_BELOW=-1")
	f.fake.SetRateLimit(bitbuckettest.RateLimit{SendRemaining: true}, 599)
	code, out = strict.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	if got := fmt.Sprint(obj(out["posted"])["deferred"]); got != "[annotations report]" {
		t.Errorf("DEFER_BELOW=500 with about 400 left: deferred = %s", got)
	}
	f.fake.SetRateLimit(bitbuckettest.RateLimit{}, 900)
	code, out = off.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	if p := obj(out["posted"]); p["deferred"] != nil || obj(p["report"])["outcome"] != "ok" {
		t.Errorf("DEFER_BELOW=-1 near the limit: posted = %v, want nothing deferred", p)
	}
}

// TestBitbucket429DelaysOnlyItsPullRequest: two /v1/comments at once on one
// replica for two pull requests; Bitbucket answers pull request 12's first
// comments listing 429 with Retry-After: 2. Pull request 13 is posted while
// 12 waits: the retry delays only the request that got the 429 (no shared
// queue, lock or limiter across pull requests).
func TestBitbucket429DelaysOnlyItsPullRequest(t *testing.T) {
	f := newBBFixture(t)
	f.pr(12, "Reject empty tokens", f.h1, f.base)
	f.pr(13, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	inA, inB := prepareComments(t, s, 12), prepareComments(t, s, 13)

	before := f.fake.Calls(bitbuckettest.OpListComments)
	f.fake.Fail(bitbuckettest.OpListComments, bitbuckettest.Fault{Status: 429, RetryAfter: "2", PathContains: "/pullrequests/12/"})
	var mu sync.Mutex
	var order []string
	took := map[string]time.Duration{}
	send := func(name string, in map[string]any) {
		start := time.Now()
		code, out := s.post(t, "/v1/comments", in)
		mu.Lock()
		order = append(order, name)
		took[name] = time.Since(start)
		mu.Unlock()
		mustOK(t, "/v1/comments "+name, code, out)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); send("A", inA) }()
	// B starts once A's listing was answered 429: A is waiting out its
	// Retry-After from then on.
	<-f.fake.CallsReached(bitbuckettest.OpListComments, before+1)
	go func() { defer wg.Done(); send("B", inB) }()
	wg.Wait()

	t.Logf("A (429, Retry-After: 2) took %v, B took %v", took["A"], took["B"])
	if strings.Join(order, ",") != "B,A" {
		t.Errorf("completion order %v, want B before A: B waited on A's 429", order)
	}
	if took["A"] < 2*time.Second {
		t.Errorf("A took %v, want at least its Retry-After of 2s", took["A"])
	}
	for _, pr := range []int{12, 13} {
		if summaries, inline := live(f.fake, pr); len(summaries) != 1 || len(inline) != 2 {
			t.Errorf("PR %d: %d summaries, %d inline; want 1 and 2", pr, len(summaries), len(inline))
		}
	}
}

// TestBitbucketAPITokenUnder429s: an API token (Basic) install, the common
// one, gets no rate-limit headers: Bitbucket only answers 429 with
// Retry-After. 429s within the retry budget are waited out and the review
// posts everything; a final 429 (Retry-After past the retry budget) fails
// only the report, and does not leave the budget spent: the next request's
// served answers clear it, so its report and final build status are written
// instead of deferred (a deferred status would leave the head INPROGRESS).
func TestBitbucketAPITokenUnder429s(t *testing.T) {
	f := newBBFixture(t) // API token: RequireBasic
	f.pr(11, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	in := prepareComments(t, s, 11)

	f.fake.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{Status: 429, RetryAfter: "1"})
	f.fake.Fail(bitbuckettest.OpSetStatus, bitbuckettest.Fault{Status: 429, RetryAfter: "1"})
	code, out := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	posted := obj(out["posted"])
	if posted["deferred"] != nil || obj(posted["report"])["outcome"] != "ok" || obj(posted["buildStatus"])["outcome"] != "ok" {
		t.Fatalf("under 429s within the retry budget: posted = %v, want everything written", posted)
	}
	if summaries, inline := live(f.fake, 11); len(summaries) != 1 || len(inline) != 2 {
		t.Fatalf("%d summaries, %d inline; want 1 and 2", len(summaries), len(inline))
	}
	if st := bbStatus(t, f.fake, f.h1); st.State != "SUCCESSFUL" {
		t.Fatalf("status %s, want SUCCESSFUL", st.State)
	}
	for _, rq := range f.fake.Requests() {
		if !strings.HasPrefix(rq.Authorization, "Basic ") {
			t.Fatalf("%s %s sent %q, want the API token", rq.Method, rq.EscapedPath, rq.Authorization)
		}
	}
	text := s.metricsText(t)
	if v := metricValue(text, `prscout_upstream_ratelimit_limit{service="bitbucket"}`); v > 0 {
		t.Errorf("prscout_upstream_ratelimit_limit = %v from an API token, which gets no headers", v)
	}

	// A final 429: Retry-After longer than the request may wait.
	f.fake.Fail(bitbuckettest.OpPutReport, bitbuckettest.Fault{Status: 429, RetryAfter: "3600"})
	code, out = s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	posted = obj(out["posted"])
	if obj(posted["report"])["outcome"] != "error" || obj(posted["buildStatus"])["outcome"] != "ok" {
		t.Fatalf("after a final 429 on the report: posted = %v, want the report failed and the status set", posted)
	}
	// The next request: its served answers show the budget is back.
	code, out = s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	posted = obj(out["posted"])
	if posted["deferred"] != nil || obj(posted["report"])["outcome"] != "ok" || obj(posted["buildStatus"])["outcome"] != "ok" {
		t.Fatalf("the request after a final 429: posted = %v, want nothing deferred", posted)
	}
	if st := bbStatus(t, f.fake, f.h1); st.State != "SUCCESSFUL" {
		t.Fatalf("status %s after the budget came back, want SUCCESSFUL", st.State)
	}
}
