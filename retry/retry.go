// Package retry is the one retry and Retry-After policy of prscout's upstream
// adapters (bitbucket, jira). It decides which answers are retried, how long
// to wait before the next attempt, and when to give up; the adapters keep
// only what is theirs: building requests, observing attempts, and reporting
// the last answer as their own error.
//
// The rules, in order:
//   - at most Policy.MaxRetries retries after the first attempt, and none once
//     the caller's context is done;
//   - 429 Too Many Requests is retried for every method: the rate limiter
//     refuses a request before it is processed, so a POST is not duplicated;
//   - 5xx answers, and with Policy.RetryTransportErrors attempts that got no
//     answer at all, are retried for idempotent methods only (a POST that
//     failed half-way may have created something); 501 Not Implemented and
//     the statuses in Policy.Final are never retried;
//   - the wait is the answer's Retry-After (delay-seconds or an HTTP date),
//     else exponential backoff from Policy.BaseWait, optionally jittered and
//     shortened to what is left of Policy.Budget;
//   - the call gives up, keeping the last answer, when the wait exceeds
//     Policy.MaxWait, when a Retry-After exceeds what is left of Policy.Budget,
//     or when the wait would outlast the context's deadline.
//
// go-retryablehttp was not taken: it retries 5xx for every method, has no
// per-attempt hook for a timeout tied to the body or for observation, and
// sleeps into the caller's deadline instead of returning the last answer.
package retry

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Policy holds the bounds of one adapter. The zero Policy never retries.
type Policy struct {
	// MaxRetries bounds the retries after the first attempt; 0 or negative:
	// no retry.
	MaxRetries int
	// BaseWait is the first backoff step, doubled per retry; it is used when
	// the answer carries no Retry-After (or Retry-After: 0).
	BaseWait time.Duration
	// Jitter draws each backoff step from its upper half ("equal jitter"),
	// so concurrent callers spread out yet still back off.
	Jitter bool
	// MaxWait is the longest single wait: an attempt whose wait would be
	// longer is not retried. 0: no bound.
	MaxWait time.Duration
	// Budget bounds the total wait between the attempts of one call: a
	// Retry-After beyond what is left gives up, a backoff step is shortened
	// to it. 0: no bound.
	Budget time.Duration
	// Final lists 5xx statuses that are never retried because the server
	// would answer them again (Bitbucket's 555 for a diff too large to
	// compute).
	Final []int
	// RetryTransportErrors retries an attempt that got no answer (a
	// connection error or the attempt's own timeout), for idempotent methods
	// only.
	RetryTransportErrors bool

	now func() time.Time // nil: time.Now; set in tests
}

// Attempt is what the policy needs to know of one finished attempt.
type Attempt struct {
	// Method is the request's HTTP method.
	Method string
	// Status is the answer's HTTP status, or 0 when no answer arrived.
	Status int
	// Header is the answer's header (for Retry-After); nil without an answer.
	Header http.Header
	// Retries counts the retries already made for this call: 0 after the
	// first attempt.
	Retries int
	// Slept is the total time already waited between attempts of this call.
	Slept time.Duration
}

// Next decides whether the call is retried after attempt a, and how long to
// wait first (see the package comment for the rules). It does not sleep.
func (p Policy) Next(ctx context.Context, a Attempt) (time.Duration, bool) {
	if a.Retries >= p.MaxRetries || ctx.Err() != nil || !p.retryable(a.Method, a.Status) {
		return 0, false
	}
	left := time.Duration(math.MaxInt64)
	if p.Budget > 0 {
		left = p.Budget - a.Slept
		if left <= 0 {
			return 0, false
		}
	}
	now := time.Now()
	if p.now != nil {
		now = p.now()
	}
	wait := After(a.Header, now)
	switch {
	case wait > left:
		return 0, false // the server asks for longer than the call may wait
	case wait == 0:
		wait = min(p.backoff(a.Retries), left)
	}
	if p.MaxWait > 0 && wait > p.MaxWait {
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && !now.Add(wait).Before(dl) {
		return 0, false
	}
	return wait, true
}

// retryable applies the status and method rules.
func (p Policy) retryable(method string, status int) bool {
	switch {
	case status == http.StatusTooManyRequests:
		return true
	case status == 0:
		return p.RetryTransportErrors && idempotent(method)
	case status >= 500 && status <= 599:
		return status != http.StatusNotImplemented && !slices.Contains(p.Final, status) && idempotent(method)
	}
	return false
}

// idempotent reports whether a method may be repeated without changing the
// result (RFC 9110 section 9.2.2).
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// backoff is BaseWait·2^retries, with equal jitter when asked for.
func (p Policy) backoff(retries int) time.Duration {
	if p.BaseWait <= 0 {
		return 0
	}
	d := p.BaseWait << min(max(retries, 0), 30)
	if d < p.BaseWait { // overflow
		d = math.MaxInt64
	}
	if !p.Jitter {
		return d
	}
	half := d / 2
	return d - half + rand.N(half+1)
}

// maxSeconds is the largest delay-seconds a time.Duration holds.
const maxSeconds = int64(math.MaxInt64 / time.Second)

// After reads the Retry-After header: delay-seconds, or an HTTP date rounded
// up to whole seconds from now. It returns 0 when the header is absent,
// unreadable, negative or in the past.
func After(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	// A number too large for int64 still means "very long" (ParseInt
	// returns its bound with ErrRange).
	if n, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, maxSeconds)) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			if r := d % time.Second; r != 0 && d < math.MaxInt64-time.Second {
				d += time.Second - r
			}
			return d
		}
	}
	return 0
}

// Sleep waits d, or until ctx is done, whichever comes first; it returns
// ctx's error when ctx ended the wait.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
