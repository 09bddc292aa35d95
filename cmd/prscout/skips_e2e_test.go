package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// TestBitbucketSkips runs the binary with its default settings on the fake
// Bitbucket: a draft, a bot's pull request, a title marker and a change of
// only docs and lock files are skipped with their skipCode, each after as
// few calls as it needs (logged: docs/review.md quotes them), and a draft
// marked ready is reviewed when the next webhook arrives. A second binary
// with PRSCOUT_PUSH_REVIEWS=off reviews a pull request once and skips the
// push after it.
func TestBitbucketSkips(t *testing.T) {
	f := newBBFixture(t)
	// A change of docs and a lock file only, from the base.
	git(t, f.dir, "checkout", "-q", "-b", "docs", f.base)
	writeRepoFile(t, f.dir, "README.md", "# app\n\nHow to run it.\n")
	writeRepoFile(t, f.dir, "docs/setup.md", "Run `go run .`\n")
	writeRepoFile(t, f.dir, "go.sum", "example.com/dep v1.0.0 h1:abc=\n")
	git(t, f.dir, "add", "-A")
	git(t, f.dir, "commit", "-q", "-m", "docs and deps")
	docs := git(t, f.dir, "rev-parse", "docs")
	f.load(t, docs)
	f.diff(t, f.base, docs)

	add := func(id int, title, author string, draft bool, source string) {
		f.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
			ID: id, Title: title, Author: author, Draft: draft, SourceBranch: "feature/tokens", DestinationBranch: "main",
			SourceCommit: source, DestinationCommit: f.base,
		})
	}
	add(20, "Reject empty tokens", "Mina Park", true, f.h1)
	add(21, "Bump example.com/dep", "Dependabot", false, f.h1)
	add(22, "Tidy handler [Skip Review]", "Mina Park", false, f.h1)
	add(23, "Document setup", "Mina Park", false, docs)
	s := startBB(t, f.fake)

	context := func(s *server, body any) (map[string]any, map[string]int) {
		t.Helper()
		mark := len(f.fake.Requests())
		code, out := s.post(t, "/v1/context", body)
		mustOK(t, "/v1/context", code, out)
		return out, callsSince(f.fake, mark)
	}
	byID := func(id int) map[string]any {
		return map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": id}
	}
	check := func(name string, out map[string]any, calls map[string]int, code, reason string, wantCalls int) {
		t.Helper()
		if out["mode"] != "skip" || out["skip"] != true || out["skipCode"] != code || !strings.Contains(asString(out["skipReason"]), reason) {
			t.Errorf("%s: mode %v skip %v skipCode %v skipReason %q, want skip %s saying %q", name, out["mode"], out["skip"], out["skipCode"], out["skipReason"], code, reason)
		}
		if n := len(list(out["files"])); n != 0 || out["buildStatus"] != nil {
			t.Errorf("%s: %d files, buildStatus %v; a skip has neither", name, n, out["buildStatus"])
		}
		// get_user is asked once per process, by its first comment listing:
		// not a cost of this run.
		total := 0
		for op, n := range calls {
			if op != "get_user" {
				total += n
			}
		}
		if total != wantCalls {
			t.Errorf("%s: %d Bitbucket calls (%s), want %d", name, total, fmtCalls(calls), wantCalls)
		}
		t.Logf("skip %-12s %s", code, fmtCalls(calls))
	}

	// The draft, as n8n sends it: the raw webhook body.
	out, calls := context(s, json.RawMessage(f.fake.PullRequestEvent(bbWorkspace, bbSlug, 20)))
	check("draft", out, calls, "draft", "draft: reviewed when marked ready", 1)
	logAnswer(t, "draft", out)
	out, calls = context(s, byID(21))
	check("bot", out, calls, "bot_author", `author Dependabot is a bot account (nickname "dependabot" is in the bot author list)`, 1)
	out, calls = context(s, byID(22))
	check("title", out, calls, "title_marker", "the title says [skip review]", 1)
	out, calls = context(s, byID(23))
	check("trivial", out, calls, "trivial", "only lock files and docs changed (3 files)", 6)
	logAnswer(t, "trivial", out)

	// Marked ready: Bitbucket sends pullrequest:updated, and it is reviewed.
	if !f.fake.SetPullRequestDraft(bbWorkspace, bbSlug, 20, false) {
		t.Fatal("no pull request 20")
	}
	out, _ = context(s, json.RawMessage(f.fake.PullRequestEvent(bbWorkspace, bbSlug, 20)))
	if out["mode"] != "full" || out["skipCode"] != nil || len(list(out["files"])) != 2 {
		t.Errorf("draft marked ready: mode %v skipCode %v, %d files; want a full review of 2 files", out["mode"], out["skipCode"], len(list(out["files"])))
	}

	// Push reviews off: the first review runs, the push after it is skipped.
	off := startBB(t, f.fake, "PRSCOUT_PUSH_REVIEWS=off")
	f.pr(24, "Reject empty tokens", f.h1, f.base)
	if r := off.review(t, f.fake, 24, bbScout, reviewOf("One finding.", findingLookup)); r.ctx["mode"] != "full" {
		t.Fatalf("first review with push reviews off: mode %v, want full", r.ctx["mode"])
	}
	f.pr(24, "Reject empty tokens", f.h2, f.base)
	out, calls = context(off, byID(24))
	check("push", out, calls, "push_off", "push reviews are off: comment to review", 6)
	logAnswer(t, "push_off", out)
	if out["reviewedCommit"] != f.h1 || out["ref"] != f.h2 {
		t.Errorf("push skip: reviewedCommit %v ref %v, want %s and %s", out["reviewedCommit"], out["ref"], f.h1, f.h2)
	}
	// The default binary reviews the same push as a delta.
	if out, _ = context(s, byID(24)); out["mode"] != "delta" {
		t.Errorf("push with push reviews delta: mode %v (%v), want delta", out["mode"], out["skipReason"])
	}
	if m := off.metricsText(t); !strings.Contains(m, `prscout_reviews_skipped_total{reason="push_off"} 1`) {
		t.Errorf("/metrics lacks prscout_reviews_skipped_total{reason=\"push_off\"} 1")
	}
	if m := s.metricsText(t); !strings.Contains(m, `prscout_reviews_skipped_total{reason="draft"} 1`) || !strings.Contains(m, `prscout_reviews_skipped_total{reason="trivial"} 1`) {
		t.Errorf("/metrics lacks the draft and trivial skips")
	}
}

