package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// This file holds the port for the results prscout puts on a commit, beside
// its comments: a build status, and a Code Insights report with one
// annotation per finding. The values are Bitbucket Cloud's enums (the
// documented field values of its commit status and report API); an adapter
// for another host maps them.

// Build status states.
const (
	StatusInProgress = "INPROGRESS"
	StatusSuccessful = "SUCCESSFUL"
	StatusFailed     = "FAILED"
	StatusStopped    = "STOPPED"
)

// Report types.
const (
	ReportTypeSecurity = "SECURITY"
	ReportTypeCoverage = "COVERAGE"
	ReportTypeTest     = "TEST"
	ReportTypeBug      = "BUG"
)

// Report results.
const (
	ReportPassed  = "PASSED"
	ReportFailed  = "FAILED"
	ReportPending = "PENDING"
)

// Report datum types: how a host shows a ReportDatum's Value. BOOLEAN takes
// a bool; DATE a Unix time in milliseconds; DURATION milliseconds; NUMBER a
// number; PERCENTAGE a number from 0 to 100; TEXT a string; LINK a
// ReportLink.
const (
	DatumBoolean    = "BOOLEAN"
	DatumDate       = "DATE"
	DatumDuration   = "DURATION"
	DatumLink       = "LINK"
	DatumNumber     = "NUMBER"
	DatumPercentage = "PERCENTAGE"
	DatumText       = "TEXT"
)

// Annotation severities.
const (
	AnnotationCritical = "CRITICAL"
	AnnotationHigh     = "HIGH"
	AnnotationMedium   = "MEDIUM"
	AnnotationLow      = "LOW"
)

// Annotation types.
const (
	AnnotationBug           = "BUG"
	AnnotationVulnerability = "VULNERABILITY"
	AnnotationCodeSmell     = "CODE_SMELL"
)

// Annotation results.
const (
	AnnotationPassed  = "PASSED"
	AnnotationFailed  = "FAILED"
	AnnotationIgnored = "IGNORED"
	AnnotationSkipped = "SKIPPED"
)

// The longest build status key, name and url Bitbucket takes (400 "Ensure
// this value has at most N characters"); its published API description
// states none of them. docs/bitbucket-jira.md names the sources.
const (
	MaxStatusKey  = 40
	MaxStatusName = 255
	MaxStatusURL  = 450
)

// BuildStatus is a commit's build status for one key (prscout's is
// "prscout"); posting it again with the same key replaces it.
type BuildStatus struct {
	Key         string `json:"key"`
	State       string `json:"state"` // StatusInProgress, StatusSuccessful, StatusFailed or StatusStopped
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// URL is where the status links to (the review's summary comment).
	// Bitbucket refuses a status without a valid absolute URL.
	URL string `json:"url"`
	// RefName is the pull request's source branch: Bitbucket's API
	// description says a status is associated with a pull request only
	// when its refname is the source branch.
	RefName string `json:"refname,omitempty"`
}

// InsightsReport is a report on a commit (Bitbucket Code Insights).
type InsightsReport struct {
	Title      string        `json:"title"`
	Details    string        `json:"details,omitempty"`
	ReportType string        `json:"reportType"`       // ReportType*
	Result     string        `json:"result,omitempty"` // ReportPassed, ReportFailed or ReportPending
	Reporter   string        `json:"reporter,omitempty"`
	Data       []ReportDatum `json:"data,omitempty"`
	Link       string        `json:"link,omitempty"`
}

// ReportDatum is one key figure of a report.
type ReportDatum struct {
	Title string `json:"title"`
	Type  string `json:"type"` // Datum*
	Value any    `json:"value"`
}

// ReportLink is the value of a DatumLink datum.
type ReportLink struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

// Annotation is one finding of a report. ExternalID identifies it across
// runs (prscout uses the finding's fingerprint), so posting the same
// annotation again updates it instead of adding a second one.
type Annotation struct {
	ExternalID     string `json:"externalId"`
	Path           string `json:"path,omitempty"`
	Line           int    `json:"line,omitempty"` // 0: no line (a file-level or unanchored finding)
	Summary        string `json:"summary"`
	Details        string `json:"details,omitempty"`
	Severity       string `json:"severity,omitempty"` // Annotation{Critical,High,Medium,Low}
	AnnotationType string `json:"annotationType"`     // AnnotationBug, AnnotationVulnerability or AnnotationCodeSmell
	Result         string `json:"result,omitempty"`   // Annotation{Passed,Failed,Ignored,Skipped}
	Link           string `json:"link,omitempty"`
}

