package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
)

var clock = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

func header(retryAfter string) http.Header {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return h
}

// bitbucketLike and jiraLike are the two adapters' policies, as they set them.
var (
	bitbucketLike = Policy{MaxRetries: 3, BaseWait: 500 * time.Millisecond, Budget: 30 * time.Second,
		Final: []int{555}, RetryTransportErrors: true, now: func() time.Time { return clock }}
	jiraLike = Policy{MaxRetries: 2, BaseWait: 250 * time.Millisecond, MaxWait: 5 * time.Second,
		Final: []int{500}, now: func() time.Time { return clock }}
)

func TestNext(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		a      Attempt
		want   time.Duration
		again  bool
	}{
		// Which answers are retried.
		{"429 GET", bitbucketLike, Attempt{Method: "GET", Status: 429}, 500 * time.Millisecond, true},
		{"429 POST", bitbucketLike, Attempt{Method: "POST", Status: 429}, 500 * time.Millisecond, true},
		{"503 GET", bitbucketLike, Attempt{Method: "GET", Status: 503}, 500 * time.Millisecond, true},
		{"502 PUT", bitbucketLike, Attempt{Method: "PUT", Status: 502}, 500 * time.Millisecond, true},
		{"500 DELETE", bitbucketLike, Attempt{Method: "DELETE", Status: 500}, 500 * time.Millisecond, true},
		{"503 POST is not retried", bitbucketLike, Attempt{Method: "POST", Status: 503}, 0, false},
		{"502 PATCH is not retried", bitbucketLike, Attempt{Method: "PATCH", Status: 502}, 0, false},
		{"501 is final", bitbucketLike, Attempt{Method: "GET", Status: 501}, 0, false},
		{"555 final for bitbucket", bitbucketLike, Attempt{Method: "GET", Status: 555}, 0, false},
		{"500 final for jira", jiraLike, Attempt{Method: "GET", Status: 500}, 0, false},
		{"503 for jira", jiraLike, Attempt{Method: "GET", Status: 503}, 250 * time.Millisecond, true},
		{"404 is not retried", bitbucketLike, Attempt{Method: "GET", Status: 404}, 0, false},
		{"200 is not retried", bitbucketLike, Attempt{Method: "GET", Status: 200}, 0, false},
		{"302 is not retried", bitbucketLike, Attempt{Method: "GET", Status: 302}, 0, false},
		{"600 is not retried", bitbucketLike, Attempt{Method: "GET", Status: 600}, 0, false},
		{"no answer GET", bitbucketLike, Attempt{Method: "GET"}, 500 * time.Millisecond, true},
		{"no answer POST", bitbucketLike, Attempt{Method: "POST"}, 0, false},
		{"no answer without RetryTransportErrors", jiraLike, Attempt{Method: "GET"}, 0, false},
		{"zero policy never retries", Policy{}, Attempt{Method: "GET", Status: 429}, 0, false},

		// How many.
		{"last allowed retry", bitbucketLike, Attempt{Method: "GET", Status: 429, Retries: 2}, 2 * time.Second, true},
		{"retries used up", bitbucketLike, Attempt{Method: "GET", Status: 429, Retries: 3}, 0, false},
		{"negative MaxRetries", Policy{MaxRetries: -1}, Attempt{Method: "GET", Status: 429}, 0, false},

		// How long.
		{"Retry-After seconds", bitbucketLike, Attempt{Method: "GET", Status: 429, Header: header("7")}, 7 * time.Second, true},
		{"Retry-After date", bitbucketLike, Attempt{Method: "GET", Status: 503, Header: header("Mon, 30 Nov 2026 03:00:12 GMT")}, 12 * time.Second, true},
		{"Retry-After 0 backs off", jiraLike, Attempt{Method: "GET", Status: 429, Header: header("0"), Retries: 1}, 500 * time.Millisecond, true},
		{"Retry-After in the past backs off", jiraLike, Attempt{Method: "GET", Status: 429, Header: header("Mon, 30 Nov 2026 02:00:00 GMT")}, 250 * time.Millisecond, true},
		{"unreadable Retry-After backs off", jiraLike, Attempt{Method: "GET", Status: 429, Header: header("soon")}, 250 * time.Millisecond, true},
		{"backoff doubles", jiraLike, Attempt{Method: "GET", Status: 503, Retries: 1}, 500 * time.Millisecond, true},

		// When to give up.
		{"Retry-After beyond MaxWait", jiraLike, Attempt{Method: "GET", Status: 429, Header: header("60")}, 0, false},
		{"Retry-After at MaxWait", jiraLike, Attempt{Method: "GET", Status: 429, Header: header("5")}, 5 * time.Second, true},
		{"backoff beyond MaxWait", Policy{MaxRetries: 10, BaseWait: time.Second, MaxWait: 5 * time.Second}, Attempt{Method: "GET", Status: 503, Retries: 3}, 0, false},
		{"Retry-After beyond the budget left", bitbucketLike, Attempt{Method: "GET", Status: 429, Header: header("20"), Slept: 15 * time.Second}, 0, false},
		{"Retry-After within the budget left", bitbucketLike, Attempt{Method: "GET", Status: 429, Header: header("15"), Slept: 15 * time.Second}, 15 * time.Second, true},
		{"backoff shortened to the budget left", bitbucketLike, Attempt{Method: "GET", Status: 429, Retries: 2, Slept: 29500 * time.Millisecond}, 500 * time.Millisecond, true},
		{"budget spent", bitbucketLike, Attempt{Method: "GET", Status: 429, Retries: 1, Slept: 30 * time.Second}, 0, false},
		{"Retry-After huge", bitbucketLike, Attempt{Method: "GET", Status: 429, Header: header("99999999999999999999")}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, again := tt.policy.Next(context.Background(), tt.a)
			if got != tt.want || again != tt.again {
				t.Errorf("Next(%+v) = %v, %v; want %v, %v", tt.a, got, again, tt.want, tt.again)
			}
		})
	}
}

