package learn_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/scope"
)

var repo = pipeline.Repo{Workspace: "w", RepoSlug: "r"}

// fixture: main at "base" with a rule file of one hand-written rule, and
// pull request 7 from feature ("head", a child of base) into main.
func fixture(rules string) (*pipelinetest.Fake, pipelinetest.Committer) {
	f := pipelinetest.New().AddCommit("head", "base").AddRef("main", "base").AddRef("feature", "head")
	base := map[string]string{"src/a.go": "package a // old\n"}
	if rules != "" {
		base[scope.RepoRulesPath] = rules
	}
	f.AddFiles("base", base).AddFiles("head", map[string]string{"src/a.go": "package a // new\n"}).
		SetDiff("*", "diff --git a/src/a.go b/src/a.go\nindex 1111111..2222222 100644\n--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-package a // old\n+package a // new\n").
		AddPullRequest(pipeline.PullRequestInfo{ID: 7, State: "OPEN", SourceCommit: "head", DestinationCommit: "base",
			PullRequest: pipeline.PullRequest{SourceBranch: "feature", DestinationBranch: "main"}})
	return f, pipelinetest.Committer{Fake: f}
}

const handRules = `{"exclude": ["docs/**"], "rules": [{"path": "src/api/**", "rule": "Handlers validate the body first."}]}`

func proposal(rule string) learn.Proposal {
	return learn.Proposal{Path: "src/**/*.go", Rule: rule, SourcePRID: 7, SourceCommentID: 91,
		SourceURL: "https://bitbucket.example/w/r/pull-requests/7#comment-91", Author: "Ada"}
}

func ports(f *pipelinetest.Fake, c pipelinetest.Committer, mode string) learn.Ports {
	return learn.Ports{Repo: f, PRs: f, Committer: c, Mode: mode, LinkHosts: []string{"bitbucket.example"}}
}

// rulesAt reads the rule file at a ref of the fake.
func rulesAt(t *testing.T, f *pipelinetest.Fake, ref string) scope.RuleFile {
	t.Helper()
	sha, err := f.ResolveCommit(context.Background(), repo, ref)
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.ReadFile(context.Background(), repo, sha, scope.RepoRulesPath, scope.MaxRulesBytes)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := scope.ParseRuleFile(data, "rules")
	if err != nil {
		t.Fatalf("the rule file at %s does not parse: %v\n%s", ref, err, data)
	}
	return *rf
}

// TestProposeOpensThenUpdates: the first proposal branches from the
// destination, adds the rule with its source and opens the review rules
// pull request; a second one commits onto the branch and updates the same
// pull request, whose description lists both with their links; the same
// rule again adds nothing.
func TestProposeOpensThenUpdates(t *testing.T) {
	f, c := fixture(handRules)
	ctx := context.Background()
	r1, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal("Wrap errors with %w."))
	if err != nil {
		t.Fatal(err)
	}
	if r1.Status != learn.StatusAdded || r1.PullRequest == nil || !r1.PullRequest.Created || r1.DestinationBranch != "main" {
		t.Fatalf("first proposal = %+v", r1)
	}
	rf := rulesAt(t, f, learn.Branch)
	if len(rf.Rules) != 2 || rf.Rules[0].Path != "src/api/**" || len(rf.Exclude) != 1 {
		t.Fatalf("branch rule file %+v: want the hand-written rule and exclude kept, the new rule added", rf)
	}
	if got := rf.Rules[1]; got.Rule != "Wrap errors with %w." || got.Source == nil || got.Source.PR != 7 || got.Source.Comment != 91 || got.Source.Author != "Ada" {
		t.Errorf("added rule %+v (source %+v)", got, got.Source)
	}
	if got := rulesAt(t, f, "main"); len(got.Rules) != 1 {
		t.Errorf("the destination changed before any merge: %+v", got)
	}

	r2, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal("Close response bodies."))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != learn.StatusAdded || r2.PullRequest.ID != r1.PullRequest.ID || r2.PullRequest.Created {
		t.Fatalf("second proposal = %+v, want the same pull request updated", r2)
	}
	if n := f.Calls(pipelinetest.OpCreatePR, learn.Branch); n != 1 {
		t.Errorf("%d pull requests created, want 1", n)
	}
	pr, err := f.PullRequest(ctx, repo, r1.PullRequest.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`src/**/*.go`: Wrap errors with %w.", "Close response bodies.", "[pull request #7](https://bitbucket.example/w/r/pull-requests/7#comment-91)", "proposed by Ada"} {
		if !strings.Contains(pr.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, pr.Description)
		}
	}
	if pr.SourceBranch != learn.Branch || pr.DestinationBranch != "main" {
		t.Errorf("pull request %s -> %s", pr.SourceBranch, pr.DestinationBranch)
	}

	// The same rule again (spaces aside): nothing committed.
	commits := f.Calls(pipelinetest.OpCommitFiles, learn.Branch)
	r3, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal("  Close   response bodies. "))
	if err != nil {
		t.Fatal(err)
	}
	if r3.Status != learn.StatusDuplicate || f.Calls(pipelinetest.OpCommitFiles, learn.Branch) != commits {
		t.Errorf("duplicate proposal = %s, commits %d -> %d", r3.Status, commits, f.Calls(pipelinetest.OpCommitFiles, learn.Branch))
	}
	if got := rulesAt(t, f, learn.Branch); len(got.Rules) != 3 {
		t.Errorf("branch rules %d, want 3", len(got.Rules))
	}
}

