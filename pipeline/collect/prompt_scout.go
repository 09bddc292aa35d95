package collect

import (
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/redact"
)

// scoutSystem is the scout's system message; %TOTAL% and %PERFILE% are the
// request caps.
const scoutSystem = `You are the scout of a two-step code review of a pull request. You do not review the change. Your only job is to pick the other files and folders of the repository that the reviewer must read to judge the change correctly: callers of changed functions, definitions of types and interfaces the change uses, contracts of other modules it talks to (API schemas, configuration, tests of the changed behaviour).

Rules:
- Ask for at most %TOTAL% items in all and at most %PERFILE% per changed file. Ask only for what the review needs.
- Ask only for paths that exist in the repository, relative to its root (no leading "/", no "..", no URLs). Prefer paths you can see in imports, diffs and sources.
- Never ask for a changed file: its diff and new source are already shown.
- Use "get_file" for one file and "list_dir" for a folder whose content you need to see first.
- Give each item a one-line reason.

Answer with a single JSON object and nothing else (no prose, no Markdown fence), exactly in this format:
{"files":[{"path":"<changed file path>","needs":[{"op":"get_file"|"list_dir","path":"<repo-relative path>","reason":"<one line>"}]}]}
"path" of each entry of "files" is the changed file the needs are for. Answer {"files":[]} when nothing is needed.`

// scoutPrompt builds the scout's messages from an assembled context: the
// system message states the job, the caps of lim and the exact JSON answer
// format; the user message shows the pull request (title and description when
// known), the Jira requirements, free requirements, the repository rules, the
// part of a large change this is (res.Part), then each shown file with its
// status, language, diff and new source (whole or labelled windows), the
// context candidates with their reasons and finally the excluded files with
// their reasons. The output depends only on its input, in file order.
func scoutPrompt(res ContextResult, lim pipeline.Limits) pipeline.Prompt {
	return scoutPromptWithin(res, lim, 0)
}

// scoutPromptWithin is scoutPrompt within budget characters (0: no limit).
// Files are shown in full in order while they fit; the files after that are
// listed one line each under "Changed files not shown in full" (path, status,
// size) while the list fits, and the rest are counted. Nothing is cut inside
// a file. Only the fixed part of the prompt (instructions, pull request, Jira,
// rules) can exceed the budget.
func scoutPromptWithin(res ContextResult, lim pipeline.Limits, budget int) pipeline.Prompt {
	lim = lim.WithDefaults()
	total, perFile := lim.NeedsTotal, lim.NeedsPerFile
	system := strings.NewReplacer("%TOTAL%", strconv.Itoa(total), "%PERFILE%", strconv.Itoa(perFile)).Replace(scoutSystem)

	size := 4096 + len(res.Rules) + len(res.RequirementsText) + len(res.PR.Description)
	for _, f := range res.Files {
		size += len(f.Diff) + len(f.Source) + len(f.Path)*2 + 200
	}
	if budget > 0 {
		size = min(size, budget*4)
	}
	var b strings.Builder
	b.Grow(size)
	writeScoutHead(&b, res)

	tail := candidatesPrompt(res.Candidates) + scoutTail(res.Excluded)
	// used counts the characters written so far plus the fixed ones to come.
	used := pipeline.RuneCount(system) + pipeline.RuneCount(b.String()) + pipeline.RuneCount(tail)
	var sections []string
	var left []pipeline.ChangedFile
	seenRules := map[string]string{}
	for i, f := range res.Files {
		if len(left) > 0 {
			left = append(left, f)
			continue
		}
		sec := scoutFileSection(len(sections)+1, f, seenRules)
		if budget > 0 && used+pipeline.RuneCount(sec)+scoutFilesHeadroom > budget {
			left = append(left, res.Files[i:i+1]...)
			continue
		}
		used += pipeline.RuneCount(sec)
		sections = append(sections, sec)
	}
	b.WriteString("# Changed files (" + strconv.Itoa(len(res.Files)) + ")\n")
	if len(res.Files) == 0 {
		b.WriteString("\nNo reviewable file changed.\n")
	}
	for _, sec := range sections {
		b.WriteString(sec)
	}
	if len(left) > 0 {
		b.WriteString(scoutNotShown(left, budget-used))
	}
	b.WriteString(tail)
	return pipeline.Prompt{System: system, User: b.String()}
}

