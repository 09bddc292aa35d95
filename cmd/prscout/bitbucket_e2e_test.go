package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prscout/prscout/bitbucket"
	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// These tests run the real binary against bitbuckettest, the in-memory fake
// of Bitbucket Cloud, on loopback. The fake is filled from a real git
// repository made in t.TempDir: every file of every commit, the commit
// graph and the diffs git computes.

const (
	bbWorkspace = "acme"
	bbSlug      = "app"
	bbEmail     = "bot@example.invalid"
	bbToken     = "e2e-token"
)

// gitRaw runs git like git() but returns the output untouched (file
// contents and diffs keep their trailing newlines).
func gitRaw(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

// bbRepo is a git repository mirrored into the fake Bitbucket.
type bbRepo struct {
	dir  string
	fake *bitbuckettest.Server
}

// load copies commit c (its parents and every file) into the fake.
func (r *bbRepo) load(t *testing.T, c string) {
	t.Helper()
	fields := strings.Fields(git(t, r.dir, "rev-list", "--parents", "-n", "1", c))
	r.fake.AddCommit(bbWorkspace, bbSlug, fields[0], fields[1:]...)
	for _, p := range strings.Split(strings.TrimRight(string(gitRaw(t, r.dir, "ls-tree", "-r", "-z", "--name-only", c)), "\x00"), "\x00") {
		if p == "" {
			continue
		}
		r.fake.SetFile(bbWorkspace, bbSlug, fields[0], p, gitRaw(t, r.dir, "cat-file", "blob", c+":"+p))
	}
}

// diff stores git's diff base..head (30 lines of context, renames found) in
// the fake.
func (r *bbRepo) diff(t *testing.T, base, head string) {
	t.Helper()
	r.fake.SetDiff(bbWorkspace, bbSlug, base, head, string(gitRaw(t, r.dir, "diff", "-M", "-U30", base, head)))
}

// pr stores (or replaces) pull request id with the given source commit.
func (r *bbRepo) pr(id int, title, source, dest string) {
	r.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
		ID: id, Title: title, Description: "Handle now refuses empty tokens.", Author: "Mina Park",
		SourceBranch: "feature/tokens", DestinationBranch: "main",
		SourceCommit: source, DestinationCommit: dest,
	})
}

// bbFixture is the repository of the Bitbucket tests:
//
//	base  main: go.mod, auth package, handler, README, .env
//	h1    feature: handler checks empty tokens, new.go adds lookup()
//	h2    feature: new.go adds trim() below lookup()
type bbFixture struct {
	*bbRepo
	base, h1, h2 string
}

func newBBFixture(t *testing.T) *bbFixture {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeRepoFile(t, dir, "pkg/auth/token.go", "package auth\n\n// Validate reports whether tok is a valid session token.\nfunc Validate(tok string) bool { return len(tok) == 32 }\n")
	writeRepoFile(t, dir, "pkg/auth/claims.go", "package auth\n\ntype Claims struct{ Subject string }\n")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\treturn 200\n}\n")
	writeRepoFile(t, dir, "go.mod", "module example.com/app\n")
	writeRepoFile(t, dir, "README.md", "# app\n")
	writeRepoFile(t, dir, ".env", "SECRET_TOKEN=hunter2\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif tok == \"\" || !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\tuser := lookup(tok)\n\treturn 200 + len(user) - len(user)\n}\n")
	writeRepoFile(t, dir, "pkg/api/new.go", "package api\n\nfunc lookup(tok string) string { return tok[:4] }\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "feature: check empty tokens")
	writeRepoFile(t, dir, "pkg/api/new.go", "package api\n\nfunc lookup(tok string) string { return tok[:4] }\n\nfunc trim(s string) string { return s[1:] }\n")
	git(t, dir, "commit", "-q", "-am", "feature: trim helper")

	f := &bbFixture{bbRepo: &bbRepo{dir: dir, fake: bitbuckettest.NewServer()}}
	t.Cleanup(f.fake.Close)
	f.fake.RequireBasic(bbEmail, bbToken)
	f.base = git(t, dir, "rev-parse", "main")
	f.h1 = git(t, dir, "rev-parse", "feature~1")
	f.h2 = git(t, dir, "rev-parse", "feature")
	for _, c := range []string{f.base, f.h1, f.h2} {
		f.load(t, c)
	}
	f.fake.SetBranch(bbWorkspace, bbSlug, "main", f.base)
	f.fake.SetBranch(bbWorkspace, bbSlug, "feature/tokens", f.h1)
	f.diff(t, f.base, f.h1)
	f.diff(t, f.base, f.h2)
	f.diff(t, f.h1, f.h2)
	return f
}

// startBB starts the binary with the Bitbucket provider on the fake.
func startBB(t *testing.T, fake *bitbuckettest.Server, env ...string) *server {
	t.Helper()
	return startServer(t, append([]string{
		"PRSCOUT_BITBUCKET_BASE_URL=" + fake.BaseURL,
		"PRSCOUT_BITBUCKET_EMAIL=" + bbEmail,
		"PRSCOUT_BITBUCKET_TOKEN=" + bbToken,
		"PRSCOUT_LOG_LEVEL=warn",
	}, env...)...)
}

// bbAccessToken is the repository access token of startBBAccessToken.
const bbAccessToken = "repo-access-token"

