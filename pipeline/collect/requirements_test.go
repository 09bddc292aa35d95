package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/merge"
)

// linkedLookup is an issue lookup with a bound and a project filter; every
// issue has two criteria. It records the keys it was asked for.
type linkedLookup struct {
	max      int
	projects []string

	mu     sync.Mutex
	looked []string
}

func (l *linkedLookup) LookupIssue(_ context.Context, key string) (pipeline.Issue, error) {
	l.mu.Lock()
	l.looked = append(l.looked, key)
	l.mu.Unlock()
	return pipeline.Issue{Key: key, Summary: "about " + key, Requirements: []pipeline.Requirement{
		{ID: key + "#1", Issue: key, Text: "first of " + key},
		{ID: key + "#2", Issue: key, Text: "second of " + key},
	}}, nil
}

func (l *linkedLookup) MaxIssues() int     { return l.max }
func (l *linkedLookup) Projects() []string { return l.projects }

func (l *linkedLookup) keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.looked)
	slices.Sort(out)
	return out
}

var (
	_ pipeline.IssueBound    = (*linkedLookup)(nil)
	_ pipeline.IssueProjects = (*linkedLookup)(nil)
)

// commitsRepo is scopeRepo with commit messages for a pull request and for
// a base..head range.
type commitsRepo struct {
	*scopeRepo
	pr      pipeline.PullRequestInfo
	msgs    []string
	err     error
	limits  []int
	ranges  []string
	prReads int
}

func (r *commitsRepo) PullRequest(context.Context, pipeline.Repo, int) (pipeline.PullRequestInfo, error) {
	return r.pr, nil
}

func (r *commitsRepo) PullRequestCommitMessages(_ context.Context, _ pipeline.Repo, _ int, limit int) ([]string, error) {
	r.prReads++
	r.limits = append(r.limits, limit)
	return r.msgs, r.err
}

func (r *commitsRepo) CommitMessages(_ context.Context, _ pipeline.Repo, base, head string, limit int) ([]string, error) {
	r.ranges = append(r.ranges, base+".."+head)
	r.limits = append(r.limits, limit)
	return r.msgs, r.err
}

var (
	_ pipeline.PullRequestCommits = (*commitsRepo)(nil)
	_ pipeline.RangeCommits       = (*commitsRepo)(nil)
)

func newCommitsRepo(title, branch, description string, msgs ...string) *commitsRepo {
	base := &scopeRepo{
		files: map[string]map[string]string{"base": {"a.go": "package a\n"}, "head": {"a.go": "package b\n"}},
		diff:  fileDiff("a.go", "package a", "package b"),
	}
	pr := pipeline.PullRequestInfo{ID: 7, SourceCommit: "head", DestinationCommit: "base",
		PullRequest: pipeline.PullRequest{Title: title, SourceBranch: branch, Description: description}}
	return &commitsRepo{scopeRepo: base, pr: pr, msgs: msgs}
}

// TestContextLinksIssuesFromCommits: keys come from the branch, the
// description and the commit messages, other projects are dropped, the
// lookup's bound applies, and the answer lists every linked issue's criteria
// in issue order, also in the scout prompt.
func TestContextLinksIssuesFromCommits(t *testing.T) {
	repo := newCommitsRepo("Limit cart size", "feature/SHOP-12-limit", "Fixes SHOP-12. See OPS-3.",
		"OPS-4 tidy the build", "SHOP-14 #comment limit reached", "SHOP-15 and SHOP-16")
	look := &linkedLookup{max: 2, projects: []string{"shop"}}
	res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, PRs: repo, Issues: look},
		ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := look.keys(), []string{"SHOP-12", "SHOP-14"}; !slices.Equal(got, want) {
		t.Errorf("looked up %v, want %v (OPS-* dropped, bound 2)", got, want)
	}
	if !slices.Equal(repo.limits, []int{pipeline.MaxCommitMessages}) {
		t.Errorf("commit messages read with limits %v, want one read of %d", repo.limits, pipeline.MaxCommitMessages)
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
		repo.err = fmt.Errorf("list commits: %w", pipeline.ErrUpstream)
		look := &linkedLookup{}
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, PRs: repo, Issues: look},
			ContextInput{Workspace: "w", RepoSlug: "r", PRID: 7}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(look.keys(), []string{"SHOP-1"}) {
			t.Errorf("looked up %v, want the title's SHOP-1", look.keys())
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
		if repo.prReads != 0 || len(res.Requirements) != 0 || res.Requirements == nil {
			t.Errorf("commit reads %d, requirements %#v; want none read and an empty list", repo.prReads, res.Requirements)
		}
	})
	t.Run("range review reads base..head", func(t *testing.T) {
		repo := newCommitsRepo("", "", "", "Fixes SHOP-9")
		look := &linkedLookup{}
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, Issues: look},
			ContextInput{Workspace: "w", RepoSlug: "r", Base: "base", Head: "head", Title: "OPS-1 x"}, pipeline.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(repo.ranges, []string{"base..head"}) || !slices.Equal(look.keys(), []string{"OPS-1", "SHOP-9"}) {
			t.Errorf("ranges %v, looked up %v; want base..head read and OPS-1, SHOP-9", repo.ranges, look.keys())
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
		res, err := Collect(context.Background(), ContextSources{Repo: repo, Diffs: repo, Issues: &linkedLookup{}}, in, pipeline.DefaultLimits())
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
		look := &linkedLookup{max: tt.max}
		keys := []string{"A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "A-7", "A-8"}
		issues, warnings := LookupAll(context.Background(), look, keys)
		if len(issues) != tt.looked || len(look.keys()) != tt.looked {
			t.Errorf("MaxIssues %d: %d issues (%d lookups), want %d", tt.max, len(issues), len(look.keys()), tt.looked)
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
