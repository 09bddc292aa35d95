package bitbucket

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Observer receives one call per upstream HTTP attempt (retries and redirect
// hops included); the lead turns it into Prometheus metrics. Implementations
// must be safe for concurrent use and must not block.
//
// Operation names: "get_pullrequest", "get_diff" (diff between two commits and
// the pull request's diff link), "diffstat", "get_commit", "merge_base",
// "get_src" (file meta and raw content), "list_dir", "list_comments",
// "create_comment", "update_comment", "delete_comment".
type Observer interface {
	// UpstreamCall reports one attempt. status is the HTTP status, or 0 for a
	// transport error or timeout; retry is true for every attempt after the
	// first one of a call.
	UpstreamCall(operation string, status int, d time.Duration, retry bool)
	// RateLimit reports Bitbucket's rate-limit headers when a response carries
	// any: X-RateLimit-Limit, X-RateLimit-Remaining (-1 when absent) and
	// X-RateLimit-NearLimit.
	RateLimit(operation string, limit, remaining int, nearLimit bool)
}

// Operations lists every operation name the Observer can receive, for
// pre-initialising metric label values.
var Operations = []string{
	"get_pullrequest", "get_diff", "diffstat", "get_commit", "merge_base",
	"get_src", "list_dir", "list_comments", "create_comment", "update_comment",
	"delete_comment", "get_user",
}

type nopObserver struct{}

func (nopObserver) UpstreamCall(string, int, time.Duration, bool) {}
func (nopObserver) RateLimit(string, int, int, bool)              {}

type opKey struct{}

// withOp names the operation of the requests made with ctx, for the Observer.
func withOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
}

func opOf(ctx context.Context) string {
	if op, ok := ctx.Value(opKey{}).(string); ok {
		return op
	}
	return "other"
}

// transport is the RoundTripper every upstream request goes through, the
// SDK's included. Per attempt it applies the attempt timeout, authenticates
// requests to the API host (only that host: redirects to the media platform
// or foreign `next` links get no credentials), reports to the Observer and
// retries 429 and 5xx answers with backoff.
//
// Retries live here, below http.Client, because go-bitbucket calls
// Client.Do once and hides response headers (Retry-After) from its caller;
// a RoundTripper is the only place that sees every attempt of an SDK call.
// It is a small own loop rather than go-retryablehttp because it needs a
// per-attempt timeout whose cancel is tied to the body, per-attempt
// observation, POST retried only on 429, and a total sleep budget; those are
// hooks retryablehttp does not have in this shape.
type transport struct {
	base       http.RoundTripper
	host       string // API host[:port]; the only host that receives credentials
	authorize  func(*http.Request)
	timeout    time.Duration // per attempt
	maxRetries int
	maxWait    time.Duration // total sleep budget between attempts of one request
	baseWait   time.Duration // first backoff step
	obs        Observer
	now        func() time.Time
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := opOf(req.Context())
	var slept time.Duration
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		if r.URL.Host == t.host && r.Header.Get("Authorization") == "" {
			t.authorize(r)
		} else if r.URL.Host != t.host {
			r.Header.Del("Authorization")
		}
		if r.Header.Get("User-Agent") == "" {
			r.Header.Set("User-Agent", "prscout-bitbucket")
		}
		actx, cancel := context.WithTimeout(req.Context(), t.timeout)
		r = r.WithContext(actx)

		start := t.now()
		resp, err := t.base.RoundTrip(r)
		status := 0
		if err == nil {
			status = resp.StatusCode
			t.reportRateLimit(op, resp.Header)
		}
		t.obs.UpstreamCall(op, status, t.now().Sub(start), attempt > 0)

		wait, again := t.retryWait(req, resp, err, attempt, slept)
		if !again {
			if err != nil {
				cancel()
				return nil, err
			}
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		cancel()
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		slept += wait
	}
}

// retryWait decides whether attempt is retried and how long to wait first.
//
// Retried: 429 for every method (the rate limiter refuses a request before it
// is processed, so a POST is not duplicated), 5xx other than 555 and
// transport errors (including an attempt timeout) for idempotent methods only
// (a POST that timed out or failed with 5xx may have created a comment).
// 555 is not retried: Bitbucket gave up computing a too-large diff and would
// give up again.
//
// The wait is Retry-After when the server sent one (seconds or HTTP date),
// else exponential backoff with jitter. The call gives up, returning the last
// answer, after maxRetries retries, when the wait would exceed what is left of
// the maxWait budget, or when it would outlast the request's deadline.
func (t *transport) retryWait(req *http.Request, resp *http.Response, err error, attempt int, slept time.Duration) (time.Duration, bool) {
	if attempt >= t.maxRetries || req.Context().Err() != nil {
		return 0, false
	}
	canReplay := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if !canReplay {
		return 0, false
	}
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead ||
		req.Method == http.MethodPut || req.Method == http.MethodDelete
	switch {
	case err != nil:
		if !idempotent {
			return 0, false
		}
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode == StatusDiffTooLarge:
		return 0, false
	case resp.StatusCode >= 500 && idempotent:
	default:
		return 0, false
	}
	left := t.maxWait - slept
	var wait time.Duration
	if resp != nil {
		if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.now()); ok {
			if ra > left {
				return 0, false // the server asks for longer than we may wait
			}
			wait = ra
		}
	}
	if wait == 0 {
		wait = t.backoff(attempt)
		if wait > left {
			wait = left
		}
		if wait <= 0 {
			return 0, false
		}
	}
	if dl, ok := req.Context().Deadline(); ok && t.now().Add(wait).After(dl) {
		return 0, false
	}
	return wait, true
}

// backoff is baseWait·2^attempt with "equal jitter": a random point in the
// upper half, so concurrent callers spread out yet still back off.
func (t *transport) backoff(attempt int) time.Duration {
	d := t.baseWait << min(attempt, 16)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func (t *transport) reportRateLimit(op string, h http.Header) {
	ls, rs, ns := h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-NearLimit")
	if ls == "" && rs == "" && ns == "" {
		return
	}
	atoi := func(s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return -1
		}
		return n
	}
	near, _ := strconv.ParseBool(strings.TrimSpace(ns))
	t.obs.RateLimit(op, atoi(ls), atoi(rs), near)
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// cancelBody releases the attempt's context when the body is closed, so the
// attempt timeout also bounds reading the body.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ctxTransport gives requests built without a context (go-bitbucket drops the
// context it is given: it calls req.WithContext(ctx) and discards the result,
// client.go executeWithContext in v0.10.0) the caller's context, so
// cancellation and deadlines reach the SDK's requests.
type ctxTransport struct {
	ctx  context.Context
	next http.RoundTripper
}

func (t ctxTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.next.RoundTrip(req.WithContext(t.ctx))
}

// checkRedirect follows redirects on the API host only (the pull request
// diff's 302 to /diff/{spec}); a redirect elsewhere (an LFS file's 301 to the
// media platform) is returned to the caller as the 3xx answer.
func checkRedirect(host string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != host {
			return http.ErrUseLastResponse
		}
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		return nil
	}
}
