package bitbucket

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// Observer receives one call per upstream HTTP attempt (retries and redirect
// hops included), for metrics: cmd/prscout passes api.Metrics' upstream
// observer. Implementations must be safe for concurrent use and must not
// block.
//
// Operation names: "get_pullrequest", "get_diff" (diff between two commits and
// the pull request's diff link), "diffstat", "get_commit", "merge_base",
// "get_src" (file meta and raw content), "list_dir", "list_comments",
// "get_comment", "create_comment", "update_comment", "delete_comment", "resolve_comment",
// "get_user", "list_tasks", "create_task", "update_task".
type Observer interface {
	// UpstreamCall reports one attempt. status is the HTTP status, or 0 for a
	// transport error or timeout; retry is true for every attempt after the
	// first one of a call.
	UpstreamCall(operation string, status int, d time.Duration, retry bool)
	// RateLimit reports Bitbucket's rate-limit headers when a response
	// carries any (a 429 included): X-RateLimit-Resource (the resource group
	// the budget belongs to, "" when absent), X-RateLimit-Limit and
	// X-RateLimit-Remaining (-1 when absent or unreadable) and
	// X-RateLimit-NearLimit (false unless "true").
	RateLimit(operation, resource string, limit, remaining int, nearLimit bool)
}

// Operations lists every operation name the Observer can receive, for
// pre-initialising metric label values.
var Operations = []string{
	"get_pullrequest", "get_diff", "diffstat", "get_commit", "merge_base",
	"get_src", "list_dir", "list_comments", "get_comment", "create_comment", "update_comment",
	"delete_comment", "get_user", "list_pr_commits", "resolve_comment",
	"list_tasks", "create_task", "update_task",
}

type nopObserver struct{}

func (nopObserver) UpstreamCall(string, int, time.Duration, bool) {}
func (nopObserver) RateLimit(string, string, int, int, bool)      {}

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
// retries 429 and 5xx answers as the shared policy (package retry) decides.
//
// Retries live here, below http.Client, because go-bitbucket calls
// Client.Do once and hides response headers (Retry-After) from its caller;
// a RoundTripper is the only place that sees every attempt of an SDK call.
// The loop is its own because each attempt gets a timeout whose cancel is
// tied to the body, and is observed and logged on its own.
type transport struct {
	base      http.RoundTripper
	host      string // API host[:port]; the only host that receives credentials
	authorize func(*http.Request)
	timeout   time.Duration // per attempt
	policy    retry.Policy
	obs       Observer
	budget    *Budget      // records every answer's rate-limit headers
	log       *slog.Logger // nil: no logs
	now       func() time.Time
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
			t.reportRateLimit(op, resp.StatusCode, resp.Header)
		}
		d := t.now().Sub(start)
		t.obs.UpstreamCall(op, status, d, attempt > 0)

		wait, again := t.retryWait(req, resp, attempt, slept)
		t.logAttempt(req, op, attempt, status, d, err, wait, again)
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
		if err := retry.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		slept += wait
	}
}

// logAttempt logs one attempt with the request id n8n passed (X-Request-Id),
// so an operator can follow one review from the n8n execution to Bitbucket:
// debug for a good answer, warn for a failure, a 429 or a retry.
func (t *transport) logAttempt(req *http.Request, op string, attempt, status int, d time.Duration, err error, wait time.Duration, again bool) {
	if t.log == nil {
		return
	}
	ctx := req.Context()
	level := slog.LevelDebug
	if err != nil || status == http.StatusTooManyRequests || status >= 500 {
		level = slog.LevelWarn
	}
	if !t.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("service", "bitbucket"), slog.String("operation", op), slog.String("method", req.Method),
		slog.String("path", req.URL.Path), slog.Int("status", status), slog.Int64("duration_ms", d.Milliseconds()),
		slog.Int("attempt", attempt+1), slog.String("request_id", pipeline.RequestID(ctx)),
	}
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	if again {
		attrs = append(attrs, slog.Int64("retry_in_ms", wait.Milliseconds()))
	}
	t.log.LogAttrs(ctx, level, "upstream call", attrs...)
}

// retryWait decides whether attempt is retried and how long to wait first:
// the shared policy (package retry) decides, once the request's body can be
// sent again. New sets the policy: 429 for every method, 5xx other than 555
// and transport errors (an attempt timeout included) for idempotent methods
// only, since a POST that failed half-way may have created a comment; 555 is
// final because Bitbucket gave up computing a too-large diff and would give
// up again. The wait is Retry-After, else jittered backoff, within the
// MaxRetryWait budget and the request's deadline.
func (t *transport) retryWait(req *http.Request, resp *http.Response, attempt int, slept time.Duration) (time.Duration, bool) {
	canReplay := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if !canReplay {
		return 0, false
	}
	a := retry.Attempt{Method: req.Method, Retries: attempt, Slept: slept}
	if resp != nil {
		a.Status, a.Header = resp.StatusCode, resp.Header
	}
	return t.policy.Next(req.Context(), a)
}

// reportRateLimit records an answer's rate-limit headers in the budget and
// reports them to the Observer; an answer without any changes nothing.
func (t *transport) reportRateLimit(op string, status int, h http.Header) {
	hr, ok := t.budget.Record(status, h)
	if !ok {
		return
	}
	t.obs.RateLimit(op, hr.Resource, hr.Limit, hr.Remaining, hr.Near)
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
