package jira

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// UpstreamError is a failed Jira call. It wraps pipeline.ErrNotFound when
// Jira answered 404 (Jira also answers 404 for an issue the account may not
// see) and pipeline.ErrUpstream otherwise, so callers use errors.Is.
type UpstreamError struct {
	Operation  string        // "get_issue" or "list_fields"
	StatusCode int           // HTTP status; 0 when no answer arrived
	Messages   []string      // Jira's errorMessages and errors, if any
	Attempts   int           // calls made, retries included
	RetryAfter time.Duration // what Jira asked to wait (Retry-After), if anything
	Err        error         // the cause as the SDK or net/http gave it
}

func (e *UpstreamError) Error() string {
	var b strings.Builder
	switch {
	case errors.Is(e.Err, context.Canceled):
		b.WriteString("canceled")
	case isTimeout(e.Err):
		b.WriteString("timed out")
	case e.StatusCode == 0:
		fmt.Fprintf(&b, "unreachable: %s", rootCause(e.Err))
	case e.StatusCode == http.StatusUnauthorized:
		b.WriteString("unauthorized (HTTP 401): check PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN, or PRSCOUT_JIRA_PAT")
	case e.StatusCode == http.StatusForbidden:
		b.WriteString("forbidden (HTTP 403)")
	case e.StatusCode == http.StatusNotFound:
		b.WriteString("not found (HTTP 404)")
	case e.StatusCode == http.StatusTooManyRequests:
		b.WriteString("rate limited (HTTP 429)")
	case e.StatusCode >= 200 && e.StatusCode < 300:
		fmt.Fprintf(&b, "unreadable answer (HTTP %d): %v", e.StatusCode, e.Err)
	default:
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	}
	if len(e.Messages) > 0 && e.StatusCode != http.StatusNotFound {
		fmt.Fprintf(&b, ": %s", strings.Join(e.Messages, "; "))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

// Unwrap gives the pipeline sentinel and the cause.
func (e *UpstreamError) Unwrap() []error {
	sentinel := pipeline.ErrUpstream
	if e.StatusCode == http.StatusNotFound {
		sentinel = pipeline.ErrNotFound
	}
	return []error{sentinel, e.Err}
}

// isStatus reports whether err is an UpstreamError with that HTTP status.
func isStatus(err error, status int) bool {
	var ue *UpstreamError
	return errors.As(err, &ue) && ue.StatusCode == status
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// rootCause drops the request URL and SDK prefixes from a transport error:
// "dial tcp 127.0.0.1:1: connect: connection refused".
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	if err == nil {
		return "no answer"
	}
	return err.Error()
}
