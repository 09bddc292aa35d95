package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// place decides each row's placement: unverified (evidence not held, when
// the policy keeps such findings off the diff), summary (not on a diff
// line; below the severity floor; past the comment budget) or inline. The
// budget takes the most severe first, then the most confident (a finding
// without a confidence counts as 0.5), then the answer's order.
func place(rows []findingRow, p placement.Policy) {
	floor := reviewanswer.SeverityRank(p.MinSeverity)
	var candidates []int
	for i := range rows {
		r := &rows[i]
		switch {
		case p.UnverifiedOut() && !r.ev.OK():
			r.placement = placement.Unverified
		case !r.inline():
			r.placement = placement.Summary
		case reviewanswer.SeverityRank(r.f.Severity) > floor:
			r.placement = placement.Summary
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
			rows[i].placement = placement.Inline
			continue
		}
		rows[i].placement = placement.Summary
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
func writeSummaryOnly(b *strings.Builder, rows []findingRow, limit int) {
	var kept []findingRow
	for _, r := range rows {
		if r.placement == placement.Summary && r.inline() {
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
	n := pipeline.FoldLimit(len(kept), limit)
	defer writeFolded(b, rowSeverities(kept[n:]))
	for _, r := range kept[:n] {
		fmt.Fprintf(b, "#### %s: %s\n\n", reviewanswer.SeverityLabel(r.f.Severity), pipeline.OneLine(r.f.Title))
		fmt.Fprintf(b, "%s: %s.\n\n", sanitizeWhere(r), r.why)
		if body := strings.TrimSpace(r.f.Body); body != "" {
			b.WriteString(body)
			b.WriteString("\n\n")
		}
	}
}

func sanitizeWhere(r findingRow) string {
	r.placement = placement.Inline // the bare place, without "(summary only)"
	return where(r)
}

// maxUnverifiedBody bounds the text of one unverified finding in the
// summary: it is listed, not argued.
const maxUnverifiedBody = 240

// writeUnverified lists the unverified findings, one line each (Bitbucket
// renders no <details>: the list is the folded form), or with drop one line
// saying how many were left out.
func writeUnverified(b *strings.Builder, rows []findingRow, p placement.Policy, limit int) {
	var un []findingRow
	for _, r := range rows {
		if r.placement == placement.Unverified {
			un = append(un, r)
		}
	}
	if len(un) == 0 {
		return
	}
	if p.Unverified == placement.UnverifiedDrop {
		fmt.Fprintf(b, "%s left out: %s quoted code is missing, or is not in the file %s name%s as the review was shown.\n\n",
			pipeline.CountNoun(len(un), "unverified finding"), pipeline.ByCount(len(un), "its", "their"), pipeline.ByCount(len(un), "it", "they"), pipeline.ByCount(len(un), "s", ""))
		return
	}
	sort.SliceStable(un, func(i, j int) bool {
		return reviewanswer.SeverityRank(un[i].f.Severity) < reviewanswer.SeverityRank(un[j].f.Severity)
	})
	fmt.Fprintf(b, "### Unverified findings (%d)\n\n", len(un))
	b.WriteString("Not posted on the diff and not counted in the build status: their quoted code is missing, or is not in the file they name as the review was shown.\n\n")
	n := pipeline.FoldLimit(len(un), limit)
	for _, r := range un[:n] {
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
	writeFolded(b, rowSeverities(un[n:]))
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
