package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// memFixture is the repository of the review-memory test:
//
//	d0   main: handler, README, util
//	h1   feature: handler checks empty tokens, new.go adds lookup()
//	h2   feature: lookup() checks the length (fixes finding 1), trim() added
//	d1   main moves on: README and util change (other files)
//	m    feature merges main (d1)
//	h3   feature: the empty check goes (fixes finding 2)
type memFixture struct {
	*bbRepo
	d0, h1, h2, d1, m, h3 string
}

const (
	memNewH1 = "package api\n\nfunc lookup(tok string) string { return tok[:4] }\n"
	memNewH2 = "package api\n\nfunc lookup(tok string) string {\n\tif len(tok) < 4 {\n\t\treturn tok\n\t}\n\treturn tok[:4]\n}\n\nfunc trim(s string) string { return s[1:] }\n"
)

// memTrim is the finding on trim() in h2 (line 10).
const memTrim = `{"path":"pkg/api/new.go","line":10,"existingCode":"func trim(s string) string { return s[1:] }","severity":"medium","title":"trim panics on empty strings","body":"s[1:] panics when s is empty."}`

func newMemFixture(t *testing.T) *memFixture {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	handler := "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\treturn 200\n}\n"
	writeRepoFile(t, dir, "pkg/api/handler.go", handler)
	writeRepoFile(t, dir, "pkg/util/strings.go", "package util\n\nfunc Upper(s string) string { return s }\n")
	writeRepoFile(t, dir, "README.md", "# app\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	f := &memFixture{bbRepo: &bbRepo{dir: dir, fake: bitbuckettest.NewServer()}}
	t.Cleanup(f.fake.Close)
	f.d0 = git(t, dir, "rev-parse", "HEAD")

	git(t, dir, "checkout", "-q", "-b", "feature")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif tok == \"\" || !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\tuser := lookup(tok)\n\treturn 200 + len(user) - len(user)\n}\n")
	writeRepoFile(t, dir, "pkg/api/new.go", memNewH1)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "feature: check empty tokens")
	f.h1 = git(t, dir, "rev-parse", "HEAD")
	writeRepoFile(t, dir, "pkg/api/new.go", memNewH2)
	git(t, dir, "commit", "-q", "-am", "feature: lookup checks the length; trim helper")
	f.h2 = git(t, dir, "rev-parse", "HEAD")

	git(t, dir, "checkout", "-q", "main")
	writeRepoFile(t, dir, "README.md", "# app\n\nThe token service.\n")
	writeRepoFile(t, dir, "pkg/util/strings.go", "package util\n\nimport \"strings\"\n\nfunc Upper(s string) string { return strings.ToUpper(s) }\n")
	git(t, dir, "commit", "-q", "-am", "main: README and Upper")
	f.d1 = git(t, dir, "rev-parse", "HEAD")

	git(t, dir, "checkout", "-q", "feature")
	git(t, dir, "merge", "-q", "--no-ff", "--no-edit", "main")
	f.m = git(t, dir, "rev-parse", "HEAD")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\tuser := lookup(tok)\n\treturn 200 + len(user) - len(user)\n}\n")
	git(t, dir, "commit", "-q", "-am", "feature: Validate refuses empty tokens already")
	f.h3 = git(t, dir, "rev-parse", "HEAD")

	for _, c := range []string{f.d0, f.h1, f.h2, f.d1, f.m, f.h3} {
		f.load(t, c)
	}
	f.fake.RequireBasic(bbEmail, bbToken)
	f.fake.SetBranch(bbWorkspace, bbSlug, "main", f.d0)
	// Diffs as prscout asks for them: the pull request's (three-dot, from
	// the merge base) and the deltas (two-dot).
	f.diffRange(t, f.d0, f.h1, f.d0+"..."+f.h1)
	f.diffRange(t, f.h1, f.h2, f.h1+".."+f.h2)
	f.diffRange(t, f.d1, f.h2, f.d1+"..."+f.h2) // the PR's diff at h2, once main moved
	f.diffRange(t, f.d1, f.m, f.d1+"..."+f.m)
	f.diffRange(t, f.d1, f.h3, f.d1+"..."+f.h3)
	f.diffRange(t, f.h2, f.h3, f.h2+".."+f.h3) // the plain delta, with main's changes: must not be asked for
	return f
}

