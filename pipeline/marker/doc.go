// Package marker reads and writes prscout's hidden markers: the summary
// comment's review marker (which head was reviewed) and each inline comment's
// finding fingerprint. Markers are Markdown link reference definitions,
// which Bitbucket renders as nothing (see docs/architecture.md, principle 6).
package marker