// TestMergedRuleReachesTheNextReview: merging the review rules pull
// request is the approval. The next review reads the rule from the
// destination branch, it appears in the review prompt as the file's rule
// (marked learned), and proposing it again says it is approved.
func TestMergedRuleReachesTheNextReview(t *testing.T) {
	f, c := fixture("")
	ctx := context.Background()
	review := func() collect.ContextResult {
		t.Helper()
		res, err := collect.Collect(ctx, collect.ContextSources{Repo: f, Diffs: f, PRs: f}, collect.ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const rule = "Every exported function documents its errors."
	prompt := func(res collect.ContextResult) string {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"context": res, "results": []any{}})
		var in merge.MergeInput
		if err := json.Unmarshal(body, &in); err != nil {
			t.Fatal(err)
		}
		out, err := merge.Merge(in, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		return out.ReviewPrompt.User
	}
	if strings.Contains(prompt(review()), rule) {
		t.Fatal("the rule is in the prompt before it was proposed")
	}
	res, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal(rule))
	if err != nil {
		t.Fatal(err)
	}
	if p := prompt(review()); strings.Contains(p, rule) {
		t.Fatal("a proposed rule reached a review before its pull request was merged")
	}
	if err := c.Merge(res.PullRequest.ID); err != nil {
		t.Fatal(err)
	}
	// The next review: pull request 7's destination is main's new head.
	head, _ := f.ResolveCommit(ctx, repo, "main")
	f.AddCommit("head", head).AddPullRequest(pipeline.PullRequestInfo{ID: 7, State: "OPEN", SourceCommit: "head", DestinationCommit: head,
		PullRequest: pipeline.PullRequest{SourceBranch: "feature", DestinationBranch: "main"}})
	next := review()
	if p := prompt(next); !strings.Contains(p, "Review rules (repository .prscout/rules.json@") || !strings.Contains(p, rule) {
		t.Errorf("the merged rule is not in the next review prompt:\n%s", p)
	}
	if next.Stats.LearnedRules != 1 {
		t.Errorf("stats.learnedRules = %d, want 1", next.Stats.LearnedRules)
	}
	again, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal(rule))
	if err != nil || again.Status != learn.StatusApproved {
		t.Errorf("proposing a merged rule again = %+v, %v: want approved", again, err)
	}
	// A later proposal opens a new pull request from the stale branch,
	// keeping its history (the branch head is a parent of the new commit).
	later, err := learn.Propose(ctx, ports(f, c, learn.ModeOn), repo, proposal("Log with the request id."))
	if err != nil || later.Status != learn.StatusAdded || !later.PullRequest.Created || later.PullRequest.ID == res.PullRequest.ID {
		t.Fatalf("proposal after the merge = %+v, %v: want a new pull request", later, err)
	}
	if got := rulesAt(t, f, learn.Branch); len(got.Rules) != 2 {
		t.Errorf("branch rules after the merge %+v, want the merged rule and the new one", got.Rules)
	}
	if len(later.Rules) != 1 || later.Rules[0].Rule != "Log with the request id." {
		t.Errorf("the new pull request lists %+v, want only the new rule", later.Rules)
	}
}

// TestDryRunChangesNothing: dry-run answers the entry and its Markdown and
// makes no call; off refuses; the local provider (no committer) refuses on.
func TestDryRunChangesNothing(t *testing.T) {
	f, c := fixture(handRules)
	res, err := learn.Propose(context.Background(), ports(f, c, learn.ModeDryRun), repo, proposal("Wrap errors."))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != learn.StatusDryRun || res.Rule.Rule != "Wrap errors." || res.Rule.Source.PR != 7 || !strings.Contains(res.Text, "`src/**/*.go`") || res.PullRequest != nil {
		t.Errorf("dry run = %+v", res)
	}
	if n := f.TotalCalls(); n != 0 {
		t.Errorf("a dry run made %d calls", n)
	}
	_, err = learn.Propose(context.Background(), ports(f, c, learn.ModeOff), repo, proposal("Wrap errors."))
	var re *learn.RefusedError
	if !errors.As(err, &re) || re.Code != "learnings_off" {
		t.Errorf("off: %v, want a RefusedError saying learnings are off", err)
	}
	_, err = learn.Propose(context.Background(), learn.Ports{Repo: f, PRs: f, Mode: learn.ModeOn}, repo, proposal("Wrap errors."))
	if !errors.As(err, &re) || re.Code != "unsupported_provider" || !strings.Contains(err.Error(), "cannot commit") {
		t.Errorf("no committer: %v, want a RefusedError saying the provider cannot commit", err)
	}
}

