// Package localgit is the local git provider, prscout's embedded default: it
// reads real repositories on disk through git objects at a commit, never
// through the working tree, so symbolic links, uncommitted files and files
// outside the repository cannot leak into a review.
//
// Every read runs the git CLI (`git -C <repo> --no-pager -c core.quotepath=off
// ...`) through os/exec, without a shell, bound to the caller's context.
// Repositories are chosen under a root directory: `workspace/repoSlug` select
// `<root>/<workspace>/<repoSlug>`, and when the root itself is a git repository
// it is served for any names.
package localgit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/cochange"
)

// Compile-time checks that Provider implements the ports it serves.
var (
	_ pipeline.Repository   = (*Provider)(nil)
	_ pipeline.DiffSource   = (*Provider)(nil)
	_ pipeline.FilesReader  = (*Provider)(nil)
	_ pipeline.ChangeLister = (*Provider)(nil)
	_ pipeline.RangeCommits = (*Provider)(nil)
)

// maxCommitLogBytes bounds the commit messages CommitMessages reads.
const maxCommitLogBytes = 1 << 20

// Errors for tree entries that are not regular files. Both wrap
// pipeline.ErrNotFound: there is no file content to give, and symbolic links
// are never followed (their target could point anywhere on the machine).
var (
	errSymlink   = fmt.Errorf("symbolic link not followed: %w", pipeline.ErrNotFound)
	errSubmodule = fmt.Errorf("submodule has no content in this repository: %w", pipeline.ErrNotFound)
)

// defaultMaxDiffBytes bounds a raw diff read from git.
const defaultMaxDiffBytes = 64 << 20

// Provider reads git repositories under Root.
type Provider struct {
	// Root is the directory repositories are looked up in.
	Root string
	// MaxDiffBytes bounds Diff's output; larger diffs fail with an error
	// wrapping pipeline.ErrTooLarge. Zero means defaultMaxDiffBytes.
	MaxDiffBytes int64

	// listings, blobs and idents are shared by the code trees (OpenTree);
	// nil keeps nothing.
	listings *listingCache
	blobs    *blobCache
	idents   *identIndex
	// ls keeps the ls-tree answers of ReadFile, ReadFiles and ListDir;
	// nil keeps nothing.
	ls *lsCache
	// histories keeps the co-change windows of recent destination heads
	// (history.go); nil keeps none.
	histories *cochange.Cache
	// readers keeps the cat-file processes of closed code trees for the
	// next trees of their repository (readerpool.go); nil keeps none.
	readers *readerPool
}

// New returns a Provider serving repositories under root ("" means the
// working directory).
func New(root string) *Provider {
	if root == "" {
		root = "."
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return &Provider{
		Root:     root,
		listings: newListingCache(defaultListings, defaultListingEntries),
		blobs:    newBlobCache(defaultBlobCacheBytes),
		idents:   newIdentIndex(defaultIdentIndexBytes),
		ls:       newLsCache(defaultLsCacheEntries),

		histories: cochange.NewCache(defaultHistories, cochange.DefaultBounds),
		readers:   newReaderPool(),
	}
}

// isGitDir reports whether dir is a git repository: a work tree with a .git
// directory or file, or a bare repository.
func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	head, err1 := os.Stat(filepath.Join(dir, "HEAD"))
	objs, err2 := os.Stat(filepath.Join(dir, "objects"))
	return err1 == nil && err2 == nil && head.Mode().IsRegular() && objs.IsDir()
}

