package bitbucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// This file implements pipeline.CommitReporter: the commit build status
// and the Code Insights report with its annotations. Every call is an own
// net/http request through the adapter's transport (retries, observer,
// logging); go-bitbucket has no Code Insights API and its build status call
// takes no context.

// Bitbucket's documented Code Insights limits: "You can upload up to 100
// annotations per POST request" and "a report can contain up to 1000
// annotations".
const (
	annotationsPerRequest = 100
	annotationsPerReport  = 1000
)

// InsightsOperations lists the Observer operation names of the calls in
// this file, for pre-initialising metric label values beside Operations.
var InsightsOperations = []string{"set_status", "put_report", "list_annotations", "delete_annotation", "post_annotations"}

var _ pipeline.CommitReporter = (*Client)(nil)

// MissingScopeError is Bitbucket's 403 for credentials that lack a scope
// the call needs ("Your credentials lack one or more required privilege
// scopes.", with the required scopes in error.detail). It unwraps to
// pipeline.ErrMissingScope and to the *UnexpectedResponseError.
type MissingScopeError struct {
	Op       string
	Required []string // the scopes Bitbucket named, when it did
	Err      *UnexpectedResponseError
}

func (e *MissingScopeError) Error() string {
	s := fmt.Sprintf("bitbucket %s: 403: the credentials lack a required scope", e.Op)
	if len(e.Required) > 0 {
		s += " (" + strings.Join(e.Required, ", ") + ")"
	}
	if msg := errorMessage(e.Err.Body); msg != "" {
		s += ": " + msg
	}
	return s
}

// Unwrap gives pipeline.ErrMissingScope and the upstream answer.
func (e *MissingScopeError) Unwrap() []error { return []error{pipeline.ErrMissingScope, e.Err} }

