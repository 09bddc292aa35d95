package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/criteria"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// InlineComment is one finding placed on a new-file line.
type InlineComment struct {
	Path string `json:"path"`
	Line int    `json:"line"` // new-file line: Bitbucket's inline.to, or start_to of a range
	// EndLine is the last line of a comment spanning Line..EndLine
	// (Bitbucket's inline.to, with start_to Line); 0 for one line.
	EndLine     int    `json:"endLine,omitempty"`
	Anchor      string `json:"anchor"` // AnchorLine or AnchorSnippet
	Body        string `json:"body"`   // Markdown, ends with the fingerprint marker
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Title       string `json:"title"`
}

// CommentStats are the rendering's counts, for metrics.
type CommentStats struct {
	// Findings is the number of findings rendered (after dropping entries that
	// are not findings and duplicates).
	Findings int `json:"findings"`
	// Inline counts findings placed on a line; Unanchored those in the summary.
	Inline     int `json:"inline"`
	Unanchored int `json:"unanchored"`
	// ByAnchor counts findings per anchor: line, snippet, file, unanchored
	// (all four keys always present).
	ByAnchor map[string]int `json:"byAnchor"`
	// ByPlacement counts findings per placement: inline, summary (not on a
	// diff line, below the severity floor or past the comment budget) and
	// unverified (all three keys always present).
	ByPlacement map[string]int `json:"byPlacement"`
	// ByEvidence counts findings per evidence verdict: verified, elsewhere,
	// unverified (all three keys always present), whatever the policy did
	// with them.
	ByEvidence map[string]int `json:"byEvidence"`
	// SummaryOnly counts findings on a diff line kept out of the inline
	// comments by the budget or the floor; Unverified those placed as
	// unverified.
	SummaryOnly int `json:"summaryOnly"`
	Unverified  int `json:"unverified"`
	// BySeverity counts findings per severity: critical, high, medium, low
	// (unverified ones kept off the diff are not counted).
	BySeverity map[string]int `json:"bySeverity"`
	// SeverityNormalized counts findings whose severity was mapped or defaulted.
	SeverityNormalized int `json:"severityNormalized"`
	// DroppedFindings counts findings[] entries that were not findings.
	DroppedFindings int `json:"droppedFindings"`
	// FixesShown counts proposed fixes shown as a diff block; FixesDropped
	// those left out because the code they replace is not at the head.
	FixesShown   int `json:"fixesShown,omitempty"`
	FixesDropped int `json:"fixesDropped,omitempty"`
	// Duplicates counts findings dropped for repeating another's fingerprint.
	Duplicates int `json:"duplicates"`
	// VerifyDropped counts findings the verify pass dropped (not posted,
	// not counted in Findings).
	VerifyDropped int `json:"verifyDropped"`
	// VerifyQuality is how the verify answer was read (a metric label);
	// "" without one.
	VerifyQuality string `json:"verifyQuality,omitempty"`
	// MarkersStripped counts lines of model text removed because they could
	// be read as a prscout marker.
	MarkersStripped int `json:"markersStripped"`
	// ReviewFormat is the shape of the review answer (ReviewFormat*).
	ReviewFormat string `json:"reviewFormat"`
	// ReviewQuality is how the review answer was read, a metric label:
	// clean, repaired, salvaged (cut off) or unreadable.
	ReviewQuality string `json:"reviewQuality"`
	// ReviewCutOff reports that the review answer was cut off;
	// IncompleteFindings counts the findings the cut fell inside, dropped;
	// ReviewFinishReason is the finish reason the answer came with.
	ReviewCutOff       bool   `json:"reviewCutOff"`
	IncompleteFindings int    `json:"incompleteFindings"`
	ReviewFinishReason string `json:"reviewFinishReason,omitempty"`
	// MarkdownChars is the summary's length in bytes.
	MarkdownChars int `json:"markdownChars"`
	// Context table rows: fetched, failed, dropped for budget.
	ContextFetched int `json:"contextFetched"`
	ContextFailed  int `json:"contextFailed"`
	ContextDropped int `json:"contextDropped"`
	// Redactions counts secrets replaced in the text this stage echoes and
	// posts (the model's summary and findings, context errors, warnings),
	// by kind (redact.Kinds).
	Redactions map[string]int `json:"redactions"`
}

