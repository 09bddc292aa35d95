package insights

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// fakeReporter records statuses and reports; err fails every call.
type fakeReporter struct {
	statuses []pipeline.BuildStatus
	commits  []string
	reports  int
	err      error
}

func (f *fakeReporter) SetBuildStatus(_ context.Context, _ pipeline.Repo, commit string, s pipeline.BuildStatus) error {
	if f.err != nil {
		return f.err
	}
	f.statuses, f.commits = append(f.statuses, s), append(f.commits, commit)
	return nil
}

func (f *fakeReporter) PutReport(context.Context, pipeline.Repo, string, string, pipeline.InsightsReport, []pipeline.Annotation) (pipeline.PutReportResult, error) {
	f.reports++
	return pipeline.PutReportResult{Warnings: []string{}}, f.err
}

const (
	head  = "9f2c4e1a7b3d5f60718293a4b5c6d7e8f9012345"
	moved = "1111111111111111111111111111111111111111"
	prURL = "https://bitbucket.example/acme/app/pull-requests/7"
)

// fakePRs serves pull request 7 whose head has moved on to `moved`, and
// resolves 12-digit ids.
type fakePRs struct{ reads int }

func (f *fakePRs) PullRequest(_ context.Context, _ pipeline.Repo, id int) (pipeline.PullRequestInfo, error) {
	f.reads++
	if id != 7 {
		return pipeline.PullRequestInfo{}, fmt.Errorf("pull request %d: %w", id, pipeline.ErrNotFound)
	}
	return pipeline.PullRequestInfo{ID: 7, SourceCommit: moved[:12], PullRequest: pipeline.PullRequest{URL: prURL}}, nil
}

func (f *fakePRs) IsAncestor(context.Context, pipeline.Repo, string, string) (bool, error) {
	return true, nil
}

func (f *fakePRs) ResolveCommit(_ context.Context, _ pipeline.Repo, rev string) (string, error) {
	for _, c := range []string{head, moved} {
		if len(rev) >= 7 && strings.HasPrefix(c, rev) {
			return c, nil
		}
	}
	return "", fmt.Errorf("revision %s: %w", rev, pipeline.ErrNotFound)
}

func (f *fakePRs) ReadFile(context.Context, pipeline.Repo, string, string, int64) ([]byte, error) {
	return nil, pipeline.ErrNotFound
}

func (f *fakePRs) ListDir(context.Context, pipeline.Repo, string, string, int) ([]pipeline.DirEntry, bool, error) {
	return nil, false, pipeline.ErrNotFound
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
			rep := &fakeReporter{err: tt.err}
			got := setStatus(ctx, rep, tt.on, acme, head, InProgress(tt.url))
			if got.Outcome != tt.outcome || got.State != pipeline.StatusInProgress || len(rep.statuses) != tt.sent {
				t.Errorf("got %+v (sent %d), want outcome %s, %d sent", got, len(rep.statuses), tt.outcome, tt.sent)
			}
			if w := strings.Join(got.Warnings, "|"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want one containing %q", w, tt.warn)
			}
		})
	}
}

func TestPublishSwitches(t *testing.T) {
	findings := []pipeline.ReportFinding{{Path: "a.go", Line: 3, Severity: "critical", Title: "t", Fingerprint: "f1"}}
	rep := &fakeReporter{}
	st, rr := Publish(context.Background(), rep, Settings{FailOn: FailOnCritical, BuildStatus: true}, PublishInput{Repo: acme, Commit: head, Findings: findings, Link: prURL})
	if rep.reports != 0 || rr.Outcome != OutcomeSkipped || rr.Result != pipeline.ReportFailed {
		t.Errorf("report off: %d reports sent, result %+v", rep.reports, rr)
	}
	if st.Outcome != OutcomeOK || st.State != pipeline.StatusFailed || rep.statuses[0].Description != "1 critical" {
		t.Errorf("status = %+v (%+v), want FAILED \"1 critical\"", st, rep.statuses)
	}
	if st, rr := Publish(context.Background(), nil, DefaultSettings(), PublishInput{}); st != nil || rr != nil {
		t.Errorf("no reporter: %+v %+v, want nil", st, rr)
	}
}

func TestStopReview(t *testing.T) {
	ctx := context.Background()
	prs := &fakePRs{}
	rep := &fakeReporter{}
	src := StopSources{Repo: prs, PRs: prs, Reporter: rep}

	// ref wins over the pull request's moved head; the link is the PR's.
	res, err := StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7, Ref: head, Reason: "LLM\ttimed  out"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != head || rep.commits[0] != head || rep.statuses[0].URL != prURL || rep.statuses[0].State != pipeline.StatusStopped ||
		rep.statuses[0].Description != "review stopped: LLM timed out" || res.BuildStatus.Outcome != OutcomeOK {
		t.Errorf("with ref: %+v, sent %+v on %v", res, rep.statuses, rep.commits)
	}
	// prId alone: the pull request's head, resolved to the full id.
	res, err = StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7, State: "failed"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != moved || rep.commits[1] != moved || rep.statuses[1].State != pipeline.StatusFailed || rep.statuses[1].Description != "review failed" {
		t.Errorf("prId only: %+v, sent %+v on %v", res, rep.statuses[1], rep.commits[1])
	}
	// ref and url: no pull request read.
	before := prs.reads
	if _, err := StopReview(ctx, src, DefaultSettings(), StopInput{Workspace: "acme", RepoSlug: "app", Ref: head, URL: "https://ci.example/run/1"}); err != nil || prs.reads != before {
		t.Errorf("ref+url: err %v, %d pull request reads", err, prs.reads-before)
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
		before, sent := prs.reads, len(rep.statuses)
		res, err := StopReview(ctx, tc.src, tc.set, StopInput{Workspace: "acme", RepoSlug: "app", PRID: 7})
		if err != nil || res.BuildStatus.Outcome != OutcomeSkipped || prs.reads != before || len(rep.statuses) != sent {
			t.Errorf("off/no reporter: %+v, %v", res, err)
		}
	}
}

func TestStopReviewBadInput(t *testing.T) {
	src := StopSources{Reporter: &fakeReporter{}}
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
