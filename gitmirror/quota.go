package gitmirror

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// The mirror's growth is bounded twice:
//
//   - Blobs over Config.BlobLimit (the read limit: a larger file is never
//     read) are never fetched. The blobs a commit's trees lack are fetched
//     by asking for the trees that hold them under the filter
//     combine:tree:1+blob:limit=<n> (their direct blobs up to n bytes), so
//     the server leaves the large ones out; what is still missing then is
//     recorded as too large (largeBlobsFile), and a commit whose only
//     missing blobs are those counts as complete.
//   - Config.MaxBytes is a quota on the whole directory: after each fetch
//     the mirrors are measured (the prscout_mirror_bytes gauge) and, while
//     the total is over the quota, the least recently used repository is
//     removed (never the one just fetched, nor one with a fetch in
//     flight). A removed repository is cloned again on its next review.
//     git's own gc stays off (gc.auto 0): dropping a whole repository frees
//     its space at once and never repacks under a running read.

// Files the growth bounds keep in a mirror.
const (
	// largeBlobsFile lists, in a mirror, the blobs left out as too large.
	largeBlobsFile = "prscout-large-blobs"
	// usedFile's modification time is when the mirror was last used.
	usedFile = "prscout-used"
	// touchEvery bounds how often a read updates usedFile.
	touchEvery = time.Minute
)

// SizeObserver is an optional part of an Observer: the mirror directory's
// size after each measurement and each repository removed by the quota.
type SizeObserver interface {
	MirrorBytes(n int64)
	MirrorEvicted()
}

// fetchSmallBlobs fetches the missing blobs of commits' trees up to the
// blob limit: it asks for each tree that directly holds one of them with
// the filter combine:tree:1+blob:limit=<n>, which brings that tree's direct
// blobs up to n bytes (a few it already has, never a large one). Trees are
// asked for one depth at a time (a tree met inside another one asked for
// in the same request may be skipped by the server), and the trees still
// holding a missing blob afterwards are asked for once more, one request
// each, so a blob that stays missing is one the filter left out.
func (m *Mirror) fetchSmallBlobs(ctx context.Context, dir string, commits, missing []string) error {
	levels, err := m.blobTrees(ctx, dir, commits, missing)
	if err != nil {
		return err
	}
	for _, trees := range levels {
		if err := m.fetchTrees(ctx, dir, trees); err != nil {
			return err
		}
	}
	left, err := m.missingBlobs(ctx, dir, commits)
	if err != nil || len(left) == 0 {
		return err
	}
	levels, err = m.blobTrees(ctx, dir, commits, left)
	if err != nil {
		return err
	}
	for _, trees := range levels {
		for _, t := range trees {
			if err := m.fetchTrees(ctx, dir, []string{t}); err != nil {
				return err
			}
		}
	}
	return nil
}

// blobTrees lists the trees of commits that directly hold one of blobs, by
// depth (the root tree is depth 0). ls-tree without -l reads trees only,
// never a blob.
func (m *Mirror) blobTrees(ctx context.Context, dir string, commits, blobs []string) ([][]string, error) {
	want := map[string]bool{}
	for _, oid := range blobs {
		want[oid] = true
	}
	seen := map[string]bool{}
	var levels [][]string
	add := func(depth int, tree string) {
		if tree == "" || seen[tree] {
			return
		}
		seen[tree] = true
		for len(levels) <= depth {
			levels = append(levels, nil)
		}
		levels[depth] = append(levels[depth], tree)
	}
	for _, c := range commits {
		root, err := m.git(ctx, dir, nil, false, "rev-parse", "--verify", "--end-of-options", c+"^{tree}")
		if err != nil {
			return nil, fmt.Errorf("list trees: %w", err)
		}
		out, err := m.git(ctx, dir, nil, false, "ls-tree", "-r", "-t", "-z", "--full-tree", "--end-of-options", c)
		if err != nil {
			return nil, fmt.Errorf("list trees: %w", err)
		}
		treeOf := map[string]string{".": strings.TrimSpace(string(root))}
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, p, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 {
				continue
			}
			switch f[1] {
			case "tree":
				treeOf[p] = f[2]
			case "blob":
				if want[f[2]] {
					d := path.Dir(p)
					depth := 0
					if d != "." {
						depth = strings.Count(d, "/") + 1
					}
					add(depth, treeOf[d])
				}
			}
		}
	}
	return levels, nil
}

