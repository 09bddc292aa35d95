// Package identsearch is the candidates' reader for programming languages
// without one of their own: it lexes a changed file by its comment style,
// takes the names of the declarations enclosing changed lines and the names
// used on added ones, and lists the files that declare or use them as text,
// with lower scores than a reader that resolves names.
package identsearch
