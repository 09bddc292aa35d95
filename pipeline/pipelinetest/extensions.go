package pipelinetest

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
)

// ThreadStore is a Fake whose comment threads resolve: a
// pipeline.ThreadResolver as well as a CommentStore.
type ThreadStore struct{ *Fake }

// ResolveThread implements pipeline.ThreadResolver for top-level comment id
// of any pull request. A thread already resolved answers an error wrapping
// ErrUpstream, as Bitbucket answers 409.
func (s ThreadStore) ResolveThread(ctx context.Context, _ pipeline.Repo, prID int, id int64) error {
	done, err := s.enter(ctx, OpResolveThread, strconv.FormatInt(id, 10))
	if err != nil {
		return err
	}
	defer done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments[prID] {
		c := &s.comments[prID][i]
		if c.ID != id || c.Deleted {
			continue
		}
		if c.Resolved {
			return fmt.Errorf("resolve %d: already resolved: %w", id, pipeline.ErrUpstream)
		}
		c.Resolved = true
		return nil
	}
	return fmt.Errorf("resolve %d: %w", id, pipeline.ErrNotFound)
}

// MergeBaseRepo is a Fake that finds merge bases: a pipeline.MergeBases as
// well as a PullRequests.
type MergeBaseRepo struct{ *Fake }

// MergeBase implements pipeline.MergeBases over the parents AddCommit gave:
// the nearest ancestor of a (breadth first) that is also an ancestor of b.
func (r MergeBaseRepo) MergeBase(ctx context.Context, _ pipeline.Repo, a, b string) (string, error) {
	done, err := r.enter(ctx, OpMergeBase, a+"|"+b)
	if err != nil {
		return "", err
	}
	defer done()
	r.mu.Lock()
	defer r.mu.Unlock()
	ofB := r.ancestorsLocked(b)
	seen := map[string]bool{}
	for queue := []string{a}; len(queue) > 0; queue = queue[1:] {
		c := queue[0]
		if seen[c] {
			continue
		}
		seen[c] = true
		if ofB[c] {
			return c, nil
		}
		queue = append(queue, r.commits[c]...)
	}
	return "", fmt.Errorf("merge base of %s and %s: %w", a, b, pipeline.ErrNotFound)
}

// FilesRepo is a Fake that reads many files in one call: a
// pipeline.FilesReader as well as a Repository.
type FilesRepo struct{ *Fake }

// ReadFiles implements pipeline.FilesReader: fn sees, per path, what
// ReadFile would answer.
func (r FilesRepo) ReadFiles(ctx context.Context, _ pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	done, err := r.enter(ctx, OpReadFiles, strings.Join(paths, ","))
	if err != nil {
		return err
	}
	defer done()
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.mu.Lock()
		data, err := r.readLocked(commit, p, maxBytes)
		r.mu.Unlock()
		fn(i, data, err)
	}
	return nil
}

// ListingDiffs is a Fake that names a diff's files before producing it: a
// pipeline.ChangeLister as well as a DiffSource.
type ListingDiffs struct{ *Fake }

// ChangedPaths implements pipeline.ChangeLister: the new paths of the files
// the diff SetDiff gave shows, deleted files left out.
func (d ListingDiffs) ChangedPaths(ctx context.Context, _ pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]string, error) {
	spec := diffSpec(base, head, opts)
	done, err := d.enter(ctx, OpChangedPaths, spec)
	if err != nil {
		return nil, err
	}
	defer done()
	raw, err := d.diff(spec)
	if err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(strings.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", spec, err)
	}
	var out []string
	for _, f := range files {
		if !f.IsDelete {
			out = append(out, f.NewName)
		}
	}
	return out, nil
}

var (
	_ pipeline.ThreadResolver = ThreadStore{}
	_ pipeline.MergeBases     = MergeBaseRepo{}
	_ pipeline.FilesReader    = FilesRepo{}
	_ pipeline.ChangeLister   = ListingDiffs{}
)
