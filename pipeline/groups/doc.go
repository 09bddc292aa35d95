// Package groups plans the review groups of a change too large for one
// review: related files together (a directory, then files linked by the
// change's own names, then packed by size), a file alone over the budget
// windowed to the hunks that fit. Everything here is pure: no I/O.
package groups