// Rendered is the comments stage's output before posting.
type Rendered struct {
	// Markdown is the summary comment; its last line is the review marker.
	Markdown   string             `json:"markdown"`
	Inline     []InlineComment    `json:"inline"`
	Unanchored []pipeline.Finding `json:"unanchored"`
	// SummaryOnly are the findings on a diff line that the comment budget
	// or the severity floor kept out of the inline comments.
	SummaryOnly []SummaryFinding `json:"summaryOnly"`
	// Unverified are the findings whose quoted code was not found where
	// they say (placed as unverified: not inline, not counted).
	Unverified []UnverifiedFinding `json:"unverified"`
	// VerifyDropped are the findings the verify pass dropped: recorded
	// here, never posted.
	VerifyDropped []VerifyDroppedFinding `json:"verifyDropped"`
	// Policy is the placement policy applied (the service's settings with
	// the request's commentPolicy over them).
	Policy   placement.Policy `json:"policy"`
	Stats    CommentStats     `json:"stats"`
	Warnings []string         `json:"warnings"`
	// Coverage is what the summary's coverage line states: changed files
	// reviewed, excluded by reason and dropped for budget, so a "no issues"
	// answer never hides a partial review.
	Coverage pipeline.Coverage `json:"coverage"`
	// Requirements are the acceptance criteria with the review's verdicts
	// and their counts (see severityCounts for the build status).
	Requirements criteria.Counts `json:"requirements"`
	// Memory is the compare with earlier reviews (memory.go), set when the
	// comments were read from a CommentStore (publish.Post); nil otherwise.
	Memory *Memory `json:"memory,omitempty"`
}

// Summary is what Prepare wrote the summary from, so that publishing can
// write it again once it has read the pull request's comments: with the
// compare with earlier reviews (Remember) and the findings it could not
// post inline (Write).
type Summary struct {
	in      CommentsInput
	ref     string
	summary string
	rows    []findingRow
	st      CommentStats
	x       summaryExtras
}

// Render parses the review, anchors each finding to the diff and
// renders the summary and the inline comments. It is pure: posting is
// publish.Post. Bad input is an *InvalidError naming the field ("ref",
// "mode", "files[i].path", "review", ...).
//
// The summary is Bitbucket-safe Markdown with no HTML at all: a heading, a
// coverage line (with the acceptance criteria's verdict counts), the model's
// summary, the "Acceptance criteria" table (criterion, verdict, evidence
// linked to the diff, note; see criteria.Judge), a findings table (severity,
// where, title), every finding that could not be placed on a line in full,
// the table of context the scout asked for, and the hidden review marker as
// the last line. Model-written lines that look like prscout markers are
// removed.
func Render(in CommentsInput) (Rendered, error) {
	r, _, err := Prepare(in)
	return r, err
}

// Prepare renders as Render does and also returns the Summary that
// publishing writes again after reading the earlier reviews.
func Prepare(in CommentsInput) (Rendered, *Summary, error) {
	ref, err := checkCommentsInput(&in)
	if err != nil {
		return Rendered{}, nil, err
	}
	if len(in.Reviews) > 0 {
		return renderGroups(in, ref)
	}
	parsed, err := reviewanswer.Parse(in.Review)
	if err != nil {
		return Rendered{}, nil, err
	}
	r, sum := renderParsed(in, ref, parsed, nil, singleCoverage(in, parsed))
	return r, sum, nil
}

// reviewCover says which files a review actually covered, so review memory
// resolves only findings a usable review looked at (memory.go): all says
// why no file was covered ("" when the answer was read whole), files why a
// given file was not (its group's review failed, was cut off or could not
// be read).
type reviewCover struct {
	all   string
	files map[string]string
}

// uncovered returns why path was not covered, or "".
func (c reviewCover) uncovered(path string) string {
	if c.all != "" {
		return c.all
	}
	return c.files[anchor.NormalizePath(path)]
}

// singleCoverage is the cover of one review answer: none when it is a
// failed call, unreadable or cut off (what was cut may have been about any
// file).
func singleCoverage(in CommentsInput, parsed reviewanswer.Parsed) reviewCover {
	if msg, failed := reviewanswer.Failure(in.Review); failed && len(parsed.Findings) == 0 {
		return reviewCover{all: "no review was received: " + msg}
	}
	return answerCover(parsed, "the review")
}

// answerCover is why a parsed answer covers nothing ("" when it is whole).
func answerCover(parsed reviewanswer.Parsed, what string) reviewCover {
	switch {
	case parsed.Unreadable:
		return reviewCover{all: what + " could not be read"}
	case parsed.CutOff:
		return reviewCover{all: what + " was cut off"}
	}
	return reviewCover{}
}

