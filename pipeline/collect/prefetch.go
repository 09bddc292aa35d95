package collect

import (
	"context"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// prefetch reads changed sources in the background while the diff runs:
// the new sides at head and, when asked and the diff source names them, the
// old sides the candidates compare at the commit the diff starts from.
type prefetch struct {
	repo  pipeline.Repository
	fr    pipeline.FilesReader
	head  *prefetchSide
	old   *prefetchSide // nil: none read ahead
	ended chan struct{} // closed when every read ahead has ended
}

// prefetchSide is the read-ahead of one commit.
type prefetchSide struct {
	commit   string
	maxBytes int64 // the per-file limit of the read
	done     chan struct{}

	mu    sync.Mutex
	cache map[string]fileReadResult
}

// fileReadResult is one file read ahead: its bytes or the error ReadFile
// would give.
type fileReadResult struct {
	Data []byte
	Err  error
}

// startPrefetch starts reading the sources of the change's files at head
// when the diff source can list them and the repository reads in batches;
// it returns nil otherwise. With old set and a diff source that is a
// SideLister, the old sides are read next, at the commit the diff starts
// from, up to candidateSourceMax each (as the candidates read them). Secret
// and noise paths are never read ahead. Each side keeps at most
// DefaultMaxTotalSourceBytes; files past that are read later as usual. Any
// failure only means no read-ahead.
func startPrefetch(ctx context.Context, repo pipeline.Repository, diffs pipeline.DiffSource, r pipeline.Repo, base, head string, opts pipeline.DiffOptions, old bool) *prefetch {
	cl, ok := diffs.(pipeline.ChangeLister)
	if !ok {
		return nil
	}
	fr, ok := repo.(pipeline.FilesReader)
	if !ok {
		return nil
	}
	var sides pipeline.ChangedSides
	var err error
	if sl, ok := diffs.(pipeline.SideLister); ok && old {
		sides, err = sl.ChangedSides(ctx, r, base, head, opts)
	} else {
		sides.New, err = cl.ChangedPaths(ctx, r, base, head, opts)
	}
	if err != nil || len(sides.New)+len(sides.Old) == 0 {
		return nil
	}
	pf := &prefetch{repo: repo, fr: fr, ended: make(chan struct{})}
	pf.head = newPrefetchSide(head, defaultMaxSourceBytes)
	heads := readable(sides.New)
	var olds []string
	if sides.From != "" && sides.From != head {
		olds = readable(sides.Old)
	}
	if len(olds) > 0 {
		pf.old = newPrefetchSide(sides.From, candidateSourceMax)
	}
	go func() {
		defer close(pf.ended)
		pf.head.read(ctx, fr, r, heads)
		if pf.old != nil {
			pf.old.read(ctx, fr, r, olds)
		}
	}()
	return pf
}

// readable leaves out the paths never read ahead.
func readable(paths []string) []string {
	keep := paths[:0:0]
	for _, p := range paths {
		if !scope.IsSecretPath(p) && !scope.IsDefaultPath(p) {
			keep = append(keep, p)
		}
	}
	return keep
}

func newPrefetchSide(commit string, maxBytes int64) *prefetchSide {
	return &prefetchSide{commit: commit, maxBytes: maxBytes, done: make(chan struct{}), cache: map[string]fileReadResult{}}
}

// read reads paths into the side and marks it done.
func (s *prefetchSide) read(ctx context.Context, fr pipeline.FilesReader, r pipeline.Repo, paths []string) {
	defer close(s.done)
	if len(paths) == 0 {
		return
	}
	var kept int64
	_ = fr.ReadFiles(ctx, r, s.commit, paths, s.maxBytes, func(i int, data []byte, err error) {
		if i < 0 || i >= len(paths) || kept+int64(len(data)) > defaultMaxTotalSourceBytes {
			return
		}
		kept += int64(len(data))
		s.mu.Lock()
		s.cache[paths[i]] = fileReadResult{Data: data, Err: err}
		s.mu.Unlock()
	})
}

// wait blocks until the read-ahead of the new sides ends and returns a
// Repository that serves the read-ahead before asking the real one (the old
// sides as soon as their read ends).
func (pf *prefetch) wait() pipeline.Repository {
	<-pf.head.done
	return prefetchRepo{Repository: pf.repo, pf: pf}
}

// stop waits for every read ahead to end (the caller cancels their context
// first when it no longer needs them).
func (pf *prefetch) stop() { <-pf.ended }

// side returns the read-ahead of commit, once its read has ended; nil when
// there is none or ctx ends first.
func (pf *prefetch) side(ctx context.Context, commit string) *prefetchSide {
	var s *prefetchSide
	switch {
	case commit == pf.head.commit:
		s = pf.head
	case pf.old != nil && commit == pf.old.commit:
		s = pf.old
	default:
		return nil
	}
	select {
	case <-s.done:
		return s
	case <-ctx.Done():
		return nil
	}
}

// take removes and returns a read-ahead file.
func (s *prefetchSide) take(p string) (fileReadResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, ok := s.cache[p]
	if ok {
		delete(s.cache, p)
	}
	return res, ok
}

// prefetchRepo serves read-ahead files first, then the real repository. A
// read-ahead used its side's per-file limit, so a smaller maxBytes is
// applied again here, and a larger one reads again.
type prefetchRepo struct {
	pipeline.Repository
	pf *prefetch
}

func (p prefetchRepo) hit(s *prefetchSide, path string, maxBytes int64) (fileReadResult, bool) {
	if s == nil {
		return fileReadResult{}, false
	}
	res, ok := s.take(path)
	if !ok || maxBytes > s.maxBytes {
		return fileReadResult{}, false
	}
	if res.Err == nil && maxBytes > 0 && int64(len(res.Data)) > maxBytes {
		return fileReadResult{}, false
	}
	return res, true
}

// ReadFile serves a read-ahead file or asks the real repository.
func (p prefetchRepo) ReadFile(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	if res, ok := p.hit(p.pf.side(ctx, commit), path, maxBytes); ok {
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
	s := p.pf.side(ctx, commit)
	for i, path := range paths {
		if res, ok := p.hit(s, path, maxBytes); ok {
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
