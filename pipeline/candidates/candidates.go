// Package candidates finds the files outside a change that a reviewer needs:
// declarations the change uses and code the change affects.
//
// Find takes the changed files (path, status, base and head content, and the
// diff's changed line numbers on both sides) and a read-only view of the
// repository at the head commit (Tree). It answers a ranked list of files
// outside the change, each with a kind:
//
//   - "uses": the file declares a name (function, method, type, constant,
//     variable, struct field) referenced on an added or changed line;
//   - "impact": the file references a name whose declaration or body the
//     change modified, renamed or removed (callers of a changed function,
//     users of a changed field or method).
//
// Only what the evidence supports is listed: a change that touches nothing
// outside its own files lists nothing, and the list is never padded up to
// Max. Test files (_test.go, *.test.ts, test_*.py, src/test/..., ...) are
// kept, since they do break, but are listed after every production file
// (Candidate.Test marks them). Generated files ("Code generated ... DO NOT
// EDIT", *.pb.go, *_pb2.py, *.min.js, ...) and vendored copies are never
// listed: the change is reviewed against their source.
//
// How names are resolved depends on the language (Candidate.Method):
//
//   - "go": Go files are parsed with go/parser; names are resolved per package
//     (directory) and import path (go.mod's module path maps imports to
//     directories), methods by receiver type and fields by struct, with the
//     types of local variables inferred from their declarations. There is no
//     type checker at run time, so a selector whose operand type cannot be
//     inferred still counts, with a lower score.
//   - "tokens": TypeScript/JavaScript, Python and Java files are split into
//     tokens by a lexer, so names in strings and comments do not count
//     (those in a JS template's ${...} or a Python f-string's fields do);
//     declarations are found by token patterns (function, class, def,
//     interface, method) and imports narrow which files can refer to which.
//     Java files are read structurally (classes with their supertypes,
//     methods with return types, constructors, fields, the declared types
//     of fields, parameters and locals): receiver.method() is resolved
//     through the receiver's type and the class hierarchy, and a type is
//     looked up where its package and the file's imports put it. Each
//     language is a package (typescript, python, java) on the shared lexer
//     and lexed-file model of internal/lexed.
//   - "syntax" (package treesit): C#, Kotlin, PHP, Ruby, Rust, C, C++, Swift
//     and Scala are read by tree-sitter grammars through one reader (a
//     language is a grammar, a query file and a rules entry): declarations,
//     references with their receivers, imports and supertypes from the
//     syntax tree, resolved by the family's namespace, import-path and
//     module-path rules. The grammars are C: a build without cgo reads
//     these languages as the next item does.
//   - "identifier-search" (package identsearch): other programming languages
//     (shell, Lua, Perl, ...) fall back to searching the identifiers of the
//     changed lines, with lower scores. Documentation, data and
//     configuration files (Markdown, JSON, YAML, ...) are not read.
//
// One signal is not a reader's: when the Tree keeps a history
// (engine.History) and Options.HistoryAt names the destination commit, the
// production code files that changed together with the changed code files
// on its first-parent history (package cochange: support and confidence,
// coChangeMinConfidence) are evidence too. Alone they are "co-change"
// candidates (at most coChangeMax, scored below what a reader resolved and
// above the textual fallback, the reason giving the counts); a file a
// reader found that also changed together with the change, even below
// that bound, is raised and its reason says so. A file in the directory
// of a changed file is raised too (ties.raise): these ties order the
// list, they add no file to it.
package candidates

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline/candidates/golang"
	"github.com/prscout/prscout/pipeline/candidates/identsearch"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/java"
	"github.com/prscout/prscout/pipeline/candidates/python"
	"github.com/prscout/prscout/pipeline/candidates/treesit"
	"github.com/prscout/prscout/pipeline/candidates/typescript"
)

// Kind says why a candidate matters to the review.
type Kind = engine.Kind

// The kinds of candidate.
const (
	// KindUses marks a file that declares a name used on a changed line.
	KindUses = engine.KindUses
	// KindImpact marks a file that refers to a name the change modified or removed.
	KindImpact = engine.KindImpact
)

