// Package engine holds what the candidates engines share: the tree they
// read, the changed files they start from, the evidence they collect and
// the path conventions they follow. Package candidates ranks the evidence.
package engine

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prscout/prscout/pipeline/cochange"
)

// Tree reads the repository at the head commit. Find calls it from several
// goroutines at once.
type Tree interface {
	// Grep returns the paths of files that contain any of words as a whole
	// identifier (like git grep -l -w -F -e w1 -e w2 -- globs...), among the
	// files matching one of globs (git pathspec globs such as "*.go"; none:
	// all files), at most limit of them. An empty result is not an error.
	Grep(ctx context.Context, words, globs []string, limit int) ([]string, error)
	// ReadFile returns a file's content. A missing file is an error; Find
	// skips files it cannot read.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// ListDir returns the paths of the files directly in dir ("" or "." is
	// the root), not of its subdirectories. A missing dir answers nothing.
	ListDir(ctx context.Context, dir string) ([]string, error)
}

// BlobIDs is what a Tree may also implement: the id of a file's content
// (git's blob id) from the tree's listing, without reading the file; two
// files with one id hold the same content. A reading kept under the id
// (BlobKey) spares the next request that meets the file its read.
type BlobIDs interface {
	// BlobID answers false for a file the tree cannot name that way.
	BlobID(ctx context.Context, path string) (string, bool)
}

// History is what a Tree may also implement: the co-change history of the
// repository's branches (package cochange).
type History interface {
	// CoChanged answers, for each of paths, the files that changed together
	// with it on the first-parent history of commit at, with counts.
	CoChanged(ctx context.Context, at string, paths []string) ([]cochange.Pair, error)
}

// Reader is one language's reader of changed files, the one search's
// extension point: candidates.Find hands each change to the first reader of
// its list that reads it. A new language is a Reader added to that list.
type Reader interface {
	// Reads reports whether the reader reads the changed file at path;
	// changesLines says whether the change adds or removes lines in it.
	Reads(path string, changesLines bool) bool
	// Find adds to ev the evidence of cs, the changes it reads; all are
	// every change of the request (a reader may read their heads).
	Find(ctx context.Context, tree Tree, all, cs []*Change, ev *Evidence) error
}

// ReaderOf is the Reader whose Reads is reads and whose Find is find.
func ReaderOf(reads func(path string, changesLines bool) bool, find func(ctx context.Context, tree Tree, all, cs []*Change, ev *Evidence) error) Reader {
	return funcReader{reads, find}
}

type funcReader struct {
	reads func(path string, changesLines bool) bool
	find  func(ctx context.Context, tree Tree, all, cs []*Change, ev *Evidence) error
}

func (r funcReader) Reads(p string, changesLines bool) bool { return r.reads(p, changesLines) }

func (r funcReader) Find(ctx context.Context, tree Tree, all, cs []*Change, ev *Evidence) error {
	return r.find(ctx, tree, all, cs, ev)
}

// Kind says why a candidate matters to the review (candidates.Kind).
type Kind string

// The kinds of evidence.
const (
	KindUses   Kind = "uses"
	KindImpact Kind = "impact"
)

// Method names how a candidate was found (candidates.Method).
type Method string

// The methods, from the most to the least precise.
const (
	MethodGo     Method = "go"
	MethodTokens Method = "tokens"
	// MethodSyntax marks a file found through a tree-sitter grammar's
	// reading (package treesit): declarations, references and imports
	// from the syntax tree, resolved by the language family's import,
	// namespace and path rules, not by types.
	MethodSyntax     Method = "syntax"
	MethodIdentifier Method = "identifier-search"
	// MethodTextual marks a fallback of a language engine: a name nothing
	// resolved, found as text in a file that declares it. Few are listed
	// (MaxTextual), the rarest names first.
	MethodTextual Method = "textual"
	// MethodCoChange marks a file found by the history alone: it changed
	// together with a changed file in earlier commits (package cochange).
	MethodCoChange Method = "co-change"
)

// Change is a validated changed file: clean paths, the contents given or
// read (Old nil for an added file, New nil for a deleted one) and the
// changed lines as sets (head-side added, base-side removed).
type Change struct {
	Path, OldPath  string
	Old, New       []byte
	Added, Removed map[int]bool
}