// scoutPromptChars is promptChars(scoutPrompt(res, lim)), counted as the
// prompt would be written instead of built: with no budget, every file is
// shown in order.
func scoutPromptChars(res ContextResult, lim pipeline.Limits) int {
	lim = lim.WithDefaults()
	c := merge.Counter{Memo: res.countMemo}
	writeScoutHead(&c, res)
	c.WriteString("# Changed files (" + strconv.Itoa(len(res.Files)) + ")\n")
	if len(res.Files) == 0 {
		c.WriteString("\nNo reviewable file changed.\n")
	}
	seenRules := map[string]string{}
	for i, f := range res.Files {
		writeScoutFileSection(&c, i+1, f, seenRules)
	}
	writeCandidatesPrompt(&c, res.Candidates)
	c.WriteString(scoutTail(res.Excluded))
	return scoutSystemChars(lim) + c.N
}

// The scout's system message in characters, less its placeholders: each
// count adds the limits' digits in their place.
var (
	scoutSystemFixed = pipeline.RuneCount(scoutSystem) - strings.Count(scoutSystem, "%TOTAL%")*len("%TOTAL%") -
		strings.Count(scoutSystem, "%PERFILE%")*len("%PERFILE%")
	scoutSystemTotals   = strings.Count(scoutSystem, "%TOTAL%")
	scoutSystemPerFiles = strings.Count(scoutSystem, "%PERFILE%")
)

// scoutSystemChars is the length in characters of the scout's system
// message for lim (lim with its defaults).
func scoutSystemChars(lim pipeline.Limits) int {
	return scoutSystemFixed + scoutSystemTotals*len(strconv.Itoa(lim.NeedsTotal)) + scoutSystemPerFiles*len(strconv.Itoa(lim.NeedsPerFile))
}

// scoutFilesHeadroom is what the budget keeps free for the list of changed
// files not shown in full.
const scoutFilesHeadroom = 400

// writeScoutHead writes the scout prompt's fixed head: redaction note, pull
// request, Jira, requirements, rules and the part of a large change.
func writeScoutHead(b merge.Writer, res ContextResult) {
	// The counts so far are exactly what this prompt shows (see
	// ContextResult.answerOnly).
	b.WriteString(redact.Note(sumCounts(res.Stats.Redactions)))

	if res.PR.Title != "" || res.PR.Description != "" {
		b.WriteString("# Pull request\n\n")
		if res.PR.Title != "" {
			b.WriteString("Title: " + pipeline.OneLine(res.PR.Title) + "\n")
		}
		if res.PR.SourceBranch != "" || res.PR.DestinationBranch != "" {
			b.WriteString("Branches: " + pipeline.OneLine(res.PR.SourceBranch) + " -> " + pipeline.OneLine(res.PR.DestinationBranch) + "\n")
		}
		if d := strings.TrimSpace(res.PR.Description); d != "" {
			b.WriteString("\nDescription:\n" + d + "\n")
		}
		b.WriteString("\n")
	}
	if len(res.Jira) > 0 {
		b.WriteString("# Jira requirements\n\n")
		for _, is := range res.Jira {
			b.WriteString("## " + pipeline.OneLine(is.Key))
			if is.Summary != "" {
				b.WriteString(": " + pipeline.OneLine(is.Summary))
			}
			b.WriteString("\n")
			if is.Status != "" {
				b.WriteString("Status: " + pipeline.OneLine(is.Status) + "\n")
			}
			if d := strings.TrimSpace(is.Description); d != "" {
				b.WriteString("\n" + d + "\n")
			}
			if ac := strings.TrimSpace(is.AcceptanceCriteria); ac != "" && len(is.Requirements) == 0 {
				b.WriteString("\nAcceptance criteria:\n" + ac + "\n")
			}
			b.WriteString("\n")
		}
	}
	if r := strings.TrimSpace(res.RequirementsText); r != "" {
		b.WriteString("# Requirements\n\n" + r + "\n\n")
	}
	if len(res.Requirements) > 0 {
		b.WriteString("# Acceptance criteria\n\nThe reviewer judges each one: also ask for the files that show whether the change meets them.\n\n")
		for _, c := range res.Requirements {
			b.WriteString("- " + pipeline.OneLine(c.ID) + ": " + pipeline.OneLine(c.Text) + "\n")
		}
		b.WriteString("\n")
	}
	if r := strings.TrimSpace(res.Rules); r != "" {
		b.WriteString("# Repository rules\n\n" + r + "\n\n")
	}
	if res.Part != nil {
		b.WriteString(groups.PartNote(*res.Part, "scout"))
	}
}

