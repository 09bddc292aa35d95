// Package jira implements pipeline.IssueLookup on Jira Cloud and Jira Data
// Center through github.com/andygrunwald/go-jira v1.16.0 (REST API v2).
//
// It calls two endpoints:
//   - GET rest/api/2/issue/{key}?fields=summary,status,description[,<acceptance criteria field>]
//     https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issues/#api-rest-api-2-issue-issueidorkey-get
//   - GET rest/api/2/field, once per process, when the acceptance criteria field
//     is given by name or not configured (then a field named like "Acceptance
//     criteria" is looked for)
//     https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issue-fields/#api-rest-api-2-field-get
//
// Cloud authenticates with HTTP Basic (account email and API token), Data
// Center with a personal access token (Bearer). 429 and 5xx answers other
// than 500 are retried within bounds, honouring Retry-After (package retry).
// Each issue carries its acceptance criteria field's value and its
// description unsplit (pipeline.Issue.CriteriaText): the context stage
// splits them into pipeline.Requirements (package criteria). Key
// extraction and the "failures are warnings" policy live in pipeline
// (ExtractKeys, LookupAll); LookupIssues applies the same policy bounded by
// Config.MaxIssues.
package jira

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	gojira "github.com/andygrunwald/go-jira"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// Defaults for a zero Config.
const (
	defaultTimeout    = 10 * time.Second
	defaultMaxRetries = 2
	defaultMaxIssues  = 5
)

// maxIssuesLimit is the largest Config.MaxIssues: each issue is one request.
const maxIssuesLimit = 50

// AcceptanceFieldNone as Config.AcceptanceField turns the field off: criteria
// come from the description only, and the field list is never fetched.
const AcceptanceFieldNone = "none"

// issueLookupParallel is how many issues LookupIssues reads at once.
const issueLookupParallel = 3

// fieldFailureTTL is how long a failed field list is remembered before the
// next lookup tries again, so a failing Jira is not asked on every issue;
// a longer Retry-After (up to fieldFailureMaxTTL) is honoured.
const (
	fieldFailureTTL    = 30 * time.Second
	fieldFailureMaxTTL = 5 * time.Minute
)

// Config configures a Client. cmd/prscout fills it from
// PRSCOUT_JIRA_BASE_URL, PRSCOUT_JIRA_EMAIL + PRSCOUT_JIRA_TOKEN (Cloud) or
// PRSCOUT_JIRA_PAT (Data Center), and PRSCOUT_JIRA_AC_FIELD.
type Config struct {
	BaseURL string // https://acme.atlassian.net or https://jira.example.com/jira
	Email   string // Cloud: account email (Basic auth user)
	Token   string // Cloud: API token (Basic auth password)
	PAT     string // Data Center: personal access token (Bearer)
	// AcceptanceField is the acceptance criteria custom field, by id
	// ("customfield_10042") or by name ("Acceptance Criteria", matched
	// case-insensitively through GET rest/api/2/field). Empty: every field
	// whose name starts with "acceptance criteria" (any case) is used, found
	// through the same list; AcceptanceFieldNone: no field.
	AcceptanceField string
	// MaxIssues bounds how many issues LookupIssues reads per call, and
	// the context stage per review (PRSCOUT_JIRA_MAX_ISSUES); 0 means
	// defaultMaxIssues, at most maxIssuesLimit.
	MaxIssues int
	// Projects are the project keys whose issues link to a pull request
	// (PRSCOUT_JIRA_PROJECTS, any case); empty accepts every project.
	Projects []string
	// Timeout bounds each HTTP attempt (also set as http.Client.Timeout when
	// the client has none). 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how often a 429 or 5xx (other than 500) is retried; 0
	// means defaultMaxRetries, negative means never.
	MaxRetries int
	// HTTPClient is the base client (its Transport is kept and wrapped with
	// authentication). nil means a new client with Timeout.
	HTTPClient *http.Client
	// Observer, if set, sees every HTTP attempt.
	Observer Observer
	// Logger, if set, logs every attempt at debug level and failures and
	// retries at warn, with the prscout request id (pipeline.RequestID).
	Logger *slog.Logger
}

// Operations lists every operation name the Observer can receive, for
// pre-initialising metric label values.
var Operations = []string{"get_issue", "list_fields"}

// Observer sees every upstream HTTP attempt, for metrics: operation is
// "get_issue" or "list_fields", status is the HTTP status (0 when no answer
// arrived), retry tells that the attempt will be retried.
type Observer interface {
	UpstreamCall(operation string, status int, d time.Duration, retry bool)
}

// Client looks Jira issues up. It is safe for concurrent use.
type Client struct {
	api       apiClient
	browseURL string // base URL + "/browse/"
	acField   string // as configured
	maxIssues int
	projects  []string // upper case

	fields fieldCache
}

