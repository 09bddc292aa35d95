// Package readahead reads a change's sources in the background while its
// diff is made, and serves them to the first reads that ask for them.
package readahead

import (
	"context"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// Files reads a change's sources in the background while the diff runs.
type Files struct {
	repo   pipeline.Repository
	fr     pipeline.FilesReader
	commit string
	done   chan struct{}

	maxFile int64 // the per-file limit of the reads ahead

	mu    sync.Mutex
	cache map[string]fileReadResult
}

// fileReadResult is one file read ahead: its bytes or the error ReadFile
// would give.
type fileReadResult struct {
	Data []byte
	Err  error
}

// Start starts reading the sources of the change's files at head when the
// diff source can list them and the repository reads in batches; it returns
// nil otherwise. Secret and noise paths are never read ahead. Each file is
// read within maxFile bytes, and the read-ahead keeps at most maxTotal;
// files past that are read later as usual. Any failure only means no
// read-ahead.
func Start(ctx context.Context, repo pipeline.Repository, diffs pipeline.DiffSource, r pipeline.Repo, base, head string, opts pipeline.DiffOptions, maxFile, maxTotal int64) *Files {
	cl, ok := diffs.(pipeline.ChangeLister)
	if !ok {
		return nil
	}
	fr, ok := repo.(pipeline.FilesReader)
	if !ok {
		return nil
	}
	paths, err := cl.ChangedPaths(ctx, r, base, head, opts)
	if err != nil || len(paths) == 0 {
		return nil
	}
	keep := paths[:0:0]
	for _, p := range paths {
		if !scope.IsSecretPath(p) && !scope.IsDefaultPath(p) {
			keep = append(keep, p)
		}
	}
	pf := &Files{repo: repo, fr: fr, commit: head, maxFile: maxFile, done: make(chan struct{}), cache: make(map[string]fileReadResult, len(keep))}
	go func() {
		defer close(pf.done)
		var kept int64
		_ = fr.ReadFiles(ctx, r, head, keep, maxFile, func(i int, data []byte, err error) {
			if i < 0 || i >= len(keep) || kept+int64(len(data)) > maxTotal {
				return
			}
			kept += int64(len(data))
			pf.mu.Lock()
			pf.cache[keep[i]] = fileReadResult{Data: data, Err: err}
			pf.mu.Unlock()
		})
	}()
	return pf
}

// Wait blocks until the read-ahead ends and returns a Repository that serves
// it before asking the real one.
func (pf *Files) Wait() pipeline.Repository {
	<-pf.done
	return prefetchRepo{Repository: pf.repo, pf: pf}
}

// take removes and returns a read-ahead file of commit.
func (pf *Files) take(commit, p string) (fileReadResult, bool) {
	if commit != pf.commit {
		return fileReadResult{}, false
	}
	pf.mu.Lock()
	defer pf.mu.Unlock()
	res, ok := pf.cache[p]
	if ok {
		delete(pf.cache, p)
	}
	return res, ok
}

// prefetchRepo serves read-ahead files first, then the real repository. A
// read-ahead used its per-file limit, so a smaller maxBytes is
// applied again here.
type prefetchRepo struct {
	pipeline.Repository
	pf *Files
}

func (p prefetchRepo) hit(commit, path string, maxBytes int64) (fileReadResult, bool) {
	res, ok := p.pf.take(commit, path)
	if !ok || maxBytes > p.pf.maxFile {
		return fileReadResult{}, false
	}
	if res.Err == nil && maxBytes > 0 && int64(len(res.Data)) > maxBytes {
		return fileReadResult{}, false
	}
	return res, true
}

// ReadFile serves a read-ahead file or asks the real repository.
func (p prefetchRepo) ReadFile(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	if res, ok := p.hit(commit, path, maxBytes); ok {
		return res.Data, res.Err
	}
	return p.Repository.ReadFile(ctx, repo, commit, path, maxBytes)
}

// ReadFiles serves read-ahead files and reads the others in one batch, then
// answers in the order of paths.
func (p prefetchRepo) ReadFiles(ctx context.Context, repo pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	got := make([]fileReadResult, len(paths))
	var missIdx []int
	var missPaths []string
	for i, path := range paths {
		if res, ok := p.hit(commit, path, maxBytes); ok {
			got[i] = res
			continue
		}
		missIdx = append(missIdx, i)
		missPaths = append(missPaths, path)
	}
	if len(missPaths) > 0 {
		err := p.pf.fr.ReadFiles(ctx, repo, commit, missPaths, maxBytes, func(k int, data []byte, err error) {
			if k >= 0 && k < len(missIdx) {
				got[missIdx[k]] = fileReadResult{Data: data, Err: err}
			}
		})
		if err != nil {
			return err
		}
	}
	for i := range paths {
		fn(i, got[i].Data, got[i].Err)
		got[i] = fileReadResult{}
	}
	return nil
}