// diffRange stores git's diff of gitRange as the fake's diff base..head.
func (r *bbRepo) diffRange(t *testing.T, base, head, gitRange string) {
	t.Helper()
	r.fake.SetDiff(bbWorkspace, bbSlug, base, head, string(gitRaw(t, r.dir, "diff", "-M", "-U30", gitRange)))
}

// summaryBody returns the pull request's one live summary.
func summaryBody(t *testing.T, fake *bitbuckettest.Server, prID int) string {
	t.Helper()
	summaries, _ := live(fake, prID)
	if len(summaries) != 1 {
		t.Fatalf("%d summaries, want 1", len(summaries))
	}
	return summaries[0].Body
}

// memRows returns the summary table's rows as "State | Severity | where | title"
// without the comment links.
func memRows(body string) []string {
	var out []string
	link := regexp.MustCompile(`\[(` + "`[^`]*`" + `)\]\([^)]*\)`)
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| State") || strings.HasPrefix(l, "| Path") || strings.HasPrefix(l, "| ---") {
			continue
		}
		if strings.Contains(l, "get_file") || strings.Contains(l, "list_dir") {
			continue
		}
		out = append(out, link.ReplaceAllString(l, "$1"))
	}
	return out
}

func wantRows(t *testing.T, push string, body string, want ...string) {
	t.Helper()
	got := memRows(body)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: summary table rows\n  %s\nwant\n  %s", push, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func inlineByTitle(t *testing.T, fake *bitbuckettest.Server, prID int, title string) bitbuckettest.Comment {
	t.Helper()
	_, inline := live(fake, prID)
	for _, c := range inline {
		if strings.Contains(firstLine(c.Body), title) {
			return c
		}
	}
	t.Fatalf("no inline comment %q", title)
	return bitbuckettest.Comment{}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestBitbucketReviewMemory is review memory's end-to-end test: the real
// binary, the fake Bitbucket, four pushes to one pull request, every stage
// as the n8n workflow calls it.
//
//  1. full review, two findings: both new, two inline comments;
//  2. a push fixing one (its line rewritten): resolved and its thread
//     resolved, the other still open, one new;
//  3. the author merges main (which changed README.md and
//     pkg/util/strings.go) and then fixes the second finding: the delta is
//     an interdiff of the pull request's own changes (handler.go only),
//     nothing of main's; the pure merge alone was a skip;
//  4. the pull request is merged: skipped with that reason.
//
// It logs the summary after each push, and the findings metrics with the
// resolution rate computed by the shipped recording rule (promtool).
func TestBitbucketReviewMemory(t *testing.T) {
	f := newMemFixture(t)
	const prID = 9
	pr := func(source, dest string) {
		f.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
			ID: prID, Title: "Reject empty tokens", Description: "Handle now refuses empty tokens.", Author: "Mina Park",
			SourceBranch: "feature/tokens", DestinationBranch: "main", SourceCommit: source, DestinationCommit: dest,
		})
	}
	pr(f.h1, f.d0)
	s := startBB(t, f.fake)
	fake := f.fake
	scout := `{"files":[]}`

	// Push 1: full review.
	r1 := s.review(t, fake, prID, scout, reviewOf("Empty tokens are refused; lookup can panic.", findingLookup, findingEmpty))
	if r1.ctx["mode"] != "full" {
		t.Fatalf("push 1 mode %v", r1.ctx["mode"])
	}
	if p := obj(r1.comments["posted"]); p["summary"] != "created" || p["inlineCreated"] != float64(2) {
		t.Errorf("push 1 posted %v", p)
	}
	body1 := summaryBody(t, fake, prID)
	t.Logf("summary after push 1 (full review):\n%s", body1)
	checkSummaryMarkdown(t, body1, f.h1)
	wantRows(t, "push 1", body1,
		"| New | High | `pkg/api/new.go:3` | lookup panics on short tokens |",
		"| New | Low | `pkg/api/handler.go:6` | empty check is redundant |")
	lookupComment := inlineByTitle(t, fake, prID, "lookup panics")

	// Push 2: lookup() fixed, trim() added.
	pr(f.h2, f.d0)
	r2 := s.review(t, fake, prID, scout, reviewOf("lookup checks the length now; trim can panic.", memTrim))
	if r2.ctx["mode"] != "delta" || r2.ctx["interdiff"] != nil {
		t.Fatalf("push 2 mode %v interdiff %v", r2.ctx["mode"], r2.ctx["interdiff"])
	}
	p2 := obj(r2.comments["posted"])
	if p2["summary"] != "updated" || p2["inlineCreated"] != float64(1) || p2["threadsResolved"] != float64(1) {
		t.Errorf("push 2 posted %v", p2)
	}
	body2 := summaryBody(t, fake, prID)
	t.Logf("summary after push 2 (delta: lookup fixed, trim added):\n%s", body2)
	checkSummaryMarkdown(t, body2, f.h2)
	wantRows(t, "push 2", body2,
		"| New | Medium | `pkg/api/new.go:10` | trim panics on empty strings |",
		"| Still open | Low | `pkg/api/handler.go:6` | empty check is redundant |",
		"| Resolved | High | `pkg/api/new.go:3` | lookup panics on short tokens |")
	if c := inlineByTitle(t, fake, prID, "lookup panics"); !c.Resolved || c.ID != lookupComment.ID {
		t.Errorf("push 2: the resolved finding's thread %d is not resolved: %+v", lookupComment.ID, c)
	}
	if c := inlineByTitle(t, fake, prID, "empty check"); c.Resolved {
		t.Errorf("push 2: the open finding's thread was resolved")
	}
	if !strings.Contains(body2, "](https://bitbucket.example/acme/app/pull-requests/9/_/diff#comment-") {
		t.Errorf("push 2: the table does not link the inline comments")
	}

	// Push 3: main moved on (README, util); the author merges it: that
	// alone changes nothing of the pull request's own: skip.
	f.fake.SetBranch(bbWorkspace, bbSlug, "main", f.d1)
	pr(f.m, f.d1)
	code, merged := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": prID})
	mustOK(t, "/v1/context", code, merged)
	if merged["mode"] != "skip" || !strings.Contains(fmt.Sprint(merged["skipReason"]), "merged the destination") {
		t.Errorf("the merge alone: mode %v skipReason %q, want skip", merged["mode"], merged["skipReason"])
	}
	// Then the author fixes the empty check: the delta reviews handler.go
	// only, with the pull request's own diff.
	pr(f.h3, f.d1)
	mark := len(fake.Requests())
	r3 := s.review(t, fake, prID, scout, reviewOf("Validate covers empty tokens.", ""))
	if r3.ctx["mode"] != "delta" || r3.ctx["interdiff"] != true || r3.ctx["reviewedCommit"] != f.h2 {
		t.Fatalf("push 3 mode %v interdiff %v reviewed %v; warnings %v", r3.ctx["mode"], r3.ctx["interdiff"], r3.ctx["reviewedCommit"], r3.ctx["warnings"])
	}
	files := byPath(list(r3.ctx["files"]))
	if len(files) != 1 || files["pkg/api/handler.go"] == nil {
		t.Errorf("push 3 files %v, want only pkg/api/handler.go (nothing of main's README.md or pkg/util/strings.go)", keys(files))
	}
	prompt := fmt.Sprint(obj(r3.merged["reviewPrompt"])["user"]) + fmt.Sprint(obj(r3.ctx["scoutPrompt"])["user"])
	for _, leak := range []string{"The token service", "strings.ToUpper", "pkg/util/strings.go", "README.md"} {
		if strings.Contains(prompt, leak) {
			t.Errorf("push 3: the prompts carry main's change %q", leak)
		}
	}
	for _, q := range fake.Requests()[mark:] {
		if q.Op == bitbuckettest.OpGetDiff && strings.Contains(q.EscapedPath, f.h3+".."+f.h2) {
			t.Errorf("push 3 asked for the plain delta %s", q.EscapedPath)
		}
	}
	t.Logf("push 3 context warnings: %v", r3.ctx["warnings"])
	body3 := summaryBody(t, fake, prID)
	t.Logf("summary after push 3 (main merged in, empty check removed; interdiff):\n%s", body3)
	checkSummaryMarkdown(t, body3, f.h3)
	wantRows(t, "push 3", body3,
		"| Still open | Medium | `pkg/api/new.go:10` | trim panics on empty strings |",
		"| Resolved | Low | `pkg/api/handler.go:6` | empty check is redundant |")
	if !inlineByTitle(t, fake, prID, "empty check").Resolved {
		t.Errorf("push 3: the resolved finding's thread is open")
	}

	// Push 4: the pull request is merged.
	if !fake.SetPullRequestState(bbWorkspace, bbSlug, prID, "MERGED") {
		t.Fatal("no pull request to merge")
	}
	before := len(fake.Requests())
	r4 := s.review(t, fake, prID, scout, "")
	if r4.ctx["mode"] != "skip" || r4.ctx["skip"] != true || r4.ctx["skipReason"] != "the pull request is MERGED" {
		t.Errorf("push 4: mode %v skip %v reason %q", r4.ctx["mode"], r4.ctx["skip"], r4.ctx["skipReason"])
	}
	if n := len(fake.Requests()) - before; n != 1 {
		t.Errorf("push 4 made %d Bitbucket calls, want 1 (the pull request)", n)
	}
	t.Logf("push 4 (merged): mode %v, skipReason %q; the summary stays as after push 3", r4.ctx["mode"], r4.ctx["skipReason"])
	if summaryBody(t, fake, prID) != body3 {
		t.Error("push 4 changed the summary")
	}

	// The metrics, and the resolution rate by the shipped recording rule.
	text := s.metricsText(t)
	counts := map[string]float64{}
	var lines []string
	for _, st := range []string{"posted", "resolved", "outdated", "still_open"} {
		series := fmt.Sprintf(`prscout_findings_total{repository="acme/app",state="%s"}`, st)
		counts[st] = metricValue(text, series)
		lines = append(lines, fmt.Sprintf("%s %v", series, counts[st]))
	}
	t.Logf("metrics after the four pushes:\n%s", strings.Join(lines, "\n"))
	if counts["posted"] != 3 || counts["resolved"] != 2 || counts["still_open"] != 2 || counts["outdated"] != 0 {
		t.Errorf("findings counted %v, want posted 3, resolved 2, still_open 2 (1 per delta), outdated 0", counts)
	}
	rate := promtoolResolutionRate(t, counts["posted"], counts["resolved"])
	if rate != "" {
		t.Logf("prscout:findings_resolution_rate:ratio_30d{repository=\"acme/app\"} = %s (RovoDev reference: 0.387)", rate)
	}
}

