package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/marker"
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
	Policy   Policy       `json:"policy"`
	Stats    CommentStats `json:"stats"`
	Warnings []string     `json:"warnings"`
	// Coverage is what the summary's coverage line states: changed files
	// reviewed, excluded by reason and dropped for budget, so a "no issues"
	// answer never hides a partial review.
	Coverage pipeline.Coverage `json:"coverage"`
	// Requirements are the acceptance criteria with the review's verdicts
	// and their counts (see severityCounts for the build status).
	Requirements RequirementCounts `json:"requirements"`
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
// linked to the diff, note; see judgeCriteria), a findings table (severity,
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
	if msg, failed := reviewFailure(in.Review); failed && len(parsed.Findings) == 0 {
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
// review).
func renderParsed(in CommentsInput, ref string, parsed reviewanswer.Parsed, failed []groupOutcome, cover reviewCover) (Rendered, *Summary) {
	out := Rendered{Inline: []InlineComment{}, Unanchored: []pipeline.Finding{}, SummaryOnly: []SummaryFinding{},
		Unverified: []UnverifiedFinding{}, Warnings: []string{}, Policy: in.policy}
	out.Coverage = pipeline.CoverageOf(len(in.Files), in.Excluded)
	if in.Coverage != nil {
		out.Coverage = *in.Coverage
	}
	out.Warnings = append(out.Warnings, parsed.Warnings...)
	st := &out.Stats
	st.ByAnchor = map[string]int{anchor.Line: 0, anchor.Snippet: 0, anchor.OnFile: 0, anchor.Unanchored: 0}
	st.ByPlacement = map[string]int{PlacementInline: 0, PlacementSummary: 0, PlacementUnverified: 0}
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

	ix, warns := anchor.NewIndex(in.Files)
	out.Warnings = append(out.Warnings, warns...)

	// Nothing is echoed or posted before its secrets are redacted: the
	// model saw redacted text, but the review is still untrusted input.
	summary, n := marker.StripMarkers(parsed.Summary)
	st.MarkersStripped += n
	summary = sanitize.Markdown(closeFences(redact.Secrets(summary, st.Redactions)), in.LinkHosts)
	if in.AdditionalContext != nil {
		items := make([]pipeline.ContextItem, len(in.AdditionalContext))
		for i, c := range in.AdditionalContext {
			c.Error = redact.Secrets(c.Error, st.Redactions)
			items[i] = c
		}
		in.AdditionalContext = items
	}

	// The evidence is checked against the context as the request carries
	// it (the model saw it redacted the same way /v1/merge redacts it).
	shown := evidence.New(ix, in.Files, in.AdditionalContext)
	rows, warns := findingRows(parsed.Findings, ix, shown, st, in.LinkHosts)
	out.Warnings = append(out.Warnings, warns...)
	rows, verifyDropped, warns := verifiedRows(rows, in.Verify, st)
	out.Warnings = append(out.Warnings, warns...)
	st.VerifyDropped = len(verifyDropped)
	out.VerifyDropped = make([]VerifyDroppedFinding, 0, len(verifyDropped))
	for _, d := range verifyDropped {
		st.BySeverity[d.row.f.Severity]--
		st.ByAnchor[d.row.a.Anchor]--
		out.VerifyDropped = append(out.VerifyDropped, VerifyDroppedFinding{Path: d.row.f.Path, Line: d.row.a.Line,
			Severity: d.row.f.Severity, Title: d.row.f.Title, Fingerprint: d.row.fp, Reason: d.reason})
	}
	st.Findings = len(rows)
	place(rows, in.policy)
	if st.MarkersStripped > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("removed %d line(s) of model text that looked like prscout markers", st.MarkersStripped))
	}

	out.Requirements, warns = judgeCriteria(in.Requirements.Criteria, parsed.Verdicts, parsed.VerdictsGiven, ix)
	out.Warnings = append(out.Warnings, warns...)
	if in.PRURL == "" {
		in.PRURL = in.PR.URL
	}
	prURL, ok := pullRequestURL(in.PRURL)
	if !ok {
		out.Warnings = append(out.Warnings, fmt.Sprintf("prUrl %q is not an http(s) page address: evidence is not linked", pipeline.ClipRunes(in.PRURL, 80)))
	}

	for _, r := range rows {
		st.ByPlacement[r.placement]++
		switch {
		case r.placement == PlacementUnverified:
			st.BySeverity[r.f.Severity]--
			out.Unverified = append(out.Unverified, UnverifiedFinding{Finding: r.f, Fingerprint: r.fp, Evidence: r.ev})
		case r.placement == PlacementInline:
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

	for i, w := range out.Warnings {
		out.Warnings[i] = redact.Secrets(w, st.Redactions)
	}
	x := summaryExtras{criteria: out.Requirements, ix: ix, prURL: prURL, failedGroups: failed, notice: answerNotice(parsed, in.RequestID), cover: cover,
		verifyDropped: verifyDropped}
	sum := &Summary{in: in, ref: ref, summary: summary, rows: rows, x: x}
	out.Markdown = renderSummary(in, ref, summary, rows, st, x)
	st.MarkdownChars = len(out.Markdown)
	sum.st = *st
	return out, sum
}

// findingRows anchors each finding, strips marker look-alikes from its
// text, redacts secrets in it (after anchoring, so that a snippet still
// matches a diff the caller did not redact), fingerprints it, drops repeats
// and makes its text inert Markdown (sanitizeMarkdown, after fingerprinting:
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
		f.Body = closeFences(redact.Secrets(f.Body, st.Redactions))
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
	criteria         RequirementCounts
	ix               *anchor.Index
	prURL            string
	mem              *Memory
	failed, deferred []InlineComment
	// failedGroups are the review groups without a usable review.
	failedGroups []groupOutcome
	// cover is which files the review covered, for review memory.
	cover reviewCover
	// notice says how the model's answer was read when a person must
	// know: cut off, or not readable at all (answerNotice).
	notice string
	// verifyDropped are the findings the verify pass dropped.
	verifyDropped []droppedRow
}