// acFields is the resolved acceptance criteria field: the ids to ask for, in
// order of preference, and their display names.
type acFields struct {
	ids   []string
	names map[string]string
}

// fieldCache holds the outcome of the one field list fetch. A list that was
// read is kept for the process (with the error of a configured name that is
// not in it); an upstream failure is kept until retryAt. Concurrent callers
// share one fetch (singleflight) and wait for it without holding mu, each
// bounded by its own context.
type fieldCache struct {
	flight singleflight.Group
	now    func() time.Time // replaced in tests

	mu      sync.Mutex
	done    bool
	val     acFields
	err     error // with done: the configured name matched no field
	failErr error // the last upstream failure, until retryAt
	retryAt time.Time
}

var (
	_ pipeline.IssueLookup   = (*Client)(nil)
	_ pipeline.IssueBound    = (*Client)(nil)
	_ pipeline.IssueProjects = (*Client)(nil)
)

var customFieldID = regexp.MustCompile(`^customfield_[0-9]+$`)

// New validates cfg and builds a Client. It makes no request. Validation
// errors name the environment variable to fix.
func New(cfg Config) (*Client, error) {
	base, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = defaultMaxRetries
	case retries < 0:
		retries = 0
	}

	maxIssues := cfg.MaxIssues
	if maxIssues == 0 {
		maxIssues = defaultMaxIssues
	}

	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	if hc.Timeout == 0 {
		hc.Timeout = timeout
	}
	inner := hc.Transport
	if cfg.PAT != "" {
		hc.Transport = &gojira.PATAuthTransport{Token: cfg.PAT, Transport: inner}
	} else {
		hc.Transport = &gojira.BasicAuthTransport{Username: cfg.Email, Password: cfg.Token, Transport: inner}
	}
	// The auth transports add credentials to every request, redirects
	// included: never follow a redirect to another host.
	userCheck := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != base.Host {
			return fmt.Errorf("jira redirect to another host (%s) refused", req.URL.Host)
		}
		if userCheck != nil {
			return userCheck(req, via)
		}
		if len(via) >= 5 {
			return errors.New("jira: too many redirects")
		}
		return nil
	}

	jc, err := gojira.NewClient(hc, base.String())
	if err != nil {
		return nil, fmt.Errorf("PRSCOUT_JIRA_BASE_URL: %w", err)
	}
	return &Client{
		api: &sdkClient{
			jc:       jc,
			timeout:  timeout,
			policy:   retryPolicy(retries),
			observer: cfg.Observer,
			log:      cfg.Logger,
			sleep:    retry.Sleep,
		},
		browseURL: strings.TrimRight(base.String(), "/") + "/browse/",
		acField:   strings.TrimSpace(cfg.AcceptanceField),
		maxIssues: maxIssues,
		projects:  projects(cfg.Projects),
	}, nil
}

