package bitbucket

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// statusDiffTooLarge is Bitbucket's non-standard 555 answer to a diff,
// diffstat or deep listing that "was too large and timed out".
const statusDiffTooLarge = 555

// maxErrorBody bounds how much of an error body an UnexpectedResponseError keeps.
const maxErrorBody = 4 << 10

// UnexpectedResponseError is a non-success answer from Bitbucket.
//
// It unwraps to pipeline.ErrNotFound for 404, to pipeline.ErrTooLarge and
// pipeline.ErrUpstream for 555, and to pipeline.ErrUpstream otherwise, so
// stages can use errors.Is without knowing HTTP.
type UnexpectedResponseError struct {
	Op     string // operation name, as reported to the Observer
	Status int    // HTTP status code
	Body   string // the response body, truncated to 4 KiB
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

func (e *UnexpectedResponseError) Error() string {
	msg := errorMessage(e.Body)
	text := http.StatusText(e.Status)
	if e.Status == statusDiffTooLarge {
		text = "diff too large or timed out"
	}
	s := fmt.Sprintf("bitbucket %s: %d %s", e.Op, e.Status, text)
	if msg != "" {
		s += ": " + msg
	}
	return s
}

// Unwrap maps the status to the pipeline's sentinel errors.
func (e *UnexpectedResponseError) Unwrap() []error {
	switch e.Status {
	case http.StatusNotFound:
		return []error{pipeline.ErrNotFound}
	case statusDiffTooLarge:
		return []error{pipeline.ErrTooLarge, pipeline.ErrUpstream}
	default:
		return []error{pipeline.ErrUpstream}
	}
}

// errorMessage extracts error.message and error.detail from Bitbucket's
// error JSON ({"type":"error","error":{"message":...,"detail":...}}), or a
// short plain-text body. The API description makes detail a string; a
// detail of another shape (scope errors have sent an object of granted and
// required scopes) is kept as compact JSON, so its text still reaches the
// caller.
func errorMessage(body string) string {
	var e struct {
		Error struct {
			Message string          `json:"message"`
			Detail  json.RawMessage `json:"detail"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		if d := detailText(e.Error.Detail); d != "" {
			return e.Error.Message + " (" + d + ")"
		}
		return e.Error.Message
	}
	body = strings.TrimSpace(body)
	if len(body) > 200 || strings.HasPrefix(body, "<") {
		return ""
	}
	return body
}

// detailText renders an error's detail: a string as is, anything else but
// null as compact JSON, cut to maxDetail characters.
func detailText(raw json.RawMessage) string {
	const maxDetail = 500
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return pipeline.ClipRunes(strings.TrimSpace(s), maxDetail)
	}
	var buf bytes.Buffer
	if len(raw) == 0 || string(raw) == "null" || json.Compact(&buf, raw) != nil {
		return ""
	}
	return pipeline.ClipRunes(buf.String(), maxDetail)
}

func statusOf(err error) int {
	var ue *UnexpectedResponseError
	if errors.As(err, &ue) {
		return ue.Status
	}
	return 0
}

// isNotFound reports whether err is a 404 from Bitbucket.
func isNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// isRateLimited reports whether err is a 429 from Bitbucket that survived
// the retries.
func isRateLimited(err error) bool { return statusOf(err) == http.StatusTooManyRequests }

// isPermissionError reports whether Bitbucket refused the credentials (401)
// or the access (403).
func isPermissionError(err error) bool {
	s := statusOf(err)
	return s == http.StatusUnauthorized || s == http.StatusForbidden
}

// isDiffTooLarge reports whether Bitbucket answered 555: the diff (or
// listing) was too large to compute in time.
func isDiffTooLarge(err error) bool { return statusOf(err) == statusDiffTooLarge }