// renderParsed renders a parsed review (the groups' reviews merged into one
// when the change was reviewed in groups; failed names the groups without a
// review): the findings anchored, checked, placed by the policy and sorted
// into the answer's lists, the criteria judged, the summary written.
func renderParsed(in CommentsInput, ref string, parsed reviewanswer.Parsed, failed []groupOutcome, cover reviewCover) (Rendered, *Summary) {
	out := newRendered(in, parsed)
	st := &out.Stats

	ix, warns := anchor.NewIndex(in.Files)
	out.Warnings = append(out.Warnings, warns...)

	// Nothing is echoed or posted before its secrets are redacted: the
	// model saw redacted text, but the review is still untrusted input.
	summary, n := marker.StripMarkers(parsed.Summary)
	st.MarkersStripped += n
	summary = sanitize.Markdown(sanitize.CloseFences(redact.Secrets(summary, st.Redactions)), in.LinkHosts)
	in.AdditionalContext = redactContextErrors(in.AdditionalContext, st.Redactions)

	// The evidence is checked against the context as the request carries
	// it (the model saw it redacted the same way /v1/merge redacts it).
	shown := evidence.New(ix, in.Files, in.AdditionalContext)
	rows, warns := findingRows(parsed.Findings, ix, shown, st, in.LinkHosts)
	out.Warnings = append(out.Warnings, warns...)
	rows, verifyDropped, warns := verifiedRows(rows, in.Verify, st)
	out.Warnings = append(out.Warnings, warns...)
	out.recordVerifyDropped(verifyDropped)
	st.Findings = len(rows)
	place(rows, in.policy)
	if st.MarkersStripped > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("removed %d line(s) of model text that looked like prscout markers", st.MarkersStripped))
	}

	prURL := out.judgeCriteria(&in, parsed, ix)
	out.addPlaced(rows)

	for i, w := range out.Warnings {
		out.Warnings[i] = redact.Secrets(w, st.Redactions)
	}
	x := summaryExtras{criteria: out.Requirements, ix: ix, prURL: prURL, failedGroups: failed, notice: parsed.Notice(in.RequestID), cover: cover,
		verifyDropped: verifyDropped}
	sum := &Summary{in: in, ref: ref, summary: summary, rows: rows, x: x}
	out.Markdown = renderSummary(in, ref, summary, rows, st, x)
	st.MarkdownChars = len(out.Markdown)
	sum.st = *st
	return out, sum
}

// newRendered is the answer before any finding is added: empty lists (never
// null in the JSON), the coverage, every count's keys present and what
// parsing the answer found.
func newRendered(in CommentsInput, parsed reviewanswer.Parsed) Rendered {
	out := Rendered{Inline: []InlineComment{}, Unanchored: []pipeline.Finding{}, SummaryOnly: []SummaryFinding{},
		Unverified: []UnverifiedFinding{}, Warnings: []string{}, Policy: in.policy}
	out.Coverage = pipeline.CoverageOf(len(in.Files), in.Excluded)
	if in.Coverage != nil {
		out.Coverage = *in.Coverage
	}
	out.Warnings = append(out.Warnings, parsed.Warnings...)
	st := &out.Stats
	st.ByAnchor = map[string]int{anchor.Line: 0, anchor.Snippet: 0, anchor.OnFile: 0, anchor.Unanchored: 0}
	st.ByPlacement = map[string]int{placement.Inline: 0, placement.Summary: 0, placement.Unverified: 0}
	st.ByEvidence = map[string]int{evidence.Verified: 0, evidence.Elsewhere: 0, evidence.Unverified: 0}
	st.BySeverity = map[string]int{"critical": 0, "high": 0, "medium": 0, "low": 0}
	st.ReviewFormat = parsed.Format
	st.ReviewQuality = parsed.Quality
	st.ReviewCutOff = parsed.CutOff
	st.IncompleteFindings = parsed.Incomplete
	st.ReviewFinishReason = parsed.FinishReason
	st.SeverityNormalized = parsed.SeverityNormalized
	st.DroppedFindings = parsed.DroppedFindings
	st.Redactions = map[string]int{}
	return out
}

