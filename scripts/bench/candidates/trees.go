package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/gitmirror"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
)

// cleanups remove what openTree set up; speed runs them when it is done.
var cleanups []func()

// treeRun runs one Find over a tree opened for it (and closed after).
type treeRun func(find func(candidates.Tree) ([]candidates.Candidate, error)) ([]candidates.Candidate, error)

// openTree returns how each timed run gets its Tree, and a line saying what
// was set up once before the runs.
func openTree(ctx context.Context, kind, repo string) (treeRun, string, error) {
	switch kind {
	case "worktree":
		return func(find func(candidates.Tree) ([]candidates.Candidate, error)) ([]candidates.Candidate, error) {
			return find(gitTree{repo})
		}, "", nil
	case "localgit":
		return productionTree(ctx, localgit.New(repo), pipeline.Repo{Workspace: "bench", RepoSlug: "repo"}, "HEAD"), "", nil
	case "mirror":
		return mirrorTree(ctx, repo)
	}
	return nil, "", fmt.Errorf("-tree must be worktree, localgit or mirror, got %q", kind)
}

// productionTree opens prscout's CodeTree at HEAD for every run, as
// /v1/context does once per request.
func productionTree(ctx context.Context, cs pipeline.CodeSearch, r pipeline.Repo, commit string) treeRun {
	return func(find func(candidates.Tree) ([]candidates.Candidate, error)) ([]candidates.Candidate, error) {
		tree, err := cs.OpenTree(ctx, r, commit)
		if err != nil {
			return nil, err
		}
		defer tree.Close()
		return find(tree)
	}
}

// mirrorTree serves repo's git directory from the fake Bitbucket over smart
// HTTP (git http-backend, token required), makes a gitmirror of it (the
// first fetch: a blob-less clone plus the blobs of HEAD's tree), and opens
// prscout's production CodeTree through the mirror provider for each run.
func mirrorTree(ctx context.Context, repo string) (treeRun, string, error) {
	const token = "bench-token"
	fake := bitbuckettest.NewServer() // lives as long as the process
	fake.RequireBearer(token)
	if err := fake.ServeGit("bench", "repo", filepath.Join(repo, ".git")); err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "prscout-bench-mirror-")
	if err != nil {
		return nil, "", err
	}
	cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
	m, err := gitmirror.New(gitmirror.Config{Dir: dir, BaseURL: fake.URL, User: gitmirror.AccessTokenUser, Token: token})
	if err != nil {
		return nil, "", err
	}
	head, err := git(repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, "", err
	}
	head = strings.TrimSpace(head)
	branch, _ := git(repo, "rev-parse", "--abbrev-ref", "HEAD")
	r := pipeline.Repo{Workspace: "bench", RepoSlug: "repo"}
	want := gitmirror.Want{Branches: []string{strings.TrimSpace(branch)}, Commits: []string{head}}
	start := time.Now()
	if err := m.Fetch(ctx, r, want); err != nil {
		return nil, "", fmt.Errorf("first mirror fetch: %w", err)
	}
	first := time.Since(start)
	size, err := dirSize(m.Path(r))
	if err != nil {
		return nil, "", err
	}
	calls := len(fake.Requests())
	start = time.Now()
	if err := m.Fetch(ctx, r, want); err != nil {
		return nil, "", fmt.Errorf("second mirror fetch: %w", err)
	}
	again := time.Since(start)
	commits, _ := git(repo, "rev-list", "--count", "HEAD")
	setup := fmt.Sprintf("mirror: first fetch (blob-less bare clone of %s commits + the blobs of HEAD's tree, over smart HTTP on loopback) %.1f s, %.1f MiB on disk; fetching the same head again: %.0f ms, %d git requests",
		strings.TrimSpace(commits), first.Seconds(), float64(size)/(1<<20), ms(again), len(fake.Requests())-calls)
	p := gitmirror.NewProvider(m, nil, localgit.New(dir))
	return productionTree(ctx, p, r, head), setup, nil
}

// dirSize is the disk space of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}