// MaxAnnotationSummary is the longest annotation summary Bitbucket takes:
// a longer one is refused with 400 "The summary field cannot contain more
// than 450 characters." together with every annotation of its request. The
// published API description gives no limit; the answer is Bitbucket's own.
const MaxAnnotationSummary = 450

// Fit shortens a summary longer than MaxAnnotationSummary at a word, with
// "…", and moves the cut text to the start of the details, so nothing is
// lost and the host takes the annotation.
func (a Annotation) Fit() Annotation {
	head, rest := CutAtWord(strings.TrimSpace(a.Summary), MaxAnnotationSummary)
	if rest == "" {
		return a
	}
	a.Summary = head
	if d := strings.TrimSpace(a.Details); d != "" {
		rest += "\n\n" + d
	}
	a.Details = "…" + rest
	return a
}

// PutReportResult says what PutReport did with the annotations.
type PutReportResult struct {
	// Annotations is how many annotations the report holds now.
	Annotations int `json:"annotations"`
	// Omitted is how many were not sent because the host keeps fewer per
	// report (Bitbucket: 1,000); the least severe are left out, and the
	// report's details say so.
	Omitted int `json:"omitted"`
	// Stale is how many annotations of an earlier run on the same commit
	// were removed because their finding is gone.
	Stale int `json:"stale"`
	// Warnings say, in words, what was left out or dropped.
	Warnings []string `json:"warnings"`
}

// CommitReporter puts prscout's results on a commit. Implementations wrap
// ErrMissingScope when the credentials may not write these results (a
// token without the scope): callers warn and go on instead of failing the
// review.
type CommitReporter interface {
	// SetBuildStatus creates or replaces the commit's build status s.Key.
	SetBuildStatus(ctx context.Context, repo Repo, commit string, s BuildStatus) error
	// PutReport creates or replaces the commit's report key and makes its
	// annotations exactly the given ones: annotations are upserted by
	// ExternalID, and those of an earlier run that are not given again are
	// removed, so a re-run on the same commit leaves one report with the
	// same annotations. Annotations past the host's per-report limit are
	// not sent (see PutReportResult.Omitted).
	PutReport(ctx context.Context, repo Repo, commit, key string, r InsightsReport, annotations []Annotation) (PutReportResult, error)
}

// ErrMissingScope marks a refusal because the credentials lack a scope or
// permission needed to write a build status or a report. It is a warning
// for the review, never a failure.
var ErrMissingScope = errors.New("credentials lack the required scope")

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// Validate checks the status before it is sent, naming the field at fault.
func (s BuildStatus) Validate() error {
	switch {
	case strings.TrimSpace(s.Key) == "":
		return Invalidf("key", "required")
	case !oneOf(s.State, StatusInProgress, StatusSuccessful, StatusFailed, StatusStopped):
		return Invalidf("state", "%q is not INPROGRESS, SUCCESSFUL, FAILED or STOPPED", s.State)
	case !isAbsURL(s.URL):
		return Invalidf("url", "required: an absolute http(s) URL, got %q", ClipRunes(s.URL, 80))
	case RuneCount(s.Key) > MaxStatusKey:
		return Invalidf("key", "more than %d characters", MaxStatusKey)
	case RuneCount(s.Name) > MaxStatusName:
		return Invalidf("name", "more than %d characters", MaxStatusName)
	case RuneCount(s.URL) > MaxStatusURL:
		return Invalidf("url", "more than %d characters", MaxStatusURL)
	}
	return nil
}