// redactContextErrors returns the context items with their fetch errors
// redacted (the context table echoes them), counting into redactions; the
// request's own slice is left as it is.
func redactContextErrors(items []pipeline.ContextItem, redactions map[string]int) []pipeline.ContextItem {
	if items == nil {
		return nil
	}
	out := make([]pipeline.ContextItem, len(items))
	for i, c := range items {
		c.Error = redact.Secrets(c.Error, redactions)
		out[i] = c
	}
	return out
}

// recordVerifyDropped lists the findings the verify pass dropped in the
// answer and takes them out of the severity and anchor counts.
func (out *Rendered) recordVerifyDropped(dropped []droppedRow) {
	st := &out.Stats
	st.VerifyDropped = len(dropped)
	out.VerifyDropped = make([]VerifyDroppedFinding, 0, len(dropped))
	for _, d := range dropped {
		st.BySeverity[d.row.f.Severity]--
		st.ByAnchor[d.row.a.Anchor]--
		out.VerifyDropped = append(out.VerifyDropped, VerifyDroppedFinding{Path: d.row.f.Path, Line: d.row.a.Line,
			Severity: d.row.f.Severity, Title: d.row.f.Title, Fingerprint: d.row.fp, Reason: d.reason})
	}
}

// judgeCriteria sets the answer's requirements (criteria.Judge) and
// returns the pull request's page the evidence links point into ("" when
// the request's prUrl, or else its pr.url, is missing or not a page
// address, with a warning for the latter).
func (out *Rendered) judgeCriteria(in *CommentsInput, parsed reviewanswer.Parsed, ix *anchor.Index) string {
	var warns []string
	out.Requirements, warns = criteria.Judge(in.Requirements.Criteria, parsed.Verdicts, parsed.VerdictsGiven, ix)
	out.Warnings = append(out.Warnings, warns...)
	if in.PRURL == "" {
		in.PRURL = in.PR.URL
	}
	prURL, ok := criteria.PullRequestURL(in.PRURL)
	if !ok {
		out.Warnings = append(out.Warnings, fmt.Sprintf("prUrl %q is not an http(s) page address: evidence is not linked", pipeline.ClipRunes(in.PRURL, 80)))
	}
	return prURL
}

