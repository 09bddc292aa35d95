package collect

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/scope"
)

// skipCase is one pull request review and what its context must say.
type skipCase struct {
	name string
	pr   func(*pipeline.PullRequestInfo)
	// diff is the pull request's diff b...h (default: one Go file); with
	// reviewed set, prscout's summary names r and the delta r..h is diff too.
	diff     string
	reviewed bool
	rules    string // .prscout/rules.json at the destination ("": none)
	policy   SkipPolicy
	include  []string

	mode, code string
	reason     string // a part of skipReason
	warning    string // a part of some warning
	// calls: the fake's calls in all when > 0.
	calls int
}

var (
	goDiff     = addDiff("pkg/a.go", "package pkg", "var X = 1")
	lockDiff   = modDiff("package-lock.json", 3, `"v": "1"`, `"v": "2"`) + modDiff("web/yarn.lock", 9, "a@1", "a@2") + modDiff("go.sum", 1, "x v1", "x v2")
	docsDiff   = modDiff("README.md", 1, "old", "new") + addDiff("docs/guide/setup.go", "package main") + modDiff("LICENSE", 2, "2025", "2026") + addDiff("notes.rst", "Title")
	genDiff    = modDiff("api/v1/service.pb.go", 10, "a", "b") + addDiff("web/__generated__/types.ts", "export type A = 1") + modDiff("pkg/zz_generated.deepcopy.go", 4, "a", "b")
	mixedDiff  = modDiff("Cargo.lock", 1, "a", "b") + modDiff("CHANGELOG.md", 1, "a", "b")
	oneCodeDoc = modDiff("README.md", 1, "old", "new") + modDiff("docs/a.md", 1, "a", "b") + modDiff("cmd/main.go", 4, "a", "b")
	txtInput   = modDiff("requirements.txt", 1, "flask==2", "flask==3") + modDiff("README.md", 1, "a", "b")
)

func runSkipCase(t *testing.T, c skipCase) {
	t.Helper()
	f := pipelinetest.New().AddCommit("b").AddCommit("r", "b").AddCommit("h", "r")
	diff := c.diff
	if diff == "" {
		diff = goDiff
	}
	f.SetDiff("b...h", diff).SetDiff("r..h", diff)
	f.AddFiles("h", map[string]string{"pkg/a.go": "package pkg\nvar X = 1\n"})
	if c.rules != "" {
		f.AddFiles("b", map[string]string{scope.RepoRulesPath: c.rules})
	}
	pr := pipeline.PullRequestInfo{
		ID: 5, State: "OPEN", SourceCommit: "h", DestinationCommit: "b",
		PullRequest:   pipeline.PullRequest{Title: "Add X", Author: "Mina Park", URL: "https://bitbucket.example/w/s/pull-requests/5"},
		AuthorAccount: pipeline.Account{DisplayName: "Mina Park", Nickname: "mpark", AccountID: "557058:mina", UUID: "{mina}"},
	}
	if c.pr != nil {
		c.pr(&pr)
	}
	f.AddPullRequest(pr)
	if c.reviewed {
		f.AddComment(5, pipeline.Comment{ID: 1, Body: "summary\n\n" + marker.ReviewMarker("r")})
	}
	in := ContextInput{Workspace: "w", RepoSlug: "s", PRID: 5, Skips: c.policy, Include: c.include,
		Surfaces: insights.Settings{BuildStatus: true}}
	res, err := Collect(context.Background(), ContextSources{Repo: f, Diffs: f, PRs: f, Comments: f, Reporter: f}, in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != c.mode || res.SkipCode != c.code || res.Skip != (c.mode == "skip") {
		t.Fatalf("mode %s skip %v code %q (reason %q), want mode %s code %q; warnings %q", res.Mode, res.Skip, res.SkipCode, res.SkipReason, c.mode, c.code, res.Warnings)
	}
	if c.reason != "" && !strings.Contains(res.SkipReason, c.reason) {
		t.Errorf("skipReason %q, want it to say %q", res.SkipReason, c.reason)
	}
	if c.mode != "skip" && res.SkipReason != "" {
		t.Errorf("a %s review has skipReason %q", c.mode, res.SkipReason)
	}
	if c.warning != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), c.warning) {
		t.Errorf("warnings %q, want one saying %q", res.Warnings, c.warning)
	}
	statuses := f.Calls(pipelinetest.OpSetStatus, "")
	if c.mode == "skip" {
		if len(res.Files) != 0 || len(res.Groups) != 0 {
			t.Errorf("a skip carries %d files, %d groups", len(res.Files), len(res.Groups))
		}
		if statuses != 0 {
			t.Errorf("a skip set %d build statuses", statuses)
		}
		if n := f.Calls(pipelinetest.OpRead, "pkg/a.go"); n != 0 {
			t.Errorf("a skip read %d sources", n)
		}
	} else if len(res.Files) == 0 || statuses != 1 {
		t.Errorf("a %s review shows %d files and set %d build statuses, want files and one status", c.mode, len(res.Files), statuses)
	}
	if c.calls > 0 && f.TotalCalls() != c.calls {
		t.Errorf("%d calls, want %d", f.TotalCalls(), c.calls)
	}
}