// renderSummary writes the summary. With x.mem, the findings table is the
// memory table and the hidden data comes before the review marker, within
// the summary's size bound (memory.go); the findings whose inline comment
// was not posted come after the context table.
func renderSummary(in CommentsInput, ref, summary string, rows []findingRow, st *CommentStats, x summaryExtras) string {
	var b strings.Builder
	b.WriteString("## prscout review\n\n")
	mode := in.Mode
	if mode == "delta" && in.Interdiff {
		mode = "interdiff"
	}
	writeHeadline(&b, mode, ref, rows, st)
	writeCoverage(&b, in, x.criteria)
	writeNotReviewedGroups(&b, x.failedGroups)
	if x.notice != "" {
		b.WriteString(x.notice)
		b.WriteString("\n\n")
	}
	if n := len(x.verifyDropped); n > 0 {
		fmt.Fprintf(&b, "A second check (the verify pass) dropped %s of the review as not supported by the code.\n\n", pipeline.CountNoun(n, "finding"))
	}
	// The model's summary.
	if s := strings.TrimSpace(summary); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	writeCriteriaTable(&b, x.criteria, x.ix, x.prURL, in.LinkHosts)
	if x.mem != nil {
		writeMemoryTable(&b, x.mem)
	} else {
		writeFindingsTable(&b, rows)
	}
	writeOffDiff(&b, rows)
	writeSummaryOnly(&b, rows)
	writeUnverified(&b, rows, in.policy)
	writeContextTable(&b, in, st)
	b.WriteString(unpostedText(x.failed, x.deferred))
	defuseDataLines(&b)
	if x.mem != nil {
		tail := marker.ReviewMarker(ref) + "\n"
		// Room for the data, with a margin for the dropped-count line.
		budget := min(maxDataBytes, maxSummaryBytes-b.Len()-len(tail)-300)
		lines, dropped := x.mem.dataBlock(max(budget, 0))
		x.mem.DataDropped = dropped
		if dropped > 0 {
			fmt.Fprintf(&b, "%s of earlier reviews %s no longer remembered: this summary keeps at most %d characters of hidden review data (resolved and outdated findings are dropped first; open ones are found again from their inline comments).\n\n",
				pipeline.CountNoun(dropped, "finding"), isAre(dropped), maxDataBytes)
		}
		if len(lines) > 0 {
			b.WriteString(strings.Join(lines, "\n"))
			b.WriteString("\n\n")
		}
		b.WriteString(tail)
		return b.String()
	}
	b.WriteString(marker.ReviewMarker(ref))
	b.WriteString("\n")
	return b.String()
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
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

// answerNotice says, in the summary, what a person must know about how the
// model's answer was read: that it could not be read at all (how long it
// was, where the raw answer is: the n8n execution, never the answer
// itself), or that it was cut off and what was kept.
func answerNotice(p reviewanswer.Parsed, requestID string) string {
	var b strings.Builder
	limit := ""
	if p.CutOff {
		limit = "; it was cut off at the model's token limit" + reasonNote(p.FinishReason)
	}
	switch {
	case p.Unreadable:
		fmt.Fprintf(&b, "**The model's review answer could not be read** (%s%s), so no findings were posted.", pipeline.CountNoun(p.AnswerChars, "character"), limit)
		if id := strings.TrimSpace(requestID); id != "" {
			fmt.Fprintf(&b, " The raw answer is in the n8n execution of request %s (its Review LLM node).", sanitize.CodeSpan(id))
		} else {
			b.WriteString(" The raw answer is in the n8n execution (its Review LLM node).")
		}
		if p.CutOff {
			b.WriteString(" Raise the review's `max_tokens` (Config node `reviewMaxTokens`).")
		}
	case p.CutOff:
		fmt.Fprintf(&b, "**The model's review answer was cut off** at its token limit%s: %s kept, %d incomplete dropped.",
			reasonNote(p.FinishReason), pipeline.CountNoun(p.Kept, "complete finding"), p.Incomplete)
		b.WriteString(" Raise the review's `max_tokens` (Config node `reviewMaxTokens`) for a full review.")
	}
	return b.String()
}

func reasonNote(finish string) string {
	if finish == "" {
		return ""
	}
	return " (finish reason " + sanitize.CodeSpan(finish) + ")"
}

// writeHeadline writes the head, the mode and the finding counts.
func writeHeadline(b *strings.Builder, mode, ref string, rows []findingRow, st *CommentStats) {
	// Headline: head, mode, counts.
	label := "full review"
	switch mode {
	case "delta":
		label = "delta review: changes since the last reviewed commit"
	case "interdiff":
		label = "delta review: the pull request's own changes since the last reviewed commit; the destination merged in is not reviewed"
	}
	fmt.Fprintf(b, "Head `%s` (%s). ", pipeline.ShortCommit(ref), label)
	counted := len(rows) - st.Unverified
	unverified := ""
	if st.Unverified > 0 {
		unverified = fmt.Sprintf(" Not counted: %s (their evidence was not found).", pipeline.CountNoun(st.Unverified, "unverified finding"))
	}
	if counted == 0 {
		b.WriteString("No findings." + unverified + "\n\n")
	} else {
		var parts []string
		for _, s := range reviewanswer.Severities {
			if n := st.BySeverity[s]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		fmt.Fprintf(b, "%s (%s): %d on diff lines", pipeline.CountNoun(counted, "finding"), strings.Join(parts, ", "), st.Inline)
		if below := st.Unanchored + st.SummaryOnly; below > 0 {
			fmt.Fprintf(b, ", %d below", below)
		}
		b.WriteString("." + unverified + "\n\n")
	}

}

// writeCoverage writes the coverage line and the files not reviewed.
func writeCoverage(b *strings.Builder, in CommentsInput, criteria RequirementCounts) {
	// Coverage: how many changed files the review saw, so "no findings"
	// never hides a partial review.
	cov := pipeline.CoverageOf(len(in.Files), in.Excluded)
	if in.Coverage != nil {
		cov = *in.Coverage
	}
	if cov.ContextDropped == 0 {
		cov.ContextDropped = len(in.Dropped)
	}
	fmt.Fprintf(b, "**Coverage:** %s", cov.Sentence())
	if criteria.Total() > 0 {
		fmt.Fprintf(b, "; %s", criteria.Sentence())
	}
	if names := instructionNames(in.Instructions); names != "" {
		fmt.Fprintf(b, "; instructions: %s", names)
	}
	if len(in.Excluded) > 0 {
		const maxListed = 10
		var ex []string
		for i, e := range in.Excluded {
			if i == maxListed {
				ex = append(ex, fmt.Sprintf("and %d more", len(in.Excluded)-maxListed))
				break
			}
			item := sanitize.CodeSpan(e.Path)
			if e.Reason != "" {
				item += " (" + pipeline.OneLine(e.Reason) + ")"
			}
			ex = append(ex, item)
		}
		fmt.Fprintf(b, ". Not reviewed: %s", strings.Join(ex, ", "))
	}
	b.WriteString(".\n\n")

}

// instructionNames lists the instruction files a review read, as code
// spans (at most 10 named).
func instructionNames(files []pipeline.InstructionFile) string {
	var names []string
	for i, f := range files {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(files)-i))
			break
		}
		names = append(names, sanitize.CodeSpan(pipeline.OneLine(f.Path)))
	}
	return strings.Join(names, ", ")
}