// startBBAccessToken starts the binary with a repository access token
// (Bearer) instead of an API token: the credential Bitbucket sends
// rate-limit headers to. The fake is set to require it.
func startBBAccessToken(t *testing.T, fake *bitbuckettest.Server, env ...string) *server {
	t.Helper()
	fake.RequireBearer(bbAccessToken)
	return startServer(t, append([]string{
		"PRSCOUT_BITBUCKET_BASE_URL=" + fake.BaseURL,
		"PRSCOUT_BITBUCKET_ACCESS_TOKEN=" + bbAccessToken,
		"PRSCOUT_LOG_LEVEL=warn",
	}, env...)...)
}

const bbScout = "Here is what I need:\n```json\n" + `{"files":[{"path":"pkg/api/handler.go","needs":[
 {"op":"get_file","path":"pkg/auth/token.go","reason":"Validate contract"},
 {"op":"list_dir","path":"pkg/auth/","reason":"other auth types"},
 {"op":"get_file","path":"../../etc/passwd","reason":"escape"},
 {"op":"get_file","path":".env","reason":"secret"},
 {"op":"get_file","path":"pkg/api/handler.go","reason":"changed"},
 {"op":"get_file","path":"pkg/nope/missing.go","reason":"guess"}
]}]}` + "\n```"

// Findings of the review LLM. findingLookup is reported by both runs: the
// second run must not post it again.
const (
	findingLookup = `{"path":"pkg/api/new.go","line":3,"existingCode":"func lookup(tok string) string { return tok[:4] }","severity":"high","title":"lookup panics on short tokens","body":"tok[:4] panics when len(tok) < 4."}`
	findingEmpty  = `{"path":"pkg/api/handler.go","line":6,"existingCode":"if tok == \"\" || !auth.Validate(tok) {","severity":"low","title":"empty check is redundant","body":"Validate already refuses tokens that are not 32 bytes long."}`
	findingTrim   = `{"path":"pkg/api/new.go","line":5,"existingCode":"func trim(s string) string { return s[1:] }","severity":"medium","title":"trim panics on empty strings","body":"s[1:] panics when s is empty."}`
)

func reviewOf(summary string, findings ...string) string {
	return "```json\n" + `{"summary":"` + summary + `","findings":[` + strings.Join(findings, ",") + "]}\n```"
}

// run is one pass of the n8n workflow over a pull request.
type reviewRun struct {
	ctx, needs, batch, merged, comments map[string]any
	// calls are the fake's requests by operation during the run.
	calls map[string]int
	// metrics are prscout_upstream_requests_total increases by operation.
	metrics map[string]float64
}

func (r reviewRun) total() int {
	n := 0
	for _, v := range r.calls {
		n += v
	}
	return n
}

// callsSince counts the fake's requests after the first `mark` by operation.
func callsSince(fake *bitbuckettest.Server, mark int) map[string]int {
	out := map[string]int{}
	for _, r := range fake.Requests()[mark:] {
		out[r.Op]++
	}
	return out
}

// upstreamMetrics reads prscout_upstream_requests_total by
// "service/operation/code".
func (s *server) upstreamMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	re := regexp.MustCompile(`^prscout_upstream_requests_total\{code="(\d+)",operation="([^"]+)",service="([^"]+)"\} (\S+)$`)
	for _, line := range strings.Split(s.metricsText(t), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[4], 64)
			out[m[3]+"/"+m[2]+"/"+m[1]] = v
		}
	}
	return out
}

func (s *server) metricsText(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// metricValue returns the value of the exposition line that starts with
// name{labels} (labels as Prometheus prints them, sorted), or 0.
func metricValue(text, series string) float64 {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			v, _ := strconv.ParseFloat(rest, 64)
			return v
		}
	}
	return 0
}

// review drives the five stages for pull request prID exactly as the n8n
// workflow does, each answer fed to the next (the needs request carries the
// context's candidates). It stops after /v1/context
// when the context says skip (the workflow's IF node).
func (s *server) review(t *testing.T, fake *bitbuckettest.Server, prID int, scout, review string) reviewRun {
	t.Helper()
	mark := len(fake.Requests())
	before := s.upstreamMetrics(t)
	var r reviewRun
	code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": prID})
	mustOK(t, "/v1/context", code, ctxAns)
	r.ctx = ctxAns
	if ctxAns["skip"] != true {
		code, r.needs = s.post(t, "/v1/needs", map[string]any{
			"workspace": ctxAns["workspace"], "repoSlug": ctxAns["repoSlug"], "ref": ctxAns["ref"],
			"files": ctxAns["files"], "scout": scout, "candidates": ctxAns["candidates"],
		})
		mustOK(t, "/v1/needs", code, r.needs)
		code, r.batch = s.post(t, "/v1/repository/batch", r.needs)
		mustOK(t, "/v1/repository/batch", code, r.batch)
		code, r.merged = s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": r.batch["results"], "rejected": r.batch["rejected"]})
		mustOK(t, "/v1/merge", code, r.merged)
		code, r.comments = s.post(t, "/v1/comments", commentsRequest(r.merged, review))
		mustOK(t, "/v1/comments", code, r.comments)
	}
	r.calls = callsSince(fake, mark)
	if os.Getenv("BBDEBUG") != "" {
		for _, q := range fake.Requests()[mark:] {
			t.Logf("%s %s %s?%s", q.Op, q.Method, q.EscapedPath, q.Query.Encode())
		}
	}
	r.metrics = map[string]float64{}
	for k, v := range s.upstreamMetrics(t) {
		if d := v - before[k]; d > 0 {
			parts := strings.SplitN(k, "/", 3)
			r.metrics[parts[1]] += d
		}
	}
	return r
}

