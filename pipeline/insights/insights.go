// Package insights builds the results prscout puts on a pull request's head
// commit beside its comments: the build status "prscout" (SUCCESSFUL or
// FAILED by a severity threshold, PRSCOUT_FAIL_ON) and the Code Insights
// report "prscout" with one annotation per finding. The builders are pure;
// publish.go sends what they build through the pipeline.CommitReporter port
// (the adapters implement it) and turns refusals into warnings.
package insights

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// Key is the key of prscout's build status and the id of its report.
const Key = "prscout"

// Fail-on thresholds (PRSCOUT_FAIL_ON): a review fails when it has a
// finding at the threshold's severity or above. FailOnNone never fails.
const (
	FailOnNone     = "none"
	FailOnCritical = "critical"
	FailOnHigh     = "high"
	FailOnMedium   = "medium"
)

// Severities, most severe first (the review's lower-case names).
var Severities = []string{"critical", "high", "medium", "low"}

// ParseFailOn reads a PRSCOUT_FAIL_ON value: none, critical, high or medium,
// any case; "" is none.
func ParseFailOn(s string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "":
		return FailOnNone, nil
	case FailOnNone, FailOnCritical, FailOnHigh, FailOnMedium:
		return v, nil
	}
	return "", fmt.Errorf("PRSCOUT_FAIL_ON must be none, critical, high or medium, got %q", s)
}

// ThresholdFails reports whether findings counted by severity (critical,
// high, medium, low) fail the threshold failOn: "critical" fails on any
// critical finding, "high" on high or critical, "medium" on medium and
// above; "none" (or "") never fails. An unknown threshold fails closed on
// any critical or high finding, the same as "high".
func ThresholdFails(failOn string, counts map[string]int) bool {
	var upTo int
	switch strings.ToLower(strings.TrimSpace(failOn)) {
	case "", FailOnNone:
		return false
	case FailOnCritical:
		upTo = 0
	case FailOnMedium:
		upTo = 2
	default: // FailOnHigh, and unknown values
		upTo = 1
	}
	for _, s := range Severities[:upTo+1] {
		if counts[s] > 0 {
			return true
		}
	}
	return false
}

// Count counts findings by severity; every severity key is present.
func Count(findings []pipeline.ReportFinding) map[string]int {
	c := map[string]int{"critical": 0, "high": 0, "medium": 0, "low": 0}
	for _, f := range findings {
		c[severityOf(f.Severity)]++
	}
	return c
}

// severityOf maps a finding's severity to one of Severities (medium when
// unknown, like the review parser's default).
func severityOf(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, k := range Severities {
		if s == k {
			return k
		}
	}
	return "medium"
}

