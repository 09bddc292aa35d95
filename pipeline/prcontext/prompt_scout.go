package prcontext

import (
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
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
// known), the Jira requirements, free requirements, the repository rules, then
// each shown file with its status, language, diff and new source (whole or
// labelled windows), the context candidates with their reasons and finally
// the excluded files with their reasons. The output depends only on its
// input, in file order.
func scoutPrompt(res ContextResult, lim pipeline.Limits) pipeline.Prompt {
	lim = lim.WithDefaults()
	total, perFile := lim.NeedsTotal, lim.NeedsPerFile
	system := strings.NewReplacer("%TOTAL%", strconv.Itoa(total), "%PERFILE%", strconv.Itoa(perFile)).Replace(scoutSystem)

	size := 4096 + len(res.Rules) + len(res.Requirements) + len(res.PR.Description)
	for _, f := range res.Files {
		size += len(f.Diff) + len(f.Source) + len(f.Path)*2 + 200
	}
	var b strings.Builder
	b.Grow(size)
	if n := sumCounts(res.Stats.Redactions); n > 0 {
		b.WriteString(scope.RedactionNote(n))
	}

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
			if ac := strings.TrimSpace(is.AcceptanceCriteria); ac != "" {
				b.WriteString("\nAcceptance criteria:\n" + ac + "\n")
			}
			b.WriteString("\n")
		}
	}
	if r := strings.TrimSpace(res.Requirements); r != "" {
		b.WriteString("# Requirements\n\n" + r + "\n\n")
	}
	if r := strings.TrimSpace(res.Rules); r != "" {
		b.WriteString("# Repository rules\n\n" + r + "\n\n")
	}

	b.WriteString("# Changed files (" + strconv.Itoa(len(res.Files)) + ")\n")
	if len(res.Files) == 0 {
		b.WriteString("\nNo reviewable file changed.\n")
	}
	seenRules := map[string]string{}
	for i, f := range res.Files {
		b.WriteString("\n## " + strconv.Itoa(i+1) + ". " + f.Path + "\n\n")
		b.WriteString("Status: " + f.Status)
		if f.OldPath != "" {
			b.WriteString(" (from " + f.OldPath + ")")
		}
		b.WriteString("\n")
		if f.Language != "" {
			b.WriteString("Language: " + f.Language + "\n")
		}
		b.WriteString(fileRulesText(f, seenRules))
		b.WriteString("\n### Diff\n\n")
		writeFenced(&b, "diff", f.Diff)
		switch {
		case f.SourceRange == nil:
			b.WriteString("\n### New source\n\nNot shown: " + noSourceReason(f) + ".\n")
		case len(f.SourceRange.Windows) > 0:
			b.WriteString("\n### New source (only lines " + rangeLabel(*f.SourceRange) + " shown; each window starts with a \"--- lines a-b of n ---\" label)\n\n")
			writeFenced(&b, f.Language, f.Source)
		default:
			b.WriteString("\n### New source (whole file, " + pipeline.CountNoun(f.SourceRange.Total, "line") + ")\n\n")
			writeFenced(&b, f.Language, f.Source)
		}
	}
	b.WriteString(candidatesPrompt(res.Candidates))
	if len(res.Excluded) > 0 {
		b.WriteString("\n# Changed files not shown\n\n")
		for _, e := range res.Excluded {
			b.WriteString("- " + e.Path + " (" + e.Reason + ")\n")
		}
	}
	b.WriteString("\n# Answer\n\nAnswer with the JSON object described in the instructions and nothing else.\n")
	return pipeline.Prompt{System: system, User: b.String()}
}

// noSourceReason says why a shown file has no source, from its diff header.
func noSourceReason(f pipeline.ChangedFile) string {
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

// fileRulesText renders a changed file's review rules for a prompt: the
// whole text the first time a rule appears, a back reference afterwards.
func fileRulesText(f pipeline.ChangedFile, seen map[string]string) string {
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

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