// fetchTrees asks for trees and their direct blobs up to the blob limit. A
// server that refuses tree filters is asked with blob:limit=<n> alone (the
// trees' whole subtrees, still without large blobs).
func (m *Mirror) fetchTrees(ctx context.Context, dir string, trees []string) error {
	if len(trees) == 0 {
		return nil
	}
	list := strings.Join(trees, "\n") + "\n"
	var err error
	for _, filter := range []string{fmt.Sprintf("combine:tree:1+blob:limit=%d", m.cfg.BlobLimit), fmt.Sprintf("blob:limit=%d", m.cfg.BlobLimit)} {
		// --refetch: the trees are already here, and fetch skips wants it
		// has; noop: no haves, since the blobs they reach are not here.
		_, err = m.git(ctx, dir, strings.NewReader(list), true, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--refetch", "--no-tags",
			"--no-write-fetch-head", "--recurse-submodules=no", "--filter="+filter, "--stdin", "origin")
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// large returns repo's set of blobs left out as too large, read from the
// mirror on first use.
func (m *Mirror) large(repo pipeline.Repo, st *repoState) map[string]bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.large == nil {
		st.large = map[string]bool{}
		if f, err := os.Open(filepath.Join(m.Path(repo), largeBlobsFile)); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if oid := strings.TrimSpace(sc.Text()); isHex(oid) {
					st.large[oid] = true
				}
			}
			f.Close()
		}
	}
	return st.large
}

// placeholder stands in for a blob left out as too large (a replace ref,
// refs/replace/<oid>): git's readers of the mirror (ls-tree -l, cat-file,
// grep) find it instead of fetching the blob from the promisor remote
// (which git 2.39 cannot be told not to do, and which dies without the
// credential). It starts with a NUL so grep takes it for binary and never
// matches it; Provider answers a read of it as too large.
var placeholder = []byte("\x00prscout: this blob is over the mirror's read limit (PRSCOUT_MAX_FILE_BYTES) and was not fetched\n")

