package bitbucket

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/internal/bbql"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// This file is the write side prscout's review rules pull request needs
// (pipeline.BranchCommitter): a branch's head, a commit of files through the
// src endpoint, and pull requests from a branch. All are own requests: the
// SDK's WriteFileContent sends no `parents` and drops the context, and its
// pull request create/update send reviewers and an empty message.

var _ pipeline.BranchCommitter = (*Client)(nil)

// RulesOperations are the operation names of the write side, as the
// Observer sees them.
var RulesOperations = []string{"get_branch", "commit_src", "list_pullrequests", "create_pullrequest", "update_pullrequest"}

// branchAPI is the HTTP layer of BranchCommitter; httpAPI implements it.
type branchAPI interface {
	branch(ctx context.Context, repo pipeline.Repo, name string) (wireBranch, error)
	commitFiles(ctx context.Context, repo pipeline.Repo, c pipeline.FileCommit) error
	pullRequestsFrom(ctx context.Context, repo pipeline.Repo, branch string) (page[wirePR], error)
	createPullRequest(ctx context.Context, repo pipeline.Repo, pr pipeline.NewPullRequest) (wirePR, error)
	updatePullRequest(ctx context.Context, repo pipeline.Repo, id int, title, description string) (wirePR, error)
}

// wireBranch is a branch as GET .../refs/branches/{name} gives it.
type wireBranch struct {
	Name   string     `json:"name"`
	Target wireCommit `json:"target"`
}

// branchCall checks repo; it returns the write side and ctx bounded (cancel it).
func (c *Client) branchCall(ctx context.Context, repo pipeline.Repo) (branchAPI, context.Context, context.CancelFunc, error) {
	if err := checkRepo(repo); err != nil {
		return nil, ctx, nil, err
	}
	b, ok := c.api.(branchAPI)
	if !ok {
		return nil, ctx, nil, fmt.Errorf("bitbucket: this client cannot write branches or pull requests")
	}
	ctx, cancel := c.bound(ctx)
	return b, ctx, cancel, nil
}

// checkBranch refuses a branch name that could change a URL's or a query's
// meaning.
func checkBranch(field, name string) error {
	if name == "" || strings.Contains(name, "..") || strings.ContainsAny(name, " \t\r\n?#\\~^:\"*[") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return pipeline.Invalidf(field, "invalid branch name %q", name)
	}
	return nil
}

// BranchHead returns the full commit id branch points at: GET
// /repositories/{workspace}/{repo_slug}/refs/branches/{name}. An unknown
// branch wraps pipeline.ErrNotFound.
func (c *Client) BranchHead(ctx context.Context, repo pipeline.Repo, branch string) (string, error) {
	if err := checkBranch("branch", branch); err != nil {
		return "", err
	}
	api, ctx, cancel, err := c.branchCall(ctx, repo)
	if err != nil {
		return "", err
	}
	defer cancel()
	b, err := api.branch(ctx, repo, branch)
	if err != nil {
		return "", fmt.Errorf("branch %s: %w", branch, err)
	}
	if b.Target.Hash == "" {
		return "", fmt.Errorf("branch %s: no target commit in the answer: %w", branch, pipeline.ErrUpstream)
	}
	return b.Target.Hash, nil
}

// CommitFiles commits c.Files onto c.Branch in one commit: POST
// /repositories/{workspace}/{repo_slug}/src, a form with one field per
// file (its path, its content), message, branch and its one parent.
// Bitbucket creates the branch at the parent when it does not exist, and
// refuses (409) a parent other than the tip of an existing branch.
func (c *Client) CommitFiles(ctx context.Context, repo pipeline.Repo, fc pipeline.FileCommit) error {
	if err := checkBranch("branch", fc.Branch); err != nil {
		return err
	}
	if len(fc.Files) == 0 {
		return pipeline.Invalidf("files", "nothing to commit")
	}
	if fc.Parent != "" {
		if err := checkRev("parent", fc.Parent); err != nil {
			return err
		}
	}
	for p := range fc.Files {
		if clean := cleanPath(p); clean == "" || strings.Contains("/"+clean+"/", "/../") {
			return pipeline.Invalidf("files", "invalid path %q", p)
		}
	}
	api, ctx, cancel, err := c.branchCall(ctx, repo)
	if err != nil {
		return err
	}
	defer cancel()
	if err := api.commitFiles(ctx, repo, fc); err != nil {
		return fmt.Errorf("commit onto %s: %w", fc.Branch, err)
	}
	return nil
}

