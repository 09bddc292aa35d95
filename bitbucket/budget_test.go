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

func TestParseRateLimit(t *testing.T) {
	cases := []struct {
		name   string
		header map[string]string
		want   pipeline.Headroom
		ok     bool
	}{
		{"none", nil, pipeline.Headroom{Limit: -1, Remaining: -1}, false},
		{"bitbucket access token", map[string]string{"X-RateLimit-Limit": "1000", "X-RateLimit-Resource": "api", "X-RateLimit-NearLimit": "false"},
			pipeline.Headroom{Known: true, Resource: "api", Limit: 1000, Remaining: -1}, true},
		{"near", map[string]string{"X-RateLimit-Limit": " 1000 ", "X-RateLimit-NearLimit": "true"},
			pipeline.Headroom{Known: true, Limit: 1000, Remaining: -1, Near: true}, true},
		{"near in capitals", map[string]string{"X-RateLimit-NearLimit": "TRUE"},
			pipeline.Headroom{Known: true, Limit: -1, Remaining: -1, Near: true}, true},
		{"unreadable", map[string]string{"X-RateLimit-Limit": "lots", "X-RateLimit-Remaining": "-3", "X-RateLimit-NearLimit": "maybe"},
			pipeline.Headroom{Known: true, Limit: -1, Remaining: -1}, true},
		{"resource only", map[string]string{"X-RateLimit-Resource": "raw"},
			pipeline.Headroom{Known: true, Resource: "raw", Limit: -1, Remaining: -1}, true},
		{"remaining", map[string]string{"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "12"},
			pipeline.Headroom{Known: true, Limit: 1000, Remaining: 12}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := parseRateLimit(h)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("headroom (-want +got):\n%s", d)
			}
		})
	}
}

// TestBudgetFromFake: the fake sends the headers as Bitbucket does for an
// access token; the budget and the Observer see them on every answer, the
// NearLimit flag flips once less than a fifth is left, and a 429 reports too.
func TestBudgetFromFake(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	c, rec := newClient(t, s, nil)
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
	c1, _ := newClient(t, s, func(c *Config) { c.Budget = b })
	c2, _ := newClient(t, s, func(c *Config) { c.Budget = b })
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
