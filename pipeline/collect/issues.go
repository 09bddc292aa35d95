package collect

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

// IssueStats are the counts of one LookupAll run, for metrics.
type IssueStats struct {
	Keys     int // distinct keys given
	Looked   int // keys looked up (at most the bound)
	Found    int // issues returned
	NotFound int // lookups that answered "no such issue"
	Failed   int // lookups that failed otherwise (Jira down, auth, rate limit, timeout)
	Skipped  int // keys over the bound, not looked up
}

// LookupAll looks up the first keys (bounded concurrency), as many as the
// lookup's pipeline.IssueBound says (PRSCOUT_JIRA_MAX_ISSUES; 5 without
// one), and returns the issues found, in key order, plus one warning per problem:
// "jira PROJ-1: not found", "jira PROJ-2: unreachable: ...", "jira: 2 more
// keys not looked up (limit 5): A-6, A-7". It never fails: a missing issue or
// an unreachable Jira must not fail a review. A nil l with keys yields a
// single "not configured" warning.
func LookupAll(ctx context.Context, l pipeline.IssueLookup, keys []string) ([]pipeline.Issue, []string) {
	issues, warnings, _ := lookupAllStats(ctx, l, keys)
	return issues, warnings
}

// lookupAllStats is LookupAll with its counts.
func lookupAllStats(ctx context.Context, l pipeline.IssueLookup, keys []string) ([]pipeline.Issue, []string, IssueStats) {
	keys = distinct(keys)
	st := IssueStats{Keys: len(keys)}
	if len(keys) == 0 {
		return nil, nil, st
	}
	if l == nil {
		st.Skipped = len(keys)
		return nil, []string{fmt.Sprintf("jira: not configured; keys not looked up: %s", strings.Join(keys, ", "))}, st
	}
	limit := issueLimit(l)
	var rest []string
	if len(keys) > limit {
		keys, rest = keys[:limit], keys[limit:]
	}
	st.Looked, st.Skipped = len(keys), len(rest)

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
			st.Found++
		case errors.Is(r.err, pipeline.ErrNotFound):
			warnings = append(warnings, fmt.Sprintf("jira %s: not found", keys[i]))
			st.NotFound++
		default:
			warnings = append(warnings, fmt.Sprintf("jira %s: %v", keys[i], r.err))
			st.Failed++
		}
	}
	if len(rest) > 0 {
		warnings = append(warnings, fmt.Sprintf("jira: %d more keys not looked up (limit %d): %s",
			len(rest), limit, strings.Join(rest, ", ")))
	}
	return issues, warnings, st
}

// issueLimit is the lookup's own bound, or maxIssueLookups.
func issueLimit(l pipeline.IssueLookup) int {
	if b, ok := l.(pipeline.IssueBound); ok && b.MaxIssues() > 0 {
		return b.MaxIssues()
	}
	return maxIssueLookups
}

// issueProjects is the lookup's project filter (nil: any project).
func issueProjects(l pipeline.IssueLookup) []string {
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
