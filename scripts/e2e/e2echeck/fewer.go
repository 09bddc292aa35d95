package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

// prByID is the fixture's pull request id.
func prByID(id int) fixture.PR {
	for _, pr := range fixture.PRs {
		if pr.ID == id {
			return pr
		}
	}
	fatal(fmt.Errorf("the fixture has no pull request %d", id))
	return fixture.PR{}
}

// verifySkipped checks a review too small for the verify pass: /v1/verify
// said why not, and no verify call has been made so far.
func (c *checker) verifySkipped(e execution, llmLog string) {
	vp := e.output(nVPrompt)
	c.check(vp["verify"] == false && str(vp["reason"]) != "", "/v1/verify skipped the pass: verify=%v reason=%q", vp["verify"], str(vp["reason"]))
	n := 0
	for _, call := range llmCalls(c, llmLog, -1) {
		if call.Kind == "verify" {
			n++
		}
	}
	c.check(n == 0, "no verify call made so far (got %d)", n)
}

// comments reads PR id's comments that are not deleted.
func liveComments(c *checker, control string, id int) []comment {
	var cs, out []comment
	if err := getJSON(fmt.Sprintf("%s/_fake/comments?pr=%d", control, id), &cs); err != nil {
		c.check(false, "read comments: %v", err)
		return nil
	}
	for _, cm := range cs {
		if !cm.Deleted {
			out = append(out, cm)
		}
	}
	return out
}

// skippedFirst checks a first webhook of pr that /v1/context skips with
// pr.SkipCode: n8n ends in the skip node with the reason, nothing is
// posted and no model is asked.
func (c *checker) skippedFirst(e execution, control, llmLog string, pr fixture.PR) {
	c.chain(e, skipChain)
	ctx := e.output(nContext)
	c.check(ctx["skip"] == true && ctx["mode"] == "skip" && ctx["skipCode"] == pr.SkipCode && ctx["skipReason"] == pr.SkipReasonIs,
		"/v1/context skipped PR %d: skipCode %v (want %s), skipReason %q", pr.ID, ctx["skipCode"], pr.SkipCode, str(ctx["skipReason"]))
	out := e.output(nSkipped)
	c.check(out["status"] == "skipped" && out["reason"] == pr.SkipReasonIs, "n8n's last node says skipped, with the reason: %v", out)
	c.check(len(liveComments(c, control, pr.ID)) == 0, "nothing posted on PR %d", pr.ID)
	c.check(len(llmCalls(c, llmLog, pr.ID)) == 0, "no model call for PR %d", pr.ID)
	var st insightsState
	if err := getJSON(control+"/_fake/insights?commit="+str(ctx["ref"]), &st); err == nil {
		c.check(st.Status == nil && len(st.Reports) == 0, "no build status or report on PR %d's head", pr.ID)
	}
}

// ready checks the draft pull request's review once it is marked ready.
func (c *checker) ready(e execution, control, llmLog string, pr fixture.PR) {
	c.chain(e, reviewChain)
	c.verifySkipped(e, llmLog)
	ctx := e.output(nContext)
	c.check(ctx["skip"] == false && ctx["mode"] == "full" && str(ctx["skipCode"]) == "", "/v1/context reviews the PR marked ready: mode %v, skipCode %q", ctx["mode"], str(ctx["skipCode"]))
	done := e.output(nDone)
	c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(len(pr.Inline)),
		"n8n's last node says summary created, %d inline: %v", len(pr.Inline), done)
	n := 0
	for _, call := range llmCalls(c, llmLog, pr.ID) {
		if call.Kind == "scout" || call.Kind == "review" {
			n++
		}
	}
	c.check(n == 2, "the fake LLM saw one scout and one review call for PR %d (got %d)", pr.ID, n)
	c.comments(control, pr)
	c.insights(control, str(ctx["ref"]), e.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
}

