package jira

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	issuelookup "github.com/prscout/prscout/pipeline/issues"
)

const (
	testEmail = "bot@acme.example"
	testToken = "api-token-1"
	testPAT   = "pat-xyz"
)

var basicAuth = "Basic " + base64.StdEncoding.EncodeToString([]byte(testEmail+":"+testToken))

// call is one observed upstream attempt.
type call struct {
	Op     string
	Status int
	Retry  bool
}

type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) UpstreamCall(op string, status int, _ time.Duration, retry bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{op, status, retry})
}

func (r *recorder) get() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

var _ Observer = (*recorder)(nil)

// newTestClient builds a Client on the real SDK against base; waits between
// retries are recorded instead of slept.
func newTestClient(t *testing.T, cfg Config) (*Client, *recorder, *[]time.Duration) {
	t.Helper()
	rec := &recorder{}
	if cfg.Observer == nil {
		cfg.Observer = rec
	}
	if cfg.PAT == "" && cfg.Email == "" {
		cfg.Email, cfg.Token = testEmail, testToken
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var mu sync.Mutex
	var waits []time.Duration
	c.api.(*sdkClient).sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return c, rec, &waits
}

func TestLookupIssueCloud(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, rec, _ := newTestClient(t, Config{BaseURL: fj.URL() + "/", AcceptanceField: "Acceptance Criteria"})

	got, err := lookupSplit(context.Background(), c, "proj-123")
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.Issue{
		Key:     "PROJ-123",
		Summary: "Lock accounts after five failed logins",
		Status:  "In Progress",
		Description: "## Context\nBrute-force attempts hit `/login`.\n\n- lock after 5 failures\n  - per account, not per IP\n" +
			"1. notify the user\n\n```java\nif (failures >= 5) lock();\n```\n> Security asked for this.",
		AcceptanceCriteria: "- Given 5 failed logins, the account is locked for 15 minutes\n- A locked account gets HTTP 423",
		URL:                fj.URL() + "/browse/PROJ-123",
		Requirements: []pipeline.Requirement{
			{ID: "PROJ-123#1", Issue: "PROJ-123", Text: "Given 5 failed logins, the account is locked for 15 minutes"},
			{ID: "PROJ-123#2", Issue: "PROJ-123", Text: "A locked account gets HTTP 423"},
		},
		RequirementsSource: `field "Acceptance Criteria" (customfield_10042)`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("issue (-want +got):\n%s", d)
	}
	r := fj.lastRequest()
	if r.Method != http.MethodGet || r.URL.Path != "/rest/api/2/issue/PROJ-123" {
		t.Errorf("request %s %s", r.Method, r.URL.Path)
	}
	if q := r.URL.Query().Get("fields"); q != "summary,status,description,customfield_10042,customfield_10099" {
		t.Errorf("fields = %q", q)
	}
	if d := cmp.Diff([]call{{"list_fields", 200, false}, {"get_issue", 200, false}}, rec.get()); d != "" {
		t.Errorf("observed calls (-want +got):\n%s", d)
	}
}

func TestLookupIssueDataCenterPATWithContextPath(t *testing.T) {
	fj := newFakeJira(t, "/jira", "Bearer "+testPAT)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), PAT: testPAT, AcceptanceField: "customfield_10042"})
	got, err := lookupSplit(context.Background(), c, "PROJ-124")
	if err != nil {
		t.Fatal(err)
	}
	if want := "### Criteria\n- exports CSV\n- asks @Kim\nsee https://acme.atlassian.net/browse/PROJ-1"; got.AcceptanceCriteria != want {
		t.Errorf("acceptance criteria from ADF:\n%s\nwant:\n%s", got.AcceptanceCriteria, want)
	}
	if got.Description != "" || got.Status != "To Do" || got.URL != fj.URL()+"/browse/PROJ-124" {
		t.Errorf("issue = %+v", got)
	}
	if n := fj.calls("/rest/api/2/field"); n != 0 {
		t.Errorf("field list fetched %d times for an id", n)
	}
}

func TestAcceptanceFieldResolvedOnceAndDuplicateNames(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), AcceptanceField: " acceptance CRITERIA "})
	issues, warnings := issuelookup.LookupAll(context.Background(), c, []string{"PROJ-123", "PROJ-124", "PROJ-125", "LONG-1"})
	if len(warnings) != 0 || len(issues) != 4 {
		t.Fatalf("issues %d, warnings %q", len(issues), warnings)
	}
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Errorf("field list fetched %d times, want 1", n)
	}
	// PROJ-125 has its criteria only in the second field named alike.
	if got := issues[2].AcceptanceCriteria; got != "- fast\n- safe" {
		t.Errorf("PROJ-125 criteria = %q", got)
	}
}