// commentsRequest is what the workflow sends to /v1/comments: the merge
// answer plus the review LLM's raw text, posting for real.
func commentsRequest(merged map[string]any, review string) map[string]any {
	in := map[string]any{}
	for k, v := range merged {
		in[k] = v
	}
	in["review"] = review
	in["dryRun"] = false
	return in
}

func fmtCalls(calls map[string]int) string {
	ops := make([]string, 0, len(calls))
	total := 0
	for op, n := range calls {
		ops = append(ops, op)
		total += n
	}
	sort.Strings(ops)
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, " %s=%d", op, calls[op])
	}
	return fmt.Sprintf("%d calls:%s", total, b.String())
}

// live returns the fake's live comments: the summaries and the inline ones.
func live(fake *bitbuckettest.Server, prID int) (summaries, inline []bitbuckettest.Comment) {
	for _, c := range fake.Comments(bbWorkspace, bbSlug, prID) {
		switch {
		case c.Deleted:
		case c.Path != "":
			inline = append(inline, c)
		default:
			summaries = append(summaries, c)
		}
	}
	return summaries, inline
}

var findingMarkerLine = regexp.MustCompile(`(?m)^\[prscout-finding\]: # "fp=([0-9a-f]{16}) v=1"$`)

// checkNoDuplicates fails when two live inline comments carry one fingerprint.
func checkNoDuplicates(t *testing.T, inline []bitbuckettest.Comment) {
	t.Helper()
	seen := map[string]int64{}
	for _, c := range inline {
		m := findingMarkerLine.FindStringSubmatch(c.Body)
		if m == nil {
			t.Errorf("inline comment %d has no fingerprint marker:\n%s", c.ID, c.Body)
			continue
		}
		if id, dup := seen[m[1]]; dup {
			t.Errorf("inline comments %d and %d are duplicates (fp %s)", id, c.ID, m[1])
		}
		seen[m[1]] = c.ID
	}
}

func inlineAt(inline []bitbuckettest.Comment) map[string]int {
	out := map[string]int{}
	for _, c := range inline {
		to := 0
		if c.To != nil {
			to = *c.To
		}
		out[fmt.Sprintf("%s:%d", c.Path, to)]++
	}
	return out
}

// checkSummaryMarkdown: the summary holds its marker only as an invisible
// Markdown link reference definition (own line, after a blank line), and no
// HTML, which Bitbucket Cloud would show as text.
func checkSummaryMarkdown(t *testing.T, body, head string) {
	t.Helper()
	marker := `[prscout]: # "review head=` + head + ` v=1"`
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	idx := -1
	for i, l := range lines {
		if l == marker {
			idx = i
		}
	}
	if idx < 1 || strings.TrimSpace(lines[idx-1]) != "" {
		t.Errorf("summary lacks the marker %q on its own line after a blank line:\n%s", marker, body)
	}
	visible := strings.Join(append(append([]string{}, lines[:max(idx, 0)]...), lines[idx+1:]...), "\n")
	for _, leak := range []string{"review head=", "[prscout]", head} {
		if strings.Contains(visible, leak) {
			t.Errorf("summary shows marker text %q outside the marker line:\n%s", leak, body)
		}
	}
	if regexp.MustCompile(`(?i)<(!--|details|summary|sub|sup|br|p|div|span|a )`).MatchString(body) {
		t.Errorf("summary holds HTML, which Bitbucket Cloud shows literally:\n%s", body)
	}
}

