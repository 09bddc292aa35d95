package bitbucket

import (
	"context"
	"fmt"

	"github.com/prscout/prscout/pipeline"
)

// PullRequest returns pull request metadata: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}.
// Commit ids are Bitbucket's 12-character abbreviations. An unknown id wraps
// pipeline.ErrNotFound.
func (c *Client) PullRequest(ctx context.Context, repo pipeline.Repo, id int) (pipeline.PullRequestInfo, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	if id <= 0 {
		return pipeline.PullRequestInfo{}, pipeline.Invalidf("prId", "must be a positive pull request id, got %d", id)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	pr, err := c.api.pullRequest(ctx, repo, id)
	if err != nil {
		return pipeline.PullRequestInfo{}, fmt.Errorf("get pull request %d: %w", id, err)
	}
	return prInfo(pr), nil
}

func prInfo(pr wirePR) pipeline.PullRequestInfo {
	desc := pr.Description
	if desc == "" {
		desc = pr.Summary.Raw
	}
	author := pr.Author.DisplayName
	if author == "" {
		author = pr.Author.Nickname
	}
	return pipeline.PullRequestInfo{
		ID: pr.ID,
		PullRequest: pipeline.PullRequest{
			Title:             pr.Title,
			Description:       desc,
			Author:            author,
			SourceBranch:      pr.Source.Branch.Name,
			DestinationBranch: pr.Destination.Branch.Name,
			URL:               pr.Links.HTML.Href,
		},
		State:             pr.State,
		SourceCommit:      pr.Source.Commit.Hash,
		DestinationCommit: pr.Destination.Commit.Hash,
		Draft:             pr.Draft,
		AuthorAccount: pipeline.Account{
			DisplayName: pr.Author.DisplayName, Nickname: pr.Author.Nickname,
			AccountID: pr.Author.AccountID, UUID: pr.Author.UUID,
		},
		SourceRepository: pr.Source.Repository.FullName,
	}
}

var _ pipeline.PullRequestCommits = (*Client)(nil)

// PullRequestCommitMessages returns the messages of at most limit of the
// pull request's commits, newest first as Bitbucket lists them, following
// `next` links only while more are wanted: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits?pagelen=min(limit,100).
// The list is empty when the source branch no longer exists; an unknown pull
// request wraps pipeline.ErrNotFound.
func (c *Client) PullRequestCommitMessages(ctx context.Context, repo pipeline.Repo, prID, limit int) ([]string, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var out []string
	err := walk(func(next string) (string, error) {
		p, err := c.api.prCommitsPage(ctx, repo, prID, min(limit, pageLen), next)
		for _, v := range p.Values {
			if len(out) < limit {
				out = append(out, v.Message)
			}
		}
		if len(out) >= limit {
			return "", err
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("list commits of pull request %d: %w", prID, err)
	}
	return out, nil
}
