package scope

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

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
func RulesCheck(ctx context.Context, repo pipeline.Repository, in RulesCheckInput) (RulesCheckResult, error) {
	paths := append([]string{}, in.Paths...)
	if strings.TrimSpace(in.Path) != "" {
		paths = append([]string{in.Path}, paths...)
	}
	if len(paths) == 0 {
		return RulesCheckResult{}, pipeline.Invalidf("paths", "give path or paths[]")
	}
	for i, p := range paths {
		clean, err := NormalizePath(p, pipeline.DefaultLimits().MaxPathLen)
		if err != nil || clean == "" {
			return RulesCheckResult{}, pipeline.Invalidf(fmt.Sprintf("paths[%d]", i), "not a repository path: %q", p)
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
		r := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
		sha, err := pipeline.ResolveCommit(ctx, repo, r, "ref", in.Ref)
		if err != nil {
			return RulesCheckResult{}, err
		}
		var warn string
		repoRules, source, warn = LoadRepoRules(ctx, repo, r, sha)
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
	// A rule file's reviews.push is read by /v1/context; a bad value is
	// shown here as the warning a review would give.
	_, _, pushWarnings := rs.PushReviews("")
	out.Warnings = append(out.Warnings, pushWarnings...)
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
