package gitmirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prscout/prscout/pipeline"
	"golang.org/x/sync/errgroup"
)

// Remote is the REST adapter the mirror stands in front of (the Bitbucket
// client).
type Remote interface {
	pipeline.Repository
	pipeline.PullRequests
}

// Local reads git repositories on disk under the mirror's directory (the
// local git provider rooted at Config.Dir: Dir/<workspace>/<repoSlug>).
type Local interface {
	pipeline.Repository
	pipeline.CodeSearch
	pipeline.FilesReader
}

// Provider is the Bitbucket provider with a mirror: it implements
// pipeline.Repository, pipeline.PullRequests, pipeline.CodeSearch and
// pipeline.FilesReader. Reads are served from the mirror when it has the
// commit (waiting up to Config.ReadWait for a fetch in flight), otherwise by
// the REST adapter; code search only from the mirror, fetching what it
// lacks; reading a pull request starts a fetch of its head and destination.
// Every method checks the workspace and repository slug before anything
// else (checkRepo): a path is never built from a name that could leave the
// mirror's directory, and such a request never reaches REST either.
type Provider struct {
	m      *Mirror
	remote Remote
	local  Local
}

var (
	_ pipeline.Repository   = (*Provider)(nil)
	_ pipeline.PullRequests = (*Provider)(nil)
	_ pipeline.CodeSearch   = (*Provider)(nil)
	_ pipeline.FilesReader  = (*Provider)(nil)
)

// NewProvider puts the mirror m, read through local, in front of remote.
func NewProvider(m *Mirror, remote Remote, local Local) *Provider {
	return &Provider{m: m, remote: remote, local: local}
}

// Mirror returns the provider's mirror.
func (p *Provider) Mirror() *Mirror { return p.m }

// PullRequest reads the pull request from REST and starts fetching its
// source and destination (branches and commits, and the merge base's
// blobs) into the mirror, so that the rest of the review finds them there.
func (p *Provider) PullRequest(ctx context.Context, repo pipeline.Repo, id int) (pipeline.PullRequestInfo, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	pr, err := p.remote.PullRequest(ctx, repo, id)
	if err != nil {
		return pr, err
	}
	p.m.Prefetch(repo, Want{
		Branches:      []string{pr.SourceBranch, pr.DestinationBranch},
		Commits:       []string{pr.SourceCommit, pr.DestinationCommit},
		WithMergeBase: true,
	})
	return pr, nil
}

// IsAncestor answers from the mirror (`git merge-base`) when it has both
// commits, otherwise from REST.
func (p *Provider) IsAncestor(ctx context.Context, repo pipeline.Repo, ancestor, head string) (bool, error) {
	if err := checkRepo(repo); err != nil {
		return false, err
	}
	if p.m.exists(repo) && isHex(ancestor) && isHex(head) {
		p.waitFetch(ctx, repo)
		a, errA := p.m.resolveIn(ctx, repo, ancestor)
		h, errH := p.m.resolveIn(ctx, repo, head)
		if errA == nil && errH == nil {
			if mb, err := p.local.MergeBase(ctx, repo, a, h); err == nil {
				p.m.obs.MirrorRead(true)
				return mb == a, nil
			}
		}
	}
	p.m.obs.MirrorRead(false)
	return p.remote.IsAncestor(ctx, repo, ancestor, head)
}

// ResolveCommit resolves a commit id (full or abbreviated) in the mirror
// when it has it, after waiting for a fetch in flight; anything else
// (branch names, which the mirror may hold stale, and commits it lacks) is
// resolved by REST.
func (p *Provider) ResolveCommit(ctx context.Context, repo pipeline.Repo, rev string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	if p.m.exists(repo) && isHex(rev) && len(rev) >= 7 {
		p.waitFetch(ctx, repo)
		if sha, err := p.m.resolveIn(ctx, repo, rev); err == nil {
			p.m.obs.MirrorRead(true)
			return sha, nil
		}
	}
	p.m.obs.MirrorRead(false)
	return p.remote.ResolveCommit(ctx, repo, rev)
}

