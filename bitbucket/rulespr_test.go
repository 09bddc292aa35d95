package bitbucket

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/scope"
)

// TestRulesPullRequestOnBitbucket runs the review rules pull request
// against the fake: the first proposal commits .prscout/rules.json onto a
// new branch through POST /src (form fields path=content, message, branch,
// parents) and opens the pull request; the second commits onto the branch
// and updates it; merging it puts the rule on main.
func TestRulesPullRequestOnBitbucket(t *testing.T) {
	s := newFake(t)
	s.SetFile("acme", "uploader", baseFull, scope.RepoRulesPath, []byte(`{"rules":[{"path":"src/api/**","rule":"Handlers validate the body first."}]}`))
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	ports := learn.Ports{Repo: c, PRs: c, Committer: c, Mode: learn.ModeOn, LinkHosts: []string{"bitbucket.org"}}
	p := learn.Proposal{Path: "**/*.go", Rule: "Wrap errors with %w.", SourcePRID: 42, SourceCommentID: 7,
		SourceURL: "https://bitbucket.org/acme/uploader/pull-requests/42#comment-7", Author: "Mina Park"}

	r1, err := learn.Propose(ctx, ports, acme, p)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Status != learn.StatusAdded || r1.PullRequest == nil || !r1.PullRequest.Created || r1.DestinationBranch != "main" {
		t.Fatalf("first proposal %+v", r1)
	}
	var commit bitbuckettest.Request
	for _, rq := range s.Requests() {
		if rq.Op == bitbuckettest.OpCommitSrc {
			commit = rq
		}
	}
	form, err := url.ParseQuery(string(commit.Body))
	if err != nil || form.Get("branch") != learn.Branch || form.Get("parents") != baseFull || !strings.Contains(form.Get("message"), "pull request #42") {
		t.Errorf("src commit form %v (%v)", form, err)
	}
	if body := form.Get("/" + scope.RepoRulesPath); !strings.Contains(body, `"Wrap errors with %w."`) || !strings.Contains(body, `"Handlers validate the body first."`) {
		t.Errorf("committed rule file:\n%s", body)
	}

	p.Rule = "Close response bodies."
	r2, err := learn.Propose(ctx, ports, acme, p)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != learn.StatusAdded || r2.PullRequest.ID != r1.PullRequest.ID || r2.PullRequest.Created {
		t.Fatalf("second proposal %+v: want the same pull request updated", r2)
	}
	prs := s.PullRequests("acme", "uploader")
	pr := prs[r1.PullRequest.ID]
	if pr.SourceBranch != learn.Branch || pr.DestinationBranch != "main" || pr.State != "OPEN" ||
		!strings.Contains(pr.Description, "Close response bodies.") || !strings.Contains(pr.Description, "[pull request #42](https://bitbucket.org/acme/uploader/pull-requests/42#comment-7)") {
		t.Errorf("rules pull request %+v", pr)
	}
	if n := s.Calls(bitbuckettest.OpCreatePullRequest); n != 1 {
		t.Errorf("%d pull requests created, want 1", n)
	}
	if n := s.Calls(bitbuckettest.OpUpdatePullRequest); n != 1 {
		t.Errorf("%d pull request updates, want 1", n)
	}

	if !s.MergePullRequest("acme", "uploader", r1.PullRequest.ID) {
		t.Fatal("merge")
	}
	data, ok := s.FileAt("acme", "uploader", "main", scope.RepoRulesPath)
	rf, err := scope.ParseRuleFile(data, "rules")
	if !ok || err != nil || len(rf.Rules) != 3 || rf.Rules[2].Source == nil || rf.Rules[2].Source.Comment != 7 {
		t.Errorf("main's rule file after the merge (%v): %s", err, data)
	}
	again, err := learn.Propose(ctx, ports, acme, p)
	if err != nil || again.Status != learn.StatusApproved {
		t.Errorf("after the merge: %+v, %v: want approved", again, err)
	}

	// A new rule after the merge: the branch still exists at its old tip,
	// so the commit's one parent is that tip, the file is main's with the
	// new rule, and a new pull request opens.
	tip, _ := s.BranchHead("acme", "uploader", learn.Branch)
	p.Rule = "Log the request id."
	r3, err := learn.Propose(ctx, ports, acme, p)
	if err != nil {
		t.Fatalf("the proposal after a merge: %v", err)
	}
	if r3.Status != learn.StatusAdded || r3.PullRequest == nil || !r3.PullRequest.Created || r3.PullRequest.ID == r1.PullRequest.ID {
		t.Fatalf("the proposal after a merge: %+v, want a new pull request", r3)
	}
	reqs := s.Requests()
	last := reqs[len(reqs)-1]
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Op == bitbuckettest.OpCommitSrc {
			last = reqs[i]
			break
		}
	}
	form, _ = url.ParseQuery(string(last.Body))
	if form.Get("parents") != tip {
		t.Errorf("parents %q, want the branch tip %s alone", form.Get("parents"), tip)
	}
	data, _ = s.FileAt("acme", "uploader", learn.Branch, scope.RepoRulesPath)
	if rf, err := scope.ParseRuleFile(data, "rules"); err != nil || len(rf.Rules) != 4 || rf.Rules[3].Rule != "Log the request id." {
		t.Errorf("branch rule file after the second proposal (%v): %s", err, data)
	}
	if !s.MergePullRequest("acme", "uploader", r3.PullRequest.ID) {
		t.Fatal("second merge")
	}
	data, _ = s.FileAt("acme", "uploader", "main", scope.RepoRulesPath)
	if rf, err := scope.ParseRuleFile(data, "rules"); err != nil || len(rf.Rules) != 4 {
		t.Errorf("main's rule file after the second merge (%v): %s", err, data)
	}
}

