package jira

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	gojira "github.com/andygrunwald/go-jira"

	"github.com/prscout/prscout/pipeline"
)

// rawIssue is what the logic needs from one issue answer.
type rawIssue struct {
	Key         string
	Summary     string
	Status      string
	Description string         // Jira wiki markup (API v2)
	Other       map[string]any // fields go-jira does not know (custom fields), by id
}

// rawField is one entry of the field list.
type rawField struct {
	ID     string
	Key    string
	Name   string
	Custom bool
}

// apiClient is the narrow seam between the logic (Client) and HTTP, so field
// resolution and text shaping are tested without a server.
type apiClient interface {
	getIssue(ctx context.Context, key string, fields []string) (rawIssue, error)
	listFields(ctx context.Context) ([]rawField, error)
}

// Retry bounds: a 429 or 503 is retried at most maxRetries times, waiting
// what Retry-After says (or a short backoff without it) but never longer than
// maxRetryWait; a longer ask, or one past the context deadline, gives up.
const (
	maxRetryWait   = 5 * time.Second
	initialBackoff = 250 * time.Millisecond
)

// sdkClient calls Jira through go-jira.
type sdkClient struct {
	jc         *gojira.Client
	timeout    time.Duration
	maxRetries int
	observer   Observer
	log        *slog.Logger                                     // nil: no logs
	sleep      func(ctx context.Context, d time.Duration) error // replaced in tests
}

var _ apiClient = (*sdkClient)(nil)

// getIssue calls GET rest/api/2/issue/{key}?fields=... and reads the
// description (wiki markup) and any custom field asked for.
// https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issues/#api-rest-api-2-issue-issueidorkey-get
func (s *sdkClient) getIssue(ctx context.Context, key string, fields []string) (rawIssue, error) {
	var iss *gojira.Issue
	err := s.call(ctx, "get_issue", func(ctx context.Context) (*gojira.Response, error) {
		var (
			resp *gojira.Response
			err  error
		)
		iss, resp, err = s.jc.Issue.GetWithContext(ctx, key, &gojira.GetQueryOptions{Fields: strings.Join(fields, ",")})
		return resp, err
	})
	if err != nil {
		return rawIssue{}, err
	}
	out := rawIssue{Key: iss.Key}
	if f := iss.Fields; f != nil {
		out.Summary = f.Summary
		out.Description = f.Description
		if f.Status != nil {
			out.Status = f.Status.Name
		}
		out.Other = map[string]any(f.Unknowns)
	}
	return out, nil
}

// listFields calls GET rest/api/2/field (every system and custom field).
// https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issue-fields/#api-rest-api-2-field-get
func (s *sdkClient) listFields(ctx context.Context) ([]rawField, error) {
	var list []gojira.Field
	err := s.call(ctx, "list_fields", func(ctx context.Context) (*gojira.Response, error) {
		var (
			resp *gojira.Response
			err  error
		)
		list, resp, err = s.jc.Field.GetListWithContext(ctx)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]rawField, 0, len(list))
	for _, f := range list {
		out = append(out, rawField{ID: f.ID, Key: f.Key, Name: f.Name, Custom: f.Custom})
	}
	return out, nil
}

// call runs one operation with a per-attempt timeout, reports every attempt
// to the observer and retries 429/503 within the bounds above.
func (s *sdkClient) call(ctx context.Context, op string, do func(context.Context) (*gojira.Response, error)) error {
	backoff := initialBackoff
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, s.timeout)
		start := time.Now()
		resp, err := do(actx)
		if err != nil && actx.Err() != nil && !errors.Is(err, actx.Err()) {
			// The SDK flattens a deadline hit while reading the body into
			// text; keep it recognisable.
			err = fmt.Errorf("%w: %w", actx.Err(), err)
		}
		cancel()
		status := 0
		var header http.Header
		if resp != nil && resp.Response != nil {
			status, header = resp.StatusCode, resp.Header
		}
		var wait, asked time.Duration
		retry := false
		if err != nil && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
			asked = retryAfter(header, time.Now())
			wait = asked
			if wait == 0 {
				wait = backoff
				backoff *= 2
			}
			retry = attempt <= s.maxRetries && wait <= maxRetryWait && fitsDeadline(ctx, wait)
		}
		d := time.Since(start)
		if s.observer != nil {
			s.observer.UpstreamCall(op, status, d, retry)
		}
		if s.log != nil {
			level := slog.LevelDebug
			if err != nil {
				level = slog.LevelWarn
			}
			attrs := []slog.Attr{slog.String("service", "jira"), slog.String("operation", op), slog.Int("status", status),
				slog.Int64("duration_ms", d.Milliseconds()), slog.Int("attempt", attempt), slog.String("request_id", pipeline.RequestID(ctx))}
			if err != nil {
				attrs = append(attrs, slog.String("err", err.Error()))
			}
			if retry {
				attrs = append(attrs, slog.Int64("retry_in_ms", wait.Milliseconds()))
			}
			s.log.LogAttrs(ctx, level, "upstream call", attrs...)
		}
		if err == nil {
			return nil
		}
		if !retry {
			return &UpstreamError{
				Operation:  op,
				StatusCode: status,
				Messages:   jiraMessages(err),
				Attempts:   attempt,
				RetryAfter: asked,
				Err:        err,
			}
		}
		if serr := s.sleep(ctx, wait); serr != nil {
			return &UpstreamError{Operation: op, StatusCode: status, Messages: jiraMessages(err),
				Attempts: attempt, RetryAfter: asked, Err: fmt.Errorf("%w while waiting to retry: %w", serr, err)}
		}
	}
}

// retryAfter reads Retry-After as seconds or an HTTP date; 0 when absent or
// unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

func fitsDeadline(ctx context.Context, wait time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > wait
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// jiraMessages collects {"errorMessages":[...],"errors":{...}} from the SDK's
// error, in a stable order.
func jiraMessages(err error) []string {
	var je *gojira.Error
	if !errors.As(err, &je) {
		return nil
	}
	msgs := append([]string(nil), je.ErrorMessages...)
	keys := make([]string, 0, len(je.Errors))
	for k := range je.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		msgs = append(msgs, k+": "+je.Errors[k])
	}
	return msgs
}
