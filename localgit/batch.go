package localgit

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prscout/prscout/pipeline"
)

// lsTreeChunk is how many paths one `git ls-tree` call takes, which keeps the
// command line far below the system's argument limit.
const lsTreeChunk = 400

// ReadFiles reads many files at commit with a fixed number of git processes
// (one `git ls-tree` per 400 paths and one `git cat-file --batch`, kept
// for the next reads: readerpool.go) instead of two per file, and calls fn once per path in the order of paths
// with the bytes or the error ReadFile would give. Blobs stream through one
// at a time, so memory holds only what fn keeps. The error return is for
// failures of the whole call (bad repository, unknown commit, cancelled
// context).
//
// What the provider keeps answers first: the entries come from the
// commit's listing when a code tree listed it (no ls-tree), and a blob
// read before (by a code tree or an earlier ReadFiles: the next pull
// request's base side is this one's head side) from the blob cache; the
// blobs read are kept there in turn. fn gets bytes of its own either way.
func (p *Provider) ReadFiles(ctx context.Context, repo pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	dir, err := p.repoDir(repo)
	if err != nil {
		return err
	}
	sha, err := commitID(ctx, p.readers, dir, commit)
	if err != nil {
		return err
	}
	errs := make([]error, len(paths))
	clean := make([]string, len(paths))
	var valid []string
	for i, raw := range paths {
		c, err := checkPath(raw, false)
		if err != nil {
			errs[i] = err
			continue
		}
		clean[i] = c
		valid = append(valid, c)
	}
	entries, err := p.entriesOf(ctx, dir, sha, valid)
	if err != nil {
		return err
	}
	kept := make([][]byte, len(paths)) // blobs the cache holds, by path
	var oids []string                  // blobs to read, in path order
	var sizes []int64                  // their sizes
	for i, c := range clean {
		if errs[i] != nil {
			continue
		}
		e, ok := entries[c]
		if !ok {
			// ls-tree leaves out a directory named next to paths inside it;
			// ask for that path alone.
			var err error
			if e, err = statPath(ctx, p.ls, dir, sha, c); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				errs[i] = err
				continue
			}
			entries[c] = e
		}
		if err := entryError(e, maxBytes); err != nil {
			errs[i] = err
			continue
		}
		if data, ok := p.blobs.get(e.OID); ok {
			kept[i] = data
			continue
		}
		oids = append(oids, e.OID)
		sizes = append(sizes, e.Size)
	}
	answer := func(i int, data []byte) {
		if pipeline.LooksBinary(data) {
			fn(i, nil, fmt.Errorf("%s: %w", clean[i], pipeline.ErrBinary))
		} else {
			fn(i, data, nil)
		}
	}
	next := 0 // first path not yet answered
	flushKnown := func() {
		for ; next < len(paths); next++ {
			switch {
			case errs[next] != nil:
				fn(next, nil, errs[next])
			case kept[next] != nil:
				answer(next, bytes.Clone(kept[next]))
			default:
				return
			}
		}
	}
	flushKnown()
	if len(oids) == 0 {
		return nil
	}
	p.blobs.countBatch()
	return p.readBlobs(ctx, dir, oids, sizes, func(k int, data []byte) {
		p.blobs.put(oids[k], bytes.Clone(data))
		i := next
		next++
		answer(i, data)
		flushKnown()
	})
}

// readBlobs reads the blobs oids (of the sizes listed) in order through a
// cat-file process of the provider's pool (readerpool.go), and calls fn
// with each blob's bytes. A kept process that died meanwhile is replaced
// once; any other failure fails the whole read.
func (p *Provider) readBlobs(ctx context.Context, dir string, oids []string, sizes []int64, fn func(k int, data []byte)) error {
	br, pooled, err := p.readers.get(dir)
	if err != nil {
		return err
	}
	defer func() {
		if br != nil {
			p.readers.put(dir, br)
		}
	}()
	for k, oid := range oids {
		var data []byte
		br, data, err = readKept(ctx, dir, br, pooled && k == 0, oid, sizes[k])
		if err != nil {
			return fmt.Errorf("read blobs: %w", err)
		}
		fn(k, data)
	}
	return nil
}

// entriesOf answers the tree entries of paths at commit (a full id): from
// the commit's listing when the provider holds it, else from `git ls-tree`
// (through the ls cache), lsTreeChunk paths a run. Directories and missing
// paths have no entry.
func (p *Provider) entriesOf(ctx context.Context, dir, commit string, paths []string) (map[string]treeEntry, error) {
	entries := make(map[string]treeEntry, len(paths))
	if l := p.listings.held(dir, commit); l != nil {
		for _, c := range paths {
			if e, ok := l.index[c]; ok {
				entries[c] = e
			}
		}
		return entries, nil
	}
	for start := 0; start < len(paths); start += lsTreeChunk {
		end := min(start+lsTreeChunk, len(paths))
		list, _, err := p.ls.lsTree(ctx, dir, commit, 0, paths[start:end]...)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			entries[e.Path] = e
		}
	}
	return entries, nil
}
