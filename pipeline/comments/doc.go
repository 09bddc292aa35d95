// Package comments is the last stage (/v1/comments): it reads the review
// model's answer, anchors each finding to a line of the diff, renders the
// Markdown summary and inline comments, and posts them idempotently through a
// CommentStore.
package comments