// BasePath is the changed file's path at the base commit.
func (c *Change) BasePath() string {
	if c.OldPath != "" {
		return c.OldPath
	}
	return c.Path
}

// Sides reads c's head and base with read, each at its own path; the zero
// F for a side the change does not have (an added or deleted file).
func Sides[F any](c *Change, read func(p string, src []byte) F) (head, base F) {
	if c.New != nil {
		head = read(c.Path, c.New)
	}
	if c.Old != nil {
		base = read(c.BasePath(), c.Old)
	}
	return head, base
}

// Evidence collects the reasons found for each file.
type Evidence struct {
	// Changed holds the paths of the change (both sides); they are never
	// evidence.
	Changed map[string]bool
	// Generated marks files whose content says they are generated.
	Generated map[string]bool
	Files     map[string]*FileEvidence
	// Cache keeps the readers' readings of files across requests (nil:
	// nothing is kept).
	Cache *Cache

	// Reading, when set, ends the searches' reading of files before the
	// search's own context ends (ReadFiles): the references in the files
	// read by then are still walked and listed.
	Reading context.Context

	kept  atomic.Int64 // tokens kept by the searches (Keep)
	mu    sync.Mutex
	cuts  []string     // what a bound cut (Cut)
	short partialFiles // the files read only in part (ReadFiles)
}

// reading is the context the searches read files under: Reading when it
// is set (it is derived from ctx), else ctx.
func (e *Evidence) reading(ctx context.Context) context.Context {
	if e.Reading != nil {
		return e.Reading
	}
	return ctx
}

// MaxKeptTokens bounds the tokens the searches of one Find keep in memory
// at once to read references in later (about 100 MB of them): past it, a
// search reads no more files and works on those it has.
const MaxKeptTokens = 1 << 21

// Keep takes n tokens of the Find's MaxKeptTokens and reports whether they
// fit; once one take does not fit, none does.
func (e *Evidence) Keep(n int) bool {
	if e.kept.Load() > MaxKeptTokens {
		return false
	}
	return e.kept.Add(int64(n)) <= MaxKeptTokens
}

// Cut records that a bound left something out, in words a warning can
// carry ("lib/a.js and 40 other files were not read"); the first few
// distinct ones are kept.
func (e *Evidence) Cut(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.cuts) < 4 && !slices.Contains(e.cuts, what) {
		e.cuts = append(e.cuts, what)
	}
}

// Cuts returns what Cut recorded, in order, then the files read only in
// part, in one phrase.
func (e *Evidence) Cuts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]string(nil), e.cuts...)
	if what := e.short.phrase(); what != "" {
		out = append(out, what)
	}
	return out
}

// FileEvidence is the reasons to list one file: the best item of each
// symbol (Outranks), in the order they were found.
type FileEvidence struct {
	Path  string
	Items []Item
	// at is the index in Items of each symbol's item.
	at map[string]int
}

// Outranks says whether a is a better reason than b: a higher score, then
// the more breaking change of the declaration it follows (a removal, then
// a changed declaration, signature, body), then a call.
func Outranks(a, b Item) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Change != b.Change {
		return a.Change > b.Change
	}
	return a.Call && !b.Call
}

// Item is one reason to list a file.
type Item struct {
	Kind   Kind
	Symbol string
	Reason string
	Score  float64
	Method Method
	Call   bool // the reference is a call: preferred for the reason
	// Change is how the change touched the declaration the item follows
	// (an impact item: its callers, users, overrides); zero for an item
	// that follows no touched declaration. Among a file's items of one
	// score, the most breaking change gives the reason.
	Change DeclChange
}

// NewEvidence starts the evidence of a change.
func NewEvidence(cs []*Change) *Evidence {
	e := &Evidence{Changed: map[string]bool{}, Generated: map[string]bool{}, Files: map[string]*FileEvidence{}}
	for _, c := range cs {
		e.Changed[c.Path] = true
		if c.OldPath != "" {
			e.Changed[c.OldPath] = true
		}
	}
	return e
}

