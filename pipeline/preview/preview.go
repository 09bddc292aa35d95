// Package preview answers /v1/preview: what a review would cover and cost,
// without calling a model or posting anything.
package preview

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/merge"
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
	// Group is the review group a reviewed file is in; Omitted names the
	// new-file lines a windowed file leaves out.
	Group   string               `json:"group,omitempty"`
	Omitted []pipeline.LineRange `json:"omitted,omitempty"`
}

// PreviewGroup is one review group in a preview: its files and the sizes of
// its two prompts (the review prompt before additional context).
type PreviewGroup struct {
	ID                string   `json:"id"`
	Label             string   `json:"label"`
	Files             []string `json:"files"`
	ScoutPromptChars  int      `json:"scoutPromptChars"`
	ReviewPromptChars int      `json:"reviewPromptChars"`
}

// PreviewResult is what a review would cost, decided by code before any
// model is paid (prscout preview, POST /v1/preview).
type PreviewResult struct {
	Mode     string            `json:"mode"`
	Ref      string            `json:"ref"`
	Base     string            `json:"base"`
	Files    []PreviewFile     `json:"files"`
	Coverage pipeline.Coverage `json:"coverage"`
	// Groups are the review groups (one when the change fits one review).
	Groups []PreviewGroup `json:"groups"`
	// ScoutPromptChars is the scout prompts' size; ReviewPromptChars the
	// review prompts' before any additional context (both summed over the
	// groups); ReviewBudget the most one review prompt may grow to
	// (Limits.MaxPromptChars).
	ScoutPromptChars  int `json:"scoutPromptChars"`
	ReviewPromptChars int `json:"reviewPromptChars"`
	ReviewBudget      int `json:"reviewBudget"`
	// EstimatedChars is scout + review prompts without context (the least a
	// review costs); MaxChars is scout + the review budget per group (the
	// most, unless the changed files alone exceed the budget).
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
func Preview(ctx context.Context, src collect.ContextSources, in collect.ContextInput, lim pipeline.Limits) (PreviewResult, error) {
	src.Reporter = nil
	res, err := collect.Collect(ctx, src, in, lim)
	if err != nil {
		return PreviewResult{}, err
	}
	return previewOf(res, lim), nil
}

// previewOf summarises an assembled context as a preview.
func previewOf(res collect.ContextResult, lim pipeline.Limits) PreviewResult {
	p := PreviewResult{
		Mode: res.Mode, Ref: res.Ref, Base: res.Base, Files: []PreviewFile{}, Groups: []PreviewGroup{},
		Coverage: res.Coverage, ScoutPromptChars: res.Stats.PromptChars, ReviewBudget: max(lim.MaxPromptChars, 0),
		Redactions: res.Stats.Redactions, Warnings: append([]string{}, res.Warnings...),
	}
	if p.Redactions == nil {
		p.Redactions = map[string]int{}
	}
	groupOf := map[string]string{}
	if len(res.Groups) > 1 {
		for _, g := range res.Groups {
			for _, f := range g.Files {
				groupOf[f.Path] = g.ID
			}
		}
	}
	for _, f := range res.Files {
		p.Files = append(p.Files, PreviewFile{Path: f.Path, Decision: "review", RuleSource: f.RuleSource, DiffChars: utf8.RuneCountInString(f.Diff),
			Group: groupOf[f.Path], Omitted: f.DiffOmitted})
	}
	for _, e := range res.Excluded {
		p.Files = append(p.Files, PreviewFile{Path: e.Path, Decision: "exclude", Reason: e.Reason})
	}
	if len(res.Groups) > 1 {
		for _, g := range res.Groups {
			pg := PreviewGroup{ID: g.ID, Files: []string{}, ScoutPromptChars: g.Stats.PromptChars, ReviewPromptChars: g.Stats.ReviewPromptChars}
			if g.Part != nil {
				pg.Label = g.Part.Label
			}
			for _, f := range g.Files {
				pg.Files = append(pg.Files, f.Path)
			}
			p.Groups = append(p.Groups, pg)
			p.ScoutPromptChars += pg.ScoutPromptChars
			p.ReviewPromptChars += pg.ReviewPromptChars
		}
		p.EstimatedChars = p.ScoutPromptChars + p.ReviewPromptChars
		p.MaxChars = p.ScoutPromptChars + len(res.Groups)*p.ReviewBudget
		return p
	}
	if !res.Skip {
		m, err := merge.Merge(merge.MergeInput{Context: merge.MergeContext{
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
	if len(res.Groups) == 1 {
		g := PreviewGroup{ID: res.Groups[0].ID, Label: "the whole change", Files: []string{}, ScoutPromptChars: p.ScoutPromptChars, ReviewPromptChars: p.ReviewPromptChars}
		for _, f := range res.Files {
			g.Files = append(g.Files, f.Path)
		}
		p.Groups = append(p.Groups, g)
	}
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
		decision := f.Decision
		if f.Group != "" {
			decision += " " + f.Group
		}
		fmt.Fprintf(&b, "%-8s %-*s %s\n", decision, width, f.Path, why)
		if len(f.Omitted) > 0 {
			fmt.Fprintf(&b, "%-8s %-*s windowed: %s\n", "", width, "", groups.OmittedSentence(pipeline.ChangedFile{DiffOmitted: f.Omitted}))
		}
	}
	fmt.Fprintf(&b, "\nCoverage: %s\n", p.Coverage.Sentence())
	if len(p.Groups) > 1 {
		fmt.Fprintf(&b, "\nReview groups: %d, each prompt within the budget of %d chars (the review prompt within %d before additional context)\n",
			len(p.Groups), p.ReviewBudget, int(float64(p.ReviewBudget)*(1-groups.ContextReserve)))
		fmt.Fprintf(&b, "%-5s %5s %12s %13s  %s\n", "GROUP", "FILES", "SCOUT CHARS", "REVIEW CHARS", "DIRECTORIES")
		for _, g := range p.Groups {
			fmt.Fprintf(&b, "%-5s %5d %12d %13d  %s\n", g.ID, len(g.Files), g.ScoutPromptChars, g.ReviewPromptChars, g.Label)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "Scout prompts:  %d chars in all\n", p.ScoutPromptChars)
		fmt.Fprintf(&b, "Review prompts: %d chars in all before additional context (budget %d each)\n", p.ReviewPromptChars, p.ReviewBudget)
	} else {
		fmt.Fprintf(&b, "Scout prompt:  %d chars\n", p.ScoutPromptChars)
		fmt.Fprintf(&b, "Review prompt: %d chars before additional context (budget %d)\n", p.ReviewPromptChars, p.ReviewBudget)
	}
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
