package insights

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// failing is a Fake whose status and report writes all fail with err (nil:
// they succeed).
func failing(err error) *pipelinetest.Fake {
	f := pipelinetest.New()
	f.Hook = func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpSetStatus || op == pipelinetest.OpPutReport {
			return err
		}
		return nil
	}
	return f
}

const (
	head  = "9f2c4e1a7b3d5f60718293a4b5c6d7e8f9012345"
	moved = "1111111111111111111111111111111111111111"
	prURL = "https://bitbucket.example/acme/app/pull-requests/7"
)

// newPRs serves pull request 7 whose head has moved on to `moved`.
func newPRs() *pipelinetest.Fake {
	return pipelinetest.New().AddCommit(head).AddCommit(moved, head).
		AddPullRequest(pipeline.PullRequestInfo{ID: 7, SourceCommit: moved[:12], PullRequest: pipeline.PullRequest{URL: prURL}})
}

var acme = pipeline.Repo{Workspace: "acme", RepoSlug: "app"}

func TestSetStatusOutcomes(t *testing.T) {
	ctx := context.Background()
	if got := setStatus(ctx, nil, true, acme, head, InProgress(prURL)); got != nil {
		t.Errorf("no reporter: %+v, want nil", got)
	}
	tests := []struct {
		name    string
		on      bool
		url     string
		err     error
		outcome string
		warn    string
		sent    int
	}{
		{"ok", true, prURL, nil, OutcomeOK, "", 1},
		{"off", false, prURL, nil, OutcomeSkipped, "", 0},
		{"no link", true, "", nil, OutcomeSkipped, "no link", 0},
		{"missing scope", true, prURL, fmt.Errorf("403: %w", pipeline.ErrMissingScope), OutcomeMissingScope, "lack the scope", 0},
		{"upstream", true, prURL, errors.New("bitbucket set_status: 502"), OutcomeError, "502", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := failing(tt.err)
			got := setStatus(ctx, rep, tt.on, acme, head, InProgress(tt.url))
			if got.Outcome != tt.outcome || got.State != pipeline.StatusInProgress || len(rep.Statuses()) != tt.sent {
				t.Errorf("got %+v (sent %d), want outcome %s, %d sent", got, len(rep.Statuses()), tt.outcome, tt.sent)
			}
			if w := strings.Join(got.Warnings, "|"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want one containing %q", w, tt.warn)
			}
		})
	}
}

func TestPublishSwitches(t *testing.T) {
	findings := []pipeline.ReportFinding{{Path: "a.go", Line: 3, Severity: "critical", Title: "t", Fingerprint: "f1"}}
	rep := pipelinetest.New()
	st, rr := Publish(context.Background(), rep, Settings{FailOn: FailOnCritical, BuildStatus: true}, PublishInput{Repo: acme, Commit: head, Findings: findings, Link: prURL})
	if len(rep.Reports()) != 0 || rr.Outcome != OutcomeSkipped || rr.Result != pipeline.ReportFailed {
		t.Errorf("report off: %d reports sent, result %+v", len(rep.Reports()), rr)
	}
	if st.Outcome != OutcomeOK || st.State != pipeline.StatusFailed || rep.Statuses()[0].Status.Description != "1 critical" {
		t.Errorf("status = %+v (%+v), want FAILED \"1 critical\"", st, rep.Statuses())
	}
	if st, rr := Publish(context.Background(), nil, DefaultSettings(), PublishInput{}); st != nil || rr != nil {
		t.Errorf("no reporter: %+v %+v, want nil", st, rr)
	}
}

func TestStopReview(t *testing.T) {
	ctx := context.Background()
	prs := newPRs()
	rep := pipelinetest.New()
	src := StopSources{Repo: prs, PRs: prs, Reporter: rep}

	// ref wins over the pull request's moved head; the link is the PR's.
	res, err := StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7, Ref: head, Reason: "LLM\ttimed  out"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != head || rep.Statuses()[0].Commit != head || rep.Statuses()[0].Status.URL != prURL || rep.Statuses()[0].Status.State != pipeline.StatusStopped ||
		rep.Statuses()[0].Status.Description != "review stopped: LLM timed out" || res.BuildStatus.Outcome != OutcomeOK {
		t.Errorf("with ref: %+v, sent %+v", res, rep.Statuses())
	}
	// prId alone: the pull request's head, resolved to the full id.
	res, err = StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7, State: "failed"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != moved || rep.Statuses()[1].Commit != moved || rep.Statuses()[1].Status.State != pipeline.StatusFailed || rep.Statuses()[1].Status.Description != "review failed" {
		t.Errorf("prId only: %+v, sent %+v", res, rep.Statuses())
	}
	// ref and url: no pull request read.
	before := prs.Calls(pipelinetest.OpPullRequest, "")
	if _, err := StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", Ref: head, URL: "https://ci.example/run/1"}); err != nil || prs.Calls(pipelinetest.OpPullRequest, "") != before {
		t.Errorf("ref+url: err %v, %d pull request reads", err, prs.Calls(pipelinetest.OpPullRequest, "")-before)
	}
	// An unknown pull request is the adapter's error, for a 404.
	if _, err := StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", PRID: 8}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown PR: err %v, want ErrNotFound", err)
	}
	// Switched off, or no reporter: nothing written, no read.
	for _, tc := range []struct {
		src StopSources
		set Settings
	}{{src, Settings{}}, {StopSources{PRs: prs}, DefaultSettings()}} {
		before, sent := prs.Calls(pipelinetest.OpPullRequest, ""), len(rep.Statuses())
		res, err := StopReview(ctx, tc.src, tc.set, StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7})
		if err != nil || res.BuildStatus.Outcome != OutcomeSkipped || prs.Calls(pipelinetest.OpPullRequest, "") != before || len(rep.Statuses()) != sent {
			t.Errorf("off/no reporter: %+v, %v", res, err)
		}
	}
}

func TestStopReviewBadInput(t *testing.T) {
	src := StopSources{Reporter: pipelinetest.New()}
	for _, tc := range []struct {
		in    StopInput
		field string
	}{
		{StopInput{RepoSlug: "app", PRID: 7}, "workspace"},
		{StopInput{Workspace: "acme", PRID: 7}, "repoSlug"},
		{StopInput{Workspace: "acme", RepoSlug: "app", PRID: -1}, "prId"},
		{StopInput{Workspace: "acme", RepoSlug: "app"}, "prId"},
		{StopInput{Workspace: "acme", RepoSlug: "app", Ref: head}, "url"},
		{StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7, State: "SUCCESSFUL"}, "state"},
		{StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7}, "prId"}, // no PullRequests port
	} {
		_, err := StopReview(context.Background(), src, DefaultSettings(), tc.in)
		var ie *pipeline.InvalidError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%+v: err %v, want an InvalidError on %s", tc.in, err, tc.field)
		}
	}
}
