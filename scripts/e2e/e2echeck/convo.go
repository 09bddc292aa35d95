package main

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

// Node names of workflows/pr-comments.json.
const (
	cWebhook  = "Bitbucket comment webhook"
	cConfig   = "Config"
	cRead     = "Read thread"
	cAction   = "Action?"
	cLLM      = "Answer LLM"
	cPost     = "Post answer"
	cPosted   = "Answer posted"
	cCommand  = "Command answered"
	cNothing  = "Nothing to do"
	convoUser = "Jo Reviewer" // the fake Bitbucket's human commenter (as=human)
	convoSelf = "prscout bot" // the fake's authenticated account: prscout itself
)

var (
	questionChain = []string{cWebhook, cConfig, cRead, cAction, cLLM, cPost, cPosted}
	commandChain  = []string{cWebhook, cConfig, cRead, cAction, cCommand}
	nothingChain  = []string{cWebhook, cConfig, cRead, cAction, cNothing}
)

// convoOpts are the flags of the conversation steps.
type convoOpts struct {
	control, llmLog, prscout, apiKey string
	// commentID is the comment the step delivered; outcome the /v1/thread
	// outcome expected (convo-ignored).
	commentID int64
	outcome   string
}

// convo runs a conversation step on the fixture's conversation PR; ok is
// false for a step that is not one.
func (c *checker) convo(step string, last execution, o convoOpts) bool {
	pr := prByID(fixture.ConvoPRID)
	switch step {
	case "convo-review":
		c.chain(last, reviewChain) // two findings: no verify call
		done := last.output(nDone)
		c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(len(pr.Inline)),
			"n8n's last node says summary created, %d inline: %v", len(pr.Inline), done)
		c.comments(o.control, pr)
	case "convo-question":
		c.chain(last, questionChain)
		rt := last.output(cRead)
		f, _ := rt["finding"].(map[string]any)
		c.check(rt["action"] == "answer" && rt["outcome"] == "question" && str(f["fingerprint"]) != "",
			"/v1/thread answered action answer (a question under finding %v): action=%v outcome=%v", f["fingerprint"], rt["action"], rt["outcome"])
		answers := kindCalls(c, o.llmLog, "answer")
		c.check(len(answers) == 1, "the fake LLM saw exactly one answer call (got %d)", len(answers))
		if len(answers) == 1 {
			a := answers[0]
			c.check(a.AuthOK && a.Model == "e2e-answer", "the answer call used Config.answerModel and the LLM credential: model %q, auth %v", a.Model, a.AuthOK)
			c.check(strings.Contains(a.User, fixture.ConvoQuestion) && strings.Contains(a.User, strings.TrimSpace(fixture.LineNoteDecode)) && strings.Contains(a.User, fixture.ConvoAsked),
				"the answer prompt shows the finding, its code at the head and the question")
		}
		posted := last.output(cPost)
		c.check(posted["action"] == "answered" && posted["outcome"] == "answered", "/v1/thread/answer posted the answer: %v/%v", posted["action"], posted["outcome"])
		c.check(last.output(cPosted)["status"] == "answered", "n8n's last node says answered: %v", last.output(cPosted))
		c.oneAnswer(o, pr)
	case "convo-duplicate":
		c.chain(last, nothingChain)
		rt := last.output(cRead)
		c.check(rt["action"] == "none" && rt["outcome"] == "already_answered", "/v1/thread answered none, already answered: %v (%s)", rt["outcome"], str(rt["reason"]))
		c.check(len(kindCalls(c, o.llmLog, "answer")) == 1, "no second answer call")
		c.oneAnswer(o, pr)
	case "convo-dismiss":
		c.chain(last, commandChain)
		rt := last.output(cRead)
		c.check(rt["action"] == "answered" && rt["command"] == "dismiss", "/v1/thread carried out dismiss: action=%v command=%v reason=%s warnings=%v", rt["action"], rt["command"], str(rt["reason"]), rt["warnings"])
		cs := liveComments(c, o.control, pr.ID)
		root := c.rootOf(cs, o.commentID)
		c.check(root != nil && root.Resolved && strings.Contains(root.Body, fixture.ConvoDismissed), "the dismissed finding's thread is resolved: %v", root != nil && root.Resolved)
		c.replyTo(cs, o.commentID, "Dismissed at the request of "+convoUser)
		c.replyTo(cs, o.commentID, "Proposed as a review rule (added) in the review rules pull request #")
		c.dismissedInData(cs)
		c.check(len(cs) == 7, "PR %d shows 7 comments (summary, 2 findings, question, answer, dismiss, its reply): %d", pr.ID, len(cs))
		c.check(len(kindCalls(c, o.llmLog, "answer")) == 1, "a command makes no model call")
		c.rulesPR(o, root)
	case "convo-push":
		// The rules PR merged, then a push: the review's prompt carries the
		// rule; the model reports the dismissed finding again and it is
		// posted nowhere.
		c.chain(last, reviewChain)
		ctx := last.output(nContext)
		c.check(ctx["mode"] == "delta", "/v1/context answered mode delta after the push: %v", ctx["mode"])
		prompt := lastPrompt(c, o.llmLog, pr.ID, "review")
		c.check(strings.Contains(prompt, fixture.ConvoDismissReason), "the review prompt carries the merged rule %q", fixture.ConvoDismissReason)
		out := last.output(nComments)
		mem, _ := out["memory"].(map[string]any)
		var dismissed []string
		for _, e := range list(mem["entries"]) {
			if e["state"] == "dismissed" {
				dismissed = append(dismissed, str(e["title"])+": "+str(e["reason"]))
			}
		}
		c.check(len(dismissed) == 1 && strings.Contains(dismissed[0], fixture.ConvoDismissed) && strings.Contains(dismissed[0], fixture.ConvoDismissReason),
			"/v1/comments' review memory keeps the finding reported again dismissed, with the reason: %v (states %v)", dismissed, mem["states"])
		done := last.output(nDone)
		c.check(done["summary"] == "updated" && num(done["inlineCreated"]) == 0, "summary updated, no inline comment posted again: %v", done)
		c.inlineCount(o.control, pr.ID, len(pr.Inline))
		cs := liveComments(c, o.control, pr.ID)
		for _, cm := range cs {
			if cm.Path != "" && cm.Parent == nil && strings.Contains(cm.Body, fixture.ConvoDismissed) {
				c.check(cm.Resolved, "the dismissed finding's thread stays resolved")
			}
		}
		c.dismissedInData(cs)
		text := c.summaryText(o.control, pr.ID)
		c.check(!strings.Contains(tableOf(text), fixture.ConvoDismissed), "the summary's findings table does not list the dismissed finding")
		c.check(strings.Contains(text, "1 dismissed in their thread") && func() bool { st, _ := mem["states"].(map[string]any); return num(st["dismissed"]) == 1 }(),
			"the summary counts the dismissed finding: %q (states %v)", lineWith(text, "ismissed"), mem["states"])
	case "convo-pause", "convo-resume":
		c.chain(last, commandChain)
		rt := last.output(cRead)
		want := strings.TrimPrefix(step, "convo-")
		c.check(rt["action"] == "answered" && rt["command"] == want, "/v1/thread carried out %s: action=%v command=%v", want, rt["action"], rt["command"])
		cs := liveComments(c, o.control, pr.ID)
		c.replyTo(cs, o.commentID, map[string]string{"pause": "Paused at the request of " + convoUser, "resume": "Resumed at the request of " + convoUser}[want])
		paused := map[string]string{"pause": "paused=1", "resume": "paused=0"}[want]
		var sum string
		for _, cm := range cs {
			if cm.Path == "" && cm.Parent == nil && strings.Contains(cm.Body, "[prscout]: #") {
				sum = cm.Body
			}
		}
		c.check(strings.Contains(sum, `[prscout-state]: # "v=1 `+paused), "the summary keeps the review state %s", paused)
	case "convo-paused":
		c.chain(last, skipChain)
		ctx := last.output(nContext)
		c.check(ctx["skip"] == true && ctx["skipCode"] == "paused" && strings.Contains(str(ctx["skipReason"]), "paus"),
			"/v1/context skipped the push: skipCode %v, reason %q", ctx["skipCode"], str(ctx["skipReason"]))
		c.check(strings.Contains(str(last.output(nSkipped)["reason"]), "paus"), "n8n's last node gives the reason: %v", last.output(nSkipped))
	case "convo-resumed":
		c.chain(last, reviewChain)
		ctx := last.output(nContext)
		c.check(ctx["skip"] == false && ctx["mode"] == "delta", "/v1/context reviewed the paused push once resumed: mode %v", ctx["mode"])
		c.check(last.output(nDone)["summary"] == "updated", "the summary was updated: %v", last.output(nDone))
	case "convo-ignored":
		c.chain(last, nothingChain)
		rt := last.output(cRead)
		c.check(rt["action"] == "none" && rt["outcome"] == o.outcome, "/v1/thread answered none, %s: %v (%s)", o.outcome, rt["outcome"], str(rt["reason"]))
		c.check(last.output(cNothing)["outcome"] == o.outcome, "n8n's last node says %s: %v", o.outcome, last.output(cNothing))
		cs := liveComments(c, o.control, pr.ID)
		var after []string
		for _, cm := range cs {
			if cm.ID > o.commentID {
				after = append(after, fmt.Sprintf("%d by %s", cm.ID, cm.Author))
			}
		}
		c.check(len(after) == 0, "nothing posted after comment %d: %v", o.commentID, after)
		c.check(len(kindCalls(c, o.llmLog, "answer")) == 1, "no model call")
	default:
		return false
	}
	return true
}

