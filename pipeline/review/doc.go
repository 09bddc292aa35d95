// Package review reads the review model's answer and renders it, with no
// I/O: it parses the answer, anchors each finding to a line of the diff,
// judges the acceptance criteria, compares with earlier reviews (memory) and
// renders the Markdown summary and inline comments (/v1/comments).
package review