// Method names how a candidate was found.
type Method = engine.Method

// The methods, from the most to the least precise.
const (
	MethodGo         = engine.MethodGo
	MethodTokens     = engine.MethodTokens
	MethodSyntax     = engine.MethodSyntax
	MethodIdentifier = engine.MethodIdentifier
	// MethodTextual marks a name no reader resolved, found as text: at most
	// three such candidates are listed.
	MethodTextual = engine.MethodTextual
	// MethodCoChange marks a file found by the history alone: it changed
	// together with a changed file on the destination's history (at most
	// four are listed).
	MethodCoChange = engine.MethodCoChange
)

// Status is a changed file's status in the diff.
type Status string

// The statuses of a changed file.
const (
	StatusAdded    Status = "added"
	StatusModified Status = "modified"
	StatusDeleted  Status = "deleted"
	StatusRenamed  Status = "renamed"
)

// callCacheBytes bounds the readings one call of Find keeps when its caller
// keeps none across calls (Options.Cache nil).
const callCacheBytes = 64 << 20

// defaultMax is the number of candidates Find answers at most when
// Options.Max is zero.
const defaultMax = 12

// Change is one changed file of the diff.
type Change struct {
	// Path is the file's path at the head commit (for a deleted file, its
	// path at the base commit).
	Path string `json:"path"`
	// OldPath is the path at the base commit when it differs (renames).
	OldPath string `json:"oldPath,omitempty"`
	Status  Status `json:"status"`
	// Old is the content at the base commit; nil for an added file. When nil
	// for a modified file, removed declarations cannot be seen.
	Old []byte `json:"-"`
	// New is the content at the head commit; nil for a deleted file. When nil
	// for another status, Find reads it from the Tree.
	New []byte `json:"-"`
	// AddedLines are the head-side line numbers (1-based) of the diff's
	// added ('+') lines; a changed line is a removed line plus an added one.
	AddedLines []int `json:"addedLines,omitempty"`
	// RemovedLines are the base-side line numbers (1-based) of the diff's
	// removed ('-') lines.
	RemovedLines []int `json:"removedLines,omitempty"`
}

// Tree reads the repository at the head commit; Find calls it from
// several goroutines at once. A Tree that names each file's content by its
// blob id from its listing (engine.BlobIDs) spares the readers reading a
// file whose reading the Cache keeps.
type Tree = engine.Tree

// Options tune Find.
type Options struct {
	// Max is the number of candidates answered at most (DefaultMax when 0).
	Max int
	// Cache keeps the readers' readings of files across calls, keyed by
	// path and content (nil: each call reads afresh). A long-running
	// caller keeps one and passes it to every call. Without one, a call
	// keeps its readings until it returns (callCacheBytes).
	Cache *Cache
	// HistoryAt is the destination commit whose first-parent history the
	// co-change signal reads, when the tree keeps one (engine.History);
	// empty reads none.
	HistoryAt string

	// reading derives the context the searches read files under
	// (engine.Evidence.Reading); nil: readingTime's.
	reading func(ctx context.Context) (context.Context, context.CancelFunc)
}

// walkShare is the share of the time left to a Find with a deadline that
// its searches keep for walking the files they read: reading stops at the
// rest, and the references in what was read are still listed.
const walkShare = 0.2

// readingTime derives the context the searches of a Find read files
// under: ctx's deadline brought forward by walkShare of the time left, or
// ctx itself without a deadline.
func readingTime(ctx context.Context, opts Options) (context.Context, context.CancelFunc) {
	if opts.reading != nil {
		return opts.reading(ctx)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	left := time.Until(deadline)
	return context.WithDeadline(ctx, deadline.Add(-time.Duration(float64(left)*walkShare)))
}

// Cache keeps what the readers made of files (parses, tokens, declaration
// and identifier indexes) across calls of Find, by path and content: the
// files one pull request searches are mostly those the next one of the
// same repository searches. It is safe for concurrent use.
type Cache = engine.Cache

// NewCache returns a Cache that keeps about maxBytes of readings, least
// recently used out first; nil (nothing kept) when maxBytes is not
// positive.
func NewCache(maxBytes int64) *Cache { return engine.NewCache(maxBytes) }

// Candidate is one file outside the change that the review should see.
type Candidate struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Reason is one readable line, e.g. "calls `(*Command).Execute`, whose body changed".
	Reason string `json:"reason"`
	// Symbols are the names that tie the file to the change, best first.
	Symbols []string `json:"symbols"`
	// Score orders candidates: 1 is certain, lower is weaker evidence.
	Score  float64 `json:"score"`
	Method Method  `json:"method"`
	// Test marks a test file: tests are listed after every production file.
	Test bool `json:"test,omitempty"`
}