// rulesPR checks that the dismissal proposed its reason as a review rule
// for the finding's file: one open review rules pull request whose branch's
// .prscout/rules.json holds the rule and names its source thread.
func (c *checker) rulesPR(o convoOpts, root *comment) {
	var prs []map[string]any
	if err := getJSON(o.control+"/_fake/pullrequests", &prs); err != nil {
		c.check(false, "read the fake's pull requests: %v", err)
		return
	}
	var open []string
	for _, p := range prs {
		if p["source"] == "prscout/review-rules" && p["state"] == "OPEN" {
			open = append(open, fmt.Sprintf("#%v %q -> %v", p["id"], p["title"], p["destination"]))
		}
	}
	c.check(len(open) == 1, "the dismissal opened one review rules pull request (PRSCOUT_LEARNINGS=on): %v", open)
	var file string
	err := getText(o.control+"/_fake/file?rev=prscout/review-rules&path=.prscout/rules.json", &file)
	ok := err == nil && strings.Contains(file, fixture.ConvoDismissReason) && strings.Contains(file, fixture.ConvoRulePath)
	shown := ""
	if !ok {
		shown = fmt.Sprintf(": %v\n%s", err, file)
	}
	c.check(ok, "its branch's .prscout/rules.json holds the reason as the rule for %s%s", fixture.ConvoRulePath, shown)
	if root != nil {
		c.check(strings.Contains(file, fmt.Sprint(o.commentID)) || strings.Contains(file, fmt.Sprint(root.ID)), "the rule names its source thread")
	}
}

