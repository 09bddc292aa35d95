package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/sarif/sariftest"
)

// These tests run the real binary against the fake Bitbucket's statuses and
// Code Insights endpoints: the build status "prscout" (INPROGRESS from
// /v1/context, SUCCESSFUL or FAILED from /v1/comments by PRSCOUT_FAIL_ON,
// STOPPED from POST /v1/status) and the report "prscout" with one
// annotation per finding.

// findingDoc has no line: it stays unanchored (in the summary, and in the
// report without a line).
const findingDoc = `{"path":"pkg/api/new.go","severity":"medium","title":"lookup lacks a doc comment","body":"Say what lookup returns for short tokens."}`

// status returns the fake's build status "prscout" of commit.
func bbStatus(t *testing.T, fake *bitbuckettest.Server, commit string) bitbuckettest.CommitStatus {
	t.Helper()
	st, ok := fake.Status(bbWorkspace, bbSlug, commit, "prscout")
	if !ok {
		t.Fatalf("no build status prscout on %s", commit[:12])
	}
	return st
}

// reportData reads the report's data array by title.
func reportData(t *testing.T, r bitbuckettest.Report) map[string]any {
	t.Helper()
	var data []struct {
		Title string `json:"title"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		t.Fatalf("report data %s: %v", r.Data, err)
	}
	out := map[string]any{}
	for _, d := range data {
		out[d.Title] = d.Value
	}
	return out
}

// annotationsAt maps each annotation's summary to "path:line" (line 0: none).
func annotationsAt(as []bitbuckettest.Annotation) map[string]string {
	out := map[string]string{}
	for _, a := range as {
		out[a.Summary] = fmt.Sprintf("%s:%d", a.Path, a.Line)
	}
	return out
}

// TestBitbucketCommitSurfaces: a full review sets INPROGRESS then
// SUCCESSFUL (threshold none) with the report and one annotation per
// finding; re-sending the comments request on the same commit leaves one
// report and the same annotations; a delta review by a replica with
// PRSCOUT_FAIL_ON=high ends FAILED on the new head; the review's SARIF
// validates against the official schema.
func TestBitbucketCommitSurfaces(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	strict := startBB(t, f.fake, "PRSCOUT_FAIL_ON=high")
	fake := f.fake
	prURL := "https://bitbucket.example/acme/app/pull-requests/7"

	// /v1/context alone: INPROGRESS on the head, linking to the pull request.
	code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 7})
	mustOK(t, "/v1/context", code, ctxAns)
	if st := bbStatus(t, fake, f.h1); st.State != "INPROGRESS" || st.URL != prURL || st.Name == "" || st.RefName != "feature/tokens" {
		t.Errorf("after /v1/context the status is %+v, want INPROGRESS linking to %s on refname feature/tokens", st, prURL)
	}
	if bs := obj(ctxAns["buildStatus"]); bs["outcome"] != "ok" || bs["state"] != "INPROGRESS" {
		t.Errorf("context buildStatus = %v", bs)
	}

	// The whole review (its context sets INPROGRESS again, same key).
	r1 := s.review(t, fake, 7, bbScout, reviewOf("Two findings and a nit.", findingLookup, findingEmpty, findingDoc))
	posted := obj(r1.comments["posted"])
	st := bbStatus(t, fake, f.h1)
	if strings.Join(st.States, ",") != "INPROGRESS,INPROGRESS,SUCCESSFUL" {
		t.Errorf("status states %v, want INPROGRESS (twice: two contexts) then SUCCESSFUL", st.States)
	}
	summaries, _ := live(fake, 7)
	wantURL := fmt.Sprintf("https://bitbucket.example/acme/app/pull-requests/7/_/diff#comment-%d", summaries[0].ID)
	wantDesc := "1 high, 1 medium, 1 low · 2 of 2 files reviewed"
	if st.State != "SUCCESSFUL" || st.Description != wantDesc || st.URL != wantURL || posted["summaryUrl"] != wantURL {
		t.Errorf("final status %q %q -> %s (summaryUrl %v), want SUCCESSFUL %q -> %s", st.State, st.Description, st.URL, posted["summaryUrl"], wantDesc, wantURL)
	}
	if bs := obj(posted["buildStatus"]); bs["outcome"] != "ok" || bs["state"] != "SUCCESSFUL" {
		t.Errorf("posted.buildStatus = %v", bs)
	}
	// Bitbucket associates a status with a pull request by its refname,
	// the source branch: the final status carries it too.
	if st.RefName != "feature/tokens" {
		t.Errorf("final status refname %q, want the source branch feature/tokens", st.RefName)
	}
	reports := fake.Reports(bbWorkspace, bbSlug, f.h1)
	rep, ok := reports["prscout"]
	if len(reports) != 1 || !ok {
		t.Fatalf("reports on the head: %v, want the one report prscout", reports)
	}
	if rep.Result != "PASSED" || rep.ReportType != "BUG" || rep.Link != wantURL || !strings.HasPrefix(rep.Details, wantDesc) {
		t.Errorf("report %s %s -> %s: %q", rep.Result, rep.ReportType, rep.Link, rep.Details)
	}
	data := reportData(t, rep)
	if data["High"] != float64(1) || data["Medium"] != float64(1) || data["Low"] != float64(1) || data["Mode"] != "full" || data["Files reviewed"] != "2 of 2" {
		t.Errorf("report data = %v", data)
	}
	anns := fake.Annotations(bbWorkspace, bbSlug, f.h1, "prscout")
	at := annotationsAt(anns)
	want := map[string]string{
		"lookup panics on short tokens": "pkg/api/new.go:3",     // anchored
		"empty check is redundant":      "pkg/api/handler.go:6", // anchored
		"lookup lacks a doc comment":    "pkg/api/new.go:0",     // unanchored: no line
	}
	if len(anns) != 3 || fmt.Sprint(at) != fmt.Sprint(want) {
		t.Errorf("annotations at %v, want %v", at, want)
	}
	for _, a := range anns {
		if !strings.HasPrefix(a.ExternalID, "prscout-") || a.AnnotationType != "BUG" || a.Severity == "" {
			t.Errorf("annotation %+v", a)
		}
	}
	if rr := obj(posted["report"]); rr["outcome"] != "ok" || rr["annotations"] != float64(3) || rr["omitted"] != float64(0) {
		t.Errorf("posted.report = %v", rr)
	}

	// The same comments request again (n8n's retry): one report, the same
	// annotations, nothing stale, the status unchanged.
	req := commentsRequest(r1.merged, reviewOf("Two findings and a nit.", findingLookup, findingEmpty, findingDoc))
	req["formats"] = []string{"sarif"}
	code, again := s.post(t, "/v1/comments", req)
	mustOK(t, "/v1/comments", code, again)
	reports = fake.Reports(bbWorkspace, bbSlug, f.h1)
	anns2 := fake.Annotations(bbWorkspace, bbSlug, f.h1, "prscout")
	if len(reports) != 1 || reports["prscout"].Puts != 2 || len(anns2) != 3 || fmt.Sprint(annotationsAt(anns2)) != fmt.Sprint(want) {
		t.Errorf("after a re-run: %d reports (puts %d), annotations %v", len(reports), reports["prscout"].Puts, annotationsAt(anns2))
	}
	for i := range anns {
		if anns[i].ExternalID != anns2[i].ExternalID || anns[i].UUID != anns2[i].UUID {
			t.Errorf("annotation %d changed identity: %s/%s -> %s/%s", i, anns[i].ExternalID, anns[i].UUID, anns2[i].ExternalID, anns2[i].UUID)
		}
	}
	if rr := obj(obj(again["posted"])["report"]); rr["stale"] != float64(0) || rr["annotations"] != float64(3) {
		t.Errorf("re-run posted.report = %v", rr)
	}

	// The SARIF of that review, written to a file as CI would, validates.
	raw, err := json.Marshal(again["sarif"])
	if err != nil || again["sarif"] == nil {
		t.Fatalf("no sarif in the answer: %v", again["sarif"])
	}
	path := filepath.Join(t.TempDir(), "prscout.sarif")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(path)
	if err := sariftest.Validate(file); err != nil {
		t.Errorf("the review's SARIF does not validate: %v", err)
	}
	if n := strings.Count(string(file), `"ruleId"`); n != 3 {
		t.Errorf("SARIF has %d results, want 3", n)
	}

	// A new commit, reviewed by a replica with PRSCOUT_FAIL_ON=high: the
	// high finding fails the delta review's status and report.
	f.pr(7, "Reject empty tokens", f.h2, f.base)
	r2 := strict.review(t, fake, 7, bbScout, reviewOf("trim can panic too.", findingLookup, findingTrim))
	if r2.ctx["mode"] != "delta" {
		t.Fatalf("run 2 mode %v, want delta", r2.ctx["mode"])
	}
	st2 := bbStatus(t, fake, f.h2)
	if strings.Join(st2.States, ",") != "INPROGRESS,FAILED" || st2.Description != "1 high, 1 medium · 1 of 1 files reviewed" {
		t.Errorf("delta status %v %q, want INPROGRESS,FAILED \"1 high, 1 medium · 1 of 1 files reviewed\"", st2.States, st2.Description)
	}
	if r := fake.Reports(bbWorkspace, bbSlug, f.h2)["prscout"]; r.Result != "FAILED" || reportData(t, r)["Mode"] != "delta" {
		t.Errorf("delta report %s, data %s", r.Result, r.Data)
	}
	if st := bbStatus(t, fake, f.h1); st.State != "SUCCESSFUL" {
		t.Errorf("the first head's status changed to %s", st.State)
	}
	metrics := s.metricsText(t)
	if v := metricValue(metrics, `prscout_commit_surface_total{outcome="ok",surface="status"}`); v != 4 {
		t.Errorf("status ok = %v on the first replica, want 4 (context twice, comments twice)", v)
	}
	if v := metricValue(metrics, `prscout_commit_surface_total{outcome="ok",surface="report"}`); v != 2 {
		t.Errorf("report ok = %v, want 2", v)
	}
}

// TestBitbucketInsightsThousandFindings: 1,200 findings leave 1,000
// annotations (the least severe left out, with a warning), and the comments
// are still posted.
func TestBitbucketInsightsThousandFindings(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	var findings []string
	for i := range 1200 {
		sev := "low"
		switch {
		case i < 100:
			sev = "high"
		case i < 400:
			sev = "medium"
		}
		findings = append(findings, fmt.Sprintf(`{"path":"pkg/api/new.go","line":%d,"severity":%q,"title":"finding %d","body":"b"}`, 1000+i, sev, i))
	}
	findings = append(findings, findingLookup) // one on a diff line
	r := s.review(t, f.fake, 7, bbScout, reviewOf("Very many findings.", findings...))
	posted := obj(r.comments["posted"])
	if posted["summary"] != "created" || posted["inlineCreated"] != float64(1) {
		t.Errorf("comments not posted: %v", posted)
	}
	rr := obj(posted["report"])
	if rr["outcome"] != "ok" || rr["annotations"] != float64(1000) || rr["omitted"] != float64(201) {
		t.Errorf("posted.report = %v, want 1000 annotations, 201 omitted", rr)
	}
	if w := fmt.Sprint(rr["warnings"]) + fmt.Sprint(r.comments["warnings"]); strings.Count(w, "201 of 1201 findings not annotated") != 2 {
		t.Errorf("report and answer warnings = %v, want the omission in both", w)
	}
	anns := f.fake.Annotations(bbWorkspace, bbSlug, f.h1, "prscout")
	bySev := map[string]int{}
	for _, a := range anns {
		bySev[a.Severity]++
	}
	if len(anns) != 1000 || bySev["HIGH"] != 101 || bySev["MEDIUM"] != 300 || bySev["LOW"] != 599 {
		t.Errorf("fake holds %d annotations %v, want 1000: every high and medium, 599 low", len(anns), bySev)
	}
	rep := f.fake.Reports(bbWorkspace, bbSlug, f.h1)["prscout"]
	if !strings.Contains(rep.Details, "201 of 1201 findings not annotated") {
		t.Errorf("report details %q do not say what was left out", rep.Details)
	}
	if n := r.calls[bitbuckettest.OpPostAnnotations]; n != 10 {
		t.Errorf("%d annotation POSTs, want 10 (100 each)", n)
	}
	if st := bbStatus(t, f.fake, f.h1); st.State != "SUCCESSFUL" || !strings.HasPrefix(st.Description, "101 high, 300 medium, 800 low") {
		t.Errorf("status %s %q", st.State, st.Description)
	}
}

// TestBitbucketInsightsMissingScope: a token without the scope for statuses
// and reports: warnings and metrics, and the review is still posted.
func TestBitbucketInsightsMissingScope(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	f.fake.DenyScope(bitbuckettest.InsightsOps...)
	s := startBB(t, f.fake)
	r := s.review(t, f.fake, 7, bbScout, reviewOf("Two findings.", findingLookup, findingEmpty))
	if bs := obj(r.ctx["buildStatus"]); bs["outcome"] != "missing_scope" {
		t.Errorf("context buildStatus = %v", bs)
	}
	if w := fmt.Sprint(r.ctx["warnings"]); !strings.Contains(w, "lack the scope") || !strings.Contains(w, "write:repository:bitbucket") {
		t.Errorf("context warnings = %v, want the missing scope named", w)
	}
	posted := obj(r.comments["posted"])
	if posted["summary"] != "created" || posted["inlineCreated"] != float64(2) {
		t.Errorf("comments not posted: %v", posted)
	}
	if obj(posted["buildStatus"])["outcome"] != "missing_scope" || obj(posted["report"])["outcome"] != "missing_scope" {
		t.Errorf("posted = %v", posted)
	}
	if w := fmt.Sprint(r.comments["warnings"]); strings.Count(w, "lack the scope") != 2 {
		t.Errorf("comments warnings = %v, want the report's and the status's", w)
	}
	summaries, inline := live(f.fake, 7)
	if len(summaries) != 1 || len(inline) != 2 {
		t.Errorf("%d summaries, %d inline comments, want 1 and 2", len(summaries), len(inline))
	}
	if _, ok := f.fake.Status(bbWorkspace, bbSlug, f.h1, "prscout"); ok || len(f.fake.Reports(bbWorkspace, bbSlug, f.h1)) != 0 {
		t.Error("a status or report was written without the scope")
	}
	m := s.metricsText(t)
	if v := metricValue(m, `prscout_commit_surface_total{outcome="missing_scope",surface="status"}`); v != 2 {
		t.Errorf("status missing_scope = %v, want 2", v)
	}
	if v := metricValue(m, `prscout_commit_surface_total{outcome="missing_scope",surface="report"}`); v != 1 {
		t.Errorf("report missing_scope = %v, want 1", v)
	}
}

// TestBitbucketStatusErrorPath: a review that dies after /v1/context is
// closed by the workflow's error path (POST /v1/status → STOPPED with the
// reason); the next review of the same head replaces it.
func TestBitbucketStatusErrorPath(t *testing.T) {
	f := newBBFixture(t)
	f.pr(7, "Reject empty tokens", f.h1, f.base)
	s := startBB(t, f.fake)
	code, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 7})
	mustOK(t, "/v1/context", code, ctxAns)
	code, out := s.post(t, "/v1/status", map[string]any{
		"workspace": ctxAns["workspace"], "repoSlug": ctxAns["repoSlug"], "prId": ctxAns["prId"], "ref": ctxAns["ref"],
		"reason": "Review LLM: The service was not able to process your request (timeout)",
	})
	mustOK(t, "/v1/status", code, out)
	st := bbStatus(t, f.fake, f.h1)
	if st.State != "STOPPED" || st.Description != "review stopped: Review LLM: The service was not able to process your request (timeout)" ||
		st.URL != "https://bitbucket.example/acme/app/pull-requests/7" || out["ref"] != f.h1 || st.RefName != "feature/tokens" {
		t.Errorf("after the error path: %+v, answer %v", st, out)
	}
	// The next review of the same head replaces the status.
	r := s.review(t, f.fake, 7, bbScout, reviewOf("One finding.", findingLookup))
	if r.ctx["mode"] != "full" {
		t.Fatalf("next review mode %v, want full (nothing was posted)", r.ctx["mode"])
	}
	if st := bbStatus(t, f.fake, f.h1); strings.Join(st.States, ",") != "INPROGRESS,STOPPED,INPROGRESS,SUCCESSFUL" {
		t.Errorf("states %v, want INPROGRESS,STOPPED,INPROGRESS,SUCCESSFUL", st.States)
	}
	// Bad input names the field.
	code, out = s.post(t, "/v1/status", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug})
	if code != 400 || out["field"] != "prId" {
		t.Errorf("no prId or ref: %d %v", code, out)
	}
}