// Add records a reason to list path; paths of the change are ignored. A
// file keeps one item per symbol, the first of the best: a file naming a
// changed name 40,000 times holds one item for it. A better item of a
// symbol moves to the end, so Items stays in the order its items were
// found, as a stable sort of every item added would have them.
func (e *Evidence) Add(path string, it Item) {
	if e.Changed[path] || path == "" {
		return
	}
	f := e.Files[path]
	if f == nil {
		f = &FileEvidence{Path: path, at: map[string]int{}}
		e.Files[path] = f
	}
	if i, ok := f.at[it.Symbol]; ok {
		if !Outranks(it, f.Items[i]) {
			return
		}
		f.Items = slices.Delete(f.Items, i, i+1)
		for j := i; j < len(f.Items); j++ {
			f.at[f.Items[j].Symbol] = j
		}
	}
	f.at[it.Symbol] = len(f.Items)
	f.Items = append(f.Items, it)
}

// Fork returns an empty evidence of the same change, for reasons found
// aside and added back with Merge.
func (e *Evidence) Fork() *Evidence {
	return &Evidence{Changed: e.Changed, Generated: map[string]bool{}, Files: map[string]*FileEvidence{}, Cache: e.Cache}
}

// Merge adds o's reasons after e's own, each file's in the order o has
// them, and o's generated marks.
func (e *Evidence) Merge(o *Evidence) {
	for p := range o.Generated {
		e.Generated[p] = true
	}
	for p, f := range o.Files {
		for _, it := range f.Items {
			e.Add(p, it)
		}
	}
}

// MarkGenerated flags a file whose content says it is generated.
func (e *Evidence) MarkGenerated(path string) { e.Generated[path] = true }

// DeclChange is how the change touched a declaration, for the wording of
// reasons (Item.Change).
type DeclChange int

// The ways a declaration changes, from the least to the most breaking.
const (
	ChangedBody DeclChange = iota + 1
	ChangedSignature
	ChangedDecl
	RemovedDecl
)

// Phrase words the change for a reason: "whose body changed".
func (c DeclChange) Phrase() string {
	switch c {
	case ChangedBody:
		return "whose body changed"
	case ChangedSignature:
		return "whose signature changed"
	case RemovedDecl:
		return "which the change removes"
	}
	return "whose declaration changed"
}

// SpanHit reports whether one of lines lies in [from, to].
func SpanHit(lines map[int]bool, from, to int) bool {
	if to-from < len(lines) {
		for l := from; l <= to; l++ {
			if lines[l] {
				return true
			}
		}
		return false
	}
	for l := range lines {
		if l >= from && l <= to {
			return true
		}
	}
	return false
}

// MaxTextual is the number of MethodTextual candidates listed at most.
const MaxTextual = 3

// SkippedPath reports files that are not part of a build: vendored code,
// test fixtures, dot directories and the _directories the go tool ignores,
// except in Python, where _impl is an ordinary (private) package.
func SkippedPath(p string) bool {
	python := strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".pyi")
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "vendor" || dir == "testdata" || dir == "node_modules" ||
			(len(dir) > 1 && (dir[0] == '.' || (dir[0] == '_' && !python))) {
			return true
		}
	}
	return false
}

// vendorDirs are the folders that hold copies of other projects' code,
// beside the vendor/ and node_modules/ SkippedPath leaves out: libgit2's
// deps/zlib, a third_party/ of C++ libraries.
var vendorDirs = map[string]bool{"deps": true, "third_party": true, "third-party": true, "thirdparty": true, "3rdparty": true}

// VendoredCopy is the copy of another project the file p lies in, as its
// folder (deps/zlib/); "" for none. A copy's files name the same common
// words as the project's (error, buf, len) and are large: a search finds
// them only for a change to the same copy (Found).
func VendoredCopy(p string) string {
	parts := strings.Split(p, "/")
	for i := 0; i < len(parts)-1; i++ {
		if vendorDirs[parts[i]] {
			end := min(i+2, len(parts)-1)
			return strings.Join(parts[:end], "/") + "/"
		}
	}
	return ""
}

// DirOf is path.Dir with "" for the root.
func DirOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// JoinDir joins a directory ("" for the root) and a name.
func JoinDir(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// PathBase is path.Base for display.
func PathBase(p string) string { return path.Base(p) }

// AppendNew appends to s each of vs it does not hold yet, in order.
func AppendNew[T comparable](s []T, vs ...T) []T {
	for _, v := range vs {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// Words makes a set of the space-separated words of s.
func Words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
