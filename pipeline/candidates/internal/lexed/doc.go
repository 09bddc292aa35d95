// Package lexed is what the token readers (TypeScript/JavaScript, Python,
// Java) share: a lexer that drops comments and keeps string contents apart,
// the lexed-file model (tokens, declarations with their extents, imports,
// declared types), which lines of a change hold code, the touched
// declarations of a change (by package touch's rule), and a cache of
// readings keyed by path and content.
package lexed