// TestSkips: every skip class, its code, reason and cost in calls, and the
// reviews that are not skipped next to each.
func TestSkips(t *testing.T) {
	on := SkipPolicy{Drafts: true, BotAuthors: []string{"renovate[bot]", "renovate-bot", "dependabot[bot]", "Dependabot"}, Trivial: true}
	draft := func(p *pipeline.PullRequestInfo) { p.Draft = true }
	author := func(a pipeline.Account) func(*pipeline.PullRequestInfo) {
		return func(p *pipeline.PullRequestInfo) { p.AuthorAccount, p.Author = a, a.DisplayName }
	}
	title := func(s string) func(*pipeline.PullRequestInfo) {
		return func(p *pipeline.PullRequestInfo) { p.Title = s }
	}
	pushOff := on
	pushOff.Push = scope.PushOff
	pushDelta := on
	pushDelta.Push = scope.PushDelta
	cases := []skipCase{
		{name: "draft", pr: draft, policy: on, mode: "skip", code: SkipDraft, reason: "draft: reviewed when marked ready", calls: 1},
		{name: "draft with drafts reviewed", pr: draft, policy: SkipPolicy{}, mode: "full"},
		{name: "ready (draft=false)", policy: on, mode: "full"},
		{name: "closed before draft", pr: func(p *pipeline.PullRequestInfo) { p.Draft, p.State = true, "MERGED" }, policy: on,
			mode: "skip", code: SkipClosed, reason: "the pull request is MERGED", calls: 1},
		{name: "bot by nickname", pr: author(pipeline.Account{DisplayName: "Renovate Bot", Nickname: "renovate-bot", AccountID: "557058:r"}), policy: on,
			mode: "skip", code: SkipBotAuthor, reason: `author Renovate Bot is a bot account (nickname "renovate-bot"`, calls: 1},
		{name: "bot by display name, any case", pr: author(pipeline.Account{DisplayName: "DEPENDABOT", Nickname: "dbot-ci"}), policy: on,
			mode: "skip", code: SkipBotAuthor, reason: `display name "DEPENDABOT"`, calls: 1},
		{name: "bot by account id", pr: author(pipeline.Account{DisplayName: "Deps", AccountID: "Renovate[Bot]"}), policy: on,
			mode: "skip", code: SkipBotAuthor, reason: `account id "Renovate[Bot]"`},
		{name: "human author", pr: author(pipeline.Account{DisplayName: "Renovate Fan", Nickname: "renovator"}), policy: on, mode: "full"},
		{name: "bots with an empty list", pr: author(pipeline.Account{Nickname: "renovate-bot"}), policy: SkipPolicy{}, mode: "full"},
		{name: "title [skip review]", pr: title("Bump deps [Skip Review]"), mode: "skip", code: SkipTitleMarker, reason: "[skip review]", calls: 1},
		{name: "title [prscout skip]", pr: title("[PRSCOUT SKIP] wip"), mode: "skip", code: SkipTitleMarker, reason: "[prscout skip]"},
		{name: "title without a marker", pr: title("skip review of the cache"), mode: "full"},
		{name: "head reviewed", pr: func(p *pipeline.PullRequestInfo) { p.SourceCommit = "r" }, reviewed: true, policy: on,
			mode: "skip", code: SkipReviewed, reason: skipReviewed, calls: 2},
		{name: "only lock files", diff: lockDiff, policy: on, mode: "skip", code: SkipTrivial, reason: "only lock files changed (3 files)"},
		{name: "only docs", diff: docsDiff, policy: on, mode: "skip", code: SkipTrivial, reason: "only docs changed (4 files)"},
		{name: "only generated", diff: genDiff, policy: on, mode: "skip", code: SkipTrivial, reason: "only generated files changed (3 files)"},
		{name: "lock files and docs", diff: mixedDiff, policy: on, mode: "skip", code: SkipTrivial, reason: "only lock files and docs changed (2 files)"},
		{name: "one code file among docs", diff: oneCodeDoc, policy: on, mode: "full"},
		{name: "requirements.txt is not docs", diff: txtInput, policy: on, mode: "full"},
		{name: "trivial changes reviewed", diff: docsDiff, policy: SkipPolicy{}, mode: "full"},
		{name: "an include asks for docs", diff: docsDiff, policy: on, include: []string{"**/*.md"}, mode: "full"},
		{name: "trivial push", diff: lockDiff, reviewed: true, policy: on, mode: "skip", code: SkipTrivial, reason: "only lock files"},
		{name: "push, push reviews off", reviewed: true, policy: pushOff, mode: "skip", code: SkipPushOff, reason: "push reviews are off: comment to review"},
		{name: "first review, push reviews off", policy: pushOff, mode: "full"},
		{name: "push, push reviews delta", reviewed: true, policy: pushDelta, mode: "delta"},
		{name: "rule file turns push reviews off", reviewed: true, policy: pushDelta, rules: `{"reviews": {"push": "OFF"}}`,
			mode: "skip", code: SkipPushOff},
		{name: "rule file turns push reviews on", reviewed: true, policy: pushOff, rules: `{"reviews": {"push": "delta"}}`, mode: "delta"},
		{name: "invalid rule value is a warning", reviewed: true, policy: pushOff, rules: `{"reviews": {"push": "sometimes"}}`,
			mode: "skip", code: SkipPushOff, warning: `reviews.push: "sometimes" is not a push review mode (delta or off): ignored`},
		{name: "invalid rule value, delta setting", reviewed: true, policy: pushDelta, rules: `{"reviews": {"push": "never"}, "rules": [{"path": "**/*.go", "rule": "Check errors."}]}`,
			mode: "delta", warning: `"never" is not a push review mode`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSkipCase(t, c) })
	}
}