// validName checks one workspace or repoSlug segment: non-empty, no path
// separator, no "." or "..", no control character.
func validName(field, v string) error {
	switch {
	case v == "":
		return pipeline.Invalidf(field, "required")
	case v == "." || v == "..":
		return pipeline.Invalidf(field, "%q is not a repository name", v)
	case strings.ContainsAny(v, `/\`):
		return pipeline.Invalidf(field, "must not contain a path separator")
	case len(v) > 255:
		return pipeline.Invalidf(field, "too long")
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return pipeline.Invalidf(field, "control character refused")
		}
	}
	return nil
}

// repoDir resolves repo to a git repository directory under Root. When Root is
// itself a repository it is served for any names (names given are still
// checked); otherwise `<Root>/<workspace>/<repoSlug>` must be a repository
// that, symbolic links resolved, stays inside Root.
func (p *Provider) repoDir(repo pipeline.Repo) (string, error) {
	if isGitDir(p.Root) {
		for _, f := range []struct{ field, v string }{{"workspace", repo.Workspace}, {"repoSlug", repo.RepoSlug}} {
			if f.v != "" {
				if err := validName(f.field, f.v); err != nil {
					return "", err
				}
			}
		}
		return p.Root, nil
	}
	if err := validName("workspace", repo.Workspace); err != nil {
		return "", err
	}
	if err := validName("repoSlug", repo.RepoSlug); err != nil {
		return "", err
	}
	dir := filepath.Join(p.Root, repo.Workspace, repo.RepoSlug)
	notFound := fmt.Errorf("repository %s/%s: %w", repo.Workspace, repo.RepoSlug, pipeline.ErrNotFound)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", notFound
	}
	realRoot, err := filepath.EvalSymlinks(p.Root)
	if err != nil {
		return "", fmt.Errorf("resolve local root: %w", err)
	}
	if rel, err := filepath.Rel(realRoot, realDir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", notFound
	}
	if !isGitDir(realDir) {
		return "", notFound
	}
	return realDir, nil
}

// commitID resolves commit to a full commit id. Full ids are verified too: a
// missing object or the id of a tree or blob wraps pipeline.ErrNotFound.
// readers (nil: none) verifies full ids without a git process (resolve).
func commitID(ctx context.Context, readers *readerPool, dir, commit string) (string, error) {
	return resolve(ctx, readers, dir, commit)
}

// checkPath refuses repository paths that are not clean relative paths. Paths
// reach git after --end-of-options with literal pathspecs, so this is
// defence in depth, not the only guard.
func checkPath(p string, allowRoot bool) (string, error) {
	if p == "" || p == "." {
		if allowRoot {
			return "", nil
		}
		return "", pipeline.Invalidf("path", "empty path")
	}
	if strings.HasPrefix(p, "/") {
		return "", pipeline.Invalidf("path", "absolute path refused")
	}
	// Git allows any byte but NUL in a name (tabs and newlines included);
	// paths reach git as separate arguments and come back NUL-terminated, so
	// only NUL is refused.
	if strings.IndexByte(p, 0) >= 0 {
		return "", pipeline.Invalidf("path", "NUL in path")
	}
	p = strings.TrimSuffix(p, "/")
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", pipeline.Invalidf("path", "path %q is not a clean relative path", p)
		}
	}
	return p, nil
}

// treeEntry is one line of `git ls-tree -l -z`.
type treeEntry struct {
	Mode string
	Type string // blob, tree, commit
	OID  string
	Size int64 // -1 for trees and submodules
	Path string
}

// entryKind maps a tree entry to pipeline.DirEntry's type.
func (e treeEntry) kind() string {
	switch {
	case e.Mode == "120000":
		return "symlink"
	case e.Type == "tree":
		return "dir"
	case e.Type == "commit":
		return "submodule"
	default:
		return "file"
	}
}

// parseTreeEntry parses "<mode> SP <type> SP <oid> SP+ <size> TAB <path>".
func parseTreeEntry(rec []byte) (treeEntry, error) {
	tab := bytes.IndexByte(rec, '\t')
	if tab < 0 {
		return treeEntry{}, fmt.Errorf("malformed ls-tree record %q", rec)
	}
	f := strings.Fields(string(rec[:tab]))
	if len(f) != 4 {
		return treeEntry{}, fmt.Errorf("malformed ls-tree record %q", rec)
	}
	e := treeEntry{Mode: f[0], Type: f[1], OID: f[2], Size: -1, Path: string(rec[tab+1:])}
	// "-" is a tree's or a submodule's size; "BAD" a blob missing from the
	// object store (a partial clone): its size is unknown, and reading it
	// fails for that file alone instead of failing the whole listing.
	if f[3] != "-" && f[3] != "BAD" {
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return treeEntry{}, fmt.Errorf("malformed ls-tree size %q", f[3])
		}
		e.Size = n
	}
	return e, nil
}

// lsTree runs `git ls-tree -l -z --end-of-options <commit> <paths...>` and returns its
// entries, at most limit (0: all); more reports that entries were left out.
func lsTree(ctx context.Context, dir, commit string, limit int, paths ...string) (entries []treeEntry, more bool, err error) {
	return lsTreeOpts(ctx, dir, nil, commit, limit, paths...)
}

// lsTreeOpts is lsTree with more options (such as -r) before the commit.
func lsTreeOpts(ctx context.Context, dir string, opts []string, commit string, limit int, paths ...string) (entries []treeEntry, more bool, err error) {
	// ls-tree takes no "--": after --end-of-options and the tree-ish every
	// argument is a path (a "--" would be one too).
	args := append(append(append([]string{"ls-tree", "-l", "-z"}, opts...), "--end-of-options", commit), paths...)
	cmd := gitCmd(ctx, dir, args...)
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("list tree: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("list tree: %w", err)
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	var parseErr error
	for {
		rec, rerr := r.ReadBytes(0)
		if len(rec) > 0 && rec[len(rec)-1] == 0 {
			rec = rec[:len(rec)-1]
		}
		if len(rec) > 0 {
			if limit > 0 && len(entries) == limit {
				more = true
				break
			}
			e, perr := parseTreeEntry(rec)
			if perr != nil {
				parseErr = perr
				break
			}
			entries = append(entries, e)
		}
		if rerr != nil {
			break
		}
	}
	if more || parseErr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if parseErr != nil {
			return nil, false, fmt.Errorf("list tree: %w", parseErr)
		}
		return entries, true, nil
	}
	_, _ = io.Copy(io.Discard, r)
	if werr := cmd.Wait(); werr != nil {
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("list tree: %w", ctx.Err())
		}
		// The commit was resolved before, so this is git failing, not a
		// missing path (ls-tree answers those with no entries).
		return nil, false, fmt.Errorf("list tree at %s: %w: %s", commit, werr, pipeline.FirstLine(stderr.String()))
	}
	return entries, false, nil
}

// statPath returns the tree entry of one path at commit ("" is never asked).
func statPath(ctx context.Context, ls *lsCache, dir, commit, p string) (treeEntry, error) {
	entries, _, err := ls.lsTree(ctx, dir, commit, 0, p)
	if err != nil {
		return treeEntry{}, err
	}
	for _, e := range entries {
		if e.Path == p {
			return e, nil
		}
	}
	return treeEntry{}, fmt.Errorf("%s: %w", p, pipeline.ErrNotFound)
}

// entryError is the error for an entry whose content ReadFile refuses, or nil
// for a readable blob within maxBytes.
func entryError(e treeEntry, maxBytes int64) error {
	switch e.kind() {
	case "dir":
		return fmt.Errorf("%s: %w", e.Path, pipeline.ErrIsDir)
	case "symlink":
		return fmt.Errorf("%s: %w", e.Path, errSymlink)
	case "submodule":
		return fmt.Errorf("%s: %w", e.Path, errSubmodule)
	}
	if maxBytes > 0 && e.Size > maxBytes {
		return fmt.Errorf("%s: %d bytes over the %d byte limit: %w", e.Path, e.Size, maxBytes, pipeline.ErrTooLarge)
	}
	return nil
}

// ReadFile returns the content of path at commit, read from the object
// database (`git ls-tree` for the entry, `git cat-file blob` for the bytes).
// Directories wrap pipeline.ErrIsDir; symbolic links (errSymlink) and
// submodules (errSubmodule) wrap pipeline.ErrNotFound and are never followed;
// a blob over maxBytes wraps pipeline.ErrTooLarge without being read; a blob
// with a NUL byte in its first 8000 bytes wraps pipeline.ErrBinary.
func (p *Provider) ReadFile(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, err
	}
	clean, err := checkPath(path, false)
	if err != nil {
		return nil, err
	}
	sha, err := commitID(ctx, p.readers, dir, commit)
	if err != nil {
		return nil, err
	}
	// A path whose directory the commit lacks needs no git ls-tree.
	if i := strings.LastIndexByte(clean, '/'); i > 0 && p.readers.lacksDir(ctx, dir, sha, clean[:i]) {
		return nil, fmt.Errorf("%s: %w", clean, pipeline.ErrNotFound)
	}
	e, err := statPath(ctx, p.ls, dir, sha, clean)
	if err != nil {
		return nil, err
	}
	if err := entryError(e, maxBytes); err != nil {
		return nil, err
	}
	// A blob id names its content: one read before (the code trees' too)
	// answers again. The kept bytes are shared, so the caller gets a copy.
	kept, ok := p.blobs.get(e.OID)
	if !ok {
		if kept, err = runGit(ctx, dir, e.Size+1, "cat-file", "blob", e.OID); err != nil {
			return nil, fmt.Errorf("read %s: %w", clean, err)
		}
		p.blobs.put(e.OID, kept)
	}
	data := bytes.Clone(kept)
	if pipeline.LooksBinary(data) {
		return nil, fmt.Errorf("%s: %w", clean, pipeline.ErrBinary)
	}
	return data, nil
}

// ListDir lists the direct children of path at commit ("" is the root) with
// `git ls-tree -l <commit> -- <path>/`: files with their size, directories,
// symbolic links and submodules, in git's tree order, at most limit entries
// (truncated reports more). A path that is a file wraps pipeline.ErrNotDir; a
// missing path wraps pipeline.ErrNotFound.
func (p *Provider) ListDir(ctx context.Context, repo pipeline.Repo, commit, path string, limit int) ([]pipeline.DirEntry, bool, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, false, err
	}
	clean, err := checkPath(path, true)
	if err != nil {
		return nil, false, err
	}
	sha, err := commitID(ctx, p.readers, dir, commit)
	if err != nil {
		return nil, false, err
	}
	var entries []treeEntry
	var truncated bool
	if clean == "" {
		entries, truncated, err = p.ls.lsTree(ctx, dir, sha, limit)
	} else {
		entries, truncated, err = p.ls.lsTree(ctx, dir, sha, limit, clean+"/")
	}
	if err != nil {
		return nil, false, err
	}
	if len(entries) == 0 && clean != "" {
		e, err := statPath(ctx, p.ls, dir, sha, clean)
		if err != nil {
			return nil, false, err
		}
		if e.kind() != "dir" {
			return nil, false, fmt.Errorf("%s: %w", clean, pipeline.ErrNotDir)
		}
	}
	out := make([]pipeline.DirEntry, 0, len(entries))
	for _, e := range entries {
		d := pipeline.DirEntry{Path: e.Path, Type: e.kind()}
		if d.Type == "file" && e.Size >= 0 {
			size := e.Size
			d.Size = &size
		}
		out = append(out, d)
	}
	return out, truncated, nil
}

// Diff returns the raw unified diff of head against the merge base of base and
// head (or against base itself with opts.TwoDot), as `git diff --no-color
// --no-ext-diff --no-textconv -M -U<n>` prints it with a/ and b/ prefixes.
// Output over MaxDiffBytes wraps pipeline.ErrTooLarge; an unknown revision
// wraps pipeline.ErrNotFound.
func (p *Provider) Diff(ctx context.Context, repo pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]byte, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, err
	}
	if opts.ContextLines < 0 {
		return nil, pipeline.Invalidf("contextLines", "must not be negative")
	}
	from, headID, err := p.diffRange(ctx, dir, base, head, opts)
	if err != nil {
		return nil, err
	}
	max := p.MaxDiffBytes
	if max <= 0 {
		max = defaultMaxDiffBytes
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/", "--no-relative", "-M", "-U" + strconv.Itoa(opts.ContextLines),
		"--end-of-options", from, headID}
	out, parted, err := partedDiff(ctx, dir, int64(max), args, from, headID)
	if !parted {
		out, err = runGit(ctx, dir, int64(max), append(args, "--")...)
	}
	if err != nil {
		if errors.Is(err, errOutputLimit) {
			return nil, fmt.Errorf("diff %s..%s over %d bytes: %w", base, head, max, pipeline.ErrTooLarge)
		}
		return nil, fmt.Errorf("diff %s..%s: %w", base, head, err)
	}
	return out, nil
}

// diffRange resolves base and head and returns the commit a diff starts
// from (base itself with opts.TwoDot, otherwise the merge base of base and
// head, `git merge-base`) and the head commit id: the range Diff and
// ChangedPaths share.
func (p *Provider) diffRange(ctx context.Context, dir, base, head string, opts pipeline.DiffOptions) (from, headID string, err error) {
	baseID, err := commitID(ctx, p.readers, dir, base)
	if err != nil {
		return "", "", err
	}
	if headID, err = commitID(ctx, p.readers, dir, head); err != nil {
		return "", "", err
	}
	if opts.TwoDot {
		return baseID, headID, nil
	}
	mb, err := mergeBases.ask(dir, baseID+" "+headID, func() (string, error) {
		out, err := runGit(ctx, dir, 4<<10, "merge-base", "--end-of-options", baseID, headID)
		return strings.TrimSpace(string(out)), err
	}, pipeline.IsFullCommit)
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && ge.Code == 1 {
			return "", "", fmt.Errorf("no merge base between %s and %s: %w", base, head, pipeline.ErrNotFound)
		}
		return "", "", fmt.Errorf("find merge base: %w", err)
	}
	return mb, headID, nil
}