// waitFetch waits up to ReadWait for the fetches in flight into repo's
// existing mirror.
func (p *Provider) waitFetch(ctx context.Context, repo pipeline.Repo) {
	st := p.m.state(repo)
	ctx, cancel := context.WithTimeout(ctx, p.m.cfg.ReadWait)
	defer cancel()
	for {
		st.mu.Lock()
		pending, ch := st.pending, st.changed
		st.mu.Unlock()
		if pending == 0 {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// resolveIn resolves an abbreviated or full commit id in repo's mirror.
func (m *Mirror) resolveIn(ctx context.Context, repo pipeline.Repo, rev string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	if sha, ok := m.resolve(ctx, m.Path(repo), rev); ok {
		return sha, nil
	}
	return "", fmt.Errorf("commit %s: %w", rev, pipeline.ErrNotFound)
}

// final reports whether err is the mirror's answer about the path itself
// (missing, binary, too large, a directory, a bad request), which REST would
// give too; any other error (a git failure) falls back to REST.
func final(err error) bool {
	var inv *pipeline.InvalidError
	return errors.As(err, &inv) || errors.Is(err, pipeline.ErrNotFound) || errors.Is(err, pipeline.ErrBinary) ||
		errors.Is(err, pipeline.ErrTooLarge) || errors.Is(err, pipeline.ErrIsDir) || errors.Is(err, pipeline.ErrNotDir)
}

// lfsPointer marks a Git LFS pointer file: its content is not in the
// repository, so it is refused like a binary file (as the REST adapter does).
var lfsPointer = []byte("version https://git-lfs.github.com/spec/")

func checkLFS(path string, data []byte) ([]byte, error) {
	if len(data) < 1024 && bytes.HasPrefix(data, lfsPointer) {
		return nil, fmt.Errorf("read %s: LFS file: %w", path, pipeline.ErrBinary)
	}
	return data, nil
}

// ReadFile reads from the mirror when it has the commit, else from REST.
func (p *Provider) ReadFile(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if p.m.Has(ctx, repo, commit, p.readWait(repo)) {
		data, err := p.local.ReadFile(ctx, repo, commit, path, maxBytes)
		if (err == nil || final(err)) && !p.m.leftOut(ctx, repo, commit, path, data, err) {
			p.m.obs.MirrorRead(true)
			if err != nil {
				return nil, err
			}
			return checkLFS(path, data)
		}
	}
	p.m.obs.MirrorRead(false)
	return p.remote.ReadFile(ctx, repo, commit, path, maxBytes)
}

// readWait is how long a read waits for a fetch: never during a first clone.
func (p *Provider) readWait(repo pipeline.Repo) time.Duration {
	if !p.m.exists(repo) {
		return 0
	}
	return p.m.cfg.ReadWait
}

// ListDir lists from the mirror when it has the commit, else from REST.
func (p *Provider) ListDir(ctx context.Context, repo pipeline.Repo, commit, path string, limit int) ([]pipeline.DirEntry, bool, error) {
	if err := checkRepo(repo); err != nil {
		return nil, false, err
	}
	if p.m.Has(ctx, repo, commit, p.readWait(repo)) {
		entries, more, err := p.local.ListDir(ctx, repo, commit, path, limit)
		if err == nil || final(err) {
			p.m.obs.MirrorRead(true)
			return entries, more, err
		}
	}
	p.m.obs.MirrorRead(false)
	return p.remote.ListDir(ctx, repo, commit, path, limit)
}

// restParallel is how many REST reads ReadFiles runs at once without a
// mirror (the context stage's own figure).
const restParallel = 8

// ReadFiles reads many files: in one pass over the mirror when it has the
// commit, else through REST, restParallel at a time, answering in order.
func (p *Provider) ReadFiles(ctx context.Context, repo pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	if p.m.Has(ctx, repo, commit, p.readWait(repo)) {
		results := make([]struct {
			data []byte
			err  error
		}, len(paths))
		err := p.local.ReadFiles(ctx, repo, commit, paths, maxBytes, func(i int, data []byte, err error) {
			if i >= 0 && i < len(paths) {
				results[i].data, results[i].err = data, err
			}
		})
		if err == nil {
			for i := range paths {
				data, err := results[i].data, results[i].err
				if err == nil {
					data, err = checkLFS(paths[i], data)
				}
				if (err != nil && !final(err)) || p.m.leftOut(ctx, repo, commit, paths[i], data, err) {
					p.m.obs.MirrorRead(false)
					data, err = p.remote.ReadFile(ctx, repo, commit, paths[i], maxBytes)
				} else {
					p.m.obs.MirrorRead(true)
				}
				fn(i, data, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
	}
	results := make([]struct {
		data []byte
		err  error
	}, len(paths))
	// Each read keeps its own error (one failed read never fails the
	// others), so the goroutines return nil.
	var g errgroup.Group
	g.SetLimit(restParallel)
	for i, path := range paths {
		g.Go(func() error {
			p.m.obs.MirrorRead(false)
			results[i].data, results[i].err = p.remote.ReadFile(ctx, repo, commit, path, maxBytes)
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := range paths {
		fn(i, results[i].data, results[i].err)
	}
	return nil
}

// OpenTree opens the mirror's tree at commit, fetching the commit when the
// mirror lacks it and waiting for that as long as ctx allows.
func (p *Provider) OpenTree(ctx context.Context, repo pipeline.Repo, commit string) (pipeline.CodeTree, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if err := p.m.Ensure(ctx, repo, commit); err != nil {
		return nil, err
	}
	return p.local.OpenTree(ctx, repo, commit)
}

// MergeBase computes the merge base in the mirror, once it has both commits
// (fetching the ones it lacks).
func (p *Provider) MergeBase(ctx context.Context, repo pipeline.Repo, a, b string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	for _, c := range []string{a, b} {
		if _, err := p.m.resolveIn(ctx, repo, c); err == nil {
			continue
		}
		if err := p.m.Ensure(ctx, repo, c); err != nil {
			return "", err
		}
	}
	return p.local.MergeBase(ctx, repo, a, b)
}

// Off is the warning's reason when Bitbucket runs without a mirror.
const Off = "the Bitbucket mirror is off (PRSCOUT_MIRROR_DIR is not set), so prscout cannot search the repository's code"

var _ pipeline.PullRequestCommits = (*Provider)(nil)

// PullRequestCommitMessages reads the pull request's commit messages through
// the REST adapter (pipeline.PullRequestCommits): the pull request's own
// commits are the provider's to list, not the mirror's.
func (p *Provider) PullRequestCommitMessages(ctx context.Context, repo pipeline.Repo, prID, limit int) ([]string, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	pc, ok := p.remote.(pipeline.PullRequestCommits)
	if !ok {
		return nil, errors.New("the Bitbucket provider cannot list a pull request's commits")
	}
	return pc.PullRequestCommitMessages(ctx, repo, prID, limit)
}
