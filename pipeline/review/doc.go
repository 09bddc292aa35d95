// Package review renders a review for /v1/comments, with no I/O: the
// model's answer read (pipeline/reviewanswer) and its findings anchored to
// the diff (pipeline/anchor), the acceptance criteria judged, the compare
// with earlier reviews (memory), and the Markdown summary and inline comments.
package review
