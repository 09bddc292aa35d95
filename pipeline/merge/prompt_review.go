package merge

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/redact"
)

// reviewSystemPrompt is the system message of the review pass. It fixes the
// answer format that /v1/comments parses.
const reviewSystemPrompt = `You are a senior software engineer reviewing a pull request.

Review only the changes of the changed files: the lines their diffs add or modify, read together with the surrounding code. Report real problems only: bugs, security issues, broken contracts with other code, missing error handling, unmet Jira requirements or acceptance criteria, and breaches of the repository rules. Do not report style preferences the rules do not ask for.

The additional context (other files and directory listings of the repository at the pull request's head, chosen by a first pass) is there to help you understand callers, types and contracts. It is for understanding only: do not report issues in it. Some requested context could not be read; it is listed with the reason. Do not guess what it contains, and say in the summary when missing context limited the review.

Answer with a single JSON object and nothing else (no Markdown code fence, no text before or after it), exactly in this format:
{"summary":"<markdown, 1-5 sentences>","findings":[{"path":"<changed file path>","line":<new-file line number in the diff>,"endLine":<last line, only when the problem spans lines>,"existingCode":"<the exact line(s) from the new code the finding is about>","severity":"critical|high|medium|low","confidence":<0 to 1>,"title":"<short>","body":"<markdown explanation and fix>","fix":{"before":"<the exact new-code lines to replace>","after":"<their replacement>"}}]}

- path: the changed file's path exactly as the prompt shows it.
- line: the line number in the new version of the file, on a line the diff adds or shows.
- existingCode: your evidence, required: the line(s) of the changed file's new code the finding is about, copied verbatim (no paraphrase, no "..."), from its diff's added or unchanged lines or its new source. A finding is checked against it: one whose code is not found in the file it names, or is only in removed lines, is not posted on the diff.
- endLine and fix are optional: give fix only for a small, certain change, with before copied verbatim from the new code.
- severity: critical, high, medium or low.
- confidence: how sure you are that the problem is real, from 0 to 1.
- One finding per problem; findings only on changed files.
When nothing is wrong, answer {"summary":"...","findings":[]}.`

// ReviewPrompt is the review prompt without fetched context: what a review
// group's prompt starts from, before /v1/merge adds what the scout asked for.
func ReviewPrompt(mc MergeContext) pipeline.Prompt { return renderReviewPrompt(mc, nil) }

// renderReviewPrompt builds the review prompt: the system message above and
// a user message with the PR, Jira, free requirements, rules, the changed files (diff and new
// source, as the context stage gave them) and the additional context, one
// chunk per item in request order. It is deterministic: the same input
// gives the same bytes.
func renderReviewPrompt(mc MergeContext, items []contextItem) pipeline.Prompt {
	var b strings.Builder
	b.Grow(reviewSizeHint(mc, items))
	writeReviewUser(&b, mc, items)
	return pipeline.Prompt{System: reviewSystemPrompt, User: b.String()}
}

// reviewSizeHint is about the size in bytes of the review prompt's user
// message: its large texts and a share for each file's headings, so the
// builder allocates once instead of doubling its way up to a prompt of
// megabytes.
func reviewSizeHint(mc MergeContext, items []contextItem) int {
	n := 4096 + len(mc.PR.Title) + len(mc.PR.Description) + len(mc.Rules) + len(mc.RequirementsText)
	for _, is := range mc.Jira {
		n += 256 + len(is.Summary) + len(is.Description) + len(is.AcceptanceCriteria)
	}
	for _, f := range mc.Instructions {
		n += 128 + len(f.Path) + len(f.Content)
	}
	for _, f := range mc.Files {
		n += 256 + 2*len(f.Path) + len(f.Diff) + len(f.Source)
	}
	for _, e := range mc.Excluded {
		n += 8 + len(e.Path) + len(e.Reason)
	}
	for _, it := range items {
		n += 128 + len(it.Path) + len(it.dropNote)
		if !it.dropped {
			n += len(it.Content) + len(it.Error)
		}
	}
	return n
}

// ReviewPromptChars is the size of ReviewPrompt(mc) in characters
// (runes), counted as it is written instead of built.
func ReviewPromptChars(mc MergeContext) int { return ReviewPromptCharsWith(mc, nil) }

// ReviewPromptCharsWith is ReviewPromptChars counting the large texts
// through memo (nil: none).
func ReviewPromptCharsWith(mc MergeContext, memo *TextMemo) int {
	return reviewChars(mc, nil, memo)
}

// reviewChars is the size of renderReviewPrompt(mc, items) in characters,
// counted as it is written (large texts through memo when set).
func reviewChars(mc MergeContext, items []contextItem, memo *TextMemo) int {
	c := Counter{Memo: memo}
	writeReviewUser(&c, mc, items)
	return reviewSystemChars + c.N
}