// Find answers the files outside changes that declare names the change uses
// or refer to names it changed, best first, at most opts.Max of them. Files
// are read through tree at the head commit. It fails on invalid input and
// when the tree fails for a reason other than a missing file. When ctx ends
// during the search, it answers the candidates found so far together with
// ctx's error. When a bound of memory cut the search, or its reading
// stopped with walkShare of ctx's time left, it answers the candidates
// found in what it read together with a *CutError.
func Find(ctx context.Context, tree Tree, changes []Change, opts Options) ([]Candidate, error) {
	if tree == nil {
		return nil, errors.New("candidates: tree is nil")
	}
	if opts.Max < 0 {
		return nil, fmt.Errorf("candidates: options.max must not be negative, got %d", opts.Max)
	}
	if opts.Max == 0 {
		opts.Max = defaultMax
	}
	cs, err := normalize(changes)
	if err != nil {
		return nil, err
	}
	if err := readMissing(ctx, tree, changes, cs); err != nil {
		return nil, err
	}
	ev := engine.NewEvidence(cs)
	ev.Cache = opts.Cache
	reading, stopReading := readingTime(ctx, opts)
	defer stopReading()
	ev.Reading = reading
	if ev.Cache == nil {
		ev.Cache = NewCache(callCacheBytes)
	}
	var code []*engine.Change // the changes an engine reads: their directories raise
	for i, c := range cs {
		if Reads(changes[i]) {
			code = append(code, c)
		}
	}
	history := coChangeStart(ctx, tree, code, opts.HistoryAt)
	if err := read(ctx, tree, changes, cs, ev); err != nil {
		// When ctx ends, what was found so far is answered with its
		// error: a caller with a time budget lists that much rather than
		// nothing.
		if ctx.Err() != nil {
			return rank(ev, opts.Max, newTies(code, nil)), err
		}
		return nil, err
	}
	pairs := history()
	coChange(ctx, tree, pairs, ev)
	t := newTies(code, pairs)
	if err := ctx.Err(); err != nil {
		return rank(ev, opts.Max, t), err // an engine stopped without saying so
	}
	if cuts := ev.Cuts(); len(cuts) > 0 {
		return rank(ev, opts.Max, t), &CutError{What: cuts}
	}
	return rank(ev, opts.Max, t), nil
}

// read hands each change cs[i] (changes[i] as given) to the first reader
// that reads it, and each reader its changes, adding what they find to ev.
func read(ctx context.Context, tree Tree, changes []Change, cs []*engine.Change, ev *engine.Evidence) error {
	byReader := make([][]*engine.Change, len(readers))
	for i, c := range cs {
		if r := readerOf(changes[i]); r >= 0 {
			byReader[r] = append(byReader[r], c)
		}
	}
	for r, rcs := range byReader {
		if len(rcs) == 0 {
			continue
		}
		if err := readers[r].Find(ctx, tree, cs, rcs, ev); err != nil {
			return err
		}
	}
	return nil
}

// CutError is Find's error when a bound of the search (the tokens one Find
// keeps, engine.MaxKeptTokens; the tokens of one file, lexed.MaxTokens;
// its time for reading) left files or their ends unread: the candidates
// answered with it are those found in what was read.
type CutError struct {
	What []string // what was left out, one phrase each
}

func (e *CutError) Error() string {
	return "candidates: the search was cut: " + strings.Join(e.What, "; ")
}

