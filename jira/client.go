// Package jira implements pipeline.IssueLookup on Jira Cloud and Jira Data
// Center through github.com/andygrunwald/go-jira v1.16.0 (REST API v2).
//
// It calls two endpoints:
//   - GET rest/api/2/issue/{key}?fields=summary,status,description[,<acceptance criteria field>]
//     https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issues/#api-rest-api-2-issue-issueidorkey-get
//   - GET rest/api/2/field, once, when the acceptance criteria field is given by name
//     https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issue-fields/#api-rest-api-2-field-get
//
// Cloud authenticates with HTTP Basic (account email and API token), Data
// Center with a personal access token (Bearer). 429 and 5xx answers other
// than 500 are retried within bounds, honouring Retry-After (package retry). Key extraction and the
// "failures are warnings" policy live in pipeline (ExtractKeys, LookupAll).
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

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// Defaults for a zero Config.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultMaxRetries = 2
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
	// case-insensitively through GET rest/api/2/field). Empty: none.
	AcceptanceField string
	// Timeout bounds each HTTP attempt (also set as http.Client.Timeout when
	// the client has none). 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how often a 429 or 5xx (other than 500) is retried; 0
	// means DefaultMaxRetries, negative means never.
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

	mu       sync.Mutex
	resolved bool
	acIDs    []string
	acErr    error
}

var _ pipeline.IssueLookup = (*Client)(nil)

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
		timeout = DefaultTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
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
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// LookupIssue reads one issue by key (any case): summary, status name,
// description (wiki markup lightly turned into Markdown, at most
// MaxDescriptionChars) and acceptance criteria (at most MaxAcceptanceChars).
// Issue.Key is the key Jira answers with (an issue moved to another project
// answers with its new key). A malformed key is a *pipeline.InvalidError; a
// missing issue wraps pipeline.ErrNotFound; other failures are
// *UpstreamError wrapping pipeline.ErrUpstream.
//
// An acceptance criteria field that cannot be resolved does not fail the
// lookup: the issue comes back without criteria (ResolveAcceptanceField
// tells why).
func (c *Client) LookupIssue(ctx context.Context, key string) (pipeline.Issue, error) {
	key = strings.ToUpper(strings.TrimSpace(key))
	if !pipeline.IsIssueKey(key) {
		return pipeline.Issue{}, pipeline.Invalidf("key", "%q is not a Jira issue key", key)
	}
	acIDs, _ := c.ResolveAcceptanceField(ctx)
	fields := append([]string{"summary", "status", "description"}, acIDs...)
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
		Description: truncate(wikiToMarkdown(raw.Description), MaxDescriptionChars),
		URL:         c.browseURL + url.PathEscape(raw.Key),
	}
	for _, id := range acIDs {
		if t := strings.TrimSpace(fieldText(raw.Other[id])); t != "" {
			iss.AcceptanceCriteria = truncate(t, MaxAcceptanceChars)
			break
		}
	}
	return iss, nil
}

// ResolveAcceptanceField returns the ids of the acceptance criteria field:
// none when not configured, the id itself when given as customfield_NNNNN,
// else every field whose name matches (Jira allows duplicate names; the first
// with a value wins). The field list is fetched once; an upstream failure is
// not cached, an unknown name is. Concurrent callers wait for the one fetch
// (bounded by Timeout and the retry bounds). Call it at start-up to report a
// misconfigured PRSCOUT_JIRA_AC_FIELD early.
func (c *Client) ResolveAcceptanceField(ctx context.Context) ([]string, error) {
	if c.acField == "" {
		return nil, nil
	}
	if customFieldID.MatchString(c.acField) {
		return []string{c.acField}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resolved {
		return c.acIDs, c.acErr
	}
	list, err := c.api.listFields(ctx)
	if err != nil {
		return nil, fmt.Errorf("list fields: %w", err)
	}
	var ids []string
	for _, f := range list {
		if strings.EqualFold(strings.TrimSpace(f.Name), c.acField) || f.ID == c.acField || (f.Key != "" && f.Key == c.acField) {
			ids = append(ids, f.ID)
		}
	}
	c.resolved, c.acIDs = true, ids
	if len(ids) == 0 {
		c.acErr = fmt.Errorf("PRSCOUT_JIRA_AC_FIELD %q: Jira has no field with that name or id", c.acField)
	}
	return c.acIDs, c.acErr
}
