package localgit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// lsTreeChunk is how many paths one `git ls-tree` call takes, which keeps the
// command line far below the system's argument limit.
const lsTreeChunk = 400

// ReadFiles reads many files at commit with a fixed number of git processes
// (one `git ls-tree` per 400 paths and a single `git cat-file --batch`)
// instead of two per file, and calls fn once per path in the order of paths
// with the bytes or the error ReadFile would give. Blobs stream through one
// at a time, so memory holds only what fn keeps. The error return is for
// failures of the whole call (bad repository, unknown commit, cancelled
// context).
func (p *Provider) ReadFiles(ctx context.Context, repo pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	dir, err := p.repoDir(repo)
	if err != nil {
		return err
	}
	sha, err := commitID(ctx, dir, commit)
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
	entries := make(map[string]treeEntry, len(valid))
	for start := 0; start < len(valid); start += lsTreeChunk {
		end := min(start+lsTreeChunk, len(valid))
		list, _, err := p.ls.lsTree(ctx, dir, sha, 0, valid[start:end]...)
		if err != nil {
			return err
		}
		for _, e := range list {
			entries[e.Path] = e
		}
	}
	var oids []string // blobs to read, in path order
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
		oids = append(oids, e.OID)
	}
	next := 0 // first path not yet answered
	flushErrors := func() {
		for next < len(paths) && errs[next] != nil {
			fn(next, nil, errs[next])
			next++
		}
	}
	flushErrors()
	if len(oids) == 0 {
		return nil
	}
	return catFileBatch(ctx, dir, oids, func(_ int, data []byte) {
		i := next
		next++
		if pipeline.LooksBinary(data) {
			fn(i, nil, fmt.Errorf("%s: %w", clean[i], pipeline.ErrBinary))
		} else {
			fn(i, data, nil)
		}
		flushErrors()
	})
}

// catFileBatch streams the blobs oids through one `git cat-file --batch`
// process and calls fn with each blob's bytes, in order.
func catFileBatch(ctx context.Context, dir string, oids []string, fn func(k int, data []byte)) (err error) {
	cmd := gitCmd(ctx, dir, "cat-file", "--batch")
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	defer func() {
		if err != nil {
			_ = cmd.Process.Kill()
		}
		werr := cmd.Wait()
		if err == nil && werr != nil {
			err = fmt.Errorf("read blobs: %w: %s", werr, pipeline.FirstLine(stderr.String()))
		}
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("read blobs: %w", ctx.Err())
		}
	}()
	go func() {
		w := bufio.NewWriter(stdin)
		for _, oid := range oids {
			if _, err := w.WriteString(oid + "\n"); err != nil {
				break
			}
		}
		_ = w.Flush()
		_ = stdin.Close()
	}()
	r := bufio.NewReaderSize(stdout, 256<<10)
	for k, oid := range oids {
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read blob %s header: %w", oid, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("read blob %s: unexpected answer %q", oid, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 {
			return fmt.Errorf("read blob %s: bad size %q", oid, f[2])
		}
		data := make([]byte, size+1) // content and its trailing newline
		if _, err := io.ReadFull(r, data); err != nil {
			return fmt.Errorf("read blob %s: %w", oid, err)
		}
		fn(k, data[:size:size])
	}
	return nil
}
