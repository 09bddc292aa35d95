package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// Review profiles (Policy.Profile): a comment budget and a severity floor
// for inline comments at once.
const (
	ProfileQuiet    = "quiet"
	ProfileBalanced = "balanced"
	ProfileThorough = "thorough"
)

// What becomes of a finding whose evidence does not hold (Policy.Unverified).
const (
	// UnverifiedFold: not inline, not counted in the build status or the
	// Code Insights report; listed in the summary's "Unverified findings".
	UnverifiedFold = "fold"
	// UnverifiedDrop: as fold, and left out of the summary too (the answer's
	// unverified[] and the review memory still have it).
	UnverifiedDrop = "drop"
	// UnverifiedKeep: the verdict is reported, the finding placed as if
	// verified.
	UnverifiedKeep = "keep"
)

// Where a finding went (the answer's placement, a metrics label).
const (
	PlacementInline     = "inline"
	PlacementSummary    = "summary"
	PlacementUnverified = "unverified"
)

// Placements lists the placements in report order.
var Placements = []string{PlacementInline, PlacementSummary, PlacementUnverified}

// profile is what a review profile sets.
type profile struct {
	maxInline   int
	minSeverity string
}

var profiles = map[string]profile{
	ProfileQuiet:    {maxInline: 5, minSeverity: "high"},
	ProfileBalanced: {maxInline: 10, minSeverity: "medium"},
	// No budget: only MaxInlinePerPost defers the rest to the next run.
	ProfileThorough: {maxInline: 0, minSeverity: "low"},
}

// Policy decides which findings become inline comments. The zero Policy
// places every finding on a diff line inline (within MaxInlinePerPost) and
// only reports the evidence verdicts.
type Policy struct {
	// Profile is quiet, balanced or thorough ("": none); it sets MaxInline
	// and MinSeverity where those are not set.
	Profile string `json:"profile,omitempty"`
	// MaxInline is the most inline comments of one review, most severe
	// first (ties: higher confidence first); the rest go to the summary.
	// 0: the profile's (no budget without one, nor with thorough: then only
	// MaxInlinePerPost defers the rest to the next run).
	MaxInline int `json:"maxInline,omitempty"`
	// MinSeverity is the lowest severity posted inline (critical, high,
	// medium, low); less severe findings go to the summary. "": the
	// profile's (low without one).
	MinSeverity string `json:"minSeverity,omitempty"`
	// Unverified is fold, drop or keep ("": keep).
	Unverified string `json:"unverified,omitempty"`
}

// ParseProfile checks a profile name ("" is none).
func ParseProfile(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if _, ok := profiles[s]; ok || s == "" {
		return s, nil
	}
	return "", fmt.Errorf("%q is not a review profile: quiet, balanced or thorough", pipeline.ClipRunes(s, 40))
}

// ParseUnverified checks an unverified mode ("" is keep).
func ParseUnverified(s string) (string, error) {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "", UnverifiedFold, UnverifiedDrop, UnverifiedKeep:
		return s, nil
	}
	return "", fmt.Errorf("%q is not fold, drop or keep", pipeline.ClipRunes(s, 40))
}

// ParseMinSeverity checks an inline severity floor ("" is none).
func ParseMinSeverity(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || reviewanswer.SeverityRank(s) < len(reviewanswer.Severities) {
		return s, nil
	}
	return "", fmt.Errorf("%q is not a severity: critical, high, medium or low", pipeline.ClipRunes(s, 40))
}

// Check validates the policy; field prefixes the error's field names.
func (p Policy) Check(field string) error {
	if _, err := ParseProfile(p.Profile); err != nil {
		return pipeline.Invalidf(field+".profile", "%v", err)
	}
	if p.MaxInline < 0 {
		return pipeline.Invalidf(field+".maxInline", "must not be negative")
	}
	if _, err := ParseMinSeverity(p.MinSeverity); err != nil {
		return pipeline.Invalidf(field+".minSeverity", "%v", err)
	}
	if _, err := ParseUnverified(p.Unverified); err != nil {
		return pipeline.Invalidf(field+".unverified", "%v", err)
	}
	return nil
}

