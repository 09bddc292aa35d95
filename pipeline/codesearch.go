package pipeline

import "context"

// CodeSearch is an optional port: a provider that can search a repository's
// files at a commit. /v1/context uses it to list context candidates, the
// files outside a change that declare what the change uses or refer to what
// it changed; a provider without it lists none (and says so in warnings).
// Implementations must be safe for concurrent use.
type CodeSearch interface {
	// OpenTree returns a read-only view of repo at commit for one request.
	// The caller closes it; a CodeTree may hold processes or files open
	// until then. A commit the provider cannot search (yet) is an error
	// that says why.
	OpenTree(ctx context.Context, repo Repo, commit string) (CodeTree, error)
	// MergeBase returns the best common ancestor of a and b, the old side of
	// a pull request's three-dot diff. Unknown commits wrap ErrNotFound.
	MergeBase(ctx context.Context, repo Repo, a, b string) (string, error)
}

// CodeTree reads and searches one repository at one commit. Its methods are
// called from several goroutines at once.
type CodeTree interface {
	// Grep returns the paths of files that contain any of words as a whole
	// identifier (like git grep -l -w), among the files matching one of
	// globs (git pathspec globs such as "*.go", where "*" also matches "/";
	// none: all files), at most limit of them (0: no limit). Binary files
	// are never matched. An empty result is not an error.
	Grep(ctx context.Context, words, globs []string, limit int) ([]string, error)
	// ReadFile returns a file's content. A missing path, a directory, a
	// symbolic link or a submodule wraps ErrNotFound; a binary file wraps
	// ErrBinary; a file over the tree's size limit wraps ErrTooLarge.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// ListDir returns the paths (from the root) of the regular files
	// directly in dir ("" or "." is the root), not of its subdirectories. A
	// missing dir answers nothing.
	ListDir(ctx context.Context, dir string) ([]string, error)
	// Close releases what the tree holds. It is safe to call more than once.
	Close() error
}

// Candidate kinds: why a file outside the change matters to the review.
const (
	// CandidateUses marks a file that declares a name used on a changed line.
	CandidateUses = "uses"
	// CandidateImpact marks a file that refers to a name the change modified,
	// renamed or removed.
	CandidateImpact = "impact"
)

// The methods of a candidate found as text, not resolved: weaker evidence
// (see Candidate.Method).
const (
	MethodTextual    = "textual"
	MethodIdentifier = "identifier-search"
	// MethodCoChange: the file changed together with a changed file on the
	// destination's history; no name ties them.
	MethodCoChange = "co-change"
)

// Candidate is one file outside the change that the review probably needs,
// found by code (see pipeline/candidates), as /v1/context lists it and
// /v1/needs takes it back.
type Candidate struct {
	Path string `json:"path"`
	// Kind is "uses" or "impact".
	Kind string `json:"kind"`
	// Reason is one readable line, e.g. "calls `(*Command).Execute`, whose body changed".
	Reason string `json:"reason"`
	// Symbols are the names that tie the file to the change, best first.
	Symbols []string `json:"symbols"`
	// Method says how it was found: "go" (parsed and resolved), "tokens"
	// (lexed TypeScript/JavaScript, Python, Java), "syntax" (C#, Kotlin,
	// PHP, Ruby, Rust, C/C++, Swift, Scala read by tree-sitter grammars and
	// resolved through imports and namespaces), "textual" (a name they
	// did not resolve, found as text), "identifier-search" (other
	// languages' identifiers searched as text: weaker evidence) or
	// "co-change" (it changed together with a changed file on the
	// destination's history).
	Method string `json:"method"`
	// Score orders the candidates: 1 is certain, lower is weaker evidence.
	Score float64 `json:"score"`
	// Test marks a test file; tests follow every production file.
	Test bool `json:"test,omitempty"`
}
