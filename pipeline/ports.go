package pipeline

import "context"

// Repo addresses one repository with the seed's flat names.
type Repo struct {
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
}

// DirEntry is one typed entry of a directory listing.
type DirEntry struct {
	Path string `json:"path"`
	Type string `json:"type"` // "file", "dir", "symlink" or "submodule"
	Size *int64 `json:"size,omitempty"`
}

// Repository reads a repository's content at a commit. Content at a commit id
// never changes, which is what makes lookups cacheable by (repo, commit, path).
//
// Implementations return errors that wrap ErrNotFound, ErrBinary, ErrTooLarge,
// ErrIsDir or ErrNotDir where they apply, so stages can report a precise reason.
type Repository interface {
	// ResolveCommit turns any revision (branch, tag, short or full sha) into a
	// full commit id. Unknown revisions wrap ErrNotFound.
	ResolveCommit(ctx context.Context, repo Repo, rev string) (string, error)
	// ReadFile returns the file's bytes at commit. A file larger than maxBytes
	// is refused with an error wrapping ErrTooLarge (never truncated); a binary
	// file wraps ErrBinary; a directory wraps ErrIsDir.
	ReadFile(ctx context.Context, repo Repo, commit, path string, maxBytes int64) ([]byte, error)
	// ListDir lists the direct children of path at commit ("" is the root), at
	// most limit entries; truncated reports that more exist.
	ListDir(ctx context.Context, repo Repo, commit, path string, limit int) (entries []DirEntry, truncated bool, err error)
}

// DiffSource produces raw unified git diffs (as `git diff` prints them, with
// rename detection) for a pull request's range.
type DiffSource interface {
	// Diff returns the changes a pull request from base to head introduces:
	// from the merge base of base and head to head, with contextLines lines of
	// context around each hunk.
	Diff(ctx context.Context, repo Repo, base, head string, contextLines int) ([]byte, error)
}
