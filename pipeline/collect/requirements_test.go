package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	issuespkg "github.com/prscout/prscout/pipeline/issues"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// linkedLookup is an issue tracker with a bound and a project filter
// holding keys; every issue has two criteria.
func linkedLookup(max int, projects []string, keys ...string) pipelinetest.Issues {
	f := pipelinetest.New()
	for _, key := range keys {
		f.AddIssue(pipeline.Issue{Key: key, Summary: "about " + key, Requirements: []pipeline.Requirement{
			{ID: key + "#1", Issue: key, Text: "first of " + key},
			{ID: key + "#2", Issue: key, Text: "second of " + key},
		}})
	}
	return pipelinetest.Issues{Fake: f, Max: max, ProjectKeys: projects}
}

// lookedUp lists the keys looked up among keys, sorted; lookups of any
// other key show as "other".
func lookedUp(l pipelinetest.Issues, keys ...string) []string {
	var out []string
	for _, k := range keys {
		for range l.Calls(pipelinetest.OpIssue, k) {
			out = append(out, k)
		}
	}
	for range l.Calls(pipelinetest.OpIssue, "") - len(out) {
		out = append(out, "other")
	}
	slices.Sort(out)
	return out
}

// newCommitsRepo is scopeRepo's change as pull request 7 with a history:
// head and, below it, one commit per further message down to base (msgs
// newest first), read as a pull request's commits and as a base..head range.
func newCommitsRepo(title, branch, description string, msgs ...string) pipelinetest.CommitsRepo {
	f := pipelinetest.New().AddFiles("base", map[string]string{"a.go": "package a\n"}).
		AddFiles("head", map[string]string{"a.go": "package b\n"}).SetDiff("*", fileDiff("a.go", "package a", "package b"))
	for i, m := range msgs {
		id, parent := fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i+1)
		if i == 0 {
			id = "head"
		}
		if i == len(msgs)-1 {
			parent = "base"
		}
		f.AddCommit(id, parent).SetCommitMessage(id, m)
	}
	if len(msgs) == 0 {
		f.AddCommit("head", "base")
	}
	f.AddPullRequest(pipeline.PullRequestInfo{ID: 7, SourceCommit: "head", DestinationCommit: "base",
		PullRequest: pipeline.PullRequest{Title: title, SourceBranch: branch, Description: description}})
	return pipelinetest.CommitsRepo{Fake: f}
}

// commitsRead fails the reads of commit messages with err.
func commitsRead(err error) func(context.Context, string, string) error {
	return func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpPRCommits || op == pipelinetest.OpRangeCommits {
			return err
		}
		return nil
	}
}

// TestContextLinksIssuesFromCommits: keys come from the branch, the
// description and the commit messages, other projects are dropped, the
// lookup's bound applies, and the answer lists every linked issue's criteria
// in issue order, also in the scout prompt.
func TestContextLinksIssuesFromCommits(t *testing.T) {
	repo := newCommitsRepo("Limit cart size", "feature/SHOP-12-limit", "Fixes SHOP-12. See OPS-3.",
		"OPS-4 tidy the build", "SHOP-14 #comment limit reached", "SHOP-15 and SHOP-16")
	linked := []string{"OPS-3", "OPS-4", "SHOP-12", "SHOP-14", "SHOP-15", "SHOP-16"}
	look := linkedLookup(2, []string{"shop"}, linked...)
	res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, PRs: repo, Issues: look},
		ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lookedUp(look, linked...), []string{"SHOP-12", "SHOP-14"}; !slices.Equal(got, want) {
		t.Errorf("looked up %v, want %v (OPS-* dropped, bound 2)", got, want)
	}
	if n, want := repo.Calls(pipelinetest.OpPRCommits, ""), repo.Calls(pipelinetest.OpPRCommits, fmt.Sprint("7 ", pipeline.MaxCommitMessages)); n != 1 || want != 1 {
		t.Errorf("commit messages read %d times, %d with limit %d; want one read of %d", n, want, pipeline.MaxCommitMessages, pipeline.MaxCommitMessages)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "jira: 2 more keys not looked up (limit 2): SHOP-15, SHOP-16") {
		t.Errorf("warnings = %q, want the keys over the bound named", res.Warnings)
	}
	var ids []string
	for _, r := range res.Requirements {
		ids = append(ids, r.ID)
	}
	if want := []string{"SHOP-12#1", "SHOP-12#2", "SHOP-14#1", "SHOP-14#2"}; !slices.Equal(ids, want) {
		t.Errorf("requirements = %v, want %v", ids, want)
	}
	for _, s := range []string{"# Acceptance criteria\n", "- SHOP-12#1: first of SHOP-12\n", "- SHOP-14#2: second of SHOP-14\n"} {
		if !strings.Contains(res.ScoutPrompt.User, s) {
			t.Errorf("scout prompt lacks %q", s)
		}
	}
}

