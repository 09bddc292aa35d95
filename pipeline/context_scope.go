package pipeline

import "context"

// scopeOf compiles the request's globs and rule layers (the repository's
// read at base) into the gates and rule set of a review. Bad request globs
// are *InvalidError values; a bad repository rule file is a warning.
func scopeOf(ctx context.Context, repo Repository, r Repo, base string, in ContextInput) (FileGates, *RuleSet, []string, error) {
	include, err := CompileGlobs("include", in.Include)
	if err != nil {
		return FileGates{}, nil, nil, err
	}
	exclude, err := CompileGlobs("exclude", in.Exclude)
	if err != nil {
		return FileGates{}, nil, nil, err
	}
	var warnings []string
	repoRules, source, warn := loadRepoRules(ctx, repo, r, base)
	if warn != "" {
		warnings = append(warnings, warn)
	}
	rs, err := NewRuleSet(in.Rules.File, repoRules, source, in.ServiceRules, in.ServiceRulesSource)
	if err != nil {
		return FileGates{}, nil, warnings, err
	}
	return rs.Gates(include, exclude), rs, warnings, nil
}
