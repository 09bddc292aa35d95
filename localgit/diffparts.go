package localgit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/prscout/prscout/internal/chunkread"
)

// A large diff is written by several git processes at once, each over a
// run of the changed files in the order git prints them: one `git diff`
// uses one core for reading and comparing every changed blob, the stage's
// longest wait. The runs come from `git diff --name-status` of the same
// range, which compares trees only, and keep each rename's two paths
// together, so each part prints the same files in the same order, and the
// parts joined are the whole diff. A part's own rename detection sees
// fewer files than the whole diff's, so its renames are checked against
// the listing's; on any difference the whole diff is run instead.

// diffPartFiles is the fewest changed files a part is given: a smaller
// diff is one process.
var diffPartFiles = 64

// diffPartsMax bounds the parts of one diff.
const diffPartsMax = 4

// diffPartArgBytes bounds the bytes of the paths one part names on its
// command line.
const diffPartArgBytes = 128 << 10

// diffEntry is one file of a `git diff --name-status -z` listing: its
// status letter and its path, or for a rename or copy its old and new paths.
type diffEntry struct {
	status byte
	paths  []string
}

// renamed reports whether the entry pairs two paths.
func (e diffEntry) renamed() bool { return e.status == 'R' || e.status == 'C' }

// parseNameStatus reads `git diff --name-status -z` output.
func parseNameStatus(out []byte) ([]diffEntry, error) {
	fields := bytes.Split(out, []byte{0})
	if n := len(fields); n > 0 && len(fields[n-1]) == 0 {
		fields = fields[:n-1]
	}
	var entries []diffEntry
	for i := 0; i < len(fields); {
		st := fields[i]
		if len(st) == 0 {
			return nil, errors.New("empty status in name-status listing")
		}
		e := diffEntry{status: st[0]}
		n := 1
		if e.renamed() {
			n = 2
		}
		if i+1+n > len(fields) {
			return nil, errors.New("truncated name-status listing")
		}
		for _, p := range fields[i+1 : i+1+n] {
			e.paths = append(e.paths, string(p))
		}
		entries = append(entries, e)
		i += 1 + n
	}
	return entries, nil
}

// diffPartsOf splits entries into at most n runs of about equal length
// for diffParts; nil when the diff is to be one process: too few files,
// a path named by two entries (a rename's old path added anew), or a run
// naming too many bytes of paths.
func diffPartsOf(entries []diffEntry, n int) [][]diffEntry {
	n = min(n, diffPartsMax, len(entries)/max(diffPartFiles, 1))
	if n < 2 {
		return nil
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		for _, p := range e.paths {
			if seen[p] {
				return nil
			}
			seen[p] = true
		}
	}
	parts := make([][]diffEntry, 0, n)
	for k := range n {
		part := entries[k*len(entries)/n : (k+1)*len(entries)/n]
		size := 0
		for _, e := range part {
			for _, p := range e.paths {
				size += len(p) + 1
			}
		}
		if size > diffPartArgBytes {
			return nil
		}
		parts = append(parts, part)
	}
	return parts
}

// diffParts runs `git <args> -- <paths>` for each part at once (args end
// with the range, before the "--") and joins the outputs, as read, into one
// slice of their size. ok is false when a part printed other files or
// renames than its entries say, or failed for a reason other than the
// context or the output limit: the caller then runs the whole diff.
func diffParts(ctx context.Context, dir string, maxOut int64, args []string, parts [][]diffEntry) (out []byte, ok bool, err error) {
	outs := make([][][]byte, len(parts))
	errs := make([]error, len(parts))
	var g errgroup.Group
	for k, part := range parts {
		g.Go(func() error {
			a := append(append([]string(nil), args...), "--")
			for _, e := range part {
				a = append(a, e.paths...)
			}
			outs[k], errs[k] = runGitChunks(ctx, dir, maxOut, a...)
			return nil
		})
	}
	_ = g.Wait()
	total := 0
	for k := range parts {
		if errs[k] != nil {
			if ctx.Err() != nil || errors.Is(errs[k], errOutputLimit) {
				return nil, true, errs[k]
			}
			return nil, false, nil
		}
		total += chunkread.Len(outs[k])
	}
	if int64(total) > maxOut {
		return nil, true, fmt.Errorf("git diff: output over %d bytes: %w", maxOut, errOutputLimit)
	}
	out = make([]byte, 0, total)
	for k, chunks := range outs {
		start := len(out)
		for _, c := range chunks {
			out = append(out, c...)
		}
		outs[k] = nil
		if !partPrints(out[start:], parts[k]) {
			return nil, false, nil
		}
	}
	return out, true, nil
}