// addPlaced adds each placed row to the answer's list for its placement
// (inline comments sorted by path and line) and counts them.
func (out *Rendered) addPlaced(rows []findingRow) {
	st := &out.Stats
	for _, r := range rows {
		st.ByPlacement[r.placement]++
		switch {
		case r.placement == placement.Unverified:
			st.BySeverity[r.f.Severity]--
			out.Unverified = append(out.Unverified, UnverifiedFinding{Finding: r.f, Fingerprint: r.fp, Evidence: r.ev})
		case r.placement == placement.Inline:
			out.Inline = append(out.Inline, InlineComment{
				Path: r.a.Path, Line: r.a.Line, EndLine: r.a.EndLine, Anchor: r.a.Anchor,
				Body: inlineBody(r.f, r.fix, r.fp), Fingerprint: r.fp,
				Severity: r.f.Severity, Title: r.f.Title,
			})
		case r.inline():
			out.SummaryOnly = append(out.SummaryOnly, SummaryFinding{
				Path: r.a.Path, Line: r.a.Line, Anchor: r.a.Anchor, Severity: r.f.Severity, Title: r.f.Title,
				Body: r.f.Body, Confidence: r.f.Confidence, Fingerprint: r.fp, Reason: r.why,
			})
		default:
			out.Unanchored = append(out.Unanchored, r.f)
		}
	}
	st.SummaryOnly, st.Unverified = len(out.SummaryOnly), len(out.Unverified)
	sort.SliceStable(out.Inline, func(i, j int) bool {
		a, b := out.Inline[i], out.Inline[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	st.Inline, st.Unanchored = len(out.Inline), len(out.Unanchored)
}

// findingRows anchors each finding, strips marker look-alikes from its
// text, redacts secrets in it (after anchoring, so that a snippet still
// matches a diff the caller did not redact), fingerprints it, drops repeats
// and makes its text inert Markdown (sanitize.Markdown, after fingerprinting:
// the fingerprint stays that of what the model wrote), counting into st.
func findingRows(findings []pipeline.Finding, ix *anchor.Index, shown *evidence.Shown, st *CommentStats, hosts []string) ([]findingRow, []string) {
	var warnings []string
	var n int
	var rows []findingRow
	seen := map[string]bool{}
	for i, f := range findings {
		a := ix.Anchor(f)
		// The fix is matched before redaction, against the diff as given.
		fx, w := checkFix(f, a, ix, st, i)
		ev := shown.Check(f)
		f.Title, n = marker.StripMarkers(f.Title)
		st.MarkersStripped += n
		if f.Title == "" {
			f.Title = "(untitled)"
		}
		f.Body, n = marker.StripMarkers(f.Body)
		st.MarkersStripped += n
		f.Title = redact.Secrets(f.Title, st.Redactions)
		f.Body = sanitize.CloseFences(redact.Secrets(f.Body, st.Redactions))
		f.ExistingCode = redact.Secrets(f.ExistingCode, st.Redactions)
		code := f.ExistingCode
		if strings.TrimSpace(code) == "" {
			code = a.Text
		}
		if strings.TrimSpace(code) == "" && f.Line > 0 {
			code = fmt.Sprintf("line:%d", f.Line) // off-diff findings differ by line
		}
		if a.Path != "" {
			f.Path = a.Path
		}
		fp := marker.Fingerprint(f.Path, f.Title, code)
		if seen[fp] {
			if fx != nil {
				st.FixesShown--
			} else if w != "" {
				st.FixesDropped--
			}
			st.Duplicates++
			warnings = append(warnings, fmt.Sprintf("findings[%d] repeats an earlier finding (%s): dropped", i, fp))
			continue
		}
		seen[fp] = true
		if w != "" {
			warnings = append(warnings, w)
		}
		st.ByAnchor[a.Anchor]++
		st.ByEvidence[ev.Verdict]++
		st.BySeverity[f.Severity]++
		f.Title, f.Body = sanitize.Markdown(f.Title, hosts), sanitize.Markdown(f.Body, hosts)
		if f.Fix != nil {
			// Echoed with the unanchored findings: redacted like the rest.
			f.Fix = &pipeline.Fix{Before: redact.Secrets(f.Fix.Before, st.Redactions), After: redact.Secrets(f.Fix.After, st.Redactions)}
		}
		rows = append(rows, findingRow{f: f, a: a, fp: fp, fix: fx, ev: ev})
	}
	return rows, warnings
}

type findingRow struct {
	f  pipeline.Finding
	a  anchor.Placed
	fp string
	ev evidence.Result
	// fix is the proposed fix, when it is shown (checkFix).
	fix *shownFix
	// placement is inline, summary or unverified (place); why says why a
	// finding on a diff line is in the summary only.
	placement string
	why       string
}

func inlineBody(f pipeline.Finding, fx *shownFix, fp string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · %s\n", reviewanswer.SeverityLabel(f.Severity), pipeline.OneLine(f.Title))
	if body := strings.TrimSpace(f.Body); body != "" {
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
	}
	if fix := fixMarkdown(fx); fix != "" {
		b.WriteString("\n")
		b.WriteString(fix)
	}
	b.WriteString("\n")
	b.WriteString(marker.FindingMarker(fp))
	return b.String()
}

// summaryExtras are the summary's parts beyond the findings: the acceptance
// criteria with their verdicts, and where evidence links point; and what
// Post adds: the memory table with its hidden data, and the findings
// whose inline comment was not posted.
type summaryExtras struct {
	criteria         criteria.Counts
	ix               *anchor.Index
	prURL            string
	mem              *Memory
	failed, deferred []InlineComment
	// failedGroups are the review groups without a usable review.
	failedGroups []groupOutcome
	// cover is which files the review covered, for review memory.
	cover reviewCover
	// notice says how the model's answer was read when a person must
	// know: cut off, or not readable at all (reviewanswer.Parsed.Notice).
	notice string
	// verifyDropped are the findings the verify pass dropped.
	verifyDropped []droppedRow
}

// Remember compares the review's findings with the earlier reviews among
// the pull request's comments.
func (p *Summary) Remember(comments []pipeline.Comment) *Memory {
	return remember(memoryInput{
		ref: p.ref, mode: p.in.Mode, interdiff: p.in.Interdiff, ix: p.x.ix,
		excluded: p.in.Excluded, rows: p.rows, comments: comments, cover: p.x.cover,
	})
}

// Write writes the summary again with the memory table and the findings
// that could not be posted inline.
func (p *Summary) Write(mem *Memory, failed, deferred []InlineComment) string {
	st := p.st // contextRows counts into it: count into a copy
	x := p.x
	x.mem, x.failed, x.deferred = mem, failed, deferred
	return renderSummary(p.in, p.ref, p.summary, p.rows, &st, x)
}
