package bitbucket

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

// withAccessToken configures a repository access token (Bearer), the
// credential Bitbucket sends rate-limit headers to.
func withAccessToken(c *Config) { c.Email, c.Token, c.AccessToken = "", "", "repo-access-token" }

// TestBudgetFromFake: the fake sends the headers as Bitbucket does for an
// access token; the budget and the Observer see them on every answer, the
// NearLimit flag flips once less than a fifth is left, and a 429 reports too.
func TestBudgetFromFake(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	c, rec := newClient(t, s, withAccessToken)
	if h := c.Budget().Headroom(); h.Known {
		t.Fatalf("headroom before any call = %+v, want unknown", h)
	}
	s.SetRateLimit(bitbuckettest.RateLimit{}, 798)
	if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	h := c.Budget().Headroom()
	if !h.Known || h.Resource != "api" || h.Limit != 1000 || h.Remaining != -1 || h.Near || h.Seen.IsZero() {
		t.Fatalf("headroom at 799 used = %+v", h)
	}
	if h.NearLimit(100, time.Now()) {
		t.Fatal("NearLimit with 201 left and no remaining header")
	}
	for range 2 { // 800 used: 200 left, not near; 801: 199 left, near
		if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
			t.Fatal(err)
		}
	}
	if h := c.Budget().Headroom(); !h.Near || !h.NearLimit(0, time.Now()) {
		t.Fatalf("headroom at 801 used = %+v, want near", h)
	}
	want := []rateReport{
		{"get_commit", "api", 1000, -1, false},
		{"get_commit", "api", 1000, -1, false},
		{"get_commit", "api", 1000, -1, true},
	}
	if d := cmp.Diff(want, rec.rates); d != "" {
		t.Fatalf("rate reports (-want +got):\n%s", d)
	}

	// Exhausted, with a Retry-After longer than the call may wait: the 429
	// is final and still reported.
	s.SetRateLimit(bitbuckettest.RateLimit{Enforce: true, RetryAfter: "3600"}, 1000)
	if _, err := c.ResolveCommit(ctx, acme, "main"); !isRateLimited(err) {
		t.Fatalf("err = %v, want a 429", err)
	}
	rec.mu.Lock()
	last := rec.rates[len(rec.rates)-1]
	rec.mu.Unlock()
	if last != (rateReport{"get_commit", "api", 1000, -1, true}) {
		t.Fatalf("429 report = %+v", last)
	}
	if a := rec.got(); a[len(a)-1].Status != http.StatusTooManyRequests {
		t.Fatalf("last attempt = %+v", a[len(a)-1])
	}
	if h := c.Budget().Headroom(); !h.Spent || !h.SpentAt(time.Now()) {
		t.Fatalf("headroom after a 429 = %+v, want spent", h)
	}
	s.SetRateLimit(bitbuckettest.RateLimit{}, 0) // a new window
	if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	if h := c.Budget().Headroom(); h.Spent || h.Near {
		t.Fatalf("headroom in a new window = %+v", h)
	}
}

// TestBudgetSharedByClients: two clients built with one Budget (one token)
// see one state; a remaining count below the threshold is near.
func TestBudgetSharedByClients(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	b := NewBudget()
	c1, _ := newClient(t, s, func(c *Config) { withAccessToken(c); c.Budget = b })
	c2, _ := newClient(t, s, func(c *Config) { withAccessToken(c); c.Budget = b })
	s.SetRateLimit(bitbuckettest.RateLimit{SendRemaining: true}, 949)
	if _, err := c1.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	h := c2.Budget().Headroom()
	if d := cmp.Diff(pipeline.Headroom{Known: true, Resource: "api", Limit: 1000, Remaining: 50, Near: true}, h, cmpopts.IgnoreFields(pipeline.Headroom{}, "Seen")); d != "" {
		t.Fatalf("headroom seen through the other client (-want +got):\n%s", d)
	}
	if !h.NearLimit(100, time.Now()) {
		t.Fatal("50 left, threshold 100: not near")
	}
	if h.NearLimit(100, time.Now().Add(2*time.Hour)) {
		t.Fatal("a report older than the rolling hour still counts")
	}
	if got := b.Resources(); len(got) != 1 || got["api"].Remaining != 50 {
		t.Fatalf("resources = %+v", got)
	}
}

// TestBudgetAPIToken: an API token (Basic) gets no rate-limit headers, only
// 429s with Retry-After. That is its normal path: a 429 that outlasts the
// retries marks the budget spent until its Retry-After, and the next
// answer that is served clears it; the budget never stays spent on one
// 429 (it used to, for RateWindow, when later answers carried no headers).
func TestBudgetAPIToken(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	s.RequireBasic("bot@acme.example", "api-token")
	c, rec := newClient(t, s, nil)
	if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	if h := c.Budget().Headroom(); h.Known {
		t.Fatalf("headroom from an API token's answers = %+v, want unknown: no headers", h)
	}
	// A 429 within the retry budget is waited out and leaves nothing spent.
	s.Fail(bitbuckettest.OpGetCommit, bitbuckettest.Fault{Status: 429, RetryAfter: "1"})
	if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	if h := c.Budget().Headroom(); h.SpentAt(time.Now()) {
		t.Fatalf("headroom after a 429 and a served retry = %+v, want not spent", h)
	}
	// A 429 past the retry budget: spent until its Retry-After.
	s.SetRateLimit(bitbuckettest.RateLimit{Enforce: true, RetryAfter: "600"}, 1000)
	if _, err := c.ResolveCommit(ctx, acme, "main"); !isRateLimited(err) {
		t.Fatalf("err = %v, want a 429", err)
	}
	h := c.Budget().Headroom()
	now := time.Now()
	if !h.SpentAt(now) || !h.NearLimit(0, now) || h.Until.Sub(h.Seen) != 10*time.Minute {
		t.Fatalf("headroom after a final 429 = %+v, want spent for its Retry-After", h)
	}
	if h.SpentAt(h.Until.Add(time.Second)) {
		t.Fatal("still spent after the Retry-After")
	}
	// The window passes: the next served answer, without headers, clears it.
	s.SetRateLimit(bitbuckettest.RateLimit{}, 0)
	if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
		t.Fatal(err)
	}
	if h := c.Budget().Headroom(); h.SpentAt(time.Now()) || h.NearLimit(0, time.Now()) {
		t.Fatalf("headroom after a served answer = %+v, want the 429 forgotten", h)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.rates) != 0 {
		t.Fatalf("rate-limit reports %v from answers without headers", rec.rates)
	}
}