// writeFindingsTable writes every finding as a table row, most severe first.
func writeFindingsTable(b *strings.Builder, rows []findingRow) {
	// Findings table, most severe first.
	var sorted []findingRow
	for _, r := range rows {
		if r.placement != PlacementUnverified {
			sorted = append(sorted, r)
		}
	}
	if len(sorted) > 0 {
		sort.SliceStable(sorted, func(i, j int) bool {
			x, y := sorted[i], sorted[j]
			if ra, rb := reviewanswer.SeverityRank(x.f.Severity), reviewanswer.SeverityRank(y.f.Severity); ra != rb {
				return ra < rb
			}
			if x.a.Path != y.a.Path {
				return x.a.Path < y.a.Path
			}
			return x.a.Line < y.a.Line
		})
		b.WriteString("### Findings\n\n")
		b.WriteString("| Severity | Where | Finding |\n| --- | --- | --- |\n")
		for _, r := range sorted {
			fmt.Fprintf(b, "| %s | %s | %s |\n", reviewanswer.SeverityLabel(r.f.Severity), cell(where(r)), cell(pipeline.OneLine(r.f.Title)))
		}
		b.WriteString("\n")
	}

}

// writeOffDiff writes in full the findings that are not on a diff line.
func writeOffDiff(b *strings.Builder, rows []findingRow) {
	// Findings that are not on a line, in full.
	var off []findingRow
	for _, r := range rows {
		if !r.inline() && r.placement != PlacementUnverified {
			off = append(off, r)
		}
	}
	if len(off) > 0 {
		sort.SliceStable(off, func(i, j int) bool {
			return reviewanswer.SeverityRank(off[i].f.Severity) < reviewanswer.SeverityRank(off[j].f.Severity)
		})
		fmt.Fprintf(b, "### Not on a diff line (%d)\n\n", len(off))
		for _, r := range off {
			fmt.Fprintf(b, "#### %s: %s\n\n", reviewanswer.SeverityLabel(r.f.Severity), pipeline.OneLine(r.f.Title))
			fmt.Fprintf(b, "%s: %s.\n\n", where(r), r.a.Reason)
			if body := strings.TrimSpace(r.f.Body); body != "" {
				b.WriteString(body)
				b.WriteString("\n\n")
			}
			if fix := fixMarkdown(r.fix); fix != "" {
				b.WriteString(fix)
				b.WriteString("\n")
			}
		}
	}

}