func validate(cfg Config) (*url.URL, error) {
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		return nil, errors.New("PRSCOUT_JIRA_BASE_URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("PRSCOUT_JIRA_BASE_URL %q is not an absolute http(s) URL", raw)
	}
	if u.User != nil {
		return nil, errors.New("PRSCOUT_JIRA_BASE_URL must not hold credentials; use PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN or PRSCOUT_JIRA_PAT")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("PRSCOUT_JIRA_BASE_URL %q must not have a query or fragment", raw)
	}
	switch {
	case cfg.PAT != "" && (cfg.Email != "" || cfg.Token != ""):
		return nil, errors.New("set either PRSCOUT_JIRA_PAT (Data Center) or PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN (Cloud), not both")
	case cfg.Email != "" && cfg.Token == "":
		return nil, errors.New("PRSCOUT_JIRA_EMAIL is set but PRSCOUT_JIRA_TOKEN is empty")
	case cfg.Token != "" && cfg.Email == "":
		return nil, errors.New("PRSCOUT_JIRA_TOKEN is set but PRSCOUT_JIRA_EMAIL is empty")
	case cfg.PAT == "" && cfg.Email == "":
		return nil, errors.New("no Jira credentials: set PRSCOUT_JIRA_EMAIL and PRSCOUT_JIRA_TOKEN (Cloud) or PRSCOUT_JIRA_PAT (Data Center)")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("jira timeout %s is negative", cfg.Timeout)
	}
	if cfg.MaxIssues < 0 || cfg.MaxIssues > maxIssuesLimit {
		return nil, fmt.Errorf("PRSCOUT_JIRA_MAX_ISSUES must be between 1 and %d, got %d", maxIssuesLimit, cfg.MaxIssues)
	}
	for _, p := range cfg.Projects {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" && !pipeline.IsProjectKey(p) {
			return nil, fmt.Errorf("PRSCOUT_JIRA_PROJECTS: %q is not a Jira project key (a letter, then letters, digits or _)", p)
		}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// projects upper-cases the configured project keys and drops blanks.
func projects(list []string) []string {
	var out []string
	for _, p := range list {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// LookupIssue reads one issue by key (any case): summary, status name,
// description (wiki markup lightly turned into Markdown, at most
// maxDescriptionChars), the acceptance criteria field's text (at most
// maxAcceptanceChars) and, unsplit, the criteria field's value and the
// description (Issue.CriteriaText), which the context stage splits into
// Requirements (criteria.Fill). Issue.Key is the key Jira answers with (an issue moved
// to another project answers with its new key). A malformed key is a
// *pipeline.InvalidError; a missing issue wraps pipeline.ErrNotFound; other
// failures are *UpstreamError wrapping pipeline.ErrUpstream.
//
// An acceptance criteria field that cannot be resolved does not fail the
// lookup: the issue comes back with the description only, and
// RequirementsWarnings says why.
func (c *Client) LookupIssue(ctx context.Context, key string) (pipeline.Issue, error) {
	key = strings.ToUpper(strings.TrimSpace(key))
	if !pipeline.IsIssueKey(key) {
		return pipeline.Issue{}, pipeline.Invalidf("key", "%q is not a Jira issue key", key)
	}
	ac, acErr := c.acceptanceFields(ctx)
	fields := append([]string{"summary", "status", "description"}, ac.ids...)
	raw, err := c.api.getIssue(ctx, key, fields)
	if err != nil {
		return pipeline.Issue{}, fmt.Errorf("get issue: %w", err)
	}
	if raw.Key == "" {
		raw.Key = key
	}
	iss := pipeline.Issue{
		Key:         raw.Key,
		Summary:     strings.TrimSpace(raw.Summary),
		Status:      raw.Status,
		Description: truncate(wikiToMarkdown(raw.Description), maxDescriptionChars),
		URL:         c.browseURL + url.PathEscape(raw.Key),
	}
	iss.CriteriaText = &pipeline.CriteriaText{Description: raw.Description}
	for _, id := range ac.ids {
		if t := strings.TrimSpace(fieldText(raw.Other[id])); t != "" {
			iss.AcceptanceCriteria = truncate(t, maxAcceptanceChars)
			iss.CriteriaText.Field, iss.CriteriaText.FieldID, iss.CriteriaText.FieldName = raw.Other[id], id, ac.names[id]
			break
		}
	}
	if acErr != nil {
		iss.RequirementsWarnings = append(iss.RequirementsWarnings,
			fmt.Sprintf("%s: acceptance criteria field not resolved (%v); criteria taken from the description", raw.Key, acErr))
	}
	return iss, nil
}

// MaxIssues is how many issues LookupIssues reads per call
// (PRSCOUT_JIRA_MAX_ISSUES), and the context stage per review
// (pipeline.IssueBound).
func (c *Client) MaxIssues() int { return c.maxIssues }

// Projects are the project keys whose issues link to a pull request
// (PRSCOUT_JIRA_PROJECTS, upper case; empty: any), for the context stage
// (pipeline.IssueProjects).
func (c *Client) Projects() []string { return append([]string(nil), c.projects...) }

// LookupIssues looks up the first MaxIssues distinct keys (upper-cased),
// three at a time, and returns the issues found in key order plus one
// warning per problem, worded like pipeline.LookupAll: "jira PROJ-1: not
// found", "jira PROJ-2: get issue: unreachable: ...", "jira: 2 more keys not
// looked up (limit 5): A-6, A-7". It never fails: a missing issue or an
// unreachable Jira must not fail a review.
func (c *Client) LookupIssues(ctx context.Context, keys []string) ([]pipeline.Issue, []string) {
	var distinct []string
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		k = strings.ToUpper(strings.TrimSpace(k))
		if k != "" && !seen[k] {
			seen[k] = true
			distinct = append(distinct, k)
		}
	}
	limit := c.maxIssues
	if limit <= 0 {
		limit = defaultMaxIssues
	}
	var rest []string
	if len(distinct) > limit {
		distinct, rest = distinct[:limit], distinct[limit:]
	}
	issues := make([]pipeline.Issue, len(distinct))
	errs := make([]error, len(distinct))
	var g errgroup.Group
	g.SetLimit(issueLookupParallel)
	for i, k := range distinct {
		g.Go(func() error {
			issues[i], errs[i] = c.LookupIssue(ctx, k)
			return nil
		})
	}
	_ = g.Wait()

	var found []pipeline.Issue
	var warnings []string
	for i, err := range errs {
		switch {
		case err == nil:
			found = append(found, issues[i])
		case errors.Is(err, pipeline.ErrNotFound):
			warnings = append(warnings, fmt.Sprintf("jira %s: not found", distinct[i]))
		default:
			warnings = append(warnings, fmt.Sprintf("jira %s: %v", distinct[i], err))
		}
	}
	if len(rest) > 0 {
		warnings = append(warnings, fmt.Sprintf("jira: %d more keys not looked up (limit %d): %s",
			len(rest), limit, strings.Join(rest, ", ")))
	}
	return found, warnings
}

// ResolveAcceptanceField returns the ids of the acceptance criteria field:
// none when it is AcceptanceFieldNone, the id itself when given as
// customfield_NNNNN, else every field whose name matches (Jira allows
// duplicate names; the first with a value wins). Call it at start-up to
// report a misconfigured PRSCOUT_JIRA_AC_FIELD early.
//
// The field list is fetched once per process: concurrent callers share one
// request (each waits at most until its own context ends, and no lock is held
// while it runs); a list that was read is kept, an unknown configured name
// included; an upstream failure is kept for fieldFailureTTL (or the
// Retry-After Jira asked for, up to fieldFailureMaxTTL) and then retried.
func (c *Client) ResolveAcceptanceField(ctx context.Context) ([]string, error) {
	ac, err := c.acceptanceFields(ctx)
	return ac.ids, err
}

func (c *Client) acceptanceFields(ctx context.Context) (acFields, error) {
	switch {
	case strings.EqualFold(c.acField, AcceptanceFieldNone):
		return acFields{}, nil
	case customFieldID.MatchString(c.acField):
		return acFields{ids: []string{c.acField}}, nil
	}
	if ac, err, ok := c.fields.cached(); ok {
		return ac, err
	}
	ch := c.fields.flight.DoChan("fields", func() (any, error) {
		if ac, err, ok := c.fields.cached(); ok {
			return ac, err
		}
		// Not the caller's cancellation: others may be waiting for this
		// fetch. The SDK client bounds it (Timeout per attempt, bounded
		// retries); the request id stays for the logs.
		list, err := c.api.listFields(context.WithoutCancel(ctx))
		if err != nil {
			return acFields{}, c.fields.fail(fmt.Errorf("list fields: %w", err))
		}
		ac, err := matchFields(list, c.acField)
		c.fields.store(ac, err)
		return ac, err
	})
	select {
	case r := <-ch:
		ac, _ := r.Val.(acFields)
		return ac, r.Err
	case <-ctx.Done():
		return acFields{}, fmt.Errorf("list fields: %w", ctx.Err())
	}
}

func (f *fieldCache) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

// cached returns the kept outcome, if any is still valid.
func (f *fieldCache) cached() (acFields, error, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return f.val, f.err, true
	}
	if f.failErr != nil {
		if now := f.clock(); now.Before(f.retryAt) {
			return acFields{}, fmt.Errorf("%w (kept; next try in %s)", f.failErr, f.retryAt.Sub(now).Round(time.Second)), true
		}
	}
	return acFields{}, nil, false
}

func (f *fieldCache) store(ac acFields, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done, f.val, f.err, f.failErr = true, ac, err, nil
}

// fail keeps an upstream failure until the next try and returns it.
func (f *fieldCache) fail(err error) error {
	ttl := fieldFailureTTL
	var ue *UpstreamError
	if errors.As(err, &ue) && ue.RetryAfter > ttl {
		ttl = min(ue.RetryAfter, fieldFailureMaxTTL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failErr, f.retryAt = err, f.clock().Add(ttl)
	return err
}

// acceptanceName matches the names the field is looked for by when none is
// configured: "Acceptance criteria", "Acceptance Criteria (Gherkin)",
// "acceptance-criterion", in any case.
var acceptanceName = regexp.MustCompile(`(?i)^acceptance[\s_-]+criteri(?:a|on)s?\b`)

// matchFields picks the acceptance criteria fields from the field list: by
// configured name or id, else by acceptanceName (exact "acceptance
// criteria" names first).
func matchFields(list []rawField, configured string) (acFields, error) {
	ac := acFields{names: map[string]string{}}
	add := func(f rawField) {
		if _, dup := ac.names[f.ID]; !dup {
			ac.ids = append(ac.ids, f.ID)
			ac.names[f.ID] = strings.TrimSpace(f.Name)
		}
	}
	if configured != "" {
		for _, f := range list {
			if strings.EqualFold(strings.TrimSpace(f.Name), configured) || f.ID == configured || (f.Key != "" && f.Key == configured) {
				add(f)
			}
		}
		if len(ac.ids) == 0 {
			return acFields{}, fmt.Errorf("PRSCOUT_JIRA_AC_FIELD %q: Jira has no field with that name or id", configured)
		}
		return ac, nil
	}
	for _, exact := range []bool{true, false} {
		for _, f := range list {
			name := strings.TrimSpace(f.Name)
			if acceptanceName.MatchString(name) && (strings.EqualFold(name, "acceptance criteria") == exact) {
				add(f)
			}
		}
	}
	return ac, nil
}
