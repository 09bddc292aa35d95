package jira

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	gojira "github.com/andygrunwald/go-jira"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
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

// Retry bounds of the shared policy (package retry): Jira signals load with
// 429 or 503, often with Retry-After; a 500 is Jira failing on this request
// and is not retried. One wait is at most maxRetryWait: a longer Retry-After,
// or one past the context deadline, gives up. Calls that got no answer are
// not retried (the caller's lookup fails alone and becomes a warning).
const (
	maxRetryWait   = 5 * time.Second
	initialBackoff = 250 * time.Millisecond
)

// retryPolicy is the Jira policy with at most maxRetries retries.
func retryPolicy(maxRetries int) retry.Policy {
	return retry.Policy{
		MaxRetries: maxRetries,
		BaseWait:   initialBackoff,
		MaxWait:    maxRetryWait,
		Final:      []int{http.StatusInternalServerError},
	}
}

// sdkClient calls Jira through go-jira.
type sdkClient struct {
	jc       *gojira.Client
	timeout  time.Duration
	policy   retry.Policy
	observer Observer
	log      *slog.Logger                                     // nil: no logs
	sleep    func(ctx context.Context, d time.Duration) error // replaced in tests
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

// call runs one operation (a GET) with a per-attempt timeout, reports every
// attempt to the observer and retries as the policy decides.
func (s *sdkClient) call(ctx context.Context, op string, do func(context.Context) (*gojira.Response, error)) error {
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
		again := false
		if err != nil {
			asked = retry.After(header, time.Now())
			wait, again = s.policy.Next(ctx, retry.Attempt{Method: http.MethodGet, Status: status, Header: header, Retries: attempt - 1})
		}
		d := time.Since(start)
		if s.observer != nil {
			s.observer.UpstreamCall(op, status, d, again)
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
			if again {
				attrs = append(attrs, slog.Int64("retry_in_ms", wait.Milliseconds()))
			}
			s.log.LogAttrs(ctx, level, "upstream call", attrs...)
		}
		if err == nil {
			return nil
		}
		if !again {
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
