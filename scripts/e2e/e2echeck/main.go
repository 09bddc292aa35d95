// Command e2echeck asserts, after each step of scripts/e2e-n8n.sh, what a
// person would see on the fake Bitbucket and what n8n recorded for the
// execution. It reads the fake's control API, the n8n executions dumped by
// n8n-executions.js and the fake LLM's request log.
//
//	e2echeck -step review|skip|empty-needs|push|merged|groups|cut-review|draft|ready|bot|busy|timings [flags]
//	e2echeck -step convo-review|convo-question|convo-duplicate|convo-dismiss|convo-push|
//	               convo-pause|convo-paused|convo-resume|convo-resumed|convo-ignored [-comment ID] [-outcome O]
//	e2echeck -print-groups-budget | -print-busy-inline-max
//
// It prints one line per check and exits 1 when any fails.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/sarif/sariftest"
	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

// Node names of workflows/pr-review.json.
const (
	nWebhook  = "Bitbucket PR webhook"
	nConfig   = "Config"
	nContext  = "Get context"
	nIf       = "Skip?"
	nSplit    = "Split groups"
	nScout    = "Scout LLM"
	nNeeds    = "Normalize needs"
	nBatch    = "Fetch context files"
	nMerge    = "Build review prompt"
	nReview   = "Review LLM"
	nTag      = "Group review"
	nGather   = "Gather reviews"
	nVerifyOn = "Verify on?"
	nVPrompt  = "Verify prompt"
	nWorthIt  = "Worth verifying?"
	nVerify   = "Verify LLM"
	nVerdicts = "With verdicts"
	nComments = "Post comments"
	nDone     = "Review posted"
	nSkipped  = "Skipped"
)

// reviewChain is a review whose findings are too few for the verify pass:
// /v1/verify says so and the verify call is not made.
var reviewChain = []string{nWebhook, nConfig, nContext, nIf, nSplit, nScout, nNeeds, nBatch, nMerge, nReview, nTag, nGather, nVerifyOn, nVPrompt, nWorthIt, nComments, nDone}

// verifiedChain is a review checked by the verify pass before it is posted.
var verifiedChain = []string{nWebhook, nConfig, nContext, nIf, nSplit, nScout, nNeeds, nBatch, nMerge, nReview, nTag, nGather, nVerifyOn, nVPrompt, nWorthIt, nVerify, nVerdicts, nComments, nDone}
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

// items is how many items node gave (0 when it did not run).
func (e execution) items(node string) int {
	for _, n := range e.Nodes {
		if n.Name == node {
			return n.Items
		}
	}
	return 0
}

func (e execution) output(node string) map[string]any {
	for _, n := range e.Nodes {
		if n.Name == node {
			return n.Output
		}
	}
	return nil
}

// showComments prints the comments' visible text (markers hidden).
var showComments bool

type checker struct {
	failed int
}

func (c *checker) check(ok bool, format string, args ...any) bool {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
		c.failed++
	}
	fmt.Printf("  %s %s\n", mark, fmt.Sprintf(format, args...))
	return ok
}