// TestSkipCodesListed: each code the stage can answer is in SkipCodes
// once, so metrics pre-initialise every one.
func TestSkipCodesListed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range SkipCodes {
		if seen[c] || c == "" {
			t.Errorf("skip code %q listed twice or empty", c)
		}
		seen[c] = true
	}
	for _, c := range []string{SkipClosed, SkipDraft, SkipBotAuthor, SkipTitleMarker, SkipReviewed, SkipMergeUnchanged, SkipPushOff, SkipTrivial} {
		if !seen[c] {
			t.Errorf("skip code %q missing from SkipCodes", c)
		}
	}
}

// TestSkipCodeInJSON: the answer carries skipCode next to skipReason, and
// a review that is not skipped carries neither.
func TestSkipCodeInJSON(t *testing.T) {
	var b strings.Builder
	res := ContextResult{Mode: "skip", Skip: true, SkipCode: SkipDraft, SkipReason: skipDraftReason}
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"skipReason":"draft: reviewed when marked ready","skipCode":"draft"`) {
		t.Errorf("answer %s lacks skipCode", b.String())
	}
	b.Reset()
	if err := (ContextResult{Mode: "full"}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "skipCode") || strings.Contains(b.String(), "skipReason") {
		t.Errorf("a full review's answer %s names a skip", b.String())
	}
}
