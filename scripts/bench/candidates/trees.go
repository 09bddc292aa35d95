package main

import (
	"context"
	"fmt"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
)

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
		return productionTree(ctx, localgit.New(repo), pipeline.Repo{Workspace: "bench", RepoSlug: "repo"}), "", nil
	case "mirror":
		return mirrorTree(ctx, repo)
	}
	return nil, "", fmt.Errorf("-tree must be worktree, localgit or mirror, got %q", kind)
}

// productionTree opens prscout's CodeTree at HEAD for every run, as
// /v1/context does once per request.
func productionTree(ctx context.Context, cs pipeline.CodeSearch, r pipeline.Repo) treeRun {
	return func(find func(candidates.Tree) ([]candidates.Candidate, error)) ([]candidates.Candidate, error) {
		tree, err := cs.OpenTree(ctx, r, "HEAD")
		if err != nil {
			return nil, err
		}
		defer tree.Close()
		return find(tree)
	}
}

func mirrorTree(ctx context.Context, repo string) (treeRun, string, error) {
	return nil, "", fmt.Errorf("mirror: not built yet")
}