// scopeError turns a 403 whose body speaks of scopes into a
// *MissingScopeError; other errors pass unchanged.
func scopeError(err error) error {
	var ue *UnexpectedResponseError
	if !errors.As(err, &ue) || ue.Status != http.StatusForbidden || !strings.Contains(strings.ToLower(ue.Body), "scope") {
		return err
	}
	e := &MissingScopeError{Op: ue.Op, Err: ue}
	var body struct {
		Error struct {
			Detail json.RawMessage `json:"detail"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(ue.Body), &body) != nil {
		return e
	}
	// The API description's detail is a string ("Required scopes: ...");
	// scope errors have also sent {"required": [...], "granted": [...]}.
	var obj struct {
		Required []string `json:"required"`
	}
	var text string
	switch {
	case json.Unmarshal(body.Error.Detail, &obj) == nil:
		e.Required = obj.Required
	case json.Unmarshal(body.Error.Detail, &text) == nil:
		if _, after, ok := strings.Cut(text, "equired"); ok {
			text = after
		}
		text, _, _ = strings.Cut(text, "ranted")
		e.Required = scopeNames.FindAllString(text, -1)
	}
	return e
}

// scopeNames matches scope names in a detail text: granular ones
// (write:repository:bitbucket) and the legacy single words Bitbucket
// lists (repository:write, pullrequest).
var scopeNames = regexp.MustCompile(`\b[a-z]+(?::[a-z]+){1,2}\b`)

// isMissingScope reports whether err is a 403 for a missing scope.
func isMissingScope(err error) bool { return errors.Is(err, pipeline.ErrMissingScope) }

// Wire shapes of the statuses and Code Insights API. Each carries the
// `type` the API description's base object requires of every status,
// report and annotation ("build", "report", "report_annotation": the
// types Bitbucket answers them with).
type (
	wireStatus struct {
		Type        string `json:"type"`
		Key         string `json:"key"`
		State       string `json:"state"`
		Name        string `json:"name,omitempty"`
		Description string `json:"description,omitempty"`
		URL         string `json:"url"`
		RefName     string `json:"refname,omitempty"`
	}
	wireDatum struct {
		Title string `json:"title"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	wireReport struct {
		Type       string      `json:"type"`
		Title      string      `json:"title"`
		Details    string      `json:"details,omitempty"`
		ReportType string      `json:"report_type"`
		Result     string      `json:"result,omitempty"`
		Reporter   string      `json:"reporter,omitempty"`
		Link       string      `json:"link,omitempty"`
		Data       []wireDatum `json:"data,omitempty"`
	}
	wireAnnotation struct {
		Type           string `json:"type"`
		ExternalID     string `json:"external_id"`
		UUID           string `json:"uuid,omitempty"`
		Path           string `json:"path,omitempty"`
		Line           int    `json:"line,omitempty"`
		Summary        string `json:"summary"`
		Details        string `json:"details,omitempty"`
		Severity       string `json:"severity,omitempty"`
		AnnotationType string `json:"annotation_type"`
		Result         string `json:"result,omitempty"`
		Link           string `json:"link,omitempty"`
	}
)

// insightsAPI is the HTTP seam of this file, like apiClient for the rest.
type insightsAPI interface {
	setStatus(ctx context.Context, repo pipeline.Repo, commit string, s wireStatus) error
	putReport(ctx context.Context, repo pipeline.Repo, commit, key string, r wireReport) error
	annotationsPage(ctx context.Context, repo pipeline.Repo, commit, key, next string) (page[wireAnnotation], error)
	deleteAnnotation(ctx context.Context, repo pipeline.Repo, commit, key, id string) error
	postAnnotations(ctx context.Context, repo pipeline.Repo, commit, key string, batch []wireAnnotation) error
}

var _ insightsAPI = (*httpAPI)(nil)

// setStatus calls POST /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build.
func (a *httpAPI) setStatus(ctx context.Context, repo pipeline.Repo, commit string, s wireStatus) error {
	_, err := a.do(ctx, "set_status", http.MethodPost, a.repoURL(repo, "commit", url.PathEscape(commit), "statuses", "build"), s, a.maxJSON)
	return err
}

// putReport calls PUT /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}.
func (a *httpAPI) putReport(ctx context.Context, repo pipeline.Repo, commit, key string, r wireReport) error {
	_, err := a.do(ctx, "put_report", http.MethodPut, a.repoURL(repo, "commit", url.PathEscape(commit), "reports", url.PathEscape(key)), r, a.maxJSON)
	return err
}

// annotationsPage calls GET .../commit/{commit}/reports/{reportId}/annotations or its `next` link.
func (a *httpAPI) annotationsPage(ctx context.Context, repo pipeline.Repo, commit, key, next string) (page[wireAnnotation], error) {
	var p page[wireAnnotation]
	u := next
	if u == "" {
		u = a.repoURL(repo, "commit", url.PathEscape(commit), "reports", url.PathEscape(key), "annotations") + "?pagelen=" + strconv.Itoa(a.pagelen)
	}
	err := a.getJSON(ctx, "list_annotations", u, &p)
	return p, err
}

// deleteAnnotation calls DELETE .../commit/{commit}/reports/{reportId}/annotations/{annotationId} (204).
func (a *httpAPI) deleteAnnotation(ctx context.Context, repo pipeline.Repo, commit, key, id string) error {
	_, err := a.do(ctx, "delete_annotation", http.MethodDelete,
		a.repoURL(repo, "commit", url.PathEscape(commit), "reports", url.PathEscape(key), "annotations", url.PathEscape(id)), nil, a.maxJSON)
	return err
}

// postAnnotations calls POST .../commit/{commit}/reports/{reportId}/annotations
// with at most annotationsPerRequest annotations (the bulk upsert by external_id).
func (a *httpAPI) postAnnotations(ctx context.Context, repo pipeline.Repo, commit, key string, batch []wireAnnotation) error {
	_, err := a.do(ctx, "post_annotations", http.MethodPost,
		a.repoURL(repo, "commit", url.PathEscape(commit), "reports", url.PathEscape(key), "annotations"), batch, a.maxJSON)
	return err
}

func (c *Client) insights() (insightsAPI, error) {
	ia, ok := c.api.(insightsAPI)
	if !ok {
		return nil, errors.New("bitbucket: this client cannot write statuses or reports")
	}
	return ia, nil
}

// SetBuildStatus creates or replaces the commit's build status s.Key: POST
// /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build.
// Bitbucket requires a valid absolute URL (s.URL). A token without the
// scope gives an error wrapping pipeline.ErrMissingScope (*MissingScopeError).
func (c *Client) SetBuildStatus(ctx context.Context, repo pipeline.Repo, commit string, s pipeline.BuildStatus) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	if err := checkRev("commit", commit); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	ia, err := c.insights()
	if err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	w := wireStatus{Type: "build", Key: s.Key, State: s.State, Name: s.Name, Description: s.Description, URL: s.URL, RefName: s.RefName}
	if err := ia.setStatus(ctx, repo, commit, w); err != nil {
		return fmt.Errorf("set build status %s on %s: %w", s.Key, commit, scopeError(err))
	}
	return nil
}

// PutReport creates or replaces the commit's Code Insights report key and
// makes its annotations exactly the given ones:
//
//  1. PUT /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{key};
//  2. GET .../reports/{key}/annotations (all pages), and DELETE
//     .../annotations/{external_id} for each one not given again (a finding
//     of an earlier run on this commit that is gone). Bitbucket does not
//     document whether a PUT keeps a report's annotations; this step makes
//     the result the same either way. A re-run with the same findings
//     deletes nothing;
//  3. POST .../reports/{key}/annotations in batches of at most
//     annotationsPerRequest: Bitbucket upserts by external_id, so posting
//     the same annotations again changes nothing.
//
// A report keeps at most annotationsPerReport annotations: past that, the
// least severe are not sent, the report's details say how many, and so do
// PutReportResult.Omitted and its warnings. Annotations repeating an earlier
// one's external id are dropped with a warning. A token without the scope
// gives an error wrapping pipeline.ErrMissingScope. A summary longer than
// Bitbucket takes is cut at a word, the rest leading its details
// (pipeline.Annotation.Fit).
func (c *Client) PutReport(ctx context.Context, repo pipeline.Repo, commit, key string, r pipeline.InsightsReport, annotations []pipeline.Annotation) (pipeline.PutReportResult, error) {
	res := pipeline.PutReportResult{Warnings: []string{}}
	if err := checkRepo(repo); err != nil {
		return res, err
	}
	if err := checkRev("commit", commit); err != nil {
		return res, err
	}
	if !namePattern.MatchString(key) {
		return res, pipeline.Invalidf("key", "invalid report id %q: letters, digits, '.', '_' and '-'", key)
	}
	if err := r.Validate(); err != nil {
		return res, err
	}
	keep := make([]pipeline.Annotation, 0, len(annotations))
	seen := map[string]bool{}
	for i, a := range annotations {
		a = a.Fit()
		if err := a.Validate(); err != nil {
			var ie *pipeline.InvalidError
			if errors.As(err, &ie) {
				ie.Field = fmt.Sprintf("annotations[%d].%s", i, ie.Field)
			}
			return res, err
		}
		if seen[a.ExternalID] {
			res.Warnings = append(res.Warnings, fmt.Sprintf("annotations[%d] repeats external id %s: dropped", i, a.ExternalID))
			continue
		}
		seen[a.ExternalID] = true
		keep = append(keep, a)
	}
	keep, res.Omitted = capAnnotations(keep, annotationsPerReport)
	if res.Omitted > 0 {
		note := fmt.Sprintf("%d of %d findings not annotated: Bitbucket keeps at most %d annotations per report; the least severe are left out",
			res.Omitted, len(keep)+res.Omitted, annotationsPerReport)
		if r.Details != "" {
			r.Details += " · "
		}
		r.Details += note
		res.Warnings = append(res.Warnings, note)
	}
	ia, err := c.insights()
	if err != nil {
		return res, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()

	if err := ia.putReport(ctx, repo, commit, key, toWireReport(r)); err != nil {
		return res, fmt.Errorf("put report %s on %s: %w", key, commit, scopeError(err))
	}

	wanted := make(map[string]bool, len(keep))
	for _, a := range keep {
		wanted[a.ExternalID] = true
	}
	var stale []string
	err = walk(func(next string) (string, error) {
		p, err := ia.annotationsPage(ctx, repo, commit, key, next)
		for _, v := range p.Values {
			switch {
			case v.ExternalID != "" && !wanted[v.ExternalID]:
				stale = append(stale, v.ExternalID)
			case v.ExternalID == "" && v.UUID != "":
				stale = append(stale, v.UUID) // not ours to keep: prscout always sets an external id
			}
		}
		return p.Next, err
	})
	if err != nil {
		return res, fmt.Errorf("list annotations of report %s on %s: %w", key, commit, scopeError(err))
	}
	for _, id := range stale {
		if err := ia.deleteAnnotation(ctx, repo, commit, key, id); err != nil && !isNotFound(err) {
			return res, fmt.Errorf("delete stale annotation %s of report %s: %w", id, key, scopeError(err))
		}
		res.Stale++
	}

	for start := 0; start < len(keep); start += annotationsPerRequest {
		batch := keep[start:min(start+annotationsPerRequest, len(keep))]
		wire := make([]wireAnnotation, len(batch))
		for i, a := range batch {
			wire[i] = wireAnnotation{
				Type: "report_annotation", ExternalID: a.ExternalID, Path: a.Path, Line: a.Line, Summary: a.Summary, Details: a.Details,
				Severity: a.Severity, AnnotationType: a.AnnotationType, Result: a.Result, Link: a.Link,
			}
		}
		if err := ia.postAnnotations(ctx, repo, commit, key, wire); err != nil {
			return res, fmt.Errorf("post annotations %d-%d of report %s on %s: %w", start+1, start+len(batch), key, commit, scopeError(err))
		}
		res.Annotations += len(batch)
	}
	return res, nil
}

func toWireReport(r pipeline.InsightsReport) wireReport {
	w := wireReport{Type: "report", Title: r.Title, Details: r.Details, ReportType: r.ReportType, Result: r.Result, Reporter: r.Reporter, Link: r.Link}
	for _, d := range r.Data {
		w.Data = append(w.Data, wireDatum{Title: d.Title, Type: d.Type, Value: d.Value})
	}
	return w
}

// severityRank orders annotations most severe first.
func severityRank(s string) int {
	switch s {
	case pipeline.AnnotationCritical:
		return 0
	case pipeline.AnnotationHigh:
		return 1
	case pipeline.AnnotationMedium:
		return 2
	case pipeline.AnnotationLow:
		return 3
	}
	return 4
}

// capAnnotations keeps at most n annotations, the most severe, in their
// given order otherwise, and returns how many it left out.
func capAnnotations(in []pipeline.Annotation, n int) ([]pipeline.Annotation, int) {
	if len(in) <= n {
		return in, 0
	}
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return severityRank(in[a].Severity) - severityRank(in[b].Severity) })
	chosen := order[:n]
	slices.Sort(chosen)
	out := make([]pipeline.Annotation, 0, n)
	for _, i := range chosen {
		out = append(out, in[i])
	}
	return out, len(in) - n
}