// writeContextTable writes the table of context the scout asked for.
func writeContextTable(b *strings.Builder, in CommentsInput, st *CommentStats) {
	// Context the scout asked for.
	b.WriteString("### Context the scout asked for\n\n")
	ctxRows := contextRows(in, st)
	if len(ctxRows) == 0 {
		b.WriteString("The scout asked for no extra context.\n\n")
	} else {
		b.WriteString("| Path | Op | Result |\n| --- | --- | --- |\n")
		for _, r := range ctxRows {
			fmt.Fprintf(b, "| %s | %s | %s |\n", cell(sanitize.CodeSpan(r[0])), cell(r[1]), cell(r[2]))
		}
		b.WriteString("\n")
	}

}

// contextRows lists the context table: every additionalContext item, then
// each dropped item not listed there. /v1/merge turns a dropped item into an
// ok:false additionalContext entry and lists it in stats.dropped; such an
// entry shows as "dropped for budget", not as a failure.
func contextRows(in CommentsInput, st *CommentStats) [][3]string {
	opOr := func(op string) string {
		if op == "" {
			return "get_file"
		}
		return op
	}
	key := func(op, path string) string { return opOr(op) + "\x00" + path }
	dropped := map[string]pipeline.DroppedContext{}
	for _, d := range in.Dropped {
		dropped[key(d.Op, d.Path)] = d
	}
	var rows [][3]string
	listed := map[string]bool{}
	for _, c := range in.AdditionalContext {
		k := key(c.Op, c.Path)
		var result string
		if d, ok := dropped[k]; ok {
			result = droppedText(d)
			listed[k] = true
			st.ContextDropped++
		} else if c.OK {
			result = "fetched"
			st.ContextFetched++
		} else {
			reason := strings.TrimSpace(c.Error)
			if reason == "" {
				reason = "unknown error"
			}
			result = "failed: " + pipeline.OneLine(reason)
			st.ContextFailed++
		}
		rows = append(rows, [3]string{c.Path, opOr(c.Op), result})
	}
	for _, d := range in.Dropped {
		k := key(d.Op, d.Path)
		if listed[k] {
			continue
		}
		listed[k] = true
		rows = append(rows, [3]string{d.Path, opOr(d.Op), droppedText(d)})
		st.ContextDropped++
	}
	return rows
}

