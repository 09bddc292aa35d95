// Command e2echeck asserts, after each step of scripts/e2e-n8n.sh, what a
// person would see on the fake Bitbucket and what n8n recorded for the
// execution. It reads the fake's control API, the n8n executions dumped by
// n8n-executions.js and the fake LLM's request log.
//
//	e2echeck -step review|skip|empty-needs|push|timings [flags]
//
// It prints one line per check and exits 1 when any fails.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

// Node names of workflows/pr-review.json.
const (
	nWebhook  = "Bitbucket PR webhook"
	nConfig   = "Config"
	nContext  = "Get context"
	nIf       = "Already reviewed?"
	nScout    = "Scout LLM"
	nNeeds    = "Normalize needs"
	nBatch    = "Fetch context files"
	nMerge    = "Build review prompt"
	nReview   = "Review LLM"
	nComments = "Post comments"
	nDone     = "Review posted"
	nSkipped  = "Skipped: already reviewed"
)

var reviewChain = []string{nWebhook, nConfig, nContext, nIf, nScout, nNeeds, nBatch, nMerge, nReview, nComments, nDone}
var skipChain = []string{nWebhook, nConfig, nContext, nIf, nSkipped}

type execution struct {
	ID        int     `json:"id"`
	Status    string  `json:"status"`
	Finished  bool    `json:"finished"`
	StartedAt int64   `json:"startedAt"`
	WallMs    int64   `json:"wallMs"`
	LastNode  string  `json:"lastNode"`
	Error     *string `json:"error"`
	Nodes     []struct {
		Name          string         `json:"name"`
		StartTime     int64          `json:"startTime"`
		ExecutionTime int64          `json:"executionTime"`
		Items         int            `json:"items"`
		Error         *string        `json:"error"`
		Output        map[string]any `json:"output"`
	} `json:"nodes"`
}

func (e execution) output(node string) map[string]any {
	for _, n := range e.Nodes {
		if n.Name == node {
			return n.Output
		}
	}
	return nil
}

type comment struct {
	ID      int64
	Body    string
	Path    string
	From    *int
	To      *int
	Deleted bool
	Author  string
}

// showComments prints the comments' visible text (markers hidden).
var showComments bool

type checker struct {
	failed int
}

func (c *checker) check(ok bool, format string, args ...any) {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
		c.failed++
	}
	fmt.Printf("  %s %s\n", mark, fmt.Sprintf(format, args...))
}