// PipelinesProxyURL is the proxy Bitbucket Pipelines runs beside every step
// (localhost:29418); it adds the credentials to Code Insights report calls,
// so a step needs no token of its own. Inside a pipe's container it is
// reached as host.docker.internal:29418 instead.
const PipelinesProxyURL = "http://localhost:29418"

// PipelinesConfig returns a Config that sends every request through the
// Pipelines proxy at proxy (PipelinesProxyURL when "") to the API root over
// plain http, as Bitbucket's Code Insights documentation shows it, and
// sends no credentials of its own: the proxy adds them. The documentation
// names report calls; whether the proxy also authenticates build status
// calls is not documented.
func PipelinesConfig(proxy string) (Config, error) {
	if proxy == "" {
		proxy = PipelinesProxyURL
	}
	pu, err := url.Parse(proxy)
	if err != nil || pu.Scheme != "http" || pu.Host == "" {
		return Config{}, fmt.Errorf("pipelines proxy must be an http://host:port URL, got %q", proxy)
	}
	api, _ := url.Parse(DefaultBaseURL)
	api.Scheme = "http"
	return Config{
		BaseURL: api.String(),
		// New needs credentials; this placeholder never leaves the
		// process: stripAuth removes the header before the proxy.
		AccessToken: "pipelines-proxy",
		HTTPClient:  &http.Client{Transport: stripAuth{next: &http.Transport{Proxy: http.ProxyURL(pu)}}},
	}, nil
}

// stripAuth removes the Authorization header, so the proxy's credentials
// are the only ones.
type stripAuth struct{ next http.RoundTripper }

func (s stripAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") != "" {
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
	}
	return s.next.RoundTrip(r)
}