// OpenPullRequestFrom returns the open pull request prscout opened from
// branch: GET /repositories/{workspace}/{repo_slug}/pullrequests?q=source.branch.name="..." AND state="OPEN",
// keeping only those whose source repository is repo itself (a fork's
// branch may have any name) and whose author is prscout's own account.
// When several remain, the lowest id (the oldest) is taken. Without a known
// own account no pull request can be told to be prscout's: that is an
// error, not "none" (which would open a second one).
func (c *Client) OpenPullRequestFrom(ctx context.Context, repo pipeline.Repo, branch string) (pipeline.PullRequestInfo, bool, error) {
	if err := checkBranch("branch", branch); err != nil {
		return pipeline.PullRequestInfo{}, false, err
	}
	api, ctx, cancel, err := c.branchCall(ctx, repo)
	if err != nil {
		return pipeline.PullRequestInfo{}, false, err
	}
	defer cancel()
	self := c.selfIDs(ctx)
	if self == nil {
		return pipeline.PullRequestInfo{}, false, fmt.Errorf("prscout's own account is unknown (set PRSCOUT_BITBUCKET_ACCOUNT_ID), so its pull request from %s cannot be told from anyone else's: %w", branch, pipeline.ErrUpstream)
	}
	p, err := api.pullRequestsFrom(ctx, repo, branch)
	if err != nil {
		return pipeline.PullRequestInfo{}, false, fmt.Errorf("list pull requests from %s: %w", branch, err)
	}
	var oldest *wirePR
	for i, pr := range p.Values {
		if pr.Source.Branch.Name == branch && strings.EqualFold(pr.State, "OPEN") && (oldest == nil || pr.ID < oldest.ID) &&
			strings.EqualFold(pr.Source.Repository.FullName, repo.Workspace+"/"+repo.RepoSlug) && isSelf(self, pr.Author) {
			oldest = &p.Values[i]
		}
	}
	if oldest == nil {
		return pipeline.PullRequestInfo{}, false, nil
	}
	return prInfo(*oldest), true, nil
}

// CreatePullRequest opens a pull request: POST
// /repositories/{workspace}/{repo_slug}/pullrequests with title,
// description, source and destination branches (the source branch is kept
// after the merge: close_source_branch false).
func (c *Client) CreatePullRequest(ctx context.Context, repo pipeline.Repo, pr pipeline.NewPullRequest) (pipeline.PullRequestInfo, error) {
	if err := cmp.Or(checkBranch("sourceBranch", pr.SourceBranch), checkBranch("destinationBranch", pr.DestinationBranch)); err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	api, ctx, cancel, err := c.branchCall(ctx, repo)
	if err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	defer cancel()
	w, err := api.createPullRequest(ctx, repo, pr)
	if err != nil {
		return pipeline.PullRequestInfo{}, fmt.Errorf("create pull request from %s: %w", pr.SourceBranch, err)
	}
	return prInfo(w), nil
}

// UpdatePullRequest sets a pull request's title and description: PUT
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}.
func (c *Client) UpdatePullRequest(ctx context.Context, repo pipeline.Repo, id int, title, description string) (pipeline.PullRequestInfo, error) {
	if id <= 0 {
		return pipeline.PullRequestInfo{}, pipeline.Invalidf("prId", "must be a positive pull request id, got %d", id)
	}
	api, ctx, cancel, err := c.branchCall(ctx, repo)
	if err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	defer cancel()
	w, err := api.updatePullRequest(ctx, repo, id, title, description)
	if err != nil {
		return pipeline.PullRequestInfo{}, fmt.Errorf("update pull request %d: %w", id, err)
	}
	return prInfo(w), nil
}