// normalize validates the changes and turns them into the engines' form
// (clean paths, line sets), in order.
func normalize(changes []Change) ([]*engine.Change, error) {
	out := make([]*engine.Change, 0, len(changes))
	for i, ch := range changes {
		field := fmt.Sprintf("changes[%d]", i)
		p, err := cleanPath(ch.Path)
		if err != nil {
			return nil, fmt.Errorf("candidates: %s.path: %w", field, err)
		}
		ch.Path = p
		if ch.OldPath != "" {
			if ch.OldPath, err = cleanPath(ch.OldPath); err != nil {
				return nil, fmt.Errorf("candidates: %s.oldPath: %w", field, err)
			}
		}
		switch ch.Status {
		case StatusAdded, StatusModified, StatusDeleted, StatusRenamed:
		case "":
			ch.Status = StatusModified
		default:
			return nil, fmt.Errorf("candidates: %s.status: %q is not added, modified, deleted or renamed", field, ch.Status)
		}
		c := &engine.Change{Path: ch.Path, OldPath: ch.OldPath, Old: ch.Old, New: ch.New, Added: map[int]bool{}, Removed: map[int]bool{}}
		for _, l := range ch.AddedLines {
			if l > 0 {
				c.Added[l] = true
			}
		}
		for _, l := range ch.RemovedLines {
			if l > 0 {
				c.Removed[l] = true
			}
		}
		if ch.Status == StatusAdded {
			c.Old = nil
		}
		if ch.Status == StatusDeleted {
			c.New = nil
		}
		out = append(out, c)
	}
	return out, nil
}

// cleanPath turns a diff path into a clean slash path relative to the root.
func cleanPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("is empty")
	}
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
	if p == "" {
		return "", errors.New("names no file")
	}
	return p, nil
}

// readers are the languages' readers, in the order a change is offered to
// them: the identifier search, which reads any programming language, last.
var readers = []engine.Reader{golang.Reader, typescript.Reader, python.Reader, java.Reader, treesit.Reader, identsearch.Reader}

// readerOf is the index in readers of the one that reads c; -1 for none.
func readerOf(c Change) int {
	for i, r := range readers {
		if r.Reads(c.Path, len(c.AddedLines)+len(c.RemovedLines) > 0) {
			return i
		}
	}
	return -1
}

// Reads reports whether an engine reads change c, so its sources are
// worth reading: a file of no language an engine knows, or of another
// programming language without changed lines, is read by none.
func Reads(c Change) bool { return readerOf(c) >= 0 }

// IdentifierOnly names the languages of changes (C#, Rust, ...) that this
// build reads by the identifier search alone because it has no tree-sitter
// grammars (built with CGO_ENABLED=0: the grammars are C), in order; nil
// when it has them or no change is in one of those languages.
func IdentifierOnly(changes []Change) []string {
	if treesit.Built {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		if l, ok := treesit.Covers(c.Path); ok && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// Prepare readies the readers of the languages of paths (a repository's
// files) before the first change in them: what a reader builds once a
// process (a tree-sitter query's compilation) is not waited for by the
// first request. It returns when done or when ctx ends.
func Prepare(ctx context.Context, paths []string) { treesit.Prepare(ctx, paths) }

// SyntaxReaderOff says, once for a server's start-up log, that this build
// reads the tree-sitter languages by the identifier search alone; "" when
// it reads them.
func SyntaxReaderOff() string {
	if treesit.Built {
		return ""
	}
	return "built without cgo: " + strings.Join(treesit.Languages(), ", ") + " are searched by identifiers only (build with CGO_ENABLED=1 and a C compiler for their tree-sitter readers)"
}

// readMissing reads the head content of changed files given without it.
func readMissing(ctx context.Context, tree Tree, changes []Change, cs []*engine.Change) error {
	for i, c := range cs {
		if c.New != nil || changes[i].Status == StatusDeleted || !Reads(changes[i]) {
			continue
		}
		b, err := tree.ReadFile(ctx, c.Path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		c.New = b
	}
	return nil
}
