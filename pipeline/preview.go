package pipeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
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
	Mode     string        `json:"mode"`
	Ref      string        `json:"ref"`
	Base     string        `json:"base"`
	Files    []PreviewFile `json:"files"`
	Coverage Coverage      `json:"coverage"`
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
// the prompt sizes. It calls no model and posts nothing.
func Preview(ctx context.Context, src ContextSources, in ContextInput, lim Limits) (PreviewResult, error) {
	res, err := Context(ctx, src, in, lim)
	if err != nil {
		return PreviewResult{}, err
	}
	return PreviewOf(res, lim), nil
}

// PreviewOf summarises an assembled context as a preview.
func PreviewOf(res ContextResult, lim Limits) PreviewResult {
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
			ReviewedCommit: res.ReviewedCommit, PR: res.PR, Jira: res.Jira, Rules: res.Rules, Requirements: res.Requirements,
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
	fmt.Fprintf(&b, "prscout preview %s..%s (mode %s)\n\n", short(p.Base), short(p.Ref), p.Mode)
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

// RulesCheckInput is the POST /v1/rules/check request.
type RulesCheckInput struct {
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
	// Ref is the commit whose .prscout/rules.json counts (a PR's
	// destination); empty skips the repository layer.
	Ref     string     `json:"ref,omitempty"`
	Path    string     `json:"path,omitempty"`
	Paths   []string   `json:"paths,omitempty"`
	Rules   RulesField `json:"rules,omitempty"`
	Include []string   `json:"include,omitempty"`
	Exclude []string   `json:"exclude,omitempty"`
	// Service rules, set by the API from PRSCOUT_RULES_FILE.
	ServiceRules       *RuleFile `json:"-"`
	ServiceRulesSource string    `json:"-"`
}

// RulesCheckResult is the rules check answer: per path, the winning layer,
// pattern and rule, and the path-only gate decision.
type RulesCheckResult struct {
	Layers   []string    `json:"layers"` // the layers present, highest first
	Results  []RuleMatch `json:"results"`
	Warnings []string    `json:"warnings"`
}

// RulesCheck explains which rule layer and pattern win for each path.
func RulesCheck(ctx context.Context, repo Repository, in RulesCheckInput) (RulesCheckResult, error) {
	paths := append([]string{}, in.Paths...)
	if strings.TrimSpace(in.Path) != "" {
		paths = append([]string{in.Path}, paths...)
	}
	if len(paths) == 0 {
		return RulesCheckResult{}, Invalidf("paths", "give path or paths[]")
	}
	for i, p := range paths {
		clean, err := NormalizePath(p, DefaultLimits().MaxPathLen)
		if err != nil || clean == "" {
			return RulesCheckResult{}, Invalidf(fmt.Sprintf("paths[%d]", i), "not a repository path: %q", p)
		}
		paths[i] = clean
	}
	include, err := CompileGlobs("include", in.Include)
	if err != nil {
		return RulesCheckResult{}, err
	}
	exclude, err := CompileGlobs("exclude", in.Exclude)
	if err != nil {
		return RulesCheckResult{}, err
	}
	out := RulesCheckResult{Warnings: []string{}}
	var repoRules *RuleFile
	source := ""
	if strings.TrimSpace(in.Ref) != "" && repo != nil {
		r := Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
		sha, err := resolveField(ctx, repo, r, "ref", in.Ref)
		if err != nil {
			return RulesCheckResult{}, err
		}
		var warn string
		repoRules, source, warn = loadRepoRules(ctx, repo, r, sha)
		if warn != "" {
			out.Warnings = append(out.Warnings, warn)
		}
	}
	rs, err := NewRuleSet(in.Rules.File, repoRules, source, in.ServiceRules, in.ServiceRulesSource)
	if err != nil {
		return RulesCheckResult{}, err
	}
	for _, l := range rs.Layers {
		name := l.Name
		if l.Source != "" && l.Source != l.Name {
			name += " (" + l.Source + ")"
		}
		out.Layers = append(out.Layers, name)
	}
	out.Layers = append(out.Layers, LayerBuiltin)
	out.Results = rs.Check(include, exclude, paths)
	return out, nil
}

// Text renders the rules check for a terminal.
func (r RulesCheckResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Layers (highest first): %s\n", strings.Join(r.Layers, " > "))
	for _, m := range r.Results {
		fmt.Fprintf(&b, "\n%s\n", m.Path)
		gate := m.Gate
		if gate == "" {
			gate = "reviewed"
		}
		fmt.Fprintf(&b, "  Gate:    %s\n", gate)
		src := m.Layer
		if m.Source != "" && m.Source != m.Layer && m.Layer != LayerBuiltin {
			src += " (" + m.Source + ")"
		}
		fmt.Fprintf(&b, "  Source:  %s\n", src)
		if m.Pattern != "" {
			fmt.Fprintf(&b, "  Pattern: %s\n", m.Pattern)
		}
		if m.MergedSystemRule {
			b.WriteString("  Merged:  built-in language rule appended\n")
		}
		if m.Rule != "" {
			fmt.Fprintf(&b, "  Rule:    %s\n", strings.ReplaceAll(m.Rule, "\n", "\n           "))
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