// Description is the one-line result people see on the build status and in
// the report, e.g. "2 high, 1 medium · 14 of 15 files reviewed", or
// "no findings · 15 of 15 files reviewed". Severities without findings are
// left out; a coverage without changed files is left out.
func Description(counts map[string]int, cov pipeline.Coverage) string {
	var parts []string
	for _, s := range Severities {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	out := "no findings"
	if len(parts) > 0 {
		out = strings.Join(parts, ", ")
	}
	if cov.Changed > 0 {
		out += fmt.Sprintf(" · %d of %d files reviewed", cov.Reviewed, cov.Changed)
	}
	return out
}

// State is the build status state for a finished review.
func State(failOn string, counts map[string]int) string {
	if ThresholdFails(failOn, counts) {
		return pipeline.StatusFailed
	}
	return pipeline.StatusSuccessful
}

// InProgress is the status /v1/context sets when a full or delta review
// starts. A review that dies before /v1/comments leaves it until the next
// review of the head replaces it, or the workflow's error path calls Stopped.
func InProgress(url string) pipeline.BuildStatus {
	return pipeline.BuildStatus{Key: Key, State: pipeline.StatusInProgress, Name: "prscout review", Description: "review in progress", URL: url}
}

// stopped is the status a workflow's error path sets so that a review that
// failed does not stay INPROGRESS; reason says why, in a few words.
func stopped(url, reason string) pipeline.BuildStatus {
	d := "review stopped"
	if r := strings.TrimSpace(reason); r != "" {
		d += ": " + r
	}
	return pipeline.BuildStatus{Key: Key, State: pipeline.StatusStopped, Name: "prscout review", Description: clip(d, maxDescription), URL: url}
}

// Finished is the status of a review whose comments were posted: url links
// to the summary comment.
func Finished(url, failOn string, counts map[string]int, notMet int, cov pipeline.Coverage) pipeline.BuildStatus {
	return pipeline.BuildStatus{
		Key: Key, State: State(failOn, WithNotMet(counts, notMet)), Name: "prscout review",
		Description: clip(criteriaNote(Description(counts, cov), notMet), maxDescription), URL: url,
	}
}

// WithNotMet counts each acceptance criterion the review judged not met as
// one more high finding: a change that fails its ticket fails the threshold
// like one with a high finding.
func WithNotMet(counts map[string]int, notMet int) map[string]int {
	if notMet <= 0 {
		return counts
	}
	out := make(map[string]int, len(counts))
	for k, v := range counts {
		out[k] = v
	}
	out["high"] += notMet
	return out
}

// criteriaNote adds the not-met criteria to a description line.
func criteriaNote(desc string, notMet int) string {
	switch {
	case notMet == 1:
		return desc + " · 1 criterion not met"
	case notMet > 1:
		return fmt.Sprintf("%s · %d criteria not met", desc, notMet)
	}
	return desc
}

// maxDescription keeps a status description to one short line (Bitbucket
// shows it in the pull request's build list).
const maxDescription = 255

// ReportOptions add what the report shows besides the findings.
type ReportOptions struct {
	FailOn   string
	Coverage pipeline.Coverage
	Mode     string   // full or delta
	Models   []string // model names, when the workflow passes them
	Link     string   // the summary comment
	NotMet   int      // acceptance criteria judged not met (count as high)
}

// Report is the Code Insights report of a review: PASSED or FAILED by the
// same threshold as the build status, the description line as details, and
// data: findings per severity, files reviewed, mode and models.
func Report(findings []pipeline.ReportFinding, opt ReportOptions) pipeline.InsightsReport {
	counts := Count(findings)
	r := pipeline.InsightsReport{
		Title: "prscout review", Details: criteriaNote(Description(counts, opt.Coverage), opt.NotMet),
		ReportType: pipeline.ReportTypeBug, Result: pipeline.ReportPassed, Reporter: "prscout", Link: opt.Link,
	}
	if ThresholdFails(opt.FailOn, WithNotMet(counts, opt.NotMet)) {
		r.Result = pipeline.ReportFailed
	}
	for _, s := range Severities {
		r.Data = append(r.Data, pipeline.ReportDatum{Title: strings.ToUpper(s[:1]) + s[1:], Type: pipeline.DatumNumber, Value: counts[s]})
	}
	if opt.Coverage.Changed > 0 {
		r.Data = append(r.Data, pipeline.ReportDatum{Title: "Files reviewed", Type: pipeline.DatumText,
			Value: fmt.Sprintf("%d of %d", opt.Coverage.Reviewed, opt.Coverage.Changed)})
	}
	if m := strings.TrimSpace(opt.Mode); m != "" {
		r.Data = append(r.Data, pipeline.ReportDatum{Title: "Mode", Type: pipeline.DatumText, Value: m})
	}
	var models []string
	for _, m := range opt.Models {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	if len(models) > 0 {
		r.Data = append(r.Data, pipeline.ReportDatum{Title: "Models", Type: pipeline.DatumText, Value: strings.Join(models, ", ")})
	}
	return r
}

// annotationSeverity maps a finding's severity to the report's.
func annotationSeverity(s string) string {
	return strings.ToUpper(severityOf(s))
}

// Annotations turns findings into report annotations, one per finding:
// external id "prscout-" + fingerprint (stable across runs, so a re-run
// updates instead of duplicating), the title as summary and the body as
// details (a summary too long for the host cut at a word, the rest leading
// the details: Annotation.Fit), bidirectional controls shown
// (sanitize.ShowBidi). Findings not on a diff line keep their path without
// a line.
func Annotations(findings []pipeline.ReportFinding) []pipeline.Annotation {
	out := make([]pipeline.Annotation, 0, len(findings))
	for _, f := range findings {
		a := pipeline.Annotation{
			ExternalID: "prscout-" + f.Fingerprint, Path: f.Path, Summary: sanitize.ShowBidi(strings.TrimSpace(f.Title)),
			Details: sanitize.ShowBidi(strings.TrimSpace(f.Body)), Severity: annotationSeverity(f.Severity),
			AnnotationType: pipeline.AnnotationBug, Result: pipeline.AnnotationFailed,
		}
		if f.Line > 0 && f.Path != "" {
			a.Line = f.Line
		}
		if a.Summary == "" {
			a.Summary = "(untitled)"
		}
		out = append(out, a.Fit())
	}
	return out
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