// Over lays a request's policy over the service's: a profile given by the
// request sets the budget and floor again (the service's own individual
// settings then no longer apply), and the request's individual fields win
// over both.
func (p Policy) Over(base Policy) Policy {
	out := base
	if p.Profile != "" {
		out.Profile, out.MaxInline, out.MinSeverity = p.Profile, 0, ""
	}
	if p.MaxInline > 0 {
		out.MaxInline = p.MaxInline
	}
	if p.MinSeverity != "" {
		out.MinSeverity = p.MinSeverity
	}
	if p.Unverified != "" {
		out.Unverified = p.Unverified
	}
	return out
}

// Effective is the policy with the profile applied and names normalized:
// MinSeverity and Unverified set; MaxInline 0 is no budget.
func (p Policy) Effective() Policy {
	out := Policy{Unverified: UnverifiedKeep, MinSeverity: "low"}
	prof, _ := ParseProfile(p.Profile)
	out.Profile = prof
	if pr, ok := profiles[prof]; ok {
		out.MaxInline, out.MinSeverity = pr.maxInline, pr.minSeverity
	}
	if p.MaxInline > 0 {
		out.MaxInline = p.MaxInline
	}
	if s, _ := ParseMinSeverity(p.MinSeverity); s != "" {
		out.MinSeverity = s
	}
	if u, _ := ParseUnverified(p.Unverified); u != "" {
		out.Unverified = u
	}
	return out
}

// unverifiedOut reports whether findings without evidence stay off the
// diff (fold or drop).
func (p Policy) unverifiedOut() bool {
	return p.Unverified == UnverifiedFold || p.Unverified == UnverifiedDrop
}

// place decides each row's placement: unverified (evidence not held, when
// the policy keeps such findings off the diff), summary (not on a diff
// line; below the severity floor; past the comment budget) or inline. The
// budget takes the most severe first, then the most confident (a finding
// without a confidence counts as 0.5), then the answer's order.
func place(rows []findingRow, p Policy) {
	floor := reviewanswer.SeverityRank(p.MinSeverity)
	var candidates []int
	for i := range rows {
		r := &rows[i]
		switch {
		case p.unverifiedOut() && !r.ev.OK():
			r.placement = PlacementUnverified
		case !r.inline():
			r.placement = PlacementSummary
		case reviewanswer.SeverityRank(r.f.Severity) > floor:
			r.placement = PlacementSummary
			r.why = fmt.Sprintf("below the inline severity floor (%s)", p.MinSeverity)
		default:
			candidates = append(candidates, i)
		}
	}
	sort.SliceStable(candidates, func(a, b int) bool {
		x, y := rows[candidates[a]].f, rows[candidates[b]].f
		if rx, ry := reviewanswer.SeverityRank(x.Severity), reviewanswer.SeverityRank(y.Severity); rx != ry {
			return rx < ry
		}
		return confidenceOf(x) > confidenceOf(y)
	})
	for k, i := range candidates {
		if p.MaxInline == 0 || k < p.MaxInline {
			rows[i].placement = PlacementInline
			continue
		}
		rows[i].placement = PlacementSummary
		rows[i].why = fmt.Sprintf("past the inline comment budget (%d per review)", p.MaxInline)
	}
}

func confidenceOf(f pipeline.Finding) float64 {
	if f.Confidence > 0 {
		return f.Confidence
	}
	return 0.5
}

// SummaryFinding is a finding on a diff line kept out of the inline
// comments by the budget or the severity floor: it is in the summary in
// full.
type SummaryFinding struct {
	Path        string  `json:"path"`
	Line        int     `json:"line"`
	Anchor      string  `json:"anchor"`
	Severity    string  `json:"severity"`
	Title       string  `json:"title"`
	Body        string  `json:"body"`
	Confidence  float64 `json:"confidence,omitempty"`
	Fingerprint string  `json:"fingerprint"`
	// Reason says why it is not inline.
	Reason string `json:"reason"`
}