// busy checks the review with many findings: the verify pass asks the
// verify model about them and drops one, which is never posted.
func (c *checker) busy(e execution, control, llmLog string, pr fixture.PR) {
	c.chain(e, verifiedChain)
	vp := e.output(nVPrompt)
	c.check(vp["verify"] == true && num(vp["findings"]) == float64(len(fixture.BusyFindings)) && len(asList(vp["ids"])) == len(fixture.BusyFindings),
		"/v1/verify asks about the %d findings: verify=%v findings=%v ids=%d", len(fixture.BusyFindings), vp["verify"], vp["findings"], len(asList(vp["ids"])))
	var verifies []llmCall
	for _, call := range llmCalls(c, llmLog, -1) {
		if call.Kind == "verify" {
			verifies = append(verifies, call)
		}
	}
	if c.check(len(verifies) == 1, "exactly one verify call in the whole run (got %d)", len(verifies)) {
		v := verifies[0]
		c.check(v.PR == pr.ID && v.Model == "e2e-verify" && v.AuthOK && v.Status == 200,
			"the verify call is PR %d's, model e2e-verify (Config.verifyModel), with the LLM key: pr=%d model=%q auth=%v status=%d", pr.ID, v.PR, v.Model, v.AuthOK, v.Status)
		c.check(strings.Count(v.User, "\n## Finding ") == len(fixture.BusyFindings), "the verify prompt lists %d findings (got %d)", len(fixture.BusyFindings), strings.Count(v.User, "\n## Finding "))
	}
	st, _ := e.output(nComments)["stats"].(map[string]any)
	c.check(num(st["verifyDropped"]) == 1 && st["verifyQuality"] != nil, "/v1/comments dropped 1 finding by the verify answer: verifyDropped=%v verifyQuality=%v", st["verifyDropped"], st["verifyQuality"])
	vd := list(e.output(nComments)["verifyDropped"])
	c.check(len(vd) == 1 && str(vd[0]["title"]) == pr.VerifyDrop && str(vd[0]["reason"]) != "",
		"/v1/comments recorded the dropped finding %q with the verify answer's reason: %v", pr.VerifyDrop, vd)
	c.comments(control, pr)
	text := c.summaryText(control, pr.ID)
	c.check(strings.Contains(text, "dropped 1 finding"), "the summary says the verify pass dropped 1 finding")
	inline := 0
	for _, cm := range liveComments(c, control, pr.ID) {
		body, _ := visible(cm.Body)
		c.check(!strings.Contains(body, pr.VerifyDrop), "comment %d does not show the dropped finding %q", cm.ID, pr.VerifyDrop)
		if cm.Path != "" {
			inline++
		}
	}
	for _, f := range fixture.BusyFindings {
		if f.Title == pr.VerifyDrop {
			continue
		}
		shown := strings.Contains(text, f.Title)
		for _, cm := range liveComments(c, control, pr.ID) {
			shown = shown || cm.Path != "" && strings.Contains(cm.Body, f.Title)
		}
		c.check(shown, "kept finding %q is shown (inline or in the summary)", f.Title)
	}
	// Placement: the budget and the floor keep the verified findings but
	// the high ones in the summary; the unverified ones are folded there.
	answer := e.output(nComments)
	for _, place := range []struct{ field, want string }{{"inline", "inline"}, {"summaryOnly", "summary"}, {"unverified", "unverified"}} {
		var got, want []string
		for _, f := range list(answer[place.field]) {
			got = append(got, str(f["title"]))
		}
		for _, f := range fixture.BusyFindings {
			if fixture.BusyPlacement(f) == place.want {
				want = append(want, f.Title)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		c.check(strings.Join(got, "|") == strings.Join(want, "|"), "/v1/comments answered %s[] = %q (want %q)", place.field, got, want)
	}
	c.check(inline <= fixture.BusyInlineMax && inline == len(pr.Inline), "PR %d has %d inline comments, within the budget of %d", pr.ID, inline, fixture.BusyInlineMax)
	if _, unv, ok := strings.Cut(text, "### Unverified findings"); c.check(ok, "the summary folds the unverified findings under their own heading") {
		unv, _, _ = strings.Cut(unv, "\n### ")
		for _, f := range fixture.BusyFindings {
			if fixture.BusyPlacement(f) == "unverified" {
				c.check(strings.Contains(unv, f.Title), "unverified finding %q is listed under Unverified findings", f.Title)
			}
		}
	}
	done := e.output(nDone)
	c.check(done["summary"] == "created" && num(done["inlineCreated"]) == float64(inline), "n8n's last node says summary created, %d inline: %v", inline, done)
	c.insights(control, str(e.output(nContext)["ref"]), e.output(nComments), "INPROGRESS,SUCCESSFUL", 1)
}