// oneAnswer checks that the question has exactly one reply, prscout's
// answer, in the finding's thread, and nothing else was posted.
func (c *checker) oneAnswer(o convoOpts, pr fixture.PR) {
	cs := liveComments(c, o.control, pr.ID)
	root := c.rootOf(cs, o.commentID)
	c.check(root != nil && root.Path != "" && strings.Contains(root.Body, fixture.ConvoAsked), "the question sits in the thread of the finding %q", fixture.ConvoAsked)
	c.replyTo(cs, o.commentID, fixture.ConvoAnswer)
	c.check(len(cs) == 5, "PR %d shows 5 comments (summary, 2 findings, question, answer): %d", pr.ID, len(cs))
}

// replyTo checks that comment id has exactly one reply, prscout's, holding
// text and the reply marker naming id.
func (c *checker) replyTo(cs []comment, id int64, text string) {
	var replies []comment
	for _, cm := range cs {
		if cm.Parent != nil && *cm.Parent == id {
			replies = append(replies, cm)
		}
	}
	if !c.check(len(replies) == 1, "comment %d has exactly one reply (got %d)", id, len(replies)) {
		return
	}
	r := replies[0]
	shown, problems := visible(r.Body)
	c.check(r.Author == convoSelf && strings.Contains(shown, text), "the reply is prscout's and says %q: by %s: %s", text, r.Author, firstLine(shown))
	c.check(strings.Contains(r.Body, fmt.Sprintf(`[prscout-reply]: # "to=%d v=1"`, id)) && len(problems) == 0, "the reply carries its hidden reply marker: %v", problems)
}

// rootOf returns the top-level comment of id's thread.
func (c *checker) rootOf(cs []comment, id int64) *comment {
	by := map[int64]*comment{}
	for i := range cs {
		by[cs[i].ID] = &cs[i]
	}
	cur := by[id]
	for i := 0; cur != nil && cur.Parent != nil && i < 100; i++ {
		cur = by[*cur.Parent]
	}
	return cur
}

// dismissedInData checks that the summary's hidden data marks the
// dismissed finding dismissed, with the reason.
func (c *checker) dismissedInData(cs []comment) {
	var got []string
	ok := false
	for _, cm := range cs {
		if cm.Path != "" || cm.Parent != nil {
			continue
		}
		for _, d := range marker.ParseFindingData(cm.Body) {
			got = append(got, d.State+": "+d.Reason)
			ok = ok || d.State == marker.StateDismissed && d.Reason == fixture.ConvoDismissReason
		}
	}
	c.check(ok, "the summary's finding data says dismissed, %q: %v", fixture.ConvoDismissReason, got)
}

// kindCalls are the fake LLM's calls of one kind.
func kindCalls(c *checker, path, kind string) []llmCall {
	var out []llmCall
	for _, e := range llmCalls(c, path, -1) {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// lastPrompt is the last prompt of kind sent for pull request pr.
func lastPrompt(c *checker, path string, pr int, kind string) string {
	var prompt string
	for _, e := range llmCalls(c, path, pr) {
		if e.Kind == kind {
			prompt = e.System + "\n" + e.User
		}
	}
	c.check(prompt != "", "the fake LLM received a %s request for PR %d", kind, pr)
	return prompt
}

// tableOf is the "### Findings" section of a summary's text.
func tableOf(text string) string {
	_, rest, _ := strings.Cut(text, "### Findings")
	if i := strings.Index(rest, "\n### "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