// UnverifiedFinding is a finding whose quoted code was not found where it
// says (evidence.Check), with the verdict.
type UnverifiedFinding struct {
	pipeline.Finding
	Fingerprint string          `json:"fingerprint"`
	Evidence    evidence.Result `json:"evidence"`
}

// writeSummaryOnly writes in full the findings on a diff line that the
// budget or the floor kept out of the inline comments.
func writeSummaryOnly(b *strings.Builder, rows []findingRow) {
	var kept []findingRow
	for _, r := range rows {
		if r.placement == PlacementSummary && r.inline() {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return
	}
	sort.SliceStable(kept, func(i, j int) bool {
		return reviewanswer.SeverityRank(kept[i].f.Severity) < reviewanswer.SeverityRank(kept[j].f.Severity)
	})
	fmt.Fprintf(b, "### Not posted inline (%d)\n\n", len(kept))
	for _, r := range kept {
		fmt.Fprintf(b, "#### %s: %s\n\n", reviewanswer.SeverityLabel(r.f.Severity), pipeline.OneLine(r.f.Title))
		fmt.Fprintf(b, "%s: %s.\n\n", sanitizeWhere(r), r.why)
		if body := strings.TrimSpace(r.f.Body); body != "" {
			b.WriteString(body)
			b.WriteString("\n\n")
		}
	}
}

func sanitizeWhere(r findingRow) string {
	r.placement = PlacementInline // the bare place, without "(summary only)"
	return where(r)
}

// maxUnverifiedBody bounds the text of one unverified finding in the
// summary: it is listed, not argued.
const maxUnverifiedBody = 240

// writeUnverified lists the unverified findings, one line each (Bitbucket
// renders no <details>: the list is the folded form), or with drop one line
// saying how many were left out.
func writeUnverified(b *strings.Builder, rows []findingRow, p Policy) {
	var un []findingRow
	for _, r := range rows {
		if r.placement == PlacementUnverified {
			un = append(un, r)
		}
	}
	if len(un) == 0 {
		return
	}
	if p.Unverified == UnverifiedDrop {
		fmt.Fprintf(b, "%s left out: %s quoted code is missing, or is not in the file %s name%s as the review was shown.\n\n",
			pipeline.CountNoun(len(un), "unverified finding"), possessive(len(un)), pronoun(len(un)), verbS(len(un)))
		return
	}
	sort.SliceStable(un, func(i, j int) bool {
		return reviewanswer.SeverityRank(un[i].f.Severity) < reviewanswer.SeverityRank(un[j].f.Severity)
	})
	fmt.Fprintf(b, "### Unverified findings (%d)\n\n", len(un))
	b.WriteString("Not posted on the diff and not counted in the build status: their quoted code is missing, or is not in the file they name as the review was shown.\n\n")
	for _, r := range un {
		text := pipeline.ClipRunes(pipeline.OneLine(r.f.Body), maxUnverifiedBody)
		reason := r.ev.Reason
		if r.ev.Verdict == evidence.Elsewhere {
			reason = "the quoted code is in " + sanitize.CodeSpan(r.ev.FoundIn) + ", not in the file it names"
		}
		fmt.Fprintf(b, "- %s · %s · %s (%s)", reviewanswer.SeverityLabel(r.f.Severity), unverifiedWhere(r), pipeline.OneLine(r.f.Title), reason)
		if text != "" {
			b.WriteString(": " + text)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func unverifiedWhere(r findingRow) string {
	p := r.a.Path
	if p == "" {
		p = r.f.Path
	}
	if p == "" {
		return "(no file)"
	}
	if r.f.Line > 0 {
		return sanitize.CodeSpan(fmt.Sprintf("%s:%d", p, r.f.Line))
	}
	return sanitize.CodeSpan(p)
}

func possessive(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