// scoutFileSection is one changed file as the scout prompt shows it, as
// file number n.
func scoutFileSection(n int, f pipeline.ChangedFile, seenRules map[string]string) string {
	var b strings.Builder
	b.Grow(len(f.Diff) + len(f.Source) + len(f.Path)*2 + 300)
	writeScoutFileSection(&b, n, f, seenRules)
	return b.String()
}

// scoutFileSectionChars is the size of scoutFileSection's answer in
// characters, counted as it is written instead of built.
func scoutFileSectionChars(n int, f pipeline.ChangedFile, seenRules map[string]string, memo *merge.TextMemo) int {
	c := merge.Counter{Memo: memo}
	writeScoutFileSection(&c, n, f, seenRules)
	return c.N
}

// writeScoutFileSection writes scoutFileSection's answer to b.
func writeScoutFileSection(b merge.Writer, n int, f pipeline.ChangedFile, seenRules map[string]string) {
	b.WriteString("\n## " + strconv.Itoa(n) + ". " + f.Path + "\n\n")
	b.WriteString("Status: " + f.Status)
	if f.OldPath != "" {
		b.WriteString(" (from " + f.OldPath + ")")
	}
	b.WriteString("\n")
	if f.Language != "" {
		b.WriteString("Language: " + f.Language + "\n")
	}
	b.WriteString(merge.FileRulesText(f, seenRules))
	b.WriteString("\n### Diff\n\n")
	if len(f.DiffOmitted) > 0 {
		b.WriteString(groups.OmittedNote(f) + "\n\n")
	}
	merge.WriteFenced(b, "diff", f.Diff)
	switch {
	case f.SourceRange == nil:
		b.WriteString("\n### New source\n\nNot shown: " + noSourceReason(f) + ".\n")
	case len(f.SourceRange.Windows) > 0:
		b.WriteString("\n### New source (only lines " + rangeLabel(*f.SourceRange) + " shown; each window starts with a \"--- lines a-b of n ---\" label)\n\n")
		merge.WriteFenced(b, f.Language, f.Source)
	default:
		b.WriteString("\n### New source (whole file, " + pipeline.CountNoun(f.SourceRange.Total, "line") + ")\n\n")
		merge.WriteFenced(b, f.Language, f.Source)
	}
}

// scoutNotShown lists changed files the budget had no room for, one line
// each while room lasts (at least a count of the rest is always written).
func scoutNotShown(left []pipeline.ChangedFile, room int) string {
	var b strings.Builder
	head := "\n# Changed files not shown in full (" + strconv.Itoa(len(left)) + ")\n\nOver the prompt budget: their paths are listed so you can ask for context about them; their diffs are not shown here.\n\n"
	b.WriteString(head)
	room -= pipeline.RuneCount(head) + 80 // the closing count line
	for i, f := range left {
		line := "- " + pipeline.ClipRunes(pipeline.OneLine(f.Path), 200) + " (" + f.Status + ")\n"
		if room-pipeline.RuneCount(line) < 0 {
			b.WriteString("- and " + pipeline.CountNoun(len(left)-i, "more file") + "\n")
			return b.String()
		}
		room -= pipeline.RuneCount(line)
		b.WriteString(line)
	}
	return b.String()
}

// scoutTail is the end of the scout's user message: the excluded files
// (a bounded list) and the answer reminder.
func scoutTail(excluded []pipeline.Excluded) string {
	var b strings.Builder
	if len(excluded) > 0 {
		b.WriteString("\n# Changed files not shown\n\n")
		merge.WriteExcludedList(&b, excluded, func(e pipeline.Excluded) string { return "- " + e.Path + " (" + e.Reason + ")\n" })
	}
	b.WriteString("\n# Answer\n\nAnswer with the JSON object described in the instructions and nothing else.\n")
	return b.String()
}

// noSourceReason says why a shown file has no source, from its diff header.
func noSourceReason(f pipeline.ChangedFile) string {
	if len(f.DiffOmitted) > 0 {
		return "the file alone is over the prompt budget, so only part of its diff is shown"
	}
	header, _, hunks := strings.Cut(f.Diff, "\n@@ ")
	switch {
	case strings.Contains(header, "\nnew file mode 120000") || strings.Contains(header, "\nnew mode 120000") ||
		strings.Contains(header, " 120000\n"):
		return "a symbolic link (the diff shows its target)"
	case !hunks:
		return "no line changed (a rename or mode change only)"
	}
	return "the file is empty or could not be read (see warnings); the diff is all there is"
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
