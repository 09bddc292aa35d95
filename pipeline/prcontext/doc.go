// Package prcontext builds what the two model calls read. Collect
// (/v1/context) gathers a pull request's diff, new sources, Jira issues and
// rules, decides the review mode from prscout's own marker (full, delta or
// skip), gates the files and writes the scout prompt. Merge (/v1/merge) adds
// the files the scout asked for within the prompt budget and writes the
// review prompt. Preview shows what a review would cover without a model.
package prcontext
