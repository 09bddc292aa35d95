package pipelinetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Operations of Committer, as Calls, Hook and Fail name them.
const (
	OpBranchHead  = "branch_head"  // BranchHead; arg: the branch
	OpCommitFiles = "commit_files" // CommitFiles; arg: the branch
	OpOpenPRFrom  = "open_pr_from" // OpenPullRequestFrom; arg: the branch
	OpCreatePR    = "create_pr"    // CreatePullRequest; arg: the source branch
	OpUpdatePR    = "update_pr"    // UpdatePullRequest; arg: the id
)

// Committer adds pipeline.BranchCommitter to a Fake: branches are its refs
// (AddRef), a commit of files is a new commit whose files are its first
// parent's with the new ones laid over, and pull requests are the Fake's
// (AddPullRequest). Like Bitbucket, a commit onto an existing branch must
// name the branch's head among its parents.
type Committer struct{ *Fake }

// BranchHead implements pipeline.BranchCommitter.
func (c Committer) BranchHead(ctx context.Context, _ pipeline.Repo, branch string) (string, error) {
	done, err := c.enter(ctx, OpBranchHead, branch)
	if err != nil {
		return "", err
	}
	defer done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.refs[branch]; ok {
		return id, nil
	}
	return "", fmt.Errorf("branch %q: %w", branch, pipeline.ErrNotFound)
}

// CommitFiles implements pipeline.BranchCommitter.
func (c Committer) CommitFiles(ctx context.Context, _ pipeline.Repo, fc pipeline.FileCommit) error {
	done, err := c.enter(ctx, OpCommitFiles, fc.Branch)
	if err != nil {
		return err
	}
	defer done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if fc.Parent == "" {
		return pipeline.Invalidf("parent", "required")
	}
	if _, ok := c.commits[fc.Parent]; !ok {
		return fmt.Errorf("parent %q: %w", fc.Parent, pipeline.ErrNotFound)
	}
	if head, ok := c.refs[fc.Branch]; ok && head != fc.Parent {
		return fmt.Errorf("branch %s is at %s, not at the parent %s: the commit would drop its history", fc.Branch, head, fc.Parent)
	}
	c.nextID++
	id := fmt.Sprintf("%040x", c.nextID)
	c.commits[id] = []string{fc.Parent}
	c.messages[id] = fc.Message
	files := maps.Clone(c.files[fc.Parent])
	if files == nil {
		files = map[string]string{}
	}
	for p, data := range fc.Files {
		files[strings.Trim(p, "/")] = string(data)
	}
	c.files[id] = files
	c.refs[fc.Branch] = id
	return nil
}

// OpenPullRequestFrom implements pipeline.BranchCommitter: the lowest-id
// OPEN pull request whose source is branch of repo itself (SourceRepository
// empty or repo's full name) and whose author is the Fake's own account
// (SetSelf's first id; without SetSelf, SetAccount's name).
func (c Committer) OpenPullRequestFrom(ctx context.Context, repo pipeline.Repo, branch string) (pipeline.PullRequestInfo, bool, error) {
	done, err := c.enter(ctx, OpOpenPRFrom, branch)
	if err != nil {
		return pipeline.PullRequestInfo{}, false, err
	}
	defer done()
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := slices.Sorted(maps.Keys(c.prs))
	for _, id := range ids {
		if pr := c.prs[id]; pr.SourceBranch == branch && (pr.State == "" || pr.State == "OPEN") && c.ownPR(repo, pr) {
			return pr, true, nil
		}
	}
	return pipeline.PullRequestInfo{}, false, nil
}

// ownPR reports whether pr is from repo itself and by the Fake's account
// (the caller holds c.mu).
func (c Committer) ownPR(repo pipeline.Repo, pr pipeline.PullRequestInfo) bool {
	if pr.SourceRepository != "" && !strings.EqualFold(pr.SourceRepository, repo.Workspace+"/"+repo.RepoSlug) {
		return false
	}
	if len(c.selfIDs) > 0 {
		return slices.Contains(c.selfIDs, pr.AuthorAccount.AccountID)
	}
	return pr.Author == c.account && pr.AuthorAccount.AccountID == ""
}

// CreatePullRequest implements pipeline.BranchCommitter: the next free id,
// OPEN, at the branches' heads.
func (c Committer) CreatePullRequest(ctx context.Context, _ pipeline.Repo, pr pipeline.NewPullRequest) (pipeline.PullRequestInfo, error) {
	done, err := c.enter(ctx, OpCreatePR, pr.SourceBranch)
	if err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	defer done()
	c.mu.Lock()
	defer c.mu.Unlock()
	src, ok := c.refs[pr.SourceBranch]
	if !ok {
		return pipeline.PullRequestInfo{}, fmt.Errorf("source branch %q: %w", pr.SourceBranch, pipeline.ErrNotFound)
	}
	id := 1
	for k := range c.prs {
		id = max(id, k+1)
	}
	var acct pipeline.Account
	if len(c.selfIDs) > 0 {
		acct.AccountID = c.selfIDs[0]
	}
	info := pipeline.PullRequestInfo{
		ID: id, State: "OPEN", SourceCommit: src, DestinationCommit: c.refs[pr.DestinationBranch], AuthorAccount: acct,
		PullRequest: pipeline.PullRequest{
			Title: pr.Title, Description: pr.Description, Author: c.account,
			SourceBranch: pr.SourceBranch, DestinationBranch: pr.DestinationBranch,
			URL: "https://example.invalid/pull-requests/" + strconv.Itoa(id),
		},
	}
	c.prs[id] = info
	return info, nil
}

// UpdatePullRequest implements pipeline.BranchCommitter.
func (c Committer) UpdatePullRequest(ctx context.Context, _ pipeline.Repo, id int, title, description string) (pipeline.PullRequestInfo, error) {
	done, err := c.enter(ctx, OpUpdatePR, strconv.Itoa(id))
	if err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	defer done()
	c.mu.Lock()
	defer c.mu.Unlock()
	pr, ok := c.prs[id]
	if !ok {
		return pipeline.PullRequestInfo{}, fmt.Errorf("pull request %d: %w", id, pipeline.ErrNotFound)
	}
	pr.Title, pr.Description = title, description
	if head, ok := c.refs[pr.SourceBranch]; ok {
		pr.SourceCommit = head
	}
	c.prs[id] = pr
	return pr, nil
}

// Merge merges pull request id in the Fake: its destination branch moves to
// a new commit holding the source's files, and its state becomes MERGED.
func (c Committer) Merge(id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pr, ok := c.prs[id]
	if !ok {
		return fmt.Errorf("pull request %d: %w", id, pipeline.ErrNotFound)
	}
	src, dst := c.refs[pr.SourceBranch], c.refs[pr.DestinationBranch]
	c.nextID++
	merged := fmt.Sprintf("%040x", c.nextID)
	c.commits[merged] = []string{dst, src}
	c.files[merged] = maps.Clone(c.files[src])
	c.refs[pr.DestinationBranch] = merged
	pr.State = "MERGED"
	c.prs[id] = pr
	return nil
}
