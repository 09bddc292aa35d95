// Package merge is the merge stage (/v1/merge): it adds the files the scout
// asked for within the prompt budget and writes the review prompt.
package merge