// writeReviewUser writes the review prompt's user message to b.
func writeReviewUser(b Writer, mc MergeContext, items []contextItem) {
	pr := mc.PR
	b.WriteString(redact.Note(reviewRedactions(mc, items)))
	b.WriteString("# Pull request\n\n")
	reviewField(b, "Title", pr.Title)
	reviewField(b, "Author", pr.Author)
	if pr.SourceBranch != "" || pr.DestinationBranch != "" {
		reviewField(b, "Branches", pr.SourceBranch+" -> "+pr.DestinationBranch)
	}
	if mc.Workspace != "" || mc.RepoSlug != "" {
		reviewField(b, "Repository", mc.Workspace+"/"+mc.RepoSlug)
	}
	if mc.PRID > 0 {
		reviewField(b, "Pull request", fmt.Sprintf("#%d", mc.PRID))
	}
	reviewField(b, "Head commit", mc.Ref)
	if mc.Mode == "delta" && mc.ReviewedCommit != "" {
		reviewField(b, "Review mode", "delta: only the changes since the last reviewed commit "+mc.ReviewedCommit+" are shown")
	}
	b.WriteString("\n## Description\n\n")
	b.WriteString(reviewOrNone(pr.Description))
	b.WriteString("\n\n# Jira\n\n")
	if len(mc.Jira) == 0 {
		b.WriteString("(none)\n")
	}
	for _, is := range mc.Jira {
		fmt.Fprintf(b, "## %s: %s", is.Key, is.Summary)
		if is.Status != "" {
			fmt.Fprintf(b, " (%s)", is.Status)
		}
		b.WriteString("\n\n")
		b.WriteString(reviewOrNone(is.Description))
		b.WriteString("\n")
		if len(is.Requirements) > 0 {
			b.WriteString("\nIts acceptance criteria are listed under \"Acceptance criteria to judge\".\n")
		} else if strings.TrimSpace(is.AcceptanceCriteria) != "" {
			b.WriteString("\n### Acceptance criteria\n\n")
			b.WriteString(strings.TrimSpace(is.AcceptanceCriteria))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if r := strings.TrimSpace(mc.RequirementsText); r != "" {
		b.WriteString("\n# Requirements\n\n")
		b.WriteString(r)
		b.WriteString("\n")
	}
	writeCriteriaToJudge(b, mc.Requirements.Criteria)
	b.WriteString("\n# Repository rules\n\n")
	b.WriteString(reviewOrNone(mc.Rules))
	writeGuidance(b, mc.Instructions)
	if mc.Part != nil {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(groups.PartNote(*mc.Part, "review"), "\n"))
	}
	fmt.Fprintf(b, "\n\n# Changed files (%d)\n", len(mc.Files))
	seenRules := map[string]string{}
	for _, f := range mc.Files {
		WriteChangedFile(b, f, seenRules)
	}
	if len(mc.Excluded) > 0 {
		b.WriteString("\n# Changed files not shown\n\n")
		WriteExcludedList(b, mc.Excluded, func(e pipeline.Excluded) string { return "- " + e.Path + ": " + e.Reason + "\n" })
	}
	if len(items) > 0 {
		fmt.Fprintf(b, "\n# Additional context (%d items)\n\n", len(items))
		b.WriteString("For understanding only: do not report issues in these files. Items that could not be read say why.\n")
		for _, it := range items {
			b.WriteString(contextChunk(it))
		}
	}
	b.WriteString("\nAnswer with the JSON object described in the system message.\n")
}

// writeGuidance shows the repository's instruction files (AGENTS.md,
// REVIEW.md, ...) read at the destination commit: guidance the team wrote
// for reviewers and agents, each file fenced so its text cannot close the
// section. Nothing when there are none.
func writeGuidance(b Writer, files []pipeline.InstructionFile) {
	n := 0
	for _, f := range files {
		if strings.TrimSpace(f.Content) != "" {
			n++
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\n\n# Repository guidance (%s)\n\n", pipeline.CountNoun(n, "instruction file"))
	b.WriteString("Instructions the team keeps for reviewers and coding agents, read from the destination branch. Follow what applies to reviewing this change; the answer format of the system message still holds.\n")
	for _, f := range files {
		if strings.TrimSpace(f.Content) == "" {
			continue
		}
		label := fmt.Sprintf("%d bytes", f.Size)
		if f.Cut {
			label += ", cut"
		}
		fmt.Fprintf(b, "\n## %s (%s)\n\n", reviewOrDash(f.Path), label)
		WriteFenced(b, "", f.Content)
	}
}

// verdictFormat is what the review prompt asks per acceptance criterion;
// /v1/comments reads it (reviewanswer.Parse).
const verdictFormat = `Judge each criterion against the change and add "requirements" to the JSON answer, one entry per id above:
"requirements":[{"id":"<id>","verdict":"met|not_met|unclear","evidence":[{"path":"<file>","line":<new-file line>}],"note":"<one line: why>"}]
met: the change does it (evidence: where); not_met: it does not, or breaks it; unclear: the change and the context cannot tell.
`

// writeCriteriaToJudge lists the acceptance criteria by id and asks for a
// verdict on each; nothing when there are none.
func writeCriteriaToJudge(b Writer, criteria []pipeline.Requirement) {
	if len(criteria) == 0 {
		return
	}
	fmt.Fprintf(b, "\n# Acceptance criteria to judge (%d)\n\n", len(criteria))
	for _, c := range criteria {
		fmt.Fprintf(b, "- %s: %s\n", pipeline.OneLine(c.ID), pipeline.OneLine(c.Text))
	}
	b.WriteString("\n")
	b.WriteString(verdictFormat)
}

// reviewRedactions counts the redaction markers in what the review prompt
// may show: the pull request, Jira, requirements, rules, the changed files
// and every context item's content or error, dropped or not, so that the
// note (and so the prompt's size) does not change while fitBudget takes
// items back.
func reviewRedactions(mc MergeContext, items []contextItem) int {
	n := redact.Count(mc.PR.Title) + redact.Count(mc.PR.Description) +
		redact.Count(mc.Requirements.Text) + redact.Count(mc.Rules)
	for _, f := range mc.Instructions {
		n += redact.Count(f.Content)
	}
	for _, is := range mc.Jira {
		n += redact.Count(is.Summary) + redact.Count(is.Description)
		if len(is.Requirements) == 0 { // otherwise its criteria are listed one by one below
			n += redact.Count(is.AcceptanceCriteria)
		}
	}
	for _, c := range mc.Requirements.Criteria {
		n += redact.Count(c.Text)
	}
	seenRules := map[string]bool{}
	for _, f := range mc.Files {
		n += redact.Count(f.Diff) + redact.Count(f.Source)
		if r := strings.TrimSpace(f.Rules); r != "" && !seenRules[r] {
			seenRules[r] = true
			n += redact.Count(r)
		}
	}
	for _, it := range items {
		n += redact.Count(it.Content) + redact.Count(it.Error)
	}
	return n
}

// contextChunk is one item as the prompt currently shows it: the whole file
// or listing, or one line saying why it could not be read.
func contextChunk(it contextItem) string {
	v := it.view()
	if v.OK {
		return contextSection(it)
	}
	return fmt.Sprintf("\n## Could not read %s %s: %s\n", reviewOrDash(v.Op), reviewDisplayPath(v.Path), pipeline.OneLine(v.Error))
}

// contextSection is an item's whole content as the prompt shows it when
// included.
func contextSection(it contextItem) string {
	var b strings.Builder
	if it.Op == pipeline.OpListDir {
		n := fmt.Sprintf("%d entries", len(it.entries))
		if it.truncated {
			n += ", cut: more exist"
		}
		fmt.Fprintf(&b, "\n## Directory %s (%s)\n\n", reviewDisplayPath(it.Path), n)
	} else {
		fmt.Fprintf(&b, "\n## File %s (whole file, %d lines)\n\n", it.Path, reviewLineCount(it.Content))
	}
	WriteFenced(&b, "", it.Content)
	return b.String()
}

func WriteChangedFile(b Writer, f pipeline.ChangedFile, seenRules map[string]string) {
	fmt.Fprintf(b, "\n## %s (%s", f.Path, reviewOrDash(f.Status))
	if f.OldPath != "" && f.OldPath != f.Path {
		fmt.Fprintf(b, ", from %s", f.OldPath)
	}
	if f.Language != "" {
		fmt.Fprintf(b, ", %s", f.Language)
	}
	b.WriteString(")\n\n")
	if r := FileRulesText(f, seenRules); r != "" {
		b.WriteString(r + "\n")
	}
	b.WriteString("### Diff\n\n")
	if len(f.DiffOmitted) > 0 {
		b.WriteString(groups.OmittedNote(f) + "\n\n")
	}
	WriteFenced(b, "diff", f.Diff)
	switch {
	case f.Source != "":
		fmt.Fprintf(b, "\n### New source (%s)\n\n", reviewSourceLabel(f.SourceRange, f.Source))
		WriteFenced(b, f.Language, f.Source)
	case f.Status != "deleted":
		b.WriteString("\n### New source\n\nNot shown: the diff is all there is.\n")
	}
}

// reviewSourceLabel says which lines a source shows, so a window is never taken
// for the whole file.
func reviewSourceLabel(sr *pipeline.SourceRange, src string) string {
	if sr == nil {
		return fmt.Sprintf("%d lines", reviewLineCount(src))
	}
	if len(sr.Windows) > 0 {
		parts := make([]string, len(sr.Windows))
		for i, w := range sr.Windows {
			parts[i] = fmt.Sprintf("%d~%d", w.From, w.To)
		}
		return fmt.Sprintf("only lines %s of %d shown", strings.Join(parts, ", "), sr.Total)
	}
	if sr.From <= 1 && sr.To >= sr.Total {
		return fmt.Sprintf("whole file, %d lines", sr.Total)
	}
	return fmt.Sprintf("only lines %d~%d of %d shown", sr.From, sr.To, sr.Total)
}

// Writer is where prompts are written: a strings.Builder, or a Counter
// that only counts what would be written.
type Writer interface {
	io.Writer
	io.StringWriter
}

// reviewSystemChars is reviewSystemPrompt's length in characters.
var reviewSystemChars = utf8.RuneCountInString(reviewSystemPrompt)

// Counter counts the characters (runes) written to it. A prompt is
// written piece by piece, each piece a whole string, so the count is the
// built prompt's.
type Counter struct {
	N int
	// Memo, when set, counts each large fenced text once (TextMemo).
	Memo *TextMemo
}

func (c *Counter) Write(p []byte) (int, error) {
	c.N += utf8.RuneCount(p)
	return len(p), nil
}

func (c *Counter) WriteString(s string) (int, error) {
	c.N += pipeline.RuneCount(s)
	return len(s), nil
}

// WriteFenced writes s in a Markdown code fence longer than any backtick run
// inside it, so file content can never close the fence early.
func WriteFenced(b Writer, lang, s string) {
	if c, ok := b.(*Counter); ok && countFenced(c, lang, s) {
		return
	}
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	b.WriteString(fence)
	b.WriteString(fenceLang(lang))
	b.WriteString("\n")
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence)
	b.WriteString("\n")
}

// fenceLang keeps an info string to one safe word ("go", "go.mod", "c++").
func fenceLang(lang string) string {
	for _, r := range lang {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '#' || r == '_' || r == '.') {
			return ""
		}
	}
	return strings.ToLower(lang)
}

func reviewLineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func reviewField(b Writer, name, value string) {
	if value = strings.TrimSpace(value); value != "" {
		fmt.Fprintf(b, "%s: %s\n", name, pipeline.OneLine(value))
	}
}

func reviewOrNone(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "(none)"
	}
	return s
}

func reviewOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return pipeline.OneLine(s)
}

func reviewDisplayPath(p string) string {
	if p == "" {
		return "/ (repository root)"
	}
	return pipeline.OneLine(p)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	// strings.IndexByte jumps to the next c (fences are measured on every
	// diff and source, several times per request; c is rare in them).
	best := 0
	for {
		i := strings.IndexByte(s, c)
		if i < 0 {
			return best
		}
		n := 1
		for i+n < len(s) && s[i+n] == c {
			n++
		}
		best = max(best, n)
		s = s[i+n:]
	}
}

// Bounds of a prompt's list of changed files not shown: the list is for
// orientation, so a change with thousands of excluded files does not fill
// the prompt with their names.
const (
	MaxListedExcluded     = 30
	maxListedExcludedPath = 200
)

// WriteExcludedList writes at most MaxListedExcluded entries (paths clipped
// to maxListedExcludedPath characters) and counts the rest.
func WriteExcludedList(b Writer, excluded []pipeline.Excluded, line func(pipeline.Excluded) string) {
	for i, e := range excluded {
		if i == MaxListedExcluded {
			b.WriteString("- and " + pipeline.CountNoun(len(excluded)-i, "more file") + "\n")
			return
		}
		e.Path = pipeline.ClipRunes(e.Path, maxListedExcludedPath)
		b.WriteString(line(e))
	}
}

// FileRulesText renders a changed file's review rules for a prompt: the
// whole text the first time a rule appears, a back reference afterwards.
func FileRulesText(f pipeline.ChangedFile, seen map[string]string) string {
	r := strings.TrimSpace(f.Rules)
	if r == "" {
		return ""
	}
	label := ""
	if f.RuleSource != "" {
		label = " (" + f.RuleSource + ")"
	}
	if first, ok := seen[r]; ok {
		return "Review rules" + label + ": the same as for " + first + ".\n"
	}
	seen[r] = f.Path
	return "Review rules" + label + ":\n" + r + "\n"
}