func TestContextCommitProblems(t *testing.T) {
	t.Run("unreadable commits are a warning", func(t *testing.T) {
		repo := newCommitsRepo("SHOP-1 limit", "main-work", "")
		repo.Hook = commitsRead(fmt.Errorf("list commits: %w", pipeline.ErrUpstream))
		look := linkedLookup(0, nil, "SHOP-1")
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, PRs: repo, Issues: look},
			ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if got := lookedUp(look, "SHOP-1"); !slices.Equal(got, []string{"SHOP-1"}) {
			t.Errorf("looked up %v, want the title's SHOP-1", got)
		}
		if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "jira: commit messages not read for issue keys (list commits: upstream error)") {
			t.Errorf("warnings = %q", res.Warnings)
		}
	})
	t.Run("no Jira, no commit read", func(t *testing.T) {
		repo := newCommitsRepo("SHOP-1 limit", "", "", "SHOP-2")
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, PRs: repo},
			ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if n := repo.Calls(pipelinetest.OpPRCommits, ""); n != 0 || len(res.Requirements) != 0 || res.Requirements == nil {
			t.Errorf("commit reads %d, requirements %#v; want none read and an empty list", n, res.Requirements)
		}
	})
	t.Run("range review reads base..head", func(t *testing.T) {
		repo := newCommitsRepo("", "", "", "Fixes SHOP-9")
		look := linkedLookup(0, nil, "OPS-1", "SHOP-9")
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, Issues: look},
			ContextInput{Workspace: "w", RepoSlug: "r", Base: "base", Head: "head", Title: "OPS-1 x"}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		ranges, looked := repo.Calls(pipelinetest.OpRangeCommits, fmt.Sprint("base..head ", pipeline.MaxCommitMessages)), lookedUp(look, "OPS-1", "SHOP-9")
		if ranges != 1 || repo.Calls(pipelinetest.OpRangeCommits, "") != 1 || !slices.Equal(looked, []string{"OPS-1", "SHOP-9"}) {
			t.Errorf("base..head read %d times of %d, looked up %v; want base..head read once and OPS-1, SHOP-9",
				ranges, repo.Calls(pipelinetest.OpRangeCommits, ""), looked)
		}
		if len(res.Requirements) != 4 || res.Requirements[0].ID != "OPS-1#1" {
			t.Errorf("requirements = %v, want OPS-1's then SHOP-9's", res.Requirements)
		}
	})
	t.Run("criteria given in the request come first", func(t *testing.T) {
		repo := newCommitsRepo("", "", "")
		var in ContextInput
		if err := json.Unmarshal([]byte(`{"workspace":"w","repoSlug":"r","base":"base","head":"head","title":"SHOP-3",
			"requirements":[{"id":"LOCAL#1","text":"works offline"}]}`), &in); err != nil {
			t.Fatal(err)
		}
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, Issues: linkedLookup(0, nil, "SHOP-3")}, in, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Requirements) != 3 || res.Requirements[0] != (pipeline.Requirement{ID: "LOCAL#1", Issue: "LOCAL", Text: "works offline"}) {
			t.Errorf("requirements = %v, want LOCAL#1 then SHOP-3's two", res.Requirements)
		}
	})
}

func TestLookupAllUsesTheLookupsBound(t *testing.T) {
	for _, tt := range []struct {
		max, looked int
	}{{0, 5}, {-1, 5}, {2, 2}, {7, 7}} {
		keys := []string{"A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "A-7", "A-8"}
		look := linkedLookup(tt.max, nil, keys...)
		issues, warnings := issuespkg.LookupAll(context.Background(), look, keys)
		if n := look.Calls(pipelinetest.OpIssue, ""); len(issues) != tt.looked || n != tt.looked {
			t.Errorf("MaxIssues %d: %d issues (%d lookups), want %d", tt.max, len(issues), n, tt.looked)
		}
		want := fmt.Sprintf("jira: %d more keys not looked up (limit %d)", len(keys)-tt.looked, tt.looked)
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("MaxIssues %d: warnings %q, want %q...", tt.max, warnings, want)
		}
	}
}