func main() {
	step := flag.String("step", "", "review | skip | empty-needs | push | timings")
	control := flag.String("control", "", "fake Bitbucket control URL")
	execFile := flag.String("executions", "", "n8n executions JSON (n8n-executions.js)")
	llmLog := flag.String("llm-log", "", "fake LLM request log (JSON lines)")
	prscout := flag.String("prscout", "", "prscout base URL (skip step: re-posts comments)")
	apiKey := flag.String("api-key", "", "prscout API key")
	creates := flag.Int("creates", -1, "create_comment calls expected on the fake so far")
	updates := flag.Int("updates", 0, "update_comment calls expected on the fake so far (with -creates)")
	flag.BoolVar(&showComments, "show", false, "print the comments as Bitbucket shows them")
	workflow := flag.String("workflow", "", "the workflow export n8n runs (tells whether its needs request passes the context's candidates)")
	flag.Parse()

	execs, err := readExecutions(*execFile)
	if err != nil {
		fatal(err)
	}
	if *step == "timings" {
		printTimings(execs)
		return
	}
	if len(execs) == 0 {
		fatal(fmt.Errorf("no n8n execution recorded"))
	}
	last := execs[len(execs)-1]
	c := &checker{}
	fmt.Printf("step %s (n8n execution %d, %s, %d ms):\n", *step, last.ID, last.Status, last.WallMs)
	switch *step {
	case "review":
		pr := fixture.PRs[0]
		c.chain(last, reviewChain)
		needs := last.output(nNeeds)
		c.check(needs["skip"] == false, "/v1/needs kept requests (skip=false)")
		var refused []string
		for _, r := range list(needs["rejected"]) {
			refused = append(refused, str(r["path"])+" ("+str(r["reason"])+")")
		}
		for _, p := range append([]string{"etc/passwd"}, pr.Rejected...) {
			c.check(anyContains(refused, p), "/v1/needs refused %s: %v", p, refused)
		}
		var failed []string
		for _, r := range list(last.output(nBatch)["results"]) {
			if r["ok"] == false {
				failed = append(failed, str(r["path"]))
			}
		}
		for _, p := range pr.NotFound {
			c.check(anyContains(failed, p), "/v1/repository/batch answered ok:false for %s", p)
		}
		c.candidates(last, pr, *workflow)
		prompt := llmPrompt(c, *llmLog, pr.ID, "review")
		for _, s := range pr.Read {
			c.check(strings.Contains(prompt, s), "review prompt carries fetched context %q", s)
		}
		c.check(!strings.Contains(prompt, "hunter2"), "review prompt holds no secret from .env")
		done := last.output(nDone)
		c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(len(pr.Inline)),
			"n8n's last node says summary created, %d inline: %v", len(pr.Inline), done)
		head := fixture.HeadFiles(pr)
		for _, want := range pr.Inline {
			line := fixture.LineOf(head[want.Path], want.LineText)
			var got []string
			for _, in := range list(last.output(nComments)["inline"]) {
				if str(in["path"]) == want.Path && num(in["line"]) == float64(line) {
					got = append(got, str(in["anchor"]))
				}
			}
			c.check(len(got) == 1 && got[0] == want.Anchor, "/v1/comments placed %q on %s:%d by %s (got %v)", want.BodyHas, want.Path, line, want.Anchor, got)
		}
		c.comments(*control, pr)
	case "skip":
		pr := fixture.PRs[0]
		c.chain(last, skipChain)
		ctx := last.output(nContext)
		c.check(ctx["skip"] == true && ctx["mode"] == "skip", "/v1/context answered mode skip: mode=%v skip=%v", ctx["mode"], ctx["skip"])
		c.check(last.output(nSkipped)["status"] == "skipped", "n8n's last node says skipped: %v", last.output(nSkipped))
		c.comments(*control, pr)
		// n8n's retry-on-fail re-sends whole requests: post the reviewed
		// execution's comments request again and expect no change.
		if rev := findLast(execs, nComments); rev != nil && *prscout != "" {
			body := rev.output(nMerge)
			body["review"] = rev.output(nReview)
			body["dryRun"] = false
			var got map[string]any
			status, err := postJSON(*prscout+"/v1/comments", *apiKey, body, &got)
			posted, _ := got["posted"].(map[string]any)
			c.check(err == nil && status == 200 && posted["summary"] == "unchanged" && num(posted["inlineCreated"]) == 0,
				"re-sending execution %d's /v1/comments request changes nothing: status %d posted=%v err=%v", rev.ID, status, posted, err)
			c.comments(*control, pr)
		}
	case "push":
		pr := fixture.PRs[0]
		c.chain(last, reviewChain)
		ctx := last.output(nContext)
		c.check(ctx["mode"] == "delta" && ctx["skip"] == false, "/v1/context answered mode delta after the push: mode=%v", ctx["mode"])
		prompt := llmPrompt(c, *llmLog, pr.ID, "delta-review")
		c.check(strings.Contains(prompt, "Review mode: delta"), "the review prompt says it is a delta review")
		done := last.output(nDone)
		c.check(done["summary"] == "updated" && num(done["inlineCreated"]) == float64(len(pr.Push.Inline)),
			"n8n's last node says summary updated (in place), %d inline created: %v", len(pr.Push.Inline), done)
		c.commentsAs(*control, pr.ID, pr.Push.SummaryHas, pr.Push.Inline, fixture.PushedFiles(pr))
		c.inlineCount(*control, pr.ID, len(pr.Inline)+len(pr.Push.Inline))
	case "empty-needs":
		pr := fixture.PRs[1]
		c.chain(last, reviewChain)
		needs := last.output(nNeeds)
		c.candidates(last, pr, *workflow)
		if passesCandidates(*workflow) {
			// The scout asked for nothing; the top candidates are fetched anyway.
			var added []string
			for _, r := range list(needs["requests"]) {
				if str(r["source"]) == "candidate" {
					added = append(added, str(r["path"]))
				}
			}
			c.check(needs["skip"] == false && len(added) > 0 && len(added) == len(list(needs["requests"])),
				"/v1/needs added the top candidates although the scout asked for nothing: %v", added)
			for _, want := range pr.CandidatesAdded {
				c.check(anyContains(added, want), "/v1/needs added candidate %s", want)
			}
			var read []string
			for _, r := range list(last.output(nBatch)["results"]) {
				if r["ok"] == true {
					read = append(read, str(r["path"]))
				}
			}
			c.check(len(read) == len(added), "/v1/repository/batch read every added candidate: %v", read)
			prompt := llmPrompt(c, *llmLog, pr.ID, "review")
			for _, s := range pr.Read {
				c.check(strings.Contains(prompt, s), "review prompt carries the candidate's content %q", s)
			}
		} else {
			c.check(needs["skip"] == true && len(list(needs["requests"])) == 0, "/v1/needs answered the placeholder {skip:true, requests:[]}")
			c.check(len(list(last.output(nBatch)["results"])) == 0, "/v1/repository/batch answered results:[] (one item, chain goes on)")
		}
		done := last.output(nDone)
		c.check(done["summary"] == "created" && num(done["inlineCreated"]) == 0, "n8n's last node says summary created, 0 inline: %v", done)
		c.comments(*control, pr)
	default:
		fatal(fmt.Errorf("unknown -step %q", *step))
	}
	if *creates >= 0 {
		var calls map[string]int
		if err := getJSON(*control+"/_fake/calls", &calls); err != nil {
			fatal(err)
		}
		c.check(calls["create_comment"] == *creates && calls["update_comment"] == *updates && calls["delete_comment"] == 0,
			"Bitbucket saw %d comment creation(s), %d update(s), no delete so far: create=%d update=%d delete=%d",
			*creates, *updates, calls["create_comment"], calls["update_comment"], calls["delete_comment"])
	}
	if c.failed > 0 {
		fmt.Printf("step %s: %d check(s) failed\n", *step, c.failed)
		os.Exit(1)
	}
}

