package collect

import (
	"context"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// scopeOf compiles the request's globs and rule layers (the repository's
// read at base) into the gates and rule set of a review. Bad request globs
// are *InvalidError values; a bad repository rule file is a warning.
func scopeOf(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, base string, in ContextInput) (scope.FileGates, *scope.RuleSet, []string, error) {
	include, err := scope.CompileGlobs("include", in.Include)
	if err != nil {
		return scope.FileGates{}, nil, nil, err
	}
	exclude, err := scope.CompileGlobs("exclude", in.Exclude)
	if err != nil {
		return scope.FileGates{}, nil, nil, err
	}
	var warnings []string
	repoRules, source, warn := scope.LoadRepoRules(ctx, repo, r, base)
	if warn != "" {
		warnings = append(warnings, warn)
	}
	rs, err := scope.NewRuleSet(in.Rules.File, repoRules, source, in.ServiceRules, in.ServiceRulesSource)
	if err != nil {
		return scope.FileGates{}, nil, warnings, err
	}
	return rs.Gates(include, exclude), rs, warnings, nil
}