// Validate checks the report before it is sent, naming the field at fault.
func (r InsightsReport) Validate() error {
	switch {
	case strings.TrimSpace(r.Title) == "":
		return Invalidf("title", "required")
	case !oneOf(r.ReportType, ReportTypeSecurity, ReportTypeCoverage, ReportTypeTest, ReportTypeBug):
		return Invalidf("reportType", "%q is not SECURITY, COVERAGE, TEST or BUG", r.ReportType)
	case r.Result != "" && !oneOf(r.Result, ReportPassed, ReportFailed, ReportPending):
		return Invalidf("result", "%q is not PASSED, FAILED or PENDING", r.Result)
	case r.Link != "" && !isAbsURL(r.Link):
		return Invalidf("link", "%q is not an absolute http(s) URL", ClipRunes(r.Link, 80))
	}
	for i, d := range r.Data {
		if err := d.validate(); err != nil {
			var ie *InvalidError
			if errors.As(err, &ie) {
				ie.Field = fmt.Sprintf("data[%d].%s", i, ie.Field)
			}
			return err
		}
	}
	return nil
}

func (d ReportDatum) validate() error {
	if strings.TrimSpace(d.Title) == "" {
		return Invalidf("title", "required")
	}
	ok := false
	switch d.Type {
	case DatumBoolean:
		_, ok = d.Value.(bool)
	case DatumDate, DatumDuration, DatumNumber:
		_, ok = number(d.Value)
	case DatumPercentage:
		n, isNum := number(d.Value)
		ok = isNum && n >= 0 && n <= 100
	case DatumText:
		_, ok = d.Value.(string)
	case DatumLink:
		switch l := d.Value.(type) {
		case ReportLink:
			ok = isAbsURL(l.Href)
		case *ReportLink:
			ok = l != nil && isAbsURL(l.Href)
		}
	default:
		return Invalidf("type", "%q is not BOOLEAN, DATE, DURATION, LINK, NUMBER, PERCENTAGE or TEXT", d.Type)
	}
	if !ok {
		return Invalidf("value", "%T does not fit type %s", d.Value, d.Type)
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case float32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// Validate checks one annotation before it is sent, naming the field at fault.
func (a Annotation) Validate() error {
	switch {
	case strings.TrimSpace(a.ExternalID) == "":
		return Invalidf("externalId", "required")
	case strings.TrimSpace(a.Summary) == "":
		return Invalidf("summary", "required")
	case RuneCount(a.Summary) > MaxAnnotationSummary:
		return Invalidf("summary", "%d characters, more than %d (Fit shortens it)", RuneCount(a.Summary), MaxAnnotationSummary)
	case !oneOf(a.AnnotationType, AnnotationBug, AnnotationVulnerability, AnnotationCodeSmell):
		return Invalidf("annotationType", "%q is not BUG, VULNERABILITY or CODE_SMELL", a.AnnotationType)
	case a.Severity != "" && !oneOf(a.Severity, AnnotationCritical, AnnotationHigh, AnnotationMedium, AnnotationLow):
		return Invalidf("severity", "%q is not CRITICAL, HIGH, MEDIUM or LOW", a.Severity)
	case a.Result != "" && !oneOf(a.Result, AnnotationPassed, AnnotationFailed, AnnotationIgnored, AnnotationSkipped):
		return Invalidf("result", "%q is not PASSED, FAILED, IGNORED or SKIPPED", a.Result)
	case a.Line < 0:
		return Invalidf("line", "must not be negative, got %d", a.Line)
	case a.Line > 0 && strings.TrimSpace(a.Path) == "":
		return Invalidf("path", "required with a line")
	case a.Link != "" && !isAbsURL(a.Link):
		return Invalidf("link", "%q is not an absolute http(s) URL", ClipRunes(a.Link, 80))
	}
	return nil
}

// isAbsURL reports whether s looks like an absolute http(s) URL with a host
// (no net/url here: the package does no I/O and needs no full parse).
func isAbsURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "http://")
	}
	if !ok || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	return host != "" && host[0] != ':' && host[0] != '?' && host[0] != '#'
}

// ReportFinding is one rendered finding as the commit surfaces carry it
// (report annotations, SARIF results): where it landed and its fingerprint.
type ReportFinding struct {
	Path string `json:"path"`
	// Line is the new-file line the finding is anchored on; 0 when it is
	// not on a line of the diff (file-level or unanchored).
	Line        int    `json:"line,omitempty"`
	Severity    string `json:"severity"` // critical, high, medium, low
	Title       string `json:"title"`
	Body        string `json:"body,omitempty"`
	Fingerprint string `json:"fingerprint"`
}