// branch calls GET /repositories/{workspace}/{repo_slug}/refs/branches/{name}.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-refs/#api-repositories-workspace-repo-slug-refs-branches-name-get
func (a *httpAPI) branch(ctx context.Context, repo pipeline.Repo, name string) (wireBranch, error) {
	var b wireBranch
	err := a.getJSON(ctx, "get_branch", a.repoURL(repo, "refs", "branches", escapePath(name)), &b)
	return b, err
}

// commitFiles calls POST /repositories/{workspace}/{repo_slug}/src with an
// application/x-www-form-urlencoded body: each file as a field named by its
// path, and message, branch and parents (one commit: the API description
// deprecates several, "only a single SHA1 is accepted"). 201 on success.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-source/#api-repositories-workspace-repo-slug-src-post
func (a *httpAPI) commitFiles(ctx context.Context, repo pipeline.Repo, c pipeline.FileCommit) error {
	const op = "commit_src"
	form := url.Values{}
	for p, data := range c.Files {
		form.Set("/"+cleanPath(p), string(data))
	}
	if c.Message != "" {
		form.Set("message", c.Message)
	}
	form.Set("branch", c.Branch)
	if c.Parent != "" {
		form.Set("parents", c.Parent)
	}
	req, err := http.NewRequestWithContext(withOp(ctx, op), http.MethodPost, a.repoURL(repo, "src"), strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("bitbucket %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("bitbucket %s: %w: %w", op, pipeline.ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return &UnexpectedResponseError{Op: op, Status: resp.StatusCode, Body: string(b), RetryAfter: retry.After(resp.Header, time.Now())}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return nil
}

// pullRequestsFrom calls GET /repositories/{workspace}/{repo_slug}/pullrequests
// with q=source.branch.name="<branch>" AND state="OPEN" (one page of 50:
// there is at most a handful).
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-get
func (a *httpAPI) pullRequestsFrom(ctx context.Context, repo pipeline.Repo, branch string) (page[wirePR], error) {
	var p page[wirePR]
	q := url.Values{}
	q.Set("q", bbql.All(bbql.Any("source.branch.name", "=", branch), `state = "OPEN"`))
	q.Set("pagelen", "50")
	err := a.getJSON(ctx, "list_pullrequests", a.repoURL(repo, "pullrequests")+"?"+q.Encode(), &p)
	return p, err
}

// createPullRequest calls POST /repositories/{workspace}/{repo_slug}/pullrequests (201).
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-post
func (a *httpAPI) createPullRequest(ctx context.Context, repo pipeline.Repo, pr pipeline.NewPullRequest) (wirePR, error) {
	const op = "create_pullrequest"
	type branchRef struct {
		Branch struct {
			Name string `json:"name"`
		} `json:"branch"`
	}
	var src, dst branchRef
	src.Branch.Name, dst.Branch.Name = pr.SourceBranch, pr.DestinationBranch
	body := map[string]any{
		"type": "pullrequest", "title": pr.Title, "description": pr.Description,
		"source": src, "destination": dst, "close_source_branch": false,
	}
	return a.prWrite(ctx, op, http.MethodPost, a.repoURL(repo, "pullrequests"), body)
}

// updatePullRequest calls PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}
// with title and description. Both writes name the object's type, which
// the API description's base object requires.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-put
func (a *httpAPI) updatePullRequest(ctx context.Context, repo pipeline.Repo, id int, title, description string) (wirePR, error) {
	return a.prWrite(ctx, "update_pullrequest", http.MethodPut, a.repoURL(repo, "pullrequests", strconv.Itoa(id)),
		map[string]any{"type": "pullrequest", "title": title, "description": description})
}

func (a *httpAPI) prWrite(ctx context.Context, op, method, u string, body any) (wirePR, error) {
	var pr wirePR
	err := a.doJSON(ctx, op, method, u, body, &pr)
	return pr, err
}
