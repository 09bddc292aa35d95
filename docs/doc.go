// Package docs holds the repository's documentation (the Markdown files
// beside this one) and, in its test, the check that every relative link in
// README.md, docs/*.md and workflows/README.md resolves.
package docs
