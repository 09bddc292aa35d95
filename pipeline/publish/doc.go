// Package publish puts a rendered review on the pull request through the
// ports (/v1/comments): it posts the summary and inline comments
// idempotently, resolves the threads of resolved findings and sets the build
// status and the Code Insights report (pipeline/insights).
package publish