func droppedText(d pipeline.DroppedContext) string {
	s := "dropped for budget"
	if d.Chars > 0 {
		s += fmt.Sprintf(" (%d chars)", d.Chars)
	}
	switch r := strings.TrimSpace(d.Reason); r {
	case "", "budget":
	case "over_budget":
		s += ": the changed files alone fill the budget"
	default:
		s += ": " + pipeline.OneLine(r)
	}
	return s
}

func where(r findingRow) string {
	p := r.a.Path
	if p == "" {
		p = r.f.Path
	}
	switch r.a.Anchor {
	case anchor.Line, anchor.Snippet:
		if r.placement == PlacementSummary {
			return sanitize.CodeSpan(fmt.Sprintf("%s:%d", p, r.a.Line)) + " (summary only)"
		}
		return sanitize.CodeSpan(fmt.Sprintf("%s:%d", p, r.a.Line))
	case anchor.OnFile:
		return sanitize.CodeSpan(p) + " (file)"
	default:
		if p == "" {
			return "(no file)"
		}
		return sanitize.CodeSpan(p) + " (not in this PR)"
	}
}

// closeFences closes a fenced code block model text leaves open (a reply cut
// at its token limit does): left open, it would swallow everything after it,
// our tables and the hidden marker included, into a visible code block.
func closeFences(s string) string {
	var open string // the opening fence run ("```", "~~~~", ...), "" when none
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimRight(strings.TrimLeft(line, " "), "\r")
		if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue // indented code, not a fence
		}
		run := fenceRun(t)
		if run == "" {
			continue
		}
		switch {
		case open == "":
			if run[0] == '`' && strings.Contains(t[len(run):], "`") {
				continue // a backtick fence's info string cannot hold a backtick
			}
			open = run
		case run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(t[len(run):]) == "":
			open = ""
		}
	}
	if open == "" {
		return s
	}
	return strings.TrimRight(s, "\n") + "\n" + open
}

// fenceRun returns the leading run of 3+ backticks or tildes of t, or "".
func fenceRun(t string) string {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// cell makes text safe inside a pipe-table cell: one line (tables cannot
// hold line breaks on Bitbucket) and every '|' escaped.
func cell(s string) string {
	s = pipeline.OneLine(s)
	s = strings.ReplaceAll(s, `\|`, `|`)
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return " "
	}
	return s
}

// defuseDataLines makes sure no line of the summary written so far reads as
// hidden review data (marker.ParseFindingData): only prscout's own data
// block, written after it, may. Every caller- or model-supplied string is
// already on one line inside a code span, a table row or the sanitizer's
// output; this is the guard should one slip through.
func defuseDataLines(b *strings.Builder) {
	s := b.String()
	if !strings.Contains(s, "[prscout-f:") || len(marker.ParseFindingData(s)) == 0 {
		return
	}
	lines := strings.SplitAfter(s, "\n")
	for i, line := range lines {
		if len(marker.ParseFindingData(line)) > 0 {
			lines[i] = strings.Replace(line, "[prscout-f:", `\[prscout-f:`, 1)
		}
	}
	b.Reset()
	for _, line := range lines {
		b.WriteString(line)
	}
}