// TestFakeRefusesSeveralParents: like Bitbucket, the fake takes one parent
// for POST /src, and for an existing branch only its tip (409 otherwise).
func TestFakeRefusesSeveralParents(t *testing.T) {
	s := newFake(t)
	post := func(form url.Values) int {
		t.Helper()
		resp, err := http.Post(s.BaseURL+"/repositories/acme/uploader/src", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(url.Values{"branch": {"main"}, "parents": {baseFull + "," + rootFull}, "/a.txt": {"a"}}); code != http.StatusBadRequest {
		t.Errorf("two parents: %d, want 400", code)
	}
	if code := post(url.Values{"branch": {"main"}, "parents": {rootFull}, "/a.txt": {"a"}}); code != http.StatusConflict {
		t.Errorf("a parent that is not main's tip: %d, want 409", code)
	}
	if code := post(url.Values{"branch": {"main"}, "parents": {baseFull}, "/a.txt": {"a"}}); code != http.StatusCreated {
		t.Errorf("the tip as parent: %d, want 201", code)
	}
}

// TestBranchCommitterErrors: an unknown branch is ErrNotFound; a commit
// onto a branch that moved is refused; bad names never reach a URL.
func TestBranchCommitterErrors(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	if _, err := c.BranchHead(ctx, acme, "nope"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown branch: %v", err)
	}
	if head, err := c.BranchHead(ctx, acme, "main"); err != nil || head != baseFull {
		t.Errorf("main = %q, %v", head, err)
	}
	err := c.CommitFiles(ctx, acme, pipeline.FileCommit{Branch: "main", Parent: rootFull, Message: "m", Files: map[string][]byte{"a.txt": []byte("a")}})
	if statusOf(err) != 409 {
		t.Errorf("commit onto a moved branch: %v, want 409", err)
	}
	before := len(s.Requests())
	var inv *pipeline.InvalidError
	if _, err := c.BranchHead(ctx, acme, "a b"); !errors.As(err, &inv) {
		t.Errorf("bad branch name: %v", err)
	}
	if err := c.CommitFiles(ctx, acme, pipeline.FileCommit{Branch: "x", Parent: baseFull, Files: map[string][]byte{"../etc": nil}}); !errors.As(err, &inv) {
		t.Errorf("bad path: %v", err)
	}
	if len(s.Requests()) != before {
		t.Errorf("refused calls reached Bitbucket")
	}
	if _, ok, err := c.OpenPullRequestFrom(ctx, acme, learn.Branch); ok || err != nil {
		t.Errorf("no rules pull request yet: ok %v, %v", ok, err)
	}
}

// TestRulesPullRequestNeverAStrangers: open pull requests from a branch
// named like the review rules branch, one from a fork and one by another
// account of the repository itself, are never taken for prscout's: the
// proposal opens its own pull request and leaves theirs untouched.
func TestRulesPullRequestNeverAStrangers(t *testing.T) {
	s := newFake(t)
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{ID: 2, Title: "fork", Description: "mine", Author: "Mallory",
		SourceBranch: learn.Branch, DestinationBranch: "main", SourceCommit: headFull, DestinationCommit: baseFull, SourceRepo: "mallory/uploader"})
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{ID: 3, Title: "same repo", Description: "mine too", Author: "Eve",
		SourceBranch: learn.Branch, DestinationBranch: "main", SourceCommit: headFull, DestinationCommit: baseFull})
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	if pr, ok, err := c.OpenPullRequestFrom(ctx, acme, learn.Branch); ok || err != nil {
		t.Fatalf("a stranger's pull request was taken for prscout's: %+v, %v", pr, err)
	}
	ports := learn.Ports{Repo: c, PRs: c, Committer: c, Mode: learn.ModeOn, LinkHosts: []string{"bitbucket.org"}}
	r, err := learn.Propose(ctx, ports, acme, learn.Proposal{Path: "src/**", Rule: "Wrap errors.", SourcePRID: 42})
	if err != nil {
		t.Fatal(err)
	}
	if r.PullRequest == nil || !r.PullRequest.Created || r.PullRequest.ID == 2 || r.PullRequest.ID == 3 {
		t.Fatalf("proposal %+v: want a new pull request of prscout's own", r.PullRequest)
	}
	prs := s.PullRequests("acme", "uploader")
	if prs[2].Description != "mine" || prs[3].Description != "mine too" || s.Calls(bitbuckettest.OpUpdatePullRequest) != 0 {
		t.Errorf("a stranger's pull request was rewritten: %+v %+v", prs[2], prs[3])
	}
	if pr, ok, err := c.OpenPullRequestFrom(ctx, acme, learn.Branch); !ok || err != nil || pr.ID != r.PullRequest.ID {
		t.Errorf("prscout's own pull request %d not found again: %+v, %v, %v", r.PullRequest.ID, pr, ok, err)
	}
}