func main() {
	step := flag.String("step", "", "review | skip | empty-needs | push | merged | groups | cut-review | draft | ready | bot | busy | timings")
	printBudget := flag.Bool("print-groups-budget", false, "print the prompt budget at which the groups PR needs three review groups, and exit")
	printInlineMax := flag.Bool("print-busy-inline-max", false, "print PRSCOUT_INLINE_MAX for the busy PR's step, and exit")
	control := flag.String("control", "", "fake Bitbucket control URL")
	jira := flag.String("jira", "", "fake Jira URL (its /_fake/asked lists the issue keys asked for)")
	execFile := flag.String("executions", "", "n8n executions JSON (n8n-executions.js)")
	llmLog := flag.String("llm-log", "", "fake LLM request log (JSON lines)")
	prscout := flag.String("prscout", "", "prscout base URL (skip step: re-posts comments)")
	apiKey := flag.String("api-key", "", "prscout API key")
	creates := flag.Int("creates", -1, "create_comment calls expected on the fake so far")
	updates := flag.Int("updates", 0, "update_comment calls expected on the fake so far (with -creates)")
	flag.BoolVar(&showComments, "show", false, "print the comments as Bitbucket shows them")
	workflow := flag.String("workflow", "", "the workflow export n8n runs (tells whether its needs request passes the context's candidates)")
	flag.String("comment-workflow-id", "", "the comment workflow's id in n8n (its executions end in its nodes)")
	commentID := flag.Int64("comment", 0, "conversation steps: the comment the step delivered")
	outcome := flag.String("outcome", "", "convo-ignored: the /v1/thread outcome expected (own_comment, bot)")
	flag.Parse()
	if *printBudget {
		fmt.Println(fixture.GroupsPromptChars)
		return
	}
	if *printInlineMax {
		fmt.Println(fixture.BusyInlineMax)
		return
	}

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
		c.verifySkipped(last, *llmLog)
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
		c.criteria(last, pr.Criteria, pr.Verdicts, pr.ID)
		c.check(strings.Contains(prompt, fmt.Sprintf("# Acceptance criteria to judge (%d)", len(pr.Criteria))), "the review prompt asks a verdict on the %d criteria", len(pr.Criteria))
		if *jira != "" {
			var asked []string
			if err := getJSON(*jira+"/_fake/asked", &asked); err != nil {
				c.check(false, "read the fake Jira's asked keys: %v", err)
			} else {
				c.check(slices.Contains(asked, "SHOP-12") && !slices.ContainsFunc(asked, func(k string) bool { return strings.HasPrefix(k, "OPS-") }),
					"Jira was asked for SHOP-12 (from the commit message) and no OPS issue (outside PRSCOUT_JIRA_PROJECTS): %v", asked)
			}
		}
		c.comments(*control, pr)
		c.insights(*control, str(last.output(nContext)["ref"]), last.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
	case "skip":
		pr := fixture.PRs[0]
		c.chain(last, skipChain)
		ctx := last.output(nContext)
		c.check(ctx["skip"] == true && ctx["mode"] == "skip", "/v1/context answered mode skip: mode=%v skip=%v", ctx["mode"], ctx["skip"])
		c.check(last.output(nSkipped)["status"] == "skipped", "n8n's last node says skipped: %v", last.output(nSkipped))
		c.comments(*control, pr)
		rev := findLast(execs, nComments)
		if rev != nil {
			// A skip sets no status: the review's stays as it was.
			c.insights(*control, str(rev.output(nContext)["ref"]), rev.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
		}
		// n8n's retry-on-fail re-sends whole requests: post the reviewed
		// execution's comments request (the context answer with the
		// gathered reviews) again and expect no change.
		if rev := findLast(execs, nComments); rev != nil && *prscout != "" {
			body := rev.output(nContext)
			body["reviews"] = rev.output(nGather)["reviews"]
			body["dryRun"] = false
			body["formats"] = []string{"sarif"} // changes the answer only, never what is posted
			var got map[string]any
			status, err := postJSON(*prscout+"/v1/comments", *apiKey, body, &got)
			posted, _ := got["posted"].(map[string]any)
			c.check(err == nil && status == 200 && posted["summary"] == "unchanged" && num(posted["inlineCreated"]) == 0,
				"re-sending execution %d's /v1/comments request changes nothing: status %d posted=%v err=%v", rev.ID, status, posted, err)
			c.comments(*control, pr)
			// The same commit again: the report replaced (one report, the
			// same annotations), the status set SUCCESSFUL again.
			c.insights(*control, str(rev.output(nContext)["ref"]), got, "INPROGRESS,SUCCESSFUL,SUCCESSFUL", 2)
			// The review's findings as SARIF validate against the official schema.
			doc, _ := json.Marshal(got["sarif"])
			verr := sariftest.Validate(doc)
			c.check(got["sarif"] != nil && verr == nil, "the review's SARIF (%d bytes, %d results) validates against the SARIF 2.1.0 schema: %v",
				len(doc), strings.Count(string(doc), `"ruleId"`), verr)
		}
	case "push":
		pr := fixture.PRs[0]
		c.chain(last, reviewChain)
		c.verifySkipped(last, *llmLog)
		ctx := last.output(nContext)
		c.check(ctx["mode"] == "delta" && ctx["skip"] == false, "/v1/context answered mode delta after the push: mode=%v", ctx["mode"])
		prompt := llmPrompt(c, *llmLog, pr.ID, "delta-review")
		c.check(strings.Contains(prompt, "Review mode: delta"), "the review prompt says it is a delta review")
		done := last.output(nDone)
		c.check(done["summary"] == "updated" && num(done["inlineCreated"]) == float64(len(pr.Push.Inline)),
			"n8n's last node says summary updated (in place), %d inline created: %v", len(pr.Push.Inline), done)
		c.criteria(last, pr.Criteria, pr.Push.Verdicts, pr.ID)
		c.commentsAs(*control, pr.ID, pr.Push.SummaryHas, pr.Push.Inline, fixture.PushedFiles(pr))
		c.inlineCount(*control, pr.ID, len(pr.Inline)+len(pr.Push.Inline))
		c.insights(*control, str(ctx["ref"]), last.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
		// Review memory: the table, the resolved threads, the metrics.
		posted, _ := last.output(nComments)["posted"].(map[string]any)
		c.check(num(posted["threadsResolved"]) == float64(len(pr.Push.Resolved)) && num(posted["threadsLeftOpen"]) == 0,
			"/v1/comments resolved %d thread(s), left none open: %v", len(pr.Push.Resolved), posted)
		c.memory(*control, pr.ID, pr.Push.Memory, pr.Push.Resolved)
		if *prscout != "" {
			c.findingMetrics(*prscout, fixture.Workspace+"/"+fixture.RepoSlug)
		}
	case "merged":
		pr := fixture.PRs[0]
		c.chain(last, skipChain)
		ctx := last.output(nContext)
		c.check(ctx["skip"] == true && ctx["skipReason"] == "the pull request is MERGED",
			"/v1/context skipped the merged pull request: skip=%v skipReason=%q", ctx["skip"], ctx["skipReason"])
		c.inlineCount(*control, pr.ID, len(pr.Inline)+len(pr.Push.Inline))
	case "empty-needs":
		pr := fixture.PRs[1]
		c.chain(last, reviewChain)
		c.verifySkipped(last, *llmLog)
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
		c.criteria(last, pr.Criteria, pr.Verdicts, pr.ID)
		c.comments(*control, pr)
		c.insights(*control, str(last.output(nContext)["ref"]), last.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
	case "groups":
		pr := groupsPR()
		c.chain(last, reviewChain)
		c.verifySkipped(last, *llmLog)
		ctx := last.output(nContext)
		c.check(len(list(ctx["groups"])) == 3, "/v1/context answered 3 review groups at a %d-character budget (got %d)", fixture.GroupsPromptChars, len(list(ctx["groups"])))
		for _, n := range []string{nSplit, nScout, nNeeds, nBatch, nMerge, nReview, nTag} {
			c.check(last.items(n) == 3, "node %q ran once per group: %d item(s)", n, last.items(n))
		}
		for _, n := range []string{nGather, nComments, nDone} {
			c.check(last.items(n) == 1, "node %q gave one item: %d", n, last.items(n))
		}
		calls := llmCalls(c, *llmLog, pr.ID)
		var scouts, reviews, failed int
		parts := map[string]bool{}
		for _, e := range calls {
			switch e.Kind {
			case "scout":
				scouts++
			case "review":
				reviews++
				if e.Status != 200 {
					failed++
				}
				parts[e.Part] = true
				c.check(len([]rune(e.System))+len([]rune(e.User)) <= fixture.GroupsPromptChars,
					"review prompt of part %q is %d chars, within the budget %d", e.Part, len([]rune(e.System))+len([]rune(e.User)), fixture.GroupsPromptChars)
			}
			c.check(e.AuthOK, "the %s LLM call carried the LLM credential's key", e.Kind)
		}
		c.check(scouts == 3 && reviews == 3, "the fake LLM saw 3 scout and 3 review calls for PR %d (got %d and %d)", pr.ID, scouts, reviews)
		c.check(failed == 1, "exactly one group's review call failed (HTTP 500): %d", failed)
		c.check(parts["1 of 3 of this pull request"] && parts["2 of 3 of this pull request"] && parts["3 of 3 of this pull request"], "each review prompt says which part it is: %v", parts)
		done := last.output(nDone)
		c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(len(pr.Inline)) && num(done["notReviewed"]) == 1 && num(done["groups"]) == 3,
			"n8n's last node says summary created, %d inline, 3 groups, 1 file not reviewed: %v", len(pr.Inline), done)
		c.commentsAs(*control, pr.ID, append(append([]string{}, pr.SummaryHas...), pr.NotReviewedHas...), pr.Inline, fixture.HeadFiles(pr))
		c.inlineCount(*control, pr.ID, len(pr.Inline))
	case "cut-review":
		// The review model stopped at its token limit in its third finding
		// (finish_reason "length"): the two complete findings are posted
		// inline, the summary says what was cut, and nothing of the raw
		// answer reaches the pull request.
		pr := fixture.PRs[3]
		c.chain(last, reviewChain)
		c.verifySkipped(last, *llmLog)
		st, _ := last.output(nComments)["stats"].(map[string]any)
		c.check(st["reviewQuality"] == "salvaged" && st["reviewCutOff"] == true && num(st["incompleteFindings"]) == 1 && st["reviewFinishReason"] == "length",
			"/v1/comments read the answer as salvaged, cut off (finish reason length), 1 incomplete finding: %v", st)
		var warnings []string
		for _, w := range asList(last.output(nComments)["warnings"]) {
			warnings = append(warnings, str(w))
		}
		c.check(anyContains(warnings, "the review answer was cut off: 2 complete findings kept, 1 incomplete dropped"),
			"/v1/comments warns that the answer was cut off: %q", warnings)
		done := last.output(nDone)
		c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(len(pr.Inline)),
			"n8n's last node says summary created, %d inline: %v", len(pr.Inline), done)
		c.comments(*control, pr)
		text := c.summaryText(*control, pr.ID)
		for _, s := range pr.SummaryLacks {
			c.check(!strings.Contains(text, s), "summary shows nothing raw: no %q", s)
		}
	case "draft", "bot":
		// Skipped before anything is read or asked: nothing posted, no
		// model call, the reason in n8n's last node.
		c.skippedFirst(last, *control, *llmLog, prByID(map[string]int{"draft": 5, "bot": 6}[*step]))
	case "ready":
		c.ready(last, *control, *llmLog, prByID(5))
	case "busy":
		c.busy(last, *control, *llmLog, prByID(7))
	default:
		if !c.convo(*step, last, convoOpts{control: *control, llmLog: *llmLog, prscout: *prscout, apiKey: *apiKey, commentID: *commentID, outcome: *outcome}) {
			fatal(fmt.Errorf("unknown -step %q", *step))
		}
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

// criteria checks the acceptance criteria through the chain: /v1/context
// answers their ids, /v1/merge carries them and the PR's page on to
// /v1/comments, whose answer counts the verdicts (met, not met, unclear).
func (c *checker) criteria(e execution, ids []string, verdicts [3]int, prID int) {
	var got []string
	for _, r := range list(e.output(nContext)["requirements"]) {
		got = append(got, str(r["id"]))
	}
	c.check(strings.Join(got, ",") == strings.Join(ids, ","), "/v1/context answered the criteria %v (got %v)", ids, got)
	merged := e.output(nMerge)
	c.check(len(list(merged["requirements"])) == len(ids) && (len(ids) == 0 || str(merged["prUrl"]) == fixture.PRURL(prID)),
		"/v1/merge carried %d criteria and the PR's page on (got %d, %q)", len(ids), len(list(merged["requirements"])), str(merged["prUrl"]))
	rc, _ := e.output(nComments)["requirements"].(map[string]any)
	c.check(num(rc["met"]) == float64(verdicts[0]) && num(rc["notMet"]) == float64(verdicts[1]) && num(rc["unclear"]) == float64(verdicts[2]),
		"/v1/comments counted %d met, %d not met, %d unclear (got %v/%v/%v)", verdicts[0], verdicts[1], verdicts[2], rc["met"], rc["notMet"], rc["unclear"])
}

func asList(v any) []any {
	a, _ := v.([]any)
	return a
}

// findingMetrics prints prscout_findings_total for repository and the
// resolution rate resolved / posted, as the shipped recording rule computes
// it over a window that holds the whole test.
func (c *checker) findingMetrics(prscout, repository string) {
	resp, err := client.Get(prscout + "/metrics")
	if err != nil {
		c.check(false, "read /metrics: %v", err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	vals := map[string]float64{}
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, `prscout_findings_total{repository="`+repository+`"`) {
			continue
		}
		fmt.Printf("    %s\n", l)
		var v float64
		if i := strings.LastIndexByte(l, ' '); i > 0 {
			_, _ = fmt.Sscan(l[i+1:], &v)
		}
		if m := regexp.MustCompile(`state="([a-z_]+)"`).FindStringSubmatch(l); m != nil {
			vals[m[1]] = v
		}
	}
	c.check(vals["posted"] == 3 && vals["resolved"] == 1 && vals["still_open"] == 1,
		"prscout_findings_total for %s: posted 3, resolved 1, still_open 1 (got %v)", repository, vals)
	if vals["posted"] > 0 {
		fmt.Printf("    resolution rate resolved/posted = %.3f (RovoDev reference 0.387)\n", vals["resolved"]/vals["posted"])
	}
}

// groupsPR is the fixture's pull request reviewed in groups.
func groupsPR() fixture.PR {
	for _, pr := range fixture.PRs {
		if len(pr.Groups) > 0 {
			return pr
		}
	}
	fatal(fmt.Errorf("the fixture has no pull request reviewed in groups"))
	return fixture.PR{}
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

func getText(url string, out *string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	*out = string(b)
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
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