// asString is v when it is a string, else "".
func asString(v any) string { s, _ := v.(string); return s }

// logAnswer logs a skip's context answer without its empty lists, as the
// workflow sees it.
func logAnswer(t *testing.T, name string, out map[string]any) {
	t.Helper()
	keep := map[string]any{}
	for _, k := range []string{"mode", "skip", "skipCode", "skipReason", "workspace", "repoSlug", "prId", "ref", "base", "reviewedCommit"} {
		if v, ok := out[k]; ok {
			keep[k] = v
		}
	}
	b, _ := json.Marshal(keep)
	t.Logf("%s answer: %s", name, b)
}

// TestEndToEndEmptyChange: a context whose base is its head (or names the
// same tree) is skipped with skipCode empty, so the workflow pays for no
// scout and no review; the skip counts under its code.
func TestEndToEndEmptyChange(t *testing.T) {
	repo := makeReviewRepo(t)
	git(t, repo, "branch", "same-tree", "feature")
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	for _, c := range [][2]string{{"feature", "feature"}, {"main", "main"}, {"same-tree", "feature"}, {"feature", "main"}} {
		code, out := s.post(t, "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": c[0], "head": c[1]})
		mustOK(t, "/v1/context", code, out)
		if out["skip"] != true || out["mode"] != "skip" || out["skipCode"] != "empty" || out["skipReason"] != "nothing changed between base and head" || len(list(out["files"])) != 0 {
			t.Errorf("base %s head %s: skip %v mode %v skipCode %v reason %v files %d, want an empty skip",
				c[0], c[1], out["skip"], out["mode"], out["skipCode"], out["skipReason"], len(list(out["files"])))
		}
	}
	code, out := s.post(t, "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": "main", "head": "feature"})
	mustOK(t, "/v1/context", code, out)
	if out["skip"] == true || out["skipCode"] != nil {
		t.Errorf("a real change skipped: %v %v", out["skipCode"], out["skipReason"])
	}
	if n := s.metricValue(t, `prscout_reviews_skipped_total{reason="empty"}`); n != 4 {
		t.Errorf(`prscout_reviews_skipped_total{reason="empty"} = %v, want 4`, n)
	}
}