func TestNextContext(t *testing.T) {
	// The policy's clock is the real one here: deadlines are real.
	p := Policy{MaxRetries: 3, BaseWait: 100 * time.Millisecond}
	a := Attempt{Method: "GET", Status: 429, Header: header("1")}

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if d, again := p.Next(ctx, a); again {
		t.Errorf("Retry-After 1s with 0.5s left: retried after %v", d)
	}
	a.Header = nil
	if d, again := p.Next(ctx, a); !again || d != 100*time.Millisecond {
		t.Errorf("backoff 0.1s with 0.5s left: %v, %v; want 100ms, true", d, again)
	}

	done, stop := context.WithCancel(context.Background())
	stop()
	if _, again := p.Next(done, a); again {
		t.Error("retried although the context is canceled")
	}
}

func TestBackoffJitter(t *testing.T) {
	p := Policy{BaseWait: 400 * time.Millisecond, Jitter: true}
	for retries := range 4 {
		full := 400 * time.Millisecond << retries
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.backoff(retries)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", retries, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("backoff(%d): %d distinct values in 200 draws, want jitter", retries, len(seen))
		}
	}
	if d := (Policy{BaseWait: time.Hour}).backoff(1000); d != math.MaxInt64 {
		t.Errorf("backoff after many retries = %v, want the largest duration (no overflow)", d)
	}
	if d := (Policy{}).backoff(3); d != 0 {
		t.Errorf("backoff without BaseWait = %v, want 0", d)
	}
}

func TestAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"5", 5 * time.Second},
		{" 5 ", 5 * time.Second},
		{"0", 0},
		{"-1", 0},
		{"soon", 0},
		{"1.5", 0},
		{"99999999999999999999", time.Duration(maxSeconds) * time.Second},
		{"Mon, 30 Nov 2026 03:00:30 GMT", 30 * time.Second},
		{"Monday, 30-Nov-26 03:00:30 GMT", 30 * time.Second}, // RFC 850, also an HTTP date
		{"Mon, 30 Nov 2026 02:59:00 GMT", 0},
	}
	for _, tt := range tests {
		if got := After(header(tt.in), clock); got != tt.want {
			t.Errorf("After(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// A date is rounded up to whole seconds, never waited for too briefly.
	if got := After(header("Mon, 30 Nov 2026 03:00:30 GMT"), clock.Add(200*time.Millisecond)); got != 30*time.Second {
		t.Errorf("After(date, now+0.2s) = %v, want 30s", got)
	}
	if got := After(nil, clock); got != 0 {
		t.Errorf("After(nil) = %v", got)
	}
}

func TestSleep(t *testing.T) {
	start := time.Now()
	if err := Sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep(20ms) = %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	// An hour's sleep outlasts go test's timeout: only the cancel returns.
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep canceled: err = %v", err)
	}
}

func ExamplePolicy_Next() {
	p := Policy{MaxRetries: 2, BaseWait: 250 * time.Millisecond, MaxWait: 5 * time.Second}
	h := http.Header{"Retry-After": {"2"}}
	for _, a := range []Attempt{
		{Method: http.MethodGet, Status: http.StatusTooManyRequests, Header: h},
		{Method: http.MethodGet, Status: http.StatusServiceUnavailable, Retries: 1},
		{Method: http.MethodPost, Status: http.StatusBadGateway},
		{Method: http.MethodGet, Status: http.StatusTooManyRequests, Retries: 2},
	} {
		wait, again := p.Next(context.Background(), a)
		fmt.Println(a.Method, a.Status, again, wait)
	}
	// Output:
	// GET 429 true 2s
	// GET 503 true 500ms
	// POST 502 false 0s
	// GET 429 false 0s
}
