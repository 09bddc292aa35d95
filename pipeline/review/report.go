package review

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// ReportFindings lists a rendering's findings for the commit surfaces:
// the inline ones (with their anchored line), those on a diff line kept in
// the summary by the comment budget or the severity floor (with their
// line), then the unanchored ones (line 0). Unverified findings are not
// listed: they count in neither the build status nor the report. Fingerprints are the ones the comments carry, so an
// annotation's external id matches its inline comment's marker.
func ReportFindings(r Rendered) []pipeline.ReportFinding {
	out := make([]pipeline.ReportFinding, 0, len(r.Inline)+len(r.SummaryOnly)+len(r.Unanchored))
	for _, c := range r.Inline {
		out = append(out, pipeline.ReportFinding{
			Path: c.Path, Line: c.Line, Severity: c.Severity, Title: c.Title,
			Body: inlineBodyText(c.Body), Fingerprint: c.Fingerprint,
		})
	}
	for _, f := range r.SummaryOnly {
		out = append(out, pipeline.ReportFinding{
			Path: f.Path, Line: f.Line, Severity: f.Severity, Title: f.Title,
			Body: strings.TrimSpace(f.Body), Fingerprint: f.Fingerprint,
		})
	}
	for _, f := range r.Unanchored {
		out = append(out, pipeline.ReportFinding{
			Path: f.Path, Severity: f.Severity, Title: f.Title, Body: strings.TrimSpace(f.Body),
			Fingerprint: marker.Fingerprint(f.Path, f.Title, unanchoredCode(f)),
		})
	}
	return out
}

// unanchoredCode is the code Render fingerprints a finding that is
// not on a diff line by: its quoted code, else its (off-diff) line.
func unanchoredCode(f pipeline.Finding) string {
	if strings.TrimSpace(f.ExistingCode) != "" {
		return f.ExistingCode
	}
	if f.Line > 0 {
		return fmt.Sprintf("line:%d", f.Line)
	}
	return ""
}

// inlineBodyText takes the finding's own text back out of an inline
// comment body built by inlineBody: without the severity and title line and
// without the marker line.
func inlineBodyText(body string) string {
	_, rest, found := strings.Cut(body, "\n")
	if !found {
		return ""
	}
	rest = strings.TrimRight(rest, "\n")
	if i := strings.LastIndex(rest, "\n"); i >= 0 {
		if _, ok := marker.ParseFindingMarker(rest[i+1:]); ok {
			rest = rest[:i]
		}
	} else if _, ok := marker.ParseFindingMarker(rest); ok {
		rest = ""
	}
	return strings.TrimSpace(rest)
}

// severityCounts counts the rendered findings by severity (critical, high,
// medium, low; every key present) with each not-met acceptance criterion
// counted as one more high finding (insights.WithNotMet): the figures the
// build status and Code Insights threshold compare against.
func (r Rendered) severityCounts() map[string]int {
	out := make(map[string]int, len(reviewanswer.Severities))
	for _, s := range reviewanswer.Severities {
		out[s] = r.Stats.BySeverity[s]
	}
	return insights.WithNotMet(out, r.Requirements.NotMet)
}