// TestProposalChecked: bad input names its field; nothing is called.
func TestProposalChecked(t *testing.T) {
	f, c := fixture(handRules)
	for _, tc := range []struct {
		field string
		edit  func(*learn.Proposal)
	}{
		{"path", func(p *learn.Proposal) { p.Path = " " }},
		{"path", func(p *learn.Proposal) { p.Path = "src/{a,b" }},
		{"rule", func(p *learn.Proposal) { p.Rule = "" }},
		{"rule", func(p *learn.Proposal) { p.Rule = strings.Repeat("x", learn.MaxRuleChars+1) }},
		{"sourcePrId", func(p *learn.Proposal) { p.SourcePRID = 0 }},
		{"sourceCommentId", func(p *learn.Proposal) { p.SourceCommentID = -1 }},
		{"destinationBranch", func(p *learn.Proposal) { p.DestinationBranch = "a b" }},
	} {
		p := proposal("Wrap errors.")
		tc.edit(&p)
		_, err := learn.Propose(context.Background(), ports(f, c, learn.ModeOn), repo, p)
		var inv *pipeline.InvalidError
		if !errors.As(err, &inv) || inv.Field != tc.field {
			t.Errorf("%+v: %v, want an InvalidError on %s", p, err, tc.field)
		}
	}
	if n := f.TotalCalls(); n != 0 {
		t.Errorf("refused proposals made %d calls", n)
	}
}

// TestBrokenRuleFileRefused: a rule file a human edit made invalid is not
// rewritten (that would lose what it says): a conflict naming the file.
func TestBrokenRuleFileRefused(t *testing.T) {
	f, c := fixture(`{"rules": [{"path": "src/**", "rule": "x",}]}`)
	_, err := learn.Propose(context.Background(), ports(f, c, learn.ModeOn), repo, proposal("Wrap errors."))
	var re *learn.RefusedError
	if !errors.As(err, &re) || re.Code != "invalid_rule_file" || !strings.Contains(err.Error(), scope.RepoRulesPath) {
		t.Errorf("broken rule file: %v, want a RefusedError naming it", err)
	}
	if n := f.Calls(pipelinetest.OpCommitFiles, learn.Branch); n != 0 {
		t.Errorf("%d commits onto a broken rule file", n)
	}
}

// TestProposeIgnoresStrangersRulesPullRequest: an open pull request from a
// fork's branch named like the rules branch, or by another account, is not
// the review rules pull request: the proposal opens prscout's own.
func TestProposeIgnoresStrangersRulesPullRequest(t *testing.T) {
	f, c := fixture(handRules)
	f.SetSelf("prscout-id").AddRef(learn.Branch, "head")
	f.AddPullRequest(pipeline.PullRequestInfo{ID: 3, State: "OPEN", SourceRepository: "mallory/r", AuthorAccount: pipeline.Account{AccountID: "prscout-id"},
		PullRequest: pipeline.PullRequest{SourceBranch: learn.Branch, DestinationBranch: "main", Description: "fork"}})
	f.AddPullRequest(pipeline.PullRequestInfo{ID: 4, State: "OPEN", AuthorAccount: pipeline.Account{AccountID: "eve"},
		PullRequest: pipeline.PullRequest{SourceBranch: learn.Branch, DestinationBranch: "main", Description: "eve's"}})
	r, err := learn.Propose(context.Background(), ports(f, c, learn.ModeOn), repo, proposal("Wrap errors with %w."))
	if err != nil {
		t.Fatal(err)
	}
	if r.PullRequest == nil || !r.PullRequest.Created || r.PullRequest.ID < 5 || f.Calls(pipelinetest.OpUpdatePR, "3")+f.Calls(pipelinetest.OpUpdatePR, "4") != 0 {
		t.Fatalf("proposal %+v: want prscout's own new pull request, strangers' untouched", r.PullRequest)
	}
}

// TestRuleTextInert: the rule's text answered to the caller (who may post
// it) is as inert as the pull request's description.
func TestRuleTextInert(t *testing.T) {
	f, c := fixture(handRules)
	r, err := learn.Propose(context.Background(), ports(f, c, learn.ModeDryRun), repo, proposal("ok ![x](https://evil.example/p.png) @everyone"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "![") || strings.Contains(r.Text, " @everyone") || !strings.Contains(r.Text, "`@everyone`") {
		t.Errorf("rule text %q", r.Text)
	}
}
