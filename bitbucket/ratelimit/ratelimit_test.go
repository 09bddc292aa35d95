package ratelimit

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
			got, ok := Parse(h)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("headroom (-want +got):\n%s", d)
			}
		})
	}
}

// TestBudgetNotStickyAfterHeaders: a 429 with headers (an access token),
// then answers without any (a proxy that strips them): the first served
// answer clears the spent state.
func TestBudgetNotStickyAfterHeaders(t *testing.T) {
	b := New()
	h429 := http.Header{}
	h429.Set("X-RateLimit-Limit", "1000")
	h429.Set("X-RateLimit-Resource", "api")
	b.Record(http.StatusTooManyRequests, h429)
	if !b.Headroom().SpentAt(time.Now()) {
		t.Fatalf("after a 429: %+v, want spent", b.Headroom())
	}
	b.Record(http.StatusServiceUnavailable, http.Header{})
	if !b.Headroom().SpentAt(time.Now()) {
		t.Fatal("a 503 is no sign of budget: still spent")
	}
	b.Record(http.StatusOK, http.Header{})
	if h := b.Headroom(); h.SpentAt(time.Now()) || h.NearLimit(0, time.Now()) {
		t.Fatalf("after a served answer without headers: %+v, want not spent", h)
	}
}
