package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/jira/jiratest"
)

// The Jira issue of TestJiraAcceptanceCriteria: three criteria in a
// description section (wiki markup), no acceptance criteria field.
const shop12Description = `h2. Context
Sessions are checked by token.

h2. Acceptance criteria
* Empty tokens are refused with 401
* Short tokens never crash the handler
* Every refusal is logged for audit

h2. Notes
* see the auth runbook`

// criteriaReview meets the first criterion, fails the second and leaves the
// third unclear, in the shape the review prompt asks for (evidence as
// objects and as a "path:line" string).
const criteriaReview = "```json\n" + `{"summary":"Empty tokens are refused; short ones still panic.","findings":[` + findingLookup + `],
"requirements":[
 {"id":"SHOP-12#1","verdict":"met","evidence":[{"path":"pkg/api/handler.go","line":6}],"note":"The empty check runs before Validate."},
 {"id":"SHOP-12#2","verdict":"not_met","evidence":["pkg/api/new.go:3"],"note":"lookup slices tok[:4] without a length check."},
 {"id":"SHOP-12#3","verdict":"unclear","evidence":[],"note":"No logging is visible in the change."}]}` + "\n```"

// TestJiraAcceptanceCriteria is issue 17's end-to-end test on the fake
// Bitbucket and the fake Jira: the PR links SHOP-12 by its branch and its
// commit message (and SHOP-15 by a commit message only; OPS keys are outside
// PRSCOUT_JIRA_PROJECTS), /v1/context answers SHOP-12's three criteria, the
// prompts list them, and the scripted review's verdicts (one met, one not
// met, one unclear) become the summary's table with links into the diff and
// the counts on the coverage line.
func TestJiraAcceptanceCriteria(t *testing.T) {
	f := newBBFixture(t)
	f.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
		ID: 7, Title: "Reject empty tokens", Description: "Handle now refuses empty tokens. Follows OPS-3.", Author: "Mina Park",
		SourceBranch: "feature/SHOP-12-empty-tokens", DestinationBranch: "main", SourceCommit: f.h1, DestinationCommit: f.base,
	})
	f.fake.SetCommitMessage(bbWorkspace, bbSlug, f.h1, "Fixes SHOP-12\n\nRefs SHOP-15, OPS-4")
	jiraFake := jiratest.NewServer()
	t.Cleanup(jiraFake.Close)
	jiraFake.RequireBearer("jira-pat")
	jiraFake.AddIssue(jiratest.Issue{Key: "SHOP-12", Summary: "Refuse empty session tokens", Status: "In Progress", Description: shop12Description})
	jiraFake.AddIssue(jiratest.Issue{Key: "OPS-3", Summary: "never linked", Description: "h2. Acceptance criteria\n* must not appear"})

	s := startBB(t, f.fake, "PRSCOUT_JIRA_BASE_URL="+jiraFake.URL, "PRSCOUT_JIRA_PAT=jira-pat", "PRSCOUT_JIRA_PROJECTS=shop")
	r := s.review(t, f.fake, 7, bbScout, criteriaReview)

	// /v1/context: linked issues and their criteria.
	asked := jiraFake.Asked()
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"SHOP-12", "SHOP-15"}) {
		t.Errorf("Jira was asked for %v, want SHOP-12 (branch, commit) and SHOP-15 (commit only), no OPS issue", asked)
	}
	if n := r.calls[bitbuckettest.OpPRCommits]; n != 1 {
		t.Errorf("pull request commits read %d times, want once", n)
	}
	if w := fmt.Sprint(r.ctx["warnings"]); !strings.Contains(w, "jira SHOP-15: not found") {
		t.Errorf("context warnings = %v, want SHOP-15 not found", w)
	}
	wantCriteria := []string{
		"SHOP-12#1|SHOP-12|Empty tokens are refused with 401",
		"SHOP-12#2|SHOP-12|Short tokens never crash the handler",
		"SHOP-12#3|SHOP-12|Every refusal is logged for audit",
	}
	var got []string
	for _, c := range list(r.ctx["requirements"]) {
		m := obj(c)
		got = append(got, fmt.Sprintf("%v|%v|%v", m["id"], m["issue"], m["text"]))
	}
	if !slices.Equal(got, wantCriteria) {
		t.Errorf("context requirements = %q, want %q", got, wantCriteria)
	}
	scout := fmt.Sprint(obj(r.ctx["scoutPrompt"])["user"])
	if !strings.Contains(scout, "# Acceptance criteria\n") || !strings.Contains(scout, "- SHOP-12#2: Short tokens never crash the handler") {
		t.Errorf("the scout prompt does not list the criteria:\n%s", scout)
	}

	// /v1/merge: the review prompt asks for a verdict per criterion.
	prompt := fmt.Sprint(obj(r.merged["reviewPrompt"])["user"])
	for _, want := range []string{"# Acceptance criteria to judge (3)", "- SHOP-12#3: Every refusal is logged for audit", `"verdict":"met|not_met|unclear"`} {
		if !strings.Contains(prompt, want) {
			t.Errorf("review prompt lacks %q", want)
		}
	}
	if n := len(list(r.merged["requirements"])); n != 3 || r.merged["prUrl"] != "https://bitbucket.example/acme/app/pull-requests/7" {
		t.Errorf("merge answer carries %d criteria and prUrl %v, want 3 and the PR's page", n, r.merged["prUrl"])
	}

	// /v1/comments: the counts and the posted summary's table.
	rc := obj(r.comments["requirements"])
	if rc["met"] != float64(1) || rc["notMet"] != float64(1) || rc["unclear"] != float64(1) || len(list(rc["criteria"])) != 3 {
		t.Errorf("comments requirements = %v, want 1 met, 1 not met, 1 unclear", rc)
	}
	if w := fmt.Sprint(r.comments["warnings"]); strings.Contains(w, "criteri") {
		t.Errorf("comments warnings speak of criteria: %v", w)
	}
	summaries, _ := live(f.fake, 7)
	if len(summaries) != 1 {
		t.Fatalf("%d summaries, want 1", len(summaries))
	}
	body := summaries[0].Body
	checkSummaryMarkdown(t, body, f.h1)
	pr := "https://bitbucket.example/acme/app/pull-requests/7"
	for _, want := range []string{
		"**Coverage:** 2 of 2 changed files reviewed; criteria: 1 met, 1 not met, 1 unclear.",
		"### Acceptance criteria\n\n| Criterion | Verdict | Evidence | Note |\n| --- | --- | --- | --- |\n",
		"| **SHOP-12#1** Empty tokens are refused with 401 | Met | [`pkg/api/handler.go:6`](" + pr + "/diff#Lpkg/api/handler.goT6) | The empty check runs before Validate. |\n",
		"| **SHOP-12#2** Short tokens never crash the handler | **Not met** | [`pkg/api/new.go:3`](" + pr + "/diff#Lpkg/api/new.goT3) | lookup slices tok[:4] without a length check. |\n",
		"| **SHOP-12#3** Every refusal is logged for audit | Unclear | - | No logging is visible in the change. |\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("summary lacks %q:\n%s", want, body)
		}
	}
	t.Logf("summary as posted:\n%s", body)
}
