// Package pipeline is the core of prscout's review stages: the domain types
// every stage shares (ChangedFile, Finding, Review, LookupResult, Excluded,
// Coverage), the small interfaces (ports) the stages need from the outside
// world (Repository, DiffSource, PullRequests, CommentStore, IssueLookup,
// and the optional CodeSearch), Limits, the error kinds and a few text
// helpers.
//
// The stages live in packages below it, one package per concern, each
// depending only downward on this one:
//
//	scope      which files a review covers: path normalization, secret and
//	           default paths, file gates, rule layers
//	redact     secret values replaced in everything sent toward a prompt or
//	           an n8n item (standalone: it imports no pipeline package)
//	lookup     the scout's needs (/v1/needs) and the batch lookup with its
//	           commit cache (/v1/repository/batch)
//	collect    the pull request's context and scout prompt (/v1/context)
//	groups     review groups of a change too large for one review
//	merge      the review prompt with the context the scout asked for (/v1/merge)
//	preview    what a review would cover and cost, without a model (/v1/preview)
//	marker     prscout's hidden markers and finding fingerprints
//	reviewanswer the review model's answer read: findings, verdicts
//	anchor     findings placed on the lines of the diff
//	review     the summary and inline comments rendered, pure (/v1/comments)
//	publish    the rendered review posted, threads resolved (/v1/comments)
//	insights   the build status and Code Insights report on the head commit
//	gate       the n8n workflow gate (/v1/workflows/validate)
//	candidates the files outside a change that the code ties to it (used
//	           by collect through a CodeSearch's tree)
//
// No package here performs I/O of its own: none imports net/http, gin or an
// SDK. Adapters (localgit, bitbucket, gitmirror, jira) implement the ports; api turns
// HTTP into stage calls. Each stage can be read and tested as plain Go.
package pipeline
