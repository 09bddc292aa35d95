package pipeline

import "context"

// The optional extensions below let a stage use what an adapter offers
// without every port (and every test fake) having to implement it: a stage
// checks for them with a type assertion and does without when they are
// missing.

// IssueBound is an optional IssueLookup extension: the most issues one
// review looks up (PRSCOUT_JIRA_MAX_ISSUES). Without it, or with a value of
// 0 or less, the context stage's default applies.
type IssueBound interface {
	MaxIssues() int
}

// IssueProjects is an optional IssueLookup extension: the Jira project keys
// whose issues link to a pull request (PRSCOUT_JIRA_PROJECTS). Empty accepts
// every project. Keys a request names explicitly are not filtered.
type IssueProjects interface {
	Projects() []string
}

// PullRequestCommits is an optional PullRequests extension: the messages of
// a pull request's commits, read for Jira keys.
type PullRequestCommits interface {
	// PullRequestCommitMessages returns the messages of at most limit of
	// the pull request's commits, in the provider's order. An unknown pull
	// request wraps ErrNotFound.
	PullRequestCommitMessages(ctx context.Context, repo Repo, prID, limit int) ([]string, error)
}

// RangeCommits is an optional Repository extension: the messages of the
// commits in base..head (reachable from head, not from base), newest first,
// read for Jira keys when a review is given as base and head.
type RangeCommits interface {
	// CommitMessages returns at most limit messages; an unknown revision
	// wraps ErrNotFound.
	CommitMessages(ctx context.Context, repo Repo, base, head string, limit int) ([]string, error)
}
