package collect

import (
	"context"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// scopeOf compiles the request's globs and rule layers (the repository's
// read at base) into the gates and rule set of a review. Bad request globs
// are *InvalidError values; a bad repository rule file is a warning. When
// instruction files are read, the root at base is listed first and returned:
// the rule file is then read only when a .prscout directory exists.
func scopeOf(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, base string, in ContextInput) (scope.FileGates, *scope.RuleSet, *scope.RootListing, []string, error) {
	include, err := scope.CompileGlobs("include", in.Include)
	if err != nil {
		return scope.FileGates{}, nil, nil, nil, err
	}
	exclude, err := scope.CompileGlobs("exclude", in.Exclude)
	if err != nil {
		return scope.FileGates{}, nil, nil, nil, err
	}
	var warnings []string
	root := scope.ListRoot(ctx, repo, r, base, in.Instructions)
	repoRules, source, warn := scope.LoadRepoRulesListed(ctx, repo, r, base, root)
	if warn != "" {
		warnings = append(warnings, warn)
	}
	rs, err := scope.NewRuleSet(in.Rules.File, repoRules, source, in.ServiceRules, in.ServiceRulesSource)
	if err != nil {
		return scope.FileGates{}, nil, nil, warnings, err
	}
	return rs.Gates(include, exclude), rs, root, warnings, nil
}