// recordLarge adds oids to repo's blobs left out as too large and points
// a replace ref of each at the placeholder.
func (m *Mirror) recordLarge(ctx context.Context, repo pipeline.Repo, st *repoState, oids []string) error {
	dir := m.Path(repo)
	out, err := m.git(ctx, dir, bytes.NewReader(placeholder), false, "hash-object", "-w", "--stdin")
	if err != nil {
		return fmt.Errorf("write the placeholder blob: %w", err)
	}
	ph := strings.TrimSpace(string(out))
	var refs strings.Builder
	for _, oid := range oids {
		fmt.Fprintf(&refs, "update refs/replace/%s %s\n", oid, ph)
	}
	if _, err := m.git(ctx, dir, strings.NewReader(refs.String()), false, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("point the large blobs at the placeholder: %w", err)
	}
	known := m.large(repo, st)
	st.mu.Lock()
	defer st.mu.Unlock()
	var add strings.Builder
	for _, oid := range oids {
		if !known[oid] {
			known[oid] = true
			add.WriteString(oid + "\n")
		}
	}
	if add.Len() == 0 {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(m.Path(repo), largeBlobsFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("record large blobs: %w", err)
	}
	_, err = f.WriteString(add.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// without returns oids minus the ones in skip.
func without(oids []string, skip map[string]bool) []string {
	out := oids[:0:0]
	for _, o := range oids {
		if !skip[o] {
			out = append(out, o)
		}
	}
	return out
}

// touch records that repo's mirror was used now, at most once per
// touchEvery per repository.
func (m *Mirror) touch(repo pipeline.Repo, st *repoState) {
	st.mu.Lock()
	due := time.Since(st.touched) >= touchEvery
	if due {
		st.touched = time.Now()
	}
	st.mu.Unlock()
	if !due {
		return
	}
	p := filepath.Join(m.Path(repo), usedFile)
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
}

// mirrorUse is one repository's mirror as the quota sees it.
type mirrorUse struct {
	repo  pipeline.Repo
	bytes int64
	used  time.Time
}

// measure lists the mirrors under Dir with their sizes and last use.
func (m *Mirror) measure() ([]mirrorUse, int64) {
	var out []mirrorUse
	var total int64
	workspaces, _ := os.ReadDir(m.cfg.Dir)
	for _, ws := range workspaces {
		if !ws.IsDir() || strings.HasPrefix(ws.Name(), ".") {
			continue
		}
		slugs, _ := os.ReadDir(filepath.Join(m.cfg.Dir, ws.Name()))
		for _, sl := range slugs {
			dir := filepath.Join(m.cfg.Dir, ws.Name(), sl.Name())
			size := dirSize(dir)
			total += size
			repo := pipeline.Repo{Workspace: ws.Name(), RepoSlug: sl.Name()}
			if !sl.IsDir() || strings.HasPrefix(sl.Name(), ".") || checkRepo(repo) != nil {
				continue // a clone in progress, or an eviction's leftovers
			}
			u := mirrorUse{repo: repo, bytes: size}
			if fi, err := os.Stat(filepath.Join(dir, usedFile)); err == nil {
				u.used = fi.ModTime()
			} else if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
				u.used = fi.ModTime()
			}
			out = append(out, u)
		}
	}
	return out, total
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// enforceQuota measures the mirror directory, reports its size and, over
// MaxBytes, removes the least recently used repositories but keep (the one
// just fetched) and the ones with a fetch queued or running.
func (m *Mirror) enforceQuota(keep pipeline.Repo) {
	m.quotaMu.Lock()
	defer m.quotaMu.Unlock()
	uses, total := m.measure()
	if m.cfg.MaxBytes > 0 && total > m.cfg.MaxBytes {
		sort.Slice(uses, func(i, j int) bool { return uses[i].used.Before(uses[j].used) })
		for _, u := range uses {
			if total <= m.cfg.MaxBytes {
				break
			}
			if u.repo == keep || !m.evict(u.repo) {
				continue
			}
			total -= u.bytes
			if so, ok := m.obs.(SizeObserver); ok {
				so.MirrorEvicted()
			}
			m.log.Info("bitbucket mirror: repository removed, the mirror directory is over PRSCOUT_MIRROR_MAX_BYTES",
				"repo", u.repo.Workspace+"/"+u.repo.RepoSlug, "bytes", u.bytes, "max_bytes", m.cfg.MaxBytes)
		}
		if total > m.cfg.MaxBytes {
			m.log.Warn("bitbucket mirror: still over PRSCOUT_MIRROR_MAX_BYTES after removing what could be removed",
				"bytes", total, "max_bytes", m.cfg.MaxBytes)
		}
		_, total = m.measure()
	}
	if so, ok := m.obs.(SizeObserver); ok {
		so.MirrorBytes(total)
	}
}

// evict removes repo's mirror unless a fetch into it is queued or running.
// The directory is first renamed away, so no new read finds a half-removed
// mirror; reads already running keep their open files.
func (m *Mirror) evict(repo pipeline.Repo) bool {
	st := m.state(repo)
	if !st.fetchMu.TryLock() {
		return false
	}
	defer st.fetchMu.Unlock()
	var b [6]byte
	_, _ = rand.Read(b[:])
	trash := filepath.Join(filepath.Dir(m.Path(repo)), "."+repo.RepoSlug+".evicted-"+hex.EncodeToString(b[:]))
	st.mu.Lock()
	if st.pending > 0 {
		st.mu.Unlock()
		return false
	}
	err := os.Rename(m.Path(repo), trash)
	if err == nil {
		st.ready, st.notReady, st.large = map[string]bool{}, map[string]int{}, nil
		st.gen++
	}
	st.mu.Unlock()
	if err != nil {
		return false
	}
	_ = os.RemoveAll(trash)
	return true
}

// leftOut reports whether a read from the mirror of path at commit, which
// gave data or err, met the placeholder of a blob left out as too large:
// such a file is read through REST.
func (m *Mirror) leftOut(ctx context.Context, repo pipeline.Repo, commit, path string, data []byte, err error) bool {
	if !errors.Is(err, pipeline.ErrBinary) && !bytes.Equal(data, placeholder) {
		return false
	}
	st := m.state(repo)
	large := m.large(repo, st)
	st.mu.Lock()
	n := len(large)
	st.mu.Unlock()
	if n == 0 {
		return false
	}
	out, gerr := m.git(ctx, m.Path(repo), nil, false, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+":"+path)
	if gerr != nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return large[strings.TrimSpace(string(out))]
}