func TestAcceptanceFieldUnknownName(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), AcceptanceField: "Definition of Done"})
	_, err := c.ResolveAcceptanceField(context.Background())
	if want := `PRSCOUT_JIRA_AC_FIELD "Definition of Done": Jira has no field with that name or id`; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	got, err := lookupSplit(context.Background(), c, "PROJ-123")
	if err != nil || got.AcceptanceCriteria != "" || got.Summary == "" {
		t.Fatalf("issue %+v, err %v", got, err)
	}
	if q := fj.lastRequest().URL.Query().Get("fields"); q != "summary,status,description" {
		t.Errorf("fields = %q", q)
	}
	if n := fj.calls("/rest/api/2/field"); n != 1 {
		t.Errorf("unknown name not cached: %d field list calls", n)
	}
}

func TestLookupIssueMovedAndTruncated(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	fj.moved["OLD-1"] = "NEW-5"
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL()})
	got, err := lookupSplit(context.Background(), c, "OLD-1")
	if err != nil || got.Key != "NEW-5" || got.URL != fj.URL()+"/browse/NEW-5" {
		t.Fatalf("moved issue %+v, %v", got, err)
	}
	got, err = lookupSplit(context.Background(), c, "LONG-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got.Description, "more characters)") || !strings.Contains(got.Description, "… (truncated, ") {
		t.Errorf("no truncation note: ...%s", got.Description[len(got.Description)-80:])
	}
}