// TestBitbucketReviewTwice is the Bitbucket issue's end-to-end test: a pull
// request goes through all five stages twice (a full review that posts, then
// a delta review after a new commit), a third pass at the same head skips
// without fetching a diff, and a force-push falls back to a full review.
// It logs the upstream calls per run, quoted in docs/bitbucket-jira.md.
func TestBitbucketReviewTwice(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	fake := f.fake

	// Run 1: full review, everything posted.
	r1 := s.review(t, fake, 7, bbScout, reviewOf("Empty tokens are refused; lookup can panic.", findingLookup, findingEmpty))
	if r1.ctx["mode"] != "full" || r1.ctx["ref"] != f.h1 || r1.ctx["base"] != f.base {
		t.Fatalf("run 1 context mode/ref/base = %v/%v/%v, want full/%s/%s", r1.ctx["mode"], r1.ctx["ref"], r1.ctx["base"], f.h1, f.base)
	}
	files := byPath(list(r1.ctx["files"]))
	if files["pkg/api/handler.go"] == nil || files["pkg/api/new.go"] == nil || len(files) != 2 {
		t.Errorf("run 1 files = %v, want handler.go and new.go", keys(files))
	}
	if !strings.Contains(fmt.Sprint(files["pkg/api/handler.go"]["source"]), "user := lookup(tok)") {
		t.Errorf("run 1 handler.go source is not the head's")
	}
	if pr := obj(r1.ctx["pr"]); pr["title"] != "Reject empty tokens" || pr["destinationBranch"] != "main" {
		t.Errorf("run 1 pr = %v", pr)
	}
	reqs := byPath(list(r1.needs["requests"]))
	if len(reqs) != 3 || reqs["pkg/auth/token.go"] == nil || reqs["pkg/auth"] == nil || reqs["pkg/nope/missing.go"] == nil {
		t.Errorf("run 1 needs requests = %v, want token.go, pkg/auth, missing.go", keys(reqs))
	}
	if n := len(list(r1.needs["rejected"])); n != 3 {
		t.Errorf("run 1 needs rejected %d, want 3 (escape, secret, changed file): %v", n, r1.needs["rejected"])
	}
	results := byPath(list(r1.batch["results"]))
	if r := results["pkg/auth/token.go"]; r == nil || r["ok"] != true || !strings.Contains(fmt.Sprint(r["content"]), "func Validate") {
		t.Errorf("run 1 token.go lookup = %v", r)
	}
	if r := results["pkg/auth"]; r == nil || r["ok"] != true || len(list(r["entries"])) != 2 {
		t.Errorf("run 1 pkg/auth listing = %v, want 2 entries", r)
	}
	if r := results["pkg/nope/missing.go"]; r == nil || r["ok"] != false || r["error"] == "" {
		t.Errorf("run 1 missing.go lookup = %v, want ok:false", r)
	}
	if !strings.Contains(fmt.Sprint(obj(r1.merged["reviewPrompt"])["user"]), "func Validate(tok string) bool") {
		t.Errorf("run 1 review prompt lacks the looked-up token.go")
	}
	posted := obj(r1.comments["posted"])
	if posted["summary"] != "created" || posted["inlineCreated"] != float64(2) || posted["inlineSkipped"] != float64(0) {
		t.Errorf("run 1 posted = %v, want summary created, 2 inline created", posted)
	}
	summaries, inline := live(fake, 7)
	if len(summaries) != 1 {
		t.Fatalf("run 1 left %d summaries, want 1", len(summaries))
	}
	summaryID := summaries[0].ID
	checkSummaryMarkdown(t, summaries[0].Body, f.h1)
	if got := inlineAt(inline); len(inline) != 2 || got["pkg/api/new.go:3"] != 1 || got["pkg/api/handler.go:6"] != 1 {
		t.Errorf("run 1 inline comments at %v, want new.go:3 and handler.go:6", got)
	}
	for _, c := range inline {
		if c.From != nil {
			t.Errorf("inline comment %s:%v anchored on the old side (from=%d): want inline.to only", c.Path, c.To, *c.From)
		}
	}
	checkNoDuplicates(t, inline)

	// A new commit on the branch.
	f.pr(7, "Reject empty tokens", f.h2, f.base)
	f.fake.SetBranch(bbWorkspace, bbSlug, "feature/tokens", f.h2)

	// Run 2: delta review from the reviewed head; the summary is updated in
	// place and only the new finding is posted.
	r2 := s.review(t, fake, 7, bbScout, reviewOf("trim can panic too.", findingLookup, findingTrim))
	if r2.ctx["mode"] != "delta" || r2.ctx["reviewedCommit"] != f.h1 || r2.ctx["ref"] != f.h2 {
		t.Fatalf("run 2 context mode/reviewedCommit/ref = %v/%v/%v, want delta/%s/%s", r2.ctx["mode"], r2.ctx["reviewedCommit"], r2.ctx["ref"], f.h1, f.h2)
	}
	if files := byPath(list(r2.ctx["files"])); len(files) != 1 || files["pkg/api/new.go"] == nil {
		t.Errorf("run 2 files = %v, want only new.go (changed since the reviewed head)", keys(files))
	} else if d := fmt.Sprint(files["pkg/api/new.go"]["diff"]); !strings.Contains(d, "+func trim(s string) string") || strings.Contains(d, "+func lookup") {
		t.Errorf("run 2 diff is not the delta h1..h2:\n%s", d)
	}
	posted = obj(r2.comments["posted"])
	if posted["summary"] != "updated" || posted["summaryId"] != float64(summaryID) || posted["inlineCreated"] != float64(1) || posted["inlineSkipped"] != float64(1) {
		t.Errorf("run 2 posted = %v, want summary updated (id %d), 1 inline created, 1 skipped", posted, summaryID)
	}
	summaries, inline = live(fake, 7)
	if len(summaries) != 1 || summaries[0].ID != summaryID {
		t.Fatalf("run 2 summaries = %d (first id %v), want the one summary %d updated in place", len(summaries), summaries, summaryID)
	}
	checkSummaryMarkdown(t, summaries[0].Body, f.h2)
	if !strings.Contains(summaries[0].Body, "trim can panic too.") {
		t.Errorf("run 2 summary was not updated:\n%s", summaries[0].Body)
	}
	if got := inlineAt(inline); len(inline) != 3 || got["pkg/api/new.go:5"] != 1 || got["pkg/api/new.go:3"] != 1 || got["pkg/api/handler.go:6"] != 1 {
		t.Errorf("run 2 inline comments at %v, want the two of run 1 plus new.go:5", got)
	}
	checkNoDuplicates(t, inline)

	// Run 3: the same head again → skip, no diff fetched, nothing posted.
	r3 := s.review(t, fake, 7, bbScout, "")
	if r3.ctx["mode"] != "skip" || r3.ctx["skip"] != true {
		t.Fatalf("run 3 mode/skip = %v/%v, want skip/true", r3.ctx["mode"], r3.ctx["skip"])
	}
	if n := r3.calls[bitbuckettest.OpGetDiff] + r3.calls[bitbuckettest.OpPRDiff] + r3.calls[bitbuckettest.OpDiffstat]; n != 0 {
		t.Errorf("run 3 (skip) fetched a diff: %v", r3.calls)
	}
	if n := r3.calls[bitbuckettest.OpCreateComment] + r3.calls[bitbuckettest.OpUpdateComment]; n != 0 {
		t.Errorf("run 3 (skip) wrote comments: %v", r3.calls)
	}

	// Force-push: the branch is rewritten from the base; the reviewed head
	// is no longer an ancestor → a full review with a warning.
	git(t, f.dir, "checkout", "-q", "-b", "rebased", f.base)
	writeRepoFile(t, f.dir, "pkg/api/new.go", "package api\n\nfunc lookup(tok string) string { return tok }\n")
	git(t, f.dir, "add", "-A")
	git(t, f.dir, "commit", "-q", "-m", "feature, rewritten")
	h3 := git(t, f.dir, "rev-parse", "rebased")
	f.load(t, h3)
	f.diff(t, f.base, h3)
	f.pr(7, "Reject empty tokens", h3, f.base)
	mark := len(fake.Requests())
	code, r4 := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 7})
	mustOK(t, "/v1/context", code, r4)
	rebaseCalls := callsSince(fake, mark)
	if r4["mode"] != "full" || r4["ref"] != h3 {
		t.Errorf("after force-push mode/ref = %v/%v, want full/%s", r4["mode"], r4["ref"], h3)
	}
	if w := fmt.Sprint(r4["warnings"]); !strings.Contains(w, "no longer an ancestor") || !strings.Contains(w, f.h2[:12]) {
		t.Errorf("after force-push warnings = %v, want one saying the reviewed %s is no longer an ancestor", w, f.h2[:12])
	}

	// The figures docs/bitbucket-jira.md quotes.
	for _, x := range []struct {
		name string
		r    reviewRun
	}{{"full", r1}, {"delta", r2}, {"skip", r3}} {
		t.Logf("upstream calls per run: %-5s %s (prscout /metrics: %v)", x.name, fmtCalls(x.r.calls), x.r.metrics)
		var sum float64
		for _, v := range x.r.metrics {
			sum += v
		}
		if int(sum) != x.r.total() {
			t.Errorf("%s run: prscout_upstream_requests_total rose by %v, the fake saw %d requests", x.name, sum, x.r.total())
		}
	}
	t.Logf("upstream calls per run: %-5s %s", "rebase", fmtCalls(rebaseCalls)+" (context only)")
	// docs/bitbucket-jira.md quotes these figures: keep them true.
	readme, err := os.ReadFile("../../docs/bitbucket-jira.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\| (full|delta|skip) \([^|]*\| (\d+) \|`).FindAllStringSubmatch(string(readme), -1) {
		quoted[m[1]], _ = strconv.Atoi(m[2])
	}
	for mode, n := range map[string]int{"full": r1.total(), "delta": r2.total(), "skip": r3.total()} {
		if quoted[mode] != n {
			t.Errorf("docs/bitbucket-jira.md \"Upstream calls per review\" says %d calls for a %s run, measured %d: update the table", quoted[mode], mode, n)
		}
	}
	perHour := func(n int) int { return 1000 / max(n, 1) }
	fmt.Printf("docs/bitbucket-jira.md: full %d, delta %d, skip %d Bitbucket calls per run -> about %d full, %d delta or %d skip runs per hour within 1,000/hour\n",
		r1.total(), r2.total(), r3.total(), perHour(r1.total()), perHour(r2.total()), perHour(r3.total()))
}