func TestRequirementsFieldDecode(t *testing.T) {
	for _, tt := range []struct {
		in       string
		criteria []pipeline.Requirement
		text     string
		err      string
	}{
		{in: `null`},
		{in: `"Coupons apply before tax."`, text: "Coupons apply before tax."},
		{in: `[]`, criteria: []pipeline.Requirement{}},
		{in: `[{"id":" SHOP-12#2 ","text":"t"}]`, criteria: []pipeline.Requirement{{ID: "SHOP-12#2", Issue: "SHOP-12", Text: "t"}}},
		{in: `[{"id":"X#1","issue":"SHOP-1","text":"t"}]`, criteria: []pipeline.Requirement{{ID: "X#1", Issue: "SHOP-1", Text: "t"}}},
		{in: `{"id":"A#1"}`, err: "requirements: must be an array of {id, issue, text} or a string"},
		{in: `[{"id":"A#1"}, 3]`, err: "requirements[1]: must be an object {id, issue, text}"},
	} {
		var f pipeline.RequirementsField
		err := json.Unmarshal([]byte(tt.in), &f)
		var inv *pipeline.InvalidError
		switch {
		case tt.err != "":
			if !errors.As(err, &inv) || err.Error() != tt.err {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case !slices.Equal(f.Criteria, tt.criteria) || (f.Criteria == nil) != (tt.criteria == nil) || f.Text != tt.text:
			t.Errorf("%s: got %#v, want %#v / %q", tt.in, f, tt.criteria, tt.text)
		}
	}
	b, _ := json.Marshal(pipeline.RequirementsField{Text: "free"})
	if string(b) != "[]" {
		t.Errorf("marshal = %s, want []", b)
	}
}

// TestMergeAsksForVerdicts: the review prompt lists the criteria by id with
// the answer format, the merge answer echoes them and the PR's web page for
// /v1/comments; an issue's own acceptance criteria text is not repeated.
func TestMergeAsksForVerdicts(t *testing.T) {
	crit := []pipeline.Requirement{
		{ID: "SHOP-12#1", Issue: "SHOP-12", Text: "The cart shows a shipping estimate"},
		{ID: "SHOP-12#2", Issue: "SHOP-12", Text: "The estimate updates within 1 s"},
	}
	issue := pipeline.Issue{Key: "SHOP-12", Summary: "Estimate", AcceptanceCriteria: "RAW FIELD TEXT", Requirements: crit}
	for name, ctxJSON := range map[string]string{
		"from the context answer": mustJSONString(t, map[string]any{"requirements": crit, "jira": []any{issue}}),
		"from the issues":         mustJSONString(t, map[string]any{"jira": []any{issue}}),
		"with free text too":      mustJSONString(t, map[string]any{"requirements": crit, "requirementsText": "Stay fast.", "jira": []any{issue}}),
	} {
		t.Run(name, func(t *testing.T) {
			var in merge.MergeInput
			body := `{"context":` + strings.TrimSuffix(ctxJSON, "}") + `,"ref":"abc","pr":{"title":"t","url":"https://bitbucket.example/acme/shop/pull-requests/7"},"files":[{"path":"a.go","status":"modified","diff":"x"}]}}`
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			out, err := merge.Merge(in, pipeline.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			user := out.ReviewPrompt.User
			for _, s := range []string{
				"# Acceptance criteria to judge (2)\n\n- SHOP-12#1: The cart shows a shipping estimate\n- SHOP-12#2: The estimate updates within 1 s\n",
				`"requirements":[{"id":"<id>","verdict":"met|not_met|unclear"`,
				`Its acceptance criteria are listed under "Acceptance criteria to judge".`,
			} {
				if !strings.Contains(user, s) {
					t.Errorf("review prompt lacks %q:\n%s", s, user)
				}
			}
			if strings.Contains(user, "RAW FIELD TEXT") {
				t.Errorf("review prompt repeats the field text the criteria came from")
			}
			if !slices.Equal(out.Requirements, crit) || out.PRURL != "https://bitbucket.example/acme/shop/pull-requests/7" {
				t.Errorf("echo: requirements %v, prUrl %q", out.Requirements, out.PRURL)
			}
			if strings.Contains(name, "free") != strings.Contains(user, "# Requirements\n\nStay fast.") {
				t.Errorf("free requirements text shown wrongly")
			}
		})
	}
	t.Run("no criteria: no section", func(t *testing.T) {
		out, err := merge.Merge(merge.MergeInput{Context: merge.MergeContext{Ref: "abc"}}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.ReviewPrompt.User, "Acceptance criteria") || out.Requirements == nil || len(out.Requirements) != 0 {
			t.Errorf("prompt or echo speaks of criteria without any: %v", out.Requirements)
		}
	})
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
