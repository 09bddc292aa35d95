package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/scope"
)

// TestBitbucketInstructionFiles: instruction files on the destination
// branch reach the review prompt and the summary's coverage line through the
// real binary, and their upstream calls are what docs/bitbucket-jira.md
// says: one root listing replaces the rule file's 404, each root file
// present costs 2, a nested one under an existing directory 1 (absent) or
// 2 (present); with the setting off the rule file is read directly.
func TestBitbucketInstructionFiles(t *testing.T) {
	run := func(t *testing.T, files map[string]string, env ...string) reviewRun {
		t.Helper()
		f := newBBFixture(t)
		for p, c := range files {
			f.fake.SetFile(bbWorkspace, bbSlug, f.base, p, []byte(c))
		}
		f.pr(7, "Reject empty tokens", f.h1, f.base)
		s := startBB(t, f.fake, env...)
		return s.review(t, f.fake, 7, bbScout, reviewOf("Empty tokens are refused.", findingLookup))
	}
	plain := run(t, nil)
	with := run(t, map[string]string{
		"AGENTS.md":                       "Every handler returns 401 for a bad token.\n",
		".github/copilot-instructions.md": "Prefer table tests.\n",
		".rovodev/notes.txt":              "not an instruction file\n",
	})
	off := run(t, nil, "PRSCOUT_INSTRUCTION_FILES=off")
	t.Logf("upstream calls per full review: no instruction files %s", fmtCalls(plain.calls))
	t.Logf("upstream calls per full review: AGENTS.md, .github/copilot-instructions.md, .rovodev/ without its file %s", fmtCalls(with.calls))
	t.Logf("upstream calls per full review: PRSCOUT_INSTRUCTION_FILES=off %s", fmtCalls(off.calls))

	if got := fmt.Sprint(with.ctx["instructions"]); !strings.Contains(got, "AGENTS.md") || !strings.Contains(got, "copilot-instructions.md") {
		t.Errorf("context instructions = %s", got)
	}
	prompt := fmt.Sprint(obj(with.merged["reviewPrompt"])["user"])
	if !strings.Contains(prompt, "# Repository guidance (2 instruction files)") || !strings.Contains(prompt, "Every handler returns 401 for a bad token.") {
		t.Errorf("review prompt lacks the guidance:\n%s", prompt)
	}
	if md := fmt.Sprint(with.comments["markdown"]); !strings.Contains(md, "instructions: `AGENTS.md`, `.github/copilot-instructions.md`") {
		t.Errorf("summary lacks the instruction files in its coverage line:\n%s", md)
	}
	if _, ok := plain.ctx["instructions"]; ok {
		t.Errorf("no instruction files, yet the context has %v", plain.ctx["instructions"])
	}
	// AGENTS.md: meta + content; copilot-instructions.md: meta + content;
	// .rovodev/.review-agent.md: one 404 (its directory exists).
	if d := with.total() - plain.total(); d != 5 {
		t.Errorf("instruction files cost %d calls, want 5 (%v vs %v)", d, with.calls, plain.calls)
	}
	if plain.total() != off.total() || plain.calls[bitbuckettest.OpListDir] != off.calls[bitbuckettest.OpListDir]+1 {
		t.Errorf("no instruction files: %v; setting off: %v: want the same total, one listing for one rule file read", plain.calls, off.calls)
	}
}

// TestBitbucketLearnedRule: a rule proposed through POST /v1/rules/propose
// (PRSCOUT_LEARNINGS=on) opens the review rules pull request on the fake;
// once it is merged, the next review of a pull request into main shows the
// rule, and its source, in the review prompt.
func TestBitbucketLearnedRule(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake, "PRSCOUT_LEARNINGS=on")
	const rule = "Handlers never call lookup before Validate."
	code, out := s.post(t, "/v1/rules/propose", map[string]any{
		"workspace": bbWorkspace, "repoSlug": bbSlug, "path": "pkg/api/**", "rule": rule,
		"sourcePrId": 7, "sourceCommentId": 1001, "sourceUrl": "https://bitbucket.example/" + bbWorkspace + "/" + bbSlug + "/pull-requests/7#comment-1001", "author": "Mina Park",
	})
	mustOK(t, "/v1/rules/propose", code, out)
	pr := obj(out["pullRequest"])
	if out["status"] != learn.StatusAdded || pr["created"] != true {
		t.Fatalf("propose = %v", out)
	}
	id := int(pr["id"].(float64))
	if got := f.fake.PullRequests(bbWorkspace, bbSlug)[id]; got.SourceBranch != learn.Branch || got.DestinationBranch != "main" || !strings.Contains(got.Description, rule) {
		t.Errorf("rules pull request %+v", got)
	}
	if !f.fake.MergePullRequest(bbWorkspace, bbSlug, id) {
		t.Fatal("merge")
	}
	data, _ := f.fake.FileAt(bbWorkspace, bbSlug, "main", scope.RepoRulesPath)
	head := gitHeadOf(t, f.fake)
	f.pr(8, "Reject empty tokens again", f.h1, head)
	f.fake.SetDiff(bbWorkspace, bbSlug, head, f.h1, mustDiff(t, f, f.base, f.h1))
	r := s.review(t, f.fake, 8, bbScout, reviewOf("ok", findingLookup))
	prompt := fmt.Sprint(obj(r.merged["reviewPrompt"])["user"])
	if !strings.Contains(prompt, rule) || !strings.Contains(prompt, "Review rules (repository .prscout/rules.json@") {
		t.Errorf("the merged rule (%s) is not in the next review prompt:\n%s", data, prompt)
	}
	if n := s.metricValue(t, `prscout_learned_rules_applied_total`); n < 1 {
		t.Errorf("prscout_learned_rules_applied_total = %v, want at least 1", n)
	}
	if n := s.metricValue(t, `prscout_rules_proposed_total{status="added"}`); n != 1 {
		t.Errorf(`prscout_rules_proposed_total{status="added"} = %v, want 1`, n)
	}
}

// gitHeadOf is main's head on the fake.
func gitHeadOf(t *testing.T, fake *bitbuckettest.Server) string {
	t.Helper()
	sha, ok := fake.BranchHead(bbWorkspace, bbSlug, "main")
	if !ok {
		t.Fatal("main has no head")
	}
	return sha
}

// metricValue is the value of one series of /metrics (0 when absent).
func (s *server) metricValue(t *testing.T, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(s.metricsText(t), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

// mustDiff is git's diff base..head of the fixture, as the fake serves it.
func mustDiff(t *testing.T, f *bbFixture, base, head string) string {
	t.Helper()
	return string(gitRaw(t, f.dir, "diff", "-M", "-U30", base, head))
}