// TestBitbucketCommentsIdempotent: n8n's retry-on-fail re-sends whole
// requests. The same /v1/comments request three times, then twice at once,
// and twice at once to two replicas, leave one summary and no duplicate
// inline comment.
func TestBitbucketCommentsIdempotent(t *testing.T) {
	f := newBBFixture(t)
	f.pr(8, "Reject empty tokens", f.h1, f.base)
	f.pr(9, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	s2 := startBB(t, f.fake)

	prepare := func(prID int) map[string]any {
		_, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": prID})
		code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": []any{}})
		mustOK(t, "/v1/merge", code, merged)
		return commentsRequest(merged, reviewOf("Two findings.", findingLookup, findingEmpty))
	}
	check := func(prID int, wantInline int) {
		t.Helper()
		summaries, inline := live(f.fake, prID)
		if len(summaries) != 1 {
			t.Errorf("PR %d: %d live summaries, want 1", prID, len(summaries))
		}
		if len(inline) != wantInline {
			t.Errorf("PR %d: %d live inline comments, want %d: %v", prID, len(inline), wantInline, inlineAt(inline))
		}
		checkNoDuplicates(t, inline)
	}

	in := prepare(8)
	for i := 1; i <= 3; i++ {
		code, out := s.post(t, "/v1/comments", in)
		mustOK(t, "/v1/comments", code, out)
		p := obj(out["posted"])
		want := map[bool]string{true: "created", false: "unchanged"}[i == 1]
		if p["summary"] != want {
			t.Errorf("send %d: posted.summary = %v, want %s", i, p["summary"], want)
		}
		if i > 1 && (p["inlineCreated"] != float64(0) || p["inlineSkipped"] != float64(2)) {
			t.Errorf("send %d: posted = %v, want 0 created, 2 skipped", i, p)
		}
	}
	check(8, 2)

	sendTogether := func(servers ...*server) {
		var wg sync.WaitGroup
		for _, srv := range servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, out := srv.post(t, "/v1/comments", in)
				if code != 200 {
					t.Errorf("concurrent send: status %d: %v", code, out)
				}
			}()
		}
		wg.Wait()
	}
	sendTogether(s, s)
	check(8, 2)

	// Two replicas (no shared lock) race on a fresh pull request.
	in = prepare(9)
	sendTogether(s, s2)
	check(9, 2)
	sendTogether(s, s2)
	check(9, 2)
}