// partPrints reports whether a diff's output holds one file for each of
// entries and renames exactly where they have one, old and new paths
// alike.
func partPrints(out []byte, entries []diffEntry) bool {
	files := 0
	var renames [][2]string
	for line := range bytes.Lines(out) {
		line = bytes.TrimSuffix(line, []byte{'\n'})
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			files++
		case bytes.HasPrefix(line, []byte("rename from ")), bytes.HasPrefix(line, []byte("copy from ")):
			_, p, _ := bytes.Cut(line, []byte(" from "))
			renames = append(renames, [2]string{unquoteGitPath(p), ""})
		case bytes.HasPrefix(line, []byte("rename to ")), bytes.HasPrefix(line, []byte("copy to ")):
			if len(renames) == 0 || renames[len(renames)-1][1] != "" {
				return false
			}
			_, p, _ := bytes.Cut(line, []byte(" to "))
			renames[len(renames)-1][1] = unquoteGitPath(p)
		}
	}
	if files != len(entries) {
		return false
	}
	k := 0
	for _, e := range entries {
		if !e.renamed() {
			continue
		}
		if k == len(renames) || renames[k] != [2]string{e.paths[0], e.paths[1]} {
			return false
		}
		k++
	}
	return k == len(renames)
}

// unquoteGitPath undoes git's C-style quoting of a path in a diff header
// ("a\tb" with its quotes); a path that is not quoted is returned as is.
func unquoteGitPath(p []byte) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if s, err := strconv.Unquote(string(p)); err == nil {
			return s
		}
	}
	return string(p)
}

// diffWorkers is how many parts a diff may be split into.
func diffWorkers() int { return runtime.GOMAXPROCS(0) }

// listingsMax bounds the ranges whose listing is kept.
const listingsMax = 32

// listings keeps the name-status listing of recent ranges (by directory
// and full commit ids, so it never goes stale) and runs one git process
// for the callers that ask for the same range at once: the read-ahead of
// the changed sources and the diff both start with it.
var listings struct {
	mu     sync.Mutex
	m      map[string]string
	flight singleflight.Group
}

// nameStatus returns the entries of `git diff --name-status -z -M` of
// from..head, the files Diff prints in the order it prints them.
func nameStatus(ctx context.Context, dir, from, head string) ([]diffEntry, error) {
	key := dir + "\x00" + from + "\x00" + head
	listings.mu.Lock()
	raw, ok := listings.m[key]
	listings.mu.Unlock()
	if !ok {
		v, err, _ := listings.flight.Do(key, func() (any, error) {
			out, err := runGit(ctx, dir, 0, "diff", "--name-status", "-z", "--no-ext-diff", "--no-relative", "-M",
				"--end-of-options", from, head, "--")
			if err != nil {
				return nil, err
			}
			listings.mu.Lock()
			defer listings.mu.Unlock()
			if listings.m == nil || len(listings.m) >= listingsMax {
				listings.m = map[string]string{}
			}
			listings.m[key] = string(out)
			return string(out), nil
		})
		if err != nil {
			return nil, fmt.Errorf("list changed files: %w", err)
		}
		raw = v.(string)
	}
	return parseNameStatus([]byte(raw))
}

// partedDiff writes the diff of from..head in parts (diffParts) when it is
// large enough and the machine has more than one CPU; parted is false when
// the caller is to run it whole.
func partedDiff(ctx context.Context, dir string, maxOut int64, args []string, from, head string) (out []byte, parted bool, err error) {
	if diffWorkers() < 2 {
		return nil, false, nil
	}
	entries, err := nameStatus(ctx, dir, from, head)
	if err != nil {
		return nil, false, nil
	}
	parts := diffPartsOf(entries, diffWorkers())
	if parts == nil {
		return nil, false, nil
	}
	return diffParts(ctx, dir, maxOut, args, parts)
}
