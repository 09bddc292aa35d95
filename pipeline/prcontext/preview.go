package prcontext

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// PreviewFile is one changed file's decision in a preview.
type PreviewFile struct {
	Path     string `json:"path"`
	Decision string `json:"decision"` // review | exclude
	// Reason is the gate that excluded the file (GateOrder codes).
	Reason string `json:"reason,omitempty"`
	// RuleSource names the rule layer and pattern a reviewed file gets.
	RuleSource string `json:"ruleSource,omitempty"`
	DiffChars  int    `json:"diffChars,omitempty"`
}

// PreviewResult is what a review would cost, decided by code before any
// model is paid (prscout preview, POST /v1/preview).
type PreviewResult struct {
	Mode     string            `json:"mode"`
	Ref      string            `json:"ref"`
	Base     string            `json:"base"`
	Files    []PreviewFile     `json:"files"`
	Coverage pipeline.Coverage `json:"coverage"`
	// ScoutPromptChars is the scout prompt's size; ReviewPromptChars the
	// review prompt's before any additional context; ReviewBudget the most
	// the review prompt may grow to (Limits.MaxPromptChars).
	ScoutPromptChars  int `json:"scoutPromptChars"`
	ReviewPromptChars int `json:"reviewPromptChars"`
	ReviewBudget      int `json:"reviewBudget"`
	// EstimatedChars is scout + review prompt without context (the least a
	// review costs); MaxChars is scout + the review budget (the most, unless
	// the changed files alone exceed the budget).
	EstimatedChars int `json:"estimatedChars"`
	MaxChars       int `json:"maxChars"`
	// Redactions counts secrets that would be redacted, by kind.
	Redactions map[string]int `json:"redactions"`
	Warnings   []string       `json:"warnings"`
}

// Preview runs the context stage (gates, rules, sources, scout prompt) and
// the merge stage without additional context, and reports the decisions and
// the prompt sizes. It calls no model and posts nothing (not even a build
// status: src.Reporter is ignored).
func Preview(ctx context.Context, src ContextSources, in ContextInput, lim pipeline.Limits) (PreviewResult, error) {
	src.Reporter = nil
	res, err := Collect(ctx, src, in, lim)
	if err != nil {
		return PreviewResult{}, err
	}
	return previewOf(res, lim), nil
}

// previewOf summarises an assembled context as a preview.
func previewOf(res ContextResult, lim pipeline.Limits) PreviewResult {
	p := PreviewResult{
		Mode: res.Mode, Ref: res.Ref, Base: res.Base, Files: []PreviewFile{},
		Coverage: res.Coverage, ScoutPromptChars: res.Stats.PromptChars, ReviewBudget: max(lim.MaxPromptChars, 0),
		Redactions: res.Stats.Redactions, Warnings: append([]string{}, res.Warnings...),
	}
	if p.Redactions == nil {
		p.Redactions = map[string]int{}
	}
	for _, f := range res.Files {
		p.Files = append(p.Files, PreviewFile{Path: f.Path, Decision: "review", RuleSource: f.RuleSource, DiffChars: runeCount(f.Diff)})
	}
	for _, e := range res.Excluded {
		p.Files = append(p.Files, PreviewFile{Path: e.Path, Decision: "exclude", Reason: e.Reason})
	}
	if !res.Skip {
		m, err := Merge(MergeInput{Context: MergeContext{
			Mode: res.Mode, Workspace: res.Workspace, RepoSlug: res.RepoSlug, PRID: res.PRID, Ref: res.Ref, Base: res.Base,
			ReviewedCommit: res.ReviewedCommit, PR: res.PR, Jira: res.Jira, Rules: res.Rules,
			Requirements: pipeline.RequirementsField{Criteria: res.Requirements}, RequirementsText: res.RequirementsText,
			Files: res.Files, Excluded: res.Excluded, Coverage: &res.Coverage,
		}}, lim)
		if err == nil {
			p.ReviewPromptChars = m.Stats.PromptChars
			p.Warnings = append(p.Warnings, m.Warnings...)
		} else {
			p.Warnings = append(p.Warnings, fmt.Sprintf("review prompt not estimated: %v", err))
		}
	}
	p.EstimatedChars = p.ScoutPromptChars + p.ReviewPromptChars
	p.MaxChars = p.ScoutPromptChars + max(p.ReviewBudget, p.ReviewPromptChars)
	return p
}

// Text renders the preview for a terminal.
func (p PreviewResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prscout preview %s..%s (mode %s)\n\n", pipeline.ShortCommit(p.Base), pipeline.ShortCommit(p.Ref), p.Mode)
	width := 4
	for _, f := range p.Files {
		width = max(width, min(len(f.Path), 60))
	}
	fmt.Fprintf(&b, "%-8s %-*s %s\n", "DECISION", width, "PATH", "REASON / RULES")
	for _, f := range p.Files {
		why := f.Reason
		if f.Decision == "review" {
			why = f.RuleSource
			if why == "" {
				why = "(no rules)"
			}
		}
		fmt.Fprintf(&b, "%-8s %-*s %s\n", f.Decision, width, f.Path, why)
	}
	fmt.Fprintf(&b, "\nCoverage: %s\n", p.Coverage.Sentence())
	fmt.Fprintf(&b, "Scout prompt:  %d chars\n", p.ScoutPromptChars)
	fmt.Fprintf(&b, "Review prompt: %d chars before additional context (budget %d)\n", p.ReviewPromptChars, p.ReviewBudget)
	fmt.Fprintf(&b, "Estimated cost: %d chars (scout + review), at most %d chars with context\n", p.EstimatedChars, p.MaxChars)
	if len(p.Redactions) > 0 {
		kinds := make([]string, 0, len(p.Redactions))
		for k, n := range p.Redactions {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(kinds)
		fmt.Fprintf(&b, "Redacted secrets: %s\n", strings.Join(kinds, ", "))
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