// TestBitbucketFaults: a lookup that is rate limited (429 with Retry-After)
// then succeeds, a lookup that times out and Jira down: the review still
// completes, each failure isolated and reported.
func TestBitbucketFaults(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "PROJ-12 Reject empty tokens", f.h1, f.base)
	jira503 := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"errorMessages":["Jira is down for maintenance"]}`)
	}))
	s := startBB(t, f.fake,
		"PRSCOUT_JIRA_BASE_URL="+jira503, "PRSCOUT_JIRA_EMAIL=bot@example.invalid", "PRSCOUT_JIRA_TOKEN=j",
		"PRSCOUT_LOOKUP_TIMEOUT=2500ms", "PRSCOUT_BATCH_PARALLEL=1", "PRSCOUT_UPSTREAM_RETRIES=1")

	code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 7})
	mustOK(t, "/v1/context", code, ctxAns)
	if ctxAns["mode"] != "full" || len(list(ctxAns["files"])) != 2 {
		t.Errorf("context with Jira down: mode %v, %d files; want a full review of 2 files", ctxAns["mode"], len(list(ctxAns["files"])))
	}
	if w := fmt.Sprint(ctxAns["warnings"]); !strings.Contains(w, "jira PROJ-12") {
		t.Errorf("warnings = %v, want one naming jira and the key", w)
	}

	// Lookups run one at a time (PRSCOUT_BATCH_PARALLEL=1), in request
	// order, so the fake's fault queue for get_src decides deterministically:
	// token.go's metadata gets a 429 (retried after Retry-After: 1, then its
	// metadata and content pass), claims.go's metadata hangs past the lookup
	// timeout (2.5 s: room for the 1 s Retry-After on a loaded machine),
	// README.md is served normally.
	f.fake.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"})
	f.fake.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Times: 2})
	f.fake.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Delay: 5 * time.Second})
	code, batch := s.post(t, "/v1/repository/batch", map[string]any{
		"workspace": bbWorkspace, "repoSlug": bbSlug, "ref": ctxAns["ref"],
		"requests": []any{
			map[string]any{"op": "get_file", "path": "pkg/auth/token.go"},
			map[string]any{"op": "get_file", "path": "pkg/auth/claims.go"},
			map[string]any{"op": "list_dir", "path": "pkg/auth"},
			map[string]any{"op": "get_file", "path": "README.md"},
		},
	})
	mustOK(t, "/v1/repository/batch", code, batch)
	results := byPath(list(batch["results"]))
	if r := results["pkg/auth/token.go"]; r == nil || r["ok"] != true || !strings.Contains(fmt.Sprint(r["content"]), "func Validate") {
		t.Errorf("rate-limited lookup = %v, want ok after the retry", r)
	}
	if r := results["pkg/auth/claims.go"]; r == nil || r["ok"] != false || !strings.Contains(fmt.Sprint(r["error"]), "timed out") {
		t.Errorf("slow lookup = %v, want ok:false timed out", r)
	}
	if r := results["pkg/auth"]; r == nil || r["ok"] != true {
		t.Errorf("listing = %v, want ok", r)
	}
	if r := results["README.md"]; r == nil || r["ok"] != true || r["content"] != "# app\n" {
		t.Errorf("README.md lookup = %v, want ok", r)
	}
	if st := obj(batch["stats"]); st["ok"] != float64(3) || st["failed"] != float64(1) {
		t.Errorf("batch stats = %v, want 3 ok, 1 failed", st)
	}

	// The review completes with the failure reported to the reviewer.
	code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": batch["results"]})
	mustOK(t, "/v1/merge", code, merged)
	add := byPath(list(merged["additionalContext"]))
	if a := add["pkg/auth/claims.go"]; a == nil || a["ok"] != false || !strings.Contains(fmt.Sprint(a["error"]), "timed out") {
		t.Errorf("merge kept the timeout as %v, want ok:false with the error", a)
	}
	// Posting: Bitbucket refuses the first inline comment (a 500 on a POST
	// is not retried: it may have been created). The call still succeeds,
	// the finding is listed in the summary instead, and n8n's retry of the
	// same request posts it and takes it out of the summary.
	f.fake.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{Status: http.StatusInternalServerError})
	in := commentsRequest(merged, reviewOf("Fine.", findingLookup, findingEmpty))
	code, com := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, com)
	if p := obj(com["posted"]); p["summary"] != "created" || p["inlineCreated"] != float64(1) || p["inlineFailed"] != float64(1) || len(list(p["errors"])) != 1 {
		t.Errorf("posted = %v, want the summary, 1 inline comment created and 1 failed with its error", p)
	}
	summaries, inline := live(f.fake, 7)
	if len(summaries) != 1 || len(inline) != 1 || !strings.Contains(summaries[0].Body, "Could not be posted on the diff (1)") ||
		!strings.Contains(summaries[0].Body, "tok[:4] panics") {
		t.Fatalf("after a failed inline post: %d summaries, %d inline; the summary must list the failed finding:\n%v", len(summaries), len(inline), summaries)
	}
	checkSummaryMarkdown(t, summaries[0].Body, fmt.Sprint(ctxAns["ref"]))
	code, com = s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, com)
	if p := obj(com["posted"]); p["summary"] != "updated" || p["inlineCreated"] != float64(1) || p["inlineSkipped"] != float64(1) || p["inlineFailed"] != float64(0) {
		t.Errorf("retry posted = %v, want summary updated, 1 created, 1 skipped", p)
	}
	summaries, inline = live(f.fake, 7)
	if len(summaries) != 1 || len(inline) != 2 || strings.Contains(summaries[0].Body, "Could not be posted") {
		t.Errorf("after the retry: %d summaries, %d inline, summary still lists a failure: %v", len(summaries), len(inline), summaries)
	}
	checkNoDuplicates(t, inline)

	m := s.metricsText(t)
	for series, want := range map[string]float64{
		`prscout_upstream_requests_total{code="429",operation="get_src",service="bitbucket"}`: 1,
		`prscout_upstream_retries_total{operation="get_src",service="bitbucket"}`:             1,
		`prscout_upstream_requests_total{code="503",operation="get_issue",service="jira"}`:    2,
		`prscout_upstream_retries_total{operation="get_issue",service="jira"}`:                1,
		`prscout_lookups_total{op="get_file",outcome="timeout"}`:                              1,
	} {
		if got := metricValue(m, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}

	t.Run("jira unreachable", func(t *testing.T) {
		s := startBB(t, f.fake, "PRSCOUT_JIRA_BASE_URL=http://"+freeAddr(t), "PRSCOUT_JIRA_PAT=p", "PRSCOUT_UPSTREAM_RETRIES=1")
		f.pr(11, "PROJ-12 Reject empty tokens", f.h1, f.base)
		code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 11})
		mustOK(t, "/v1/context", code, ctxAns)
		if w := fmt.Sprint(ctxAns["warnings"]); !strings.Contains(w, "jira PROJ-12") || len(list(ctxAns["files"])) != 2 {
			t.Errorf("warnings = %v (%d files), want a jira warning and the full context", w, len(list(ctxAns["files"])))
		}
	})
}

// httpServer starts a loopback server for the test and returns its URL.
func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestContextFromWebhookBody: /v1/context takes Bitbucket's raw webhook body,
// and the same wrapped as n8n's Webhook node item, with the same answer as
// by prId.
func TestContextFromWebhookBody(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)

	code, byID := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 7})
	mustOK(t, "/v1/context", code, byID)
	event := f.fake.PullRequestEvent(bbWorkspace, bbSlug, 7)
	if event == nil {
		t.Fatal("no webhook body for PR 7")
	}
	wrapped := []byte(`{"headers":{"x-event-key":"pullrequest:updated","content-type":"application/json"},"params":{},"query":{},"body":` + string(event) + `}`)
	for name, body := range map[string][]byte{"raw": event, "n8n item": wrapped} {
		t.Run(name, func(t *testing.T) {
			code, got := s.post(t, "/v1/context", body)
			mustOK(t, "/v1/context", code, got)
			a, b := canon(t, byID), canon(t, got)
			if a != b {
				t.Errorf("answer differs from the prId answer:\nby prId: %.600s\nwebhook: %.600s", a, b)
			}
		})
	}
}

// canon is v as JSON with sorted keys, volatile timings removed.
func canon(t *testing.T, v map[string]any) string {
	t.Helper()
	c := map[string]any{}
	for k, x := range v {
		c[k] = x
	}
	if st := obj(c["stats"]); st != nil {
		st2 := map[string]any{}
		for k, x := range st {
			if !strings.HasSuffix(k, "Ms") && !strings.Contains(strings.ToLower(k), "duration") {
				st2[k] = x
			}
		}
		c["stats"] = st2
	}
	return mustJSON(t, c)
}

// TestWebhookRelay: signed Bitbucket events are forwarded to n8n unchanged,
// with the forward header; everything else is refused.
func TestWebhookRelay(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	type got struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var received []got
	n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, got{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"message":"Workflow was started"}`)
	}))
	t.Cleanup(n8n.Close)
	const secret = "hook-secret"
	s := startBB(t, f.fake, "PRSCOUT_WEBHOOK_SECRET="+secret, "PRSCOUT_FORWARD_URL="+n8n.URL+"/webhook/prscout",
		"PRSCOUT_FORWARD_HEADER=X-N8N-Auth", "PRSCOUT_FORWARD_TOKEN=n8n-token")
	body := f.fake.PullRequestEvent(bbWorkspace, bbSlug, 7)

	uuid := "a1b2c3d4-0000-4000-8000-000000000001"
	send := func(t *testing.T, event, sig string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.base+"/v1/webhooks/bitbucket", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Event-Key", event)
		req.Header.Set("X-Request-UUID", uuid)
		if sig != "" {
			req.Header.Set("X-Hub-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("answer is not a JSON object: %s", raw)
		}
		return resp.StatusCode, out
	}
	forwarded := func() int { mu.Lock(); defer mu.Unlock(); return len(received) }

	t.Run("signed is forwarded", func(t *testing.T) {
		code, out := send(t, "pullrequest:updated", bitbucket.Sign([]byte(secret), body))
		if code != http.StatusAccepted || out["forwarded"] != true {
			t.Fatalf("status %d %v, want 202 forwarded", code, out)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(received) != 1 {
			t.Fatalf("n8n received %d requests, want 1", len(received))
		}
		r := received[0]
		if !bytes.Equal(r.body, body) {
			t.Errorf("body changed on the way:\n%s\nwant\n%s", r.body, body)
		}
		if r.header.Get("X-N8N-Auth") != "n8n-token" || r.header.Get("X-Event-Key") != "pullrequest:updated" || r.header.Get("X-Request-UUID") == "" {
			t.Errorf("forward headers = %v, want X-N8N-Auth, X-Event-Key and X-Request-UUID", r.header)
		}
	})
	t.Run("replay is not forwarded again", func(t *testing.T) {
		before := forwarded()
		code, out := send(t, "pullrequest:updated", bitbucket.Sign([]byte(secret), body))
		if code != http.StatusAccepted || out["status"] != "duplicate" || forwarded() != before {
			t.Errorf("status %d %v, forwarded %d more; want 202 duplicate, none", code, out, forwarded()-before)
		}
	})
	refused := []struct {
		name, event, sig string
		status           int
	}{
		{"unsigned", "pullrequest:updated", "", http.StatusUnauthorized},
		{"wrong signature", "pullrequest:updated", bitbucket.Sign([]byte("other-secret"), body), http.StatusUnauthorized},
		{"malformed signature", "pullrequest:updated", "sha1=abcd", http.StatusUnauthorized},
		{"other event", "repo:push", bitbucket.Sign([]byte(secret), body), http.StatusBadRequest},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := forwarded()
			code, out := send(t, tc.event, tc.sig)
			if code != tc.status || out["error"] == nil || out["message"] == "" {
				t.Errorf("status %d %v, want %d with error and message", code, out, tc.status)
			}
			if forwarded() != before {
				t.Errorf("a refused event was forwarded")
			}
		})
	}
	t.Run("n8n down", func(t *testing.T) {
		n8n.Close()
		uuid = "a1b2c3d4-0000-4000-8000-000000000002" // another delivery
		code, out := send(t, "pullrequest:created", bitbucket.Sign([]byte(secret), body))
		if code != http.StatusBadGateway || out["error"] != "forward_failed" {
			t.Errorf("status %d %v, want 502 forward_failed", code, out)
		}
	})
	m := s.metricsText(t)
	for series, want := range map[string]float64{
		`prscout_webhooks_total{outcome="forwarded"}`:      1,
		`prscout_webhooks_total{outcome="bad_signature"}`:  3,
		`prscout_webhooks_total{outcome="ignored"}`:        1,
		`prscout_webhooks_total{outcome="forward_failed"}`: 1,
		`prscout_webhooks_total{outcome="duplicate"}`:      1,
	} {
		if got := metricValue(m, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}

// TestGracefulShutdown: SIGTERM while a slow batch is in flight; the answer
// arrives whole and the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	f := newBBFixture(t)
	s := startBB(t, f.fake, "PRSCOUT_LOG_LEVEL=info")
	// Each lookup's first request is held 1.5 s by the fake.
	f.fake.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Delay: 1500 * time.Millisecond, Times: 2})

	type answer struct {
		code int
		out  map[string]any
	}
	done := make(chan answer, 1)
	go func() {
		code, out := s.post(t, "/v1/repository/batch", map[string]any{
			"workspace": bbWorkspace, "repoSlug": bbSlug, "ref": f.h1,
			"requests": []any{
				map[string]any{"op": "get_file", "path": "pkg/auth/token.go"},
				map[string]any{"op": "get_file", "path": "pkg/api/new.go"},
			},
		})
		done <- answer{code, out}
	}()
	// Wait until both lookups are being held upstream, then stop the server.
	select {
	case <-f.fake.CallsReached(bitbuckettest.OpGetSrc, 2):
	case a := <-done:
		t.Fatalf("batch answered before the delay: %d %v", a.code, a.out)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.code != 200 {
		t.Fatalf("in-flight batch: status %d %v, want 200", a.code, a.out)
	}
	results := byPath(list(a.out["results"]))
	if r := results["pkg/auth/token.go"]; r == nil || r["ok"] != true || !strings.Contains(fmt.Sprint(r["content"]), "func Validate") {
		t.Errorf("token.go = %v, want its content", r)
	}
	if r := results["pkg/api/new.go"]; r == nil || r["ok"] != true || !strings.Contains(fmt.Sprint(r["content"]), "func lookup") {
		t.Errorf("new.go = %v, want its content", r)
	}
	err := s.cmd.Wait()
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v, want 0\n%s", err, s.logs.String())
	}
	if !strings.Contains(s.logs.String(), "stopped") {
		t.Errorf("log lacks the graceful stop:\n%s", s.logs.String())
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