// ChangedPaths lists the new paths of the files Diff would show, deleted
// files left out, from `git diff --name-status -z -M` (nameStatus, shared
// with Diff): a tree comparison that reads no file content, so it answers
// long before the diff.
func (p *Provider) ChangedPaths(ctx context.Context, repo pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]string, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, err
	}
	from, headID, err := p.diffRange(ctx, dir, base, head, opts)
	if err != nil {
		return nil, err
	}
	entries, err := nameStatus(ctx, dir, from, headID)
	if err != nil {
		return nil, fmt.Errorf("list changed paths: %w", err)
	}
	var paths []string
	for _, e := range entries {
		if e.status != 'D' {
			paths = append(paths, e.paths[len(e.paths)-1])
		}
	}
	return paths, nil
}

// CommitMessages returns the full messages of at most limit commits of
// base..head (reachable from head, not from base), newest first, with `git
// log --format=%B -n <limit> <head> ^<base>`. An unknown revision wraps
// pipeline.ErrNotFound; messages over 1 MiB in all wrap pipeline.ErrTooLarge.
func (p *Provider) CommitMessages(ctx context.Context, repo pipeline.Repo, base, head string, limit int) ([]string, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	baseID, err := commitID(ctx, p.readers, dir, base)
	if err != nil {
		return nil, err
	}
	headID, err := commitID(ctx, p.readers, dir, head)
	if err != nil {
		return nil, err
	}
	out, err := runGit(ctx, dir, maxCommitLogBytes, "log", "--no-color", "--format=%B%x00", "-n", strconv.Itoa(limit),
		"--end-of-options", headID, "^"+baseID, "--")
	if err != nil {
		if errors.Is(err, errOutputLimit) {
			return nil, fmt.Errorf("commit messages of %s..%s over %d bytes: %w", base, head, maxCommitLogBytes, pipeline.ErrTooLarge)
		}
		return nil, fmt.Errorf("commit messages of %s..%s: %w", base, head, err)
	}
	var msgs []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if m := strings.TrimSpace(rec); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}