// promtoolResolutionRate evaluates the shipped recording rule
// prscout:findings_resolution_rate:ratio_30d with `promtool test rules` on
// the counts read from /metrics (each series 0 before the pull request, the
// count after it) and returns the rate it agreed to; "" when promtool is not
// installed.
func promtoolResolutionRate(t *testing.T, posted, resolved float64) string {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool not installed (scripts/install-ops-tools.sh): the resolution rate is not evaluated")
		return ""
	}
	rules, err := filepath.Abs("../../ops/prometheus-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.FormatFloat(resolved/posted, 'g', -1, 64)
	test := fmt.Sprintf(`rule_files: [%q]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'prscout_findings_total{job="prscout",repository="acme/app",state="posted"}'
        values: '0 %v'
      - series: 'prscout_findings_total{job="prscout",repository="acme/app",state="resolved"}'
        values: '0 %v'
    promql_expr_test:
      - expr: prscout:findings_resolution_rate:ratio_30d
        eval_time: 1m
        exp_samples:
          - labels: 'prscout:findings_resolution_rate:ratio_30d{job="prscout",repository="acme/app"}'
            value: %s
`, rules, posted, resolved, want)
	path := filepath.Join(t.TempDir(), "resolution_test.yml")
	if err := os.WriteFile(path, []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
		return ""
	}
	return want
}