// passesCandidates reports whether the workflow's "Normalize needs" body
// passes the context answer's candidates to /v1/needs.
func passesCandidates(path string) bool {
	if path == "" {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var wf struct {
		Nodes []struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"nodes"`
	}
	if json.Unmarshal(b, &wf) != nil {
		return false
	}
	for _, n := range wf.Nodes {
		if n.Name == nNeeds {
			body, _ := n.Parameters["jsonBody"].(string)
			return strings.Contains(body, "candidates")
		}
	}
	return false
}

// candidates checks the context answer's candidates (found through
// prscout's mirror of the fake Bitbucket) and, when the workflow passes
// them on, what /v1/needs made of them.
func (c *checker) candidates(e execution, pr fixture.PR, workflow string) {
	var got []string
	for _, cd := range list(e.output(nContext)["candidates"]) {
		got = append(got, str(cd["path"])+" ("+str(cd["kind"])+", "+str(cd["method"])+"): "+str(cd["reason"]))
	}
	for _, want := range pr.Candidates {
		c.check(anyContains(got, want), "/v1/context lists candidate %s: %v", want, got)
	}
	warnings := fmt.Sprint(e.output(nContext)["warnings"])
	c.check(!strings.Contains(warnings, "candidates:"), "/v1/context searched the code (no candidates warning): %s", warnings)
	needs := e.output(nNeeds)
	st, _ := needs["stats"].(map[string]any)
	cs, _ := st["candidates"].(map[string]any)
	if !passesCandidates(workflow) {
		fmt.Printf("  NOTE the workflow's %q body does not pass the context's candidates: /v1/needs sees none (listed=%v)\n", nNeeds, cs["listed"])
		return
	}
	c.check(num(cs["listed"]) == float64(len(got)), "/v1/needs received the %d candidates (stats %v)", len(got), cs)
	c.check(num(cs["askedByScout"]) == float64(pr.CandidatesAskedByScout), "/v1/needs counted %d candidate(s) the scout asked for itself (stats %v)", pr.CandidatesAskedByScout, cs)
}

// chain checks the execution succeeded and ran exactly the given nodes, each
// with at least one item: nothing stopped silently.
func (c *checker) chain(e execution, want []string) {
	c.check(e.Status == "success" && e.Error == nil, "execution %d status %s, error %v", e.ID, e.Status, deref(e.Error))
	var ran []string
	for _, n := range e.Nodes {
		ran = append(ran, n.Name)
		c.check(n.Items >= 1 && n.Error == nil, "node %q gave %d item(s), error: %s", n.Name, n.Items, deref(n.Error))
	}
	c.check(strings.Join(ran, ",") == strings.Join(want, ","), "nodes ran in order: %s", strings.Join(ran, " -> "))
	c.check(e.LastNode == want[len(want)-1], "last node is %q (got %q)", want[len(want)-1], e.LastNode)
}

// inlineCount checks how many inline comments PR id shows.
func (c *checker) inlineCount(control string, id, want int) {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return
	}
	n := 0
	for _, cm := range cs {
		if !cm.Deleted && cm.Path != "" {
			n++
		}
	}
	c.check(n == want, "PR %d has %d inline comment(s) (got %d)", id, want, n)
}

var (
	htmlRe    = regexp.MustCompile(`(?i)<!--|</?(details|summary|sub|sup|br|p|div|span|table|tr|td|a|img|b|i)\b[^>]*>`)
	linkRefRe = regexp.MustCompile(`^\[[^\]]+\]:\s*#\s*"[^"]*"\s*$`)
)

// visible returns what Bitbucket renders of a Markdown body: link reference
// definitions (prscout's hidden markers) render as nothing. It reports a
// marker that is not on its own line after a blank line.
func visible(body string) (string, []string) {
	var out []string
	var problems []string
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if linkRefRe.MatchString(strings.TrimSpace(l)) {
			if i > 0 && strings.TrimSpace(lines[i-1]) != "" && !linkRefRe.MatchString(strings.TrimSpace(lines[i-1])) {
				problems = append(problems, fmt.Sprintf("marker on line %d does not follow a blank line", i+1))
			}
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), problems
}

// comments checks the PR as a person sees it: one summary, the expected
// inline comments on the right lines, no HTML, no visible marker, nothing twice.
func (c *checker) comments(control string, pr fixture.PR) {
	c.commentsAs(control, pr.ID, pr.SummaryHas, pr.Inline, fixture.HeadFiles(pr))
	c.inlineCount(control, pr.ID, len(pr.Inline))
}

// commentsAs checks PR id's comments against the given expectations; files
// are the head files the inline comments' lines are counted in. Other
// comments by earlier reviews may remain, but none may appear twice.
func (c *checker) commentsAs(control string, id int, summaryHas []string, want []fixture.ExpectedInline, head map[string]string) {
	var cs []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return
	}
	var summaries, inline []comment
	if showComments {
		for _, cm := range cs {
			where := "summary"
			if cm.Path != "" {
				where = fmt.Sprintf("inline %s:%d", cm.Path, deint(cm.To))
			}
			text, _ := visible(cm.Body)
			fmt.Printf("  --- comment %d (%s), as shown:\n      %s\n", cm.ID, where, strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n      "))
		}
	}
	for _, cm := range cs {
		if cm.Deleted {
			continue
		}
		if cm.Path == "" {
			summaries = append(summaries, cm)
		} else {
			inline = append(inline, cm)
		}
	}
	c.check(len(summaries) == 1, "PR %d has exactly one summary comment (got %d)", id, len(summaries))
	for _, s := range summaries {
		text, problems := visible(s.Body)
		c.check(len(problems) == 0, "summary markers are hidden link definitions after a blank line %v", problems)
		c.check(!htmlRe.MatchString(s.Body), "summary holds no HTML (Bitbucket shows it as text)")
		c.check(!strings.Contains(text, "head=") && !strings.Contains(text, "[prscout"), "summary shows no marker text")
		for _, s := range summaryHas {
			c.check(strings.Contains(text, s), "summary shows %q", s)
		}
	}
	seen := map[string]int{}
	for _, cm := range inline {
		seen[fmt.Sprintf("%s:%d %s", cm.Path, deint(cm.To), firstLine(cm.Body))]++
	}
	dups := 0
	for k, n := range seen {
		if n > 1 {
			dups++
			c.check(false, "inline comment posted %d times: %s", n, k)
		}
	}
	c.check(dups == 0, "PR %d: no inline comment appears twice (%d inline in all)", id, len(inline))
	for _, want := range want {
		line := fixture.LineOf(head[want.Path], want.LineText)
		n := 0
		for _, cm := range inline {
			if cm.Path == want.Path && cm.To != nil && *cm.To == line && strings.Contains(cm.Body, want.BodyHas) {
				n++
				text, problems := visible(cm.Body)
				c.check(len(problems) == 0 && !htmlRe.MatchString(cm.Body) && !strings.Contains(text, "[prscout"),
					"inline comment on %s:%d has no HTML and no visible marker", want.Path, line)
			}
		}
		c.check(n == 1, "one inline comment %q on %s:%d (%s) (got %d)", want.BodyHas, want.Path, line, strings.TrimSpace(want.LineText), n)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func llmPrompt(c *checker, path string, pr int, kind string) string {
	f, err := os.Open(path)
	if err != nil {
		c.check(false, "read LLM log: %v", err)
		return ""
	}
	defer f.Close()
	var prompt string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Kind   string `json:"kind"`
			PR     int    `json:"pr"`
			AuthOK bool   `json:"authOk"`
			User   string `json:"user"`
			System string `json:"system"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Kind == kind && e.PR == pr {
			c.check(e.AuthOK, "the %s LLM call carried the LLM credential's key", kind)
			prompt = e.System + "\n" + e.User
		}
	}
	c.check(prompt != "", "the fake LLM received a %s request for PR %d", kind, pr)
	return prompt
}

func printTimings(execs []execution) {
	for _, e := range execs {
		fmt.Printf("execution %d: %s, last node %q, wall %d ms\n", e.ID, e.Status, e.LastNode, e.WallMs)
		nodes := e.Nodes
		sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].StartTime < nodes[j].StartTime })
		for _, n := range nodes {
			fmt.Printf("  %-28s +%5d ms  %5d ms  %d item(s)\n", n.Name, n.StartTime-e.StartedAt, n.ExecutionTime, n.Items)
		}
	}
}

func findLast(execs []execution, node string) *execution {
	for i := len(execs) - 1; i >= 0; i-- {
		if execs[i].output(node) != nil {
			return &execs[i]
		}
	}
	return nil
}

func readExecutions(path string) ([]execution, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []execution
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return out, nil
}

var client = &http.Client{Timeout: 60 * time.Second}

func getJSON(url string, v any) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func postJSON(url, key string, body, v any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(v)
}

func list(v any) []map[string]any {
	a, _ := v.([]any)
	var out []map[string]any
	for _, x := range a {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

func anyContains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func deint(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "e2echeck:", err)
	os.Exit(2)
}
