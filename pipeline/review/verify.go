package review

import (
	"encoding/json"
	"fmt"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/verify"
)

// verifyRadius is how many lines around a finding's line the verify
// prompt shows.
const verifyRadius = 4

// VerifyInput is the /v1/verify request: the /v1/comments request (the
// same body, so the findings and their ids are the ones /v1/comments will
// read) and when the pass is worth a model call.
type VerifyInput struct {
	CommentsInput
	// MinFindings: the pass runs when the review has at least this many
	// findings; 0 or 1 runs it whenever there is one.
	MinFindings int `json:"minFindings"`
}

// VerifyResult is the /v1/verify answer.
type VerifyResult struct {
	// Verify says whether to make the verify call; Reason says why not.
	Verify bool   `json:"verify"`
	Reason string `json:"reason,omitempty"`
	// Findings counts the review's findings; IDs are their fingerprints,
	// the ids the prompt shows and the answer must use.
	Findings int      `json:"findings"`
	IDs      []string `json:"ids"`
	// VerifyPrompt is the prompt for the verify call (empty when Verify is
	// false).
	VerifyPrompt pipeline.Prompt `json:"verifyPrompt"`
}

// VerifyPrompt is the /v1/verify stage: it reads the review as /v1/comments
// does and writes the verify prompt for its findings.
func VerifyPrompt(in VerifyInput) (VerifyResult, error) {
	if in.MinFindings < 0 {
		return VerifyResult{}, pipeline.Invalidf("minFindings", "must be 0 or more, got %d", in.MinFindings)
	}
	in.Verify = nil // the findings asked about are the review's, before any verdict
	_, sum, err := Prepare(in.CommentsInput)
	if err != nil {
		return VerifyResult{}, err
	}
	findings := sum.verifyFindings()
	res := VerifyResult{Findings: len(findings), IDs: make([]string, len(findings))}
	for i, f := range findings {
		res.IDs[i] = f.ID
	}
	switch {
	case len(findings) == 0:
		res.Reason = "the review has no findings"
	case len(findings) < in.MinFindings:
		res.Reason = fmt.Sprintf("the review has %s, fewer than minFindings (%d)", pipeline.CountNoun(len(findings), "finding"), in.MinFindings)
	default:
		res.Verify = true
		res.VerifyPrompt = verify.Prompt(findings)
	}
	return res, nil
}

// verifyFindings lists the summary's findings as the verify prompt shows
// them.
func (p *Summary) verifyFindings() []verify.Finding {
	out := make([]verify.Finding, 0, len(p.rows))
	for _, r := range p.rows {
		f := verify.Finding{ID: r.fp, Path: r.f.Path, Line: r.a.Line, Severity: r.f.Severity,
			Title: r.f.Title, Body: r.f.Body, Evidence: r.f.ExistingCode}
		if f.Line == 0 {
			f.Line = r.f.Line
		}
		for _, l := range p.x.ix.Around(r.a.Path, f.Line, verifyRadius) {
			f.Code = append(f.Code, verify.CodeLine{N: l.N, Text: l.Text})
		}
		out = append(out, f)
	}
	return out
}

// verifiedRows drops the rows the verify answer drops. It returns the kept
// rows, the dropped ones with their reasons, and the answer's warnings, and
// sets st.VerifyQuality; no answer keeps every row.
func verifiedRows(rows []findingRow, answer json.RawMessage, st *CommentStats) (kept []findingRow, dropped []droppedRow, warnings []string) {
	if len(answer) == 0 || string(answer) == "null" {
		return rows, nil, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.fp
	}
	o := verify.Read(answer, ids)
	st.VerifyQuality = o.Quality
	for _, r := range rows {
		if d, drop := o.Dropped(r.fp); drop {
			dropped = append(dropped, droppedRow{row: r, reason: d.Reason})
			continue
		}
		kept = append(kept, r)
	}
	return kept, dropped, o.Warnings
}

// droppedRow is a finding the verify pass dropped, with its reason.
type droppedRow struct {
	row    findingRow
	reason string
}

// VerifyDroppedFinding is a finding the verify pass dropped, as the
// /v1/comments answer records it.
type VerifyDroppedFinding struct {
	Path        string `json:"path"`
	Line        int    `json:"line"`
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Fingerprint string `json:"fingerprint"`
	// Reason is the verify answer's reason (sanitized Markdown is not
	// needed: it is never posted).
	Reason string `json:"reason"`
}
