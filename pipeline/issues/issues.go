// Package issues looks up the issues (Jira) a pull request names: a bounded
// number, a few at a time, each failure a warning that never fails the
// review.
package issues

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/criteria"
	"golang.org/x/sync/errgroup"
)

// Issue lookup bounds.
const (
	// maxIssueLookups is how many keys LookupAll looks up when the lookup
	// does not say (pipeline.IssueBound); the rest are named in a warning.
	maxIssueLookups = 5
	// issueLookupParallel is how many lookups run at once.
	issueLookupParallel = 3
)

// LookupAll looks up the first keys (bounded concurrency), as many as the
// lookup's pipeline.IssueBound says (PRSCOUT_JIRA_MAX_ISSUES; 5 without
// one), and returns the issues found, in key order, plus one warning per problem:
// "jira PROJ-1: not found", "jira PROJ-2: unreachable: ...", "jira: 2 more
// keys not looked up (limit 5): A-6, A-7". It never fails: a missing issue or
// an unreachable Jira must not fail a review. A nil l with keys yields a
// single "not configured" warning.
func LookupAll(ctx context.Context, l pipeline.IssueLookup, keys []string) ([]pipeline.Issue, []string) {
	keys = distinct(keys)
	if len(keys) == 0 {
		return nil, nil
	}
	if l == nil {
		return nil, []string{fmt.Sprintf("jira: not configured; keys not looked up: %s", strings.Join(keys, ", "))}
	}
	limit := issueLimit(l)
	var rest []string
	if len(keys) > limit {
		keys, rest = keys[:limit], keys[limit:]
	}

	type result struct {
		issue pipeline.Issue
		err   error
	}
	results := make([]result, len(keys))
	// Each issue keeps its own error (a warning below), so the goroutines
	// return nil: one failed lookup never fails the others.
	var g errgroup.Group
	g.SetLimit(issueLookupParallel)
	for i, k := range keys {
		g.Go(func() error {
			iss, err := l.LookupIssue(ctx, k)
			results[i] = result{iss, err}
			return nil
		})
	}
	_ = g.Wait()

	var issues []pipeline.Issue
	var warnings []string
	for i, r := range results {
		switch {
		case r.err == nil:
			// The lookup reads the tracker; splitting the acceptance
			// criteria is this stage's.
			criteria.Fill(&r.issue)
			issues = append(issues, r.issue)
		case errors.Is(r.err, pipeline.ErrNotFound):
			warnings = append(warnings, fmt.Sprintf("jira %s: not found", keys[i]))
		default:
			warnings = append(warnings, fmt.Sprintf("jira %s: %v", keys[i], r.err))
		}
	}
	if len(rest) > 0 {
		warnings = append(warnings, fmt.Sprintf("jira: %d more keys not looked up (limit %d): %s",
			len(rest), limit, strings.Join(rest, ", ")))
	}
	return issues, warnings
}

// issueLimit is the lookup's own bound, or maxIssueLookups.
func issueLimit(l pipeline.IssueLookup) int {
	if b, ok := l.(pipeline.IssueBound); ok && b.MaxIssues() > 0 {
		return b.MaxIssues()
	}
	return maxIssueLookups
}

// Projects is the lookup's project filter (nil: any project).
func Projects(l pipeline.IssueLookup) []string {
	if p, ok := l.(pipeline.IssueProjects); ok {
		return p.Projects()
	}
	return nil
}

func distinct(keys []string) []string {
	out := make([]string, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