func TestLookupIssueErrors(t *testing.T) {
	tests := []struct {
		name       string
		auth       string // client PAT; "" = correct basic auth
		key        string
		script     []fault
		maxRetries int
		wantErr    string
		wantIs     error
		wantCalls  []call
		wantWaits  []time.Duration
	}{
		{name: "not found", key: "PROJ-999", wantIs: pipeline.ErrNotFound,
			wantErr:   "get issue: not found (HTTP 404)",
			wantCalls: []call{{"get_issue", 404, false}}},
		{name: "unauthorized", auth: "wrong", key: "PROJ-123", wantIs: pipeline.ErrUpstream,
			wantErr:   "get issue: unauthorized (HTTP 401): check PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN, or PRSCOUT_JIRA_PAT: You are not authenticated. Authentication required to perform this operation.",
			wantCalls: []call{{"get_issue", 401, false}}},
		{name: "malformed key", key: "../secure/x", wantErr: `key: "../SECURE/X" is not a Jira issue key`},
		{name: "429 then ok", key: "PROJ-123",
			script:    []fault{{status: 429, header: map[string]string{"Retry-After": "2", "X-RateLimit-Reset": "2026-11-30T03:00:00Z"}}},
			wantCalls: []call{{"get_issue", 429, true}, {"get_issue", 200, false}},
			wantWaits: []time.Duration{2 * time.Second}},
		{name: "429 until retries run out", key: "PROJ-123", wantIs: pipeline.ErrUpstream,
			script: []fault{
				{status: 429, header: map[string]string{"Retry-After": "1"}},
				{status: 429, header: map[string]string{"Retry-After": "1"}},
				{status: 429, header: map[string]string{"Retry-After": "1"}},
			},
			wantErr:   "get issue: rate limited (HTTP 429): Too Many Requests (retry after 1s) after 3 attempts",
			wantCalls: []call{{"get_issue", 429, true}, {"get_issue", 429, true}, {"get_issue", 429, false}},
			wantWaits: []time.Duration{time.Second, time.Second}},
		{name: "429 asks too long a wait", key: "PROJ-123", wantIs: pipeline.ErrUpstream,
			script:    []fault{{status: 429, header: map[string]string{"Retry-After": "60"}}},
			wantErr:   "get issue: rate limited (HTTP 429): Too Many Requests (retry after 1m0s)",
			wantCalls: []call{{"get_issue", 429, false}}},
		{name: "503 without Retry-After backs off", key: "PROJ-123",
			script:    []fault{{status: 503}, {status: 503}},
			wantCalls: []call{{"get_issue", 503, true}, {"get_issue", 503, true}, {"get_issue", 200, false}},
			wantWaits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "retries disabled", key: "PROJ-123", maxRetries: -1, wantIs: pipeline.ErrUpstream,
			script:    []fault{{status: 503, header: map[string]string{"Retry-After": "1"}}},
			wantErr:   "get issue: HTTP 503: Service Unavailable (retry after 1s)",
			wantCalls: []call{{"get_issue", 503, false}}},
		{name: "500 is not retried", key: "PROJ-123", wantIs: pipeline.ErrUpstream,
			script:    []fault{{status: 500, body: "<html>oops</html>", header: map[string]string{"Content-Type": "text/html"}}},
			wantErr:   "get issue: HTTP 500",
			wantCalls: []call{{"get_issue", 500, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fj := newFakeJira(t, "", basicAuth)
			fj.push(tt.script...)
			cfg := Config{BaseURL: fj.URL(), MaxRetries: tt.maxRetries, AcceptanceField: AcceptanceFieldNone}
			if tt.auth != "" {
				cfg.PAT = tt.auth
			}
			c, rec, waits := newTestClient(t, cfg)
			got, err := lookupSplit(context.Background(), c, tt.key)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantErr == "":
				if got.Key != tt.key {
					t.Errorf("key %q", got.Key)
				}
			case err == nil || err.Error() != tt.wantErr:
				t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			if tt.wantIs == pipeline.ErrUpstream && errors.Is(err, pipeline.ErrNotFound) {
				t.Errorf("%v also wraps ErrNotFound", err)
			}
			if d := cmp.Diff(tt.wantCalls, rec.get()); d != "" {
				t.Errorf("observed calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantWaits, *waits); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

func TestRetryUsesRealWait(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	fj.push(fault{status: 429, header: map[string]string{"Retry-After": "1"}})
	c, err := New(Config{BaseURL: fj.URL(), Email: testEmail, Token: testToken, AcceptanceField: AcceptanceFieldNone})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := lookupSplit(context.Background(), c, "PROJ-125"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %s, before Retry-After", d)
	}
	// A deadline shorter than Retry-After: no retry, no waiting (a wait
	// would end with the deadline, and say so: "canceled", "timed out").
	fj.push(fault{status: 429, header: map[string]string{"Retry-After": "5"}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if _, err := lookupSplit(ctx, c, "PROJ-125"); !isStatus(err, 429) || strings.Contains(err.Error(), "cancel") || strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v, want a 429 answered at once", err)
	}
}

func TestSlowJiraTimesOut(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	hang := make(chan struct{})
	defer close(hang)
	fj.push(fault{hang: hang})
	// The fake hangs until the test ends: only the timeout returns.
	c, rec, _ := newTestClient(t, Config{BaseURL: fj.URL(), Timeout: 150 * time.Millisecond, AcceptanceField: AcceptanceFieldNone})
	_, err := lookupSplit(context.Background(), c, "PROJ-123")
	if err == nil || err.Error() != "get issue: timed out" || !errors.Is(err, pipeline.ErrUpstream) {
		t.Fatalf("err = %v", err)
	}
	if d := cmp.Diff([]call{{"get_issue", 0, false}}, rec.get()); d != "" {
		t.Errorf("observed calls (-want +got):\n%s", d)
	}

	// A body that stops half-way times out as well.
	fj.push(fault{hang: hang, partial: true})
	if _, err := lookupSplit(context.Background(), c, "PROJ-123"); err == nil || err.Error() != "get issue: timed out" || !errors.Is(err, pipeline.ErrUpstream) {
		t.Fatalf("half a body: err = %v", err)
	}

	// The caller's deadline cancels too (the fake hangs until the test
	// ends; the client has no timeout of its own here).
	fj.push(fault{hang: hang})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	c2, _, _ := newTestClient(t, Config{BaseURL: fj.URL(), Timeout: time.Hour, AcceptanceField: AcceptanceFieldNone})
	if _, err := c2.LookupIssue(ctx, "PROJ-123"); err == nil || !strings.HasSuffix(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
}

// TestJiraDown is the fault test: nothing listens at the base URL. Every key
// becomes a warning and the review goes on.
func TestJiraDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, rec, _ := newTestClient(t, Config{BaseURL: "http://" + addr, AcceptanceField: "Acceptance Criteria"})

	keys := pipeline.ExtractKeys(nil, "PROJ-1: login", "feature/proj-2-x", "")
	issues, warnings := issuelookup.LookupAll(context.Background(), c, keys)
	if len(issues) != 0 || len(warnings) != 2 {
		t.Fatalf("issues %v, warnings %q", issues, warnings)
	}
	for i, k := range []string{"PROJ-1", "PROJ-2"} {
		prefix := fmt.Sprintf("jira %s: get issue: unreachable: dial tcp %s: ", k, addr)
		if !strings.HasPrefix(warnings[i], prefix) || !strings.Contains(warnings[i], "refused") {
			t.Errorf("warning %q, want prefix %q", warnings[i], prefix)
		}
	}
	for _, cl := range rec.get() {
		if cl.Status != 0 || cl.Retry {
			t.Errorf("observed %+v", cl)
		}
	}
	if _, err := c.ResolveAcceptanceField(context.Background()); err == nil || !errors.Is(err, pipeline.ErrUpstream) {
		t.Errorf("ResolveAcceptanceField err = %v", err)
	}
}

func TestRedirectToOtherHostRefused(t *testing.T) {
	var leaked sync.Map
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store("auth", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	jira := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer jira.Close()
	c, _, _ := newTestClient(t, Config{BaseURL: jira.URL})
	_, err := lookupSplit(context.Background(), c, "PROJ-1")
	if err == nil || !strings.Contains(err.Error(), "redirect to another host") {
		t.Errorf("err = %v", err)
	}
	if v, ok := leaked.Load("auth"); ok {
		t.Errorf("credentials sent to another host: %q", v)
	}
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no base url", Config{Email: "a", Token: "b"}, "PRSCOUT_JIRA_BASE_URL is empty"},
		{"relative url", Config{BaseURL: "acme.atlassian.net", Email: "a", Token: "b"},
			`PRSCOUT_JIRA_BASE_URL "acme.atlassian.net" is not an absolute http(s) URL`},
		{"ftp url", Config{BaseURL: "ftp://x", Email: "a", Token: "b"}, `PRSCOUT_JIRA_BASE_URL "ftp://x" is not an absolute http(s) URL`},
		{"credentials in url", Config{BaseURL: "https://u:p@x", Email: "a", Token: "b"},
			"PRSCOUT_JIRA_BASE_URL must not hold credentials; use PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN or PRSCOUT_JIRA_PAT"},
		{"query in url", Config{BaseURL: "https://x/?a=1", Email: "a", Token: "b"}, `PRSCOUT_JIRA_BASE_URL "https://x/?a=1" must not have a query or fragment`},
		{"email without token", Config{BaseURL: "https://x", Email: "a"}, "PRSCOUT_JIRA_EMAIL is set but PRSCOUT_JIRA_TOKEN is empty"},
		{"token without email", Config{BaseURL: "https://x", Token: "b"}, "PRSCOUT_JIRA_TOKEN is set but PRSCOUT_JIRA_EMAIL is empty"},
		{"pat and basic", Config{BaseURL: "https://x", PAT: "p", Email: "a", Token: "b"},
			"set either PRSCOUT_JIRA_PAT (Data Center) or PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN (Cloud), not both"},
		{"no credentials", Config{BaseURL: "https://x"},
			"no Jira credentials: set PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN (Cloud) or PRSCOUT_JIRA_PAT (Data Center)"},
		{"negative timeout", Config{BaseURL: "https://x", PAT: "p", Timeout: -time.Second}, "jira timeout -1s is negative"},
		{"negative max issues", Config{BaseURL: "https://x", PAT: "p", MaxIssues: -1}, "PRSCOUT_JIRA_MAX_ISSUES must be between 1 and 50, got -1"},
		{"too many max issues", Config{BaseURL: "https://x", PAT: "p", MaxIssues: 51}, "PRSCOUT_JIRA_MAX_ISSUES must be between 1 and 50, got 51"},
		{"cloud ok", Config{BaseURL: "https://acme.atlassian.net/", Email: "a", Token: "b"}, ""},
		{"data center ok", Config{BaseURL: "https://jira.example.com/jira", PAT: "p"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.want == "" {
				if err != nil || c == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func TestNewKeepsCallerClientAndSetsTimeout(t *testing.T) {
	base := &http.Client{}
	c, err := New(Config{BaseURL: "https://x", PAT: "p", HTTPClient: base, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if base.Timeout != 0 || base.Transport != nil {
		t.Error("New changed the caller's http.Client")
	}
	if s := c.api.(*sdkClient); s.timeout != 3*time.Second || s.policy.MaxRetries != defaultMaxRetries {
		t.Errorf("timeout %s, retries %d", s.timeout, s.policy.MaxRetries)
	}
}

func TestCancelWhileWaitingToRetry(t *testing.T) {
	fj := newFakeJira(t, "", "Bearer x")
	fj.push(fault{status: 503, header: map[string]string{"Retry-After": "3"}})
	c, err := New(Config{BaseURL: fj.URL(), PAT: "x", AcceptanceField: AcceptanceFieldNone})
	if err != nil {
		t.Fatal(err)
	}
	// Waiting the 3 s out would retry and succeed: only the cancel answers
	// this error.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = lookupSplit(ctx, c, "PROJ-1")
	if err == nil || err.Error() != "get issue: canceled: Service Unavailable (retry after 3s)" || !isStatus(err, 503) {
		t.Fatalf("err = %v", err)
	}
}
