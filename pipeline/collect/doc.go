// Package collect is the context stage (/v1/context): it gathers a pull
// request's diff, new sources, Jira issues and rules, decides the review mode
// from prscout's own marker (full, delta or skip), gates the files, forms the
// review groups and writes the scout prompt.
package collect
