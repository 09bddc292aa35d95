package api

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const proposeBody = `{"workspace":"w","repoSlug":"r","path":"src/**/*.go","rule":"Wrap errors with %w.","sourcePrId":7,"sourceCommentId":3,"author":"Ada"}`

// TestRulesProposeEndpoint: dry-run by default (the entry and its text,
// nothing written); off and a provider without commits are 409s with their
// code; bad input a 400 naming the field; on with a committer opens the
// review rules pull request. Each answer is counted by status.
func TestRulesProposeEndpoint(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	rec, out := do(s, "POST", "/v1/rules/propose", proposeBody)
	if rec.Code != 200 || out["status"] != "dry-run" || !strings.Contains(out["text"].(string), "Wrap errors with %w.") {
		t.Fatalf("dry run: %d %v", rec.Code, out)
	}
	if src := out["rule"].(map[string]any)["source"].(map[string]any); src["pr"] != float64(7) || src["comment"] != float64(3) {
		t.Errorf("dry run rule source %v", src)
	}
	rec, out = do(s, "POST", "/v1/rules/propose", `{"workspace":"w","repoSlug":"r","path":"src/**","rule":"x","sourcePrId":0}`)
	if rec.Code != 400 || out["field"] != "sourcePrId" {
		t.Errorf("no source pull request: %d %v", rec.Code, out)
	}
	rec, out = do(s, "POST", "/v1/rules/propose", `{"workspace":"w","repoSlug":"r","path":7}`)
	if rec.Code != 400 || out["field"] != "path" {
		t.Errorf("path of the wrong type: %d %v", rec.Code, out)
	}

	off, _ := newTestServer(t, Options{Learnings: learn.ModeOff})
	if rec, out := do(off, "POST", "/v1/rules/propose", proposeBody); rec.Code != 409 || out["error"] != "learnings_off" {
		t.Errorf("off: %d %v", rec.Code, out)
	}
	local, _ := newTestServer(t, Options{Learnings: learn.ModeOn})
	if rec, out := do(local, "POST", "/v1/rules/propose", proposeBody); rec.Code != 409 || out["error"] != "unsupported_provider" {
		t.Errorf("no committer: %d %v", rec.Code, out)
	}

	f := pipelinetest.New().AddCommit("head", "base").AddRef("main", "base").
		AddPullRequest(pipeline.PullRequestInfo{ID: 7, State: "OPEN", SourceCommit: "head", DestinationCommit: "base",
			PullRequest: pipeline.PullRequest{SourceBranch: "feature", DestinationBranch: "main"}})
	on, _ := newTestServer(t, Options{Learnings: learn.ModeOn, Repo: f, Diffs: f, PRs: f, Committer: pipelinetest.Committer{Fake: f}})
	rec, out = do(on, "POST", "/v1/rules/propose", proposeBody)
	if rec.Code != 200 || out["status"] != "added" || out["branch"] != learn.Branch {
		t.Fatalf("on: %d %v", rec.Code, out)
	}
	if pr, _ := out["pullRequest"].(map[string]any); pr["created"] != true {
		t.Errorf("on: pull request %v, want created", pr)
	}
	if rec, out = do(on, "POST", "/v1/rules/propose", proposeBody); out["status"] != "duplicate" {
		t.Errorf("again: %d %v, want duplicate", rec.Code, out)
	}
	if got := testutil.ToFloat64(on.metrics.RulesProposed.WithLabelValues("added")); got != 1 {
		t.Errorf("prscout_rules_proposed_total{status=added} = %v", got)
	}
	if got := testutil.ToFloat64(s.metrics.RulesProposed.WithLabelValues("dry-run")); got != 1 {
		t.Errorf("prscout_rules_proposed_total{status=dry-run} = %v", got)
	}
	if got := testutil.ToFloat64(s.metrics.RulesProposed.WithLabelValues("invalid")); got != 1 {
		t.Errorf("prscout_rules_proposed_total{status=invalid} = %v", got)
	}
}
