package insights

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// This file sends what the rest of the package builds through a
// pipeline.CommitReporter and turns every failure into an outcome and a
// warning: a commit surface never fails a review.

// Settings switch the commit surfaces (PRSCOUT_FAIL_ON,
// PRSCOUT_BUILD_STATUS, PRSCOUT_INSIGHTS_REPORT).
type Settings struct {
	// FailOn is the severity threshold (FailOn*) that makes the build status
	// FAILED and the report FAILED.
	FailOn string
	// BuildStatus and Report switch each surface on.
	BuildStatus bool
	Report      bool
}

// DefaultSettings returns the defaults: both surfaces on, never failing.
func DefaultSettings() Settings {
	return Settings{FailOn: FailOnNone, BuildStatus: true, Report: true}
}

// Outcomes of one commit surface call: the `outcome` of StatusResult and
// ReportResult, and the outcome label of prscout_commit_surface_total.
const (
	OutcomeOK           = "ok"
	OutcomeMissingScope = "missing_scope"
	OutcomeError        = "error"
	OutcomeSkipped      = "skipped"  // switched off, or nothing to link to
	OutcomeDeferred     = "deferred" // not written: the upstream's rate limit is near (Defer)
)

// Outcomes lists every outcome; Surfaces every surface label.
var (
	Outcomes = []string{OutcomeOK, OutcomeMissingScope, OutcomeError, OutcomeSkipped, OutcomeDeferred}
	Surfaces = []string{SurfaceStatus, SurfaceReport}
)

// Surface labels.
const (
	SurfaceStatus = "status"
	SurfaceReport = "report"
)

// StatusResult says what happened to the build status.
type StatusResult struct {
	Outcome string `json:"outcome"` // Outcome*
	// State, Description and URL are the status sent (or that would have
	// been sent when the outcome is not ok).
	State       string `json:"state,omitempty"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	// Warnings say why the status is not set, in words.
	Warnings []string `json:"warnings"`
}

// ReportResult says what happened to the Code Insights report.
type ReportResult struct {
	Outcome string `json:"outcome"` // Outcome*
	// Result is the report's result: PASSED or FAILED.
	Result string `json:"result,omitempty"`
	// Annotations is how many annotations the report holds now; Omitted how
	// many findings were left out past the host's per-report limit; Stale
	// how many annotations of an earlier run on the commit were removed.
	Annotations int `json:"annotations"`
	Omitted     int `json:"omitted"`
	Stale       int `json:"stale"`
	// Warnings say what was left out or why the report is not written.
	Warnings []string `json:"warnings"`
}

// outcomeOf classifies a reporter error.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, pipeline.ErrMissingScope):
		return OutcomeMissingScope
	}
	return OutcomeError
}

// failure words a reporter error for a warning.
func failure(what string, err error) string {
	if errors.Is(err, pipeline.ErrMissingScope) {
		return fmt.Sprintf("%s not written: the credentials lack the scope to write it (%v); the review goes on without it", what, err)
	}
	return fmt.Sprintf("%s not written: %v; the review goes on without it", what, err)
}

// setStatus sets s on commit through rep when on. It returns nil when rep is
// nil (no provider with commit surfaces: nothing to say), and never an
// error: a refusal is an outcome with a warning.
func setStatus(ctx context.Context, rep pipeline.CommitReporter, on bool, repo pipeline.Repo, commit string, s pipeline.BuildStatus) *StatusResult {
	if rep == nil {
		return nil
	}
	out := &StatusResult{Outcome: OutcomeSkipped, State: s.State, Description: s.Description, URL: s.URL, Warnings: []string{}}
	switch {
	case !on:
		return out
	case strings.TrimSpace(s.URL) == "":
		out.Warnings = append(out.Warnings, "build status not written: no link to point it at")
		return out
	}
	err := rep.SetBuildStatus(ctx, repo, commit, s)
	out.Outcome = outcomeOf(err)
	if err != nil {
		out.Warnings = append(out.Warnings, failure("build status "+s.State, err))
	}
	return out
}

// Start sets the INPROGRESS status when a full or delta review of commit
// starts (/v1/context), linking to the pull request at prURL, on the pull
// request's source branch. See setStatus for the nil result and the
// outcomes.
func Start(ctx context.Context, rep pipeline.CommitReporter, set Settings, repo pipeline.Repo, commit, prURL, branch string) *StatusResult {
	s := InProgress(prURL)
	s.RefName = branch
	return setStatus(ctx, rep, set.BuildStatus, repo, commit, s)
}

// PublishInput is a finished review, for its build status and report.
type PublishInput struct {
	Repo pipeline.Repo
	// Commit is the reviewed head.
	Commit   string
	Findings []pipeline.ReportFinding
	Coverage pipeline.Coverage
	Mode     string
	Models   []string
	// Link is the summary comment's URL (the status and the report link to it).
	Link string
	// Branch is the pull request's source branch (the status's refname).
	Branch string
	// NotMet counts the acceptance criteria the review judged not met; each
	// counts as a high finding for the threshold.
	NotMet int
}

// Publish puts a finished review on its head commit: first the report with
// one annotation per finding, then the build status, SUCCESSFUL or FAILED
// by set.FailOn, so the status turns final only once the report is
// complete. Either result is nil when rep is nil; a refusal or failure is
// an outcome with a warning, never an error.
func Publish(ctx context.Context, rep pipeline.CommitReporter, set Settings, in PublishInput) (*StatusResult, *ReportResult) {
	if rep == nil {
		return nil, nil
	}
	counts := Count(in.Findings)
	report := Report(in.Findings, ReportOptions{FailOn: set.FailOn, Coverage: in.Coverage, Mode: in.Mode, Models: in.Models, Link: in.Link, NotMet: in.NotMet})
	rr := &ReportResult{Outcome: OutcomeSkipped, Result: report.Result, Warnings: []string{}}
	if set.Report {
		res, err := rep.PutReport(ctx, in.Repo, in.Commit, Key, report, Annotations(in.Findings))
		rr.Outcome = outcomeOf(err)
		rr.Annotations, rr.Omitted, rr.Stale = res.Annotations, res.Omitted, res.Stale
		rr.Warnings = append(rr.Warnings, res.Warnings...)
		if err != nil {
			rr.Warnings = append(rr.Warnings, failure("Code Insights report "+Key, err))
		}
	}
	final := Finished(in.Link, set.FailOn, counts, in.NotMet, in.Coverage)
	final.RefName = in.Branch
	st := setStatus(ctx, rep, set.BuildStatus, in.Repo, in.Commit, final)
	return st, rr
}

// What Defer leaves out, in the order it gives them up: the annotations
// cost the most calls (a listing, deletes, a post per 100) and say least
// that the comments do not; the report is one call; the build status goes
// last, since merge checks may wait for it and a deferred one leaves the
// INPROGRESS of /v1/context on the head.
const (
	DeferAnnotations = "annotations"
	DeferReport      = "report"
	DeferStatus      = "status"
)

// Deferrable lists what Defer can leave out, in its order (the `what` label
// of prscout_deferred_total).
var Deferrable = []string{DeferAnnotations, DeferReport, DeferStatus}

// Defer is Publish when the upstream's rate limit is near (why says how the
// budget said so): the report and its annotations are not written but
// answered as Publish would have written them, with OutcomeDeferred and a
// warning; the build status too when status is true (the budget is spent),
// else it is set as Publish sets it (one call). deferred lists what was
// left out in Deferrable's order: the annotations (when the report is on
// and has findings to annotate), the report, the build status. Either
// result is nil when rep is nil, as for Publish.
func Defer(ctx context.Context, rep pipeline.CommitReporter, set Settings, in PublishInput, why string, status bool) (st *StatusResult, rr *ReportResult, deferred []string) {
	if rep == nil {
		return nil, nil, nil
	}
	deferred = []string{}
	report := Report(in.Findings, ReportOptions{FailOn: set.FailOn, Coverage: in.Coverage, Mode: in.Mode, Models: in.Models, Link: in.Link, NotMet: in.NotMet})
	rr = &ReportResult{Outcome: OutcomeSkipped, Result: report.Result, Warnings: []string{}}
	if set.Report {
		if n := len(Annotations(in.Findings)); n > 0 {
			deferred = append(deferred, DeferAnnotations)
			rr.Warnings = append(rr.Warnings, fmt.Sprintf("%d Code Insights annotations deferred: %s; the comments carry every finding", n, why))
		}
		deferred = append(deferred, DeferReport)
		rr.Outcome = OutcomeDeferred
		rr.Warnings = append(rr.Warnings, fmt.Sprintf("Code Insights report %s deferred: %s; sending this request again later writes it", Key, why))
	}
	final := Finished(in.Link, set.FailOn, Count(in.Findings), in.NotMet, in.Coverage)
	final.RefName = in.Branch
	if !status || !set.BuildStatus || strings.TrimSpace(final.URL) == "" {
		return setStatus(ctx, rep, set.BuildStatus, in.Repo, in.Commit, final), rr, deferred
	}
	deferred = append(deferred, DeferStatus)
	st = &StatusResult{Outcome: OutcomeDeferred, State: final.State, Description: final.Description, URL: final.URL, Warnings: []string{
		fmt.Sprintf("build status %s deferred: %s; the head keeps the status set when the review started until this request is sent again or the next push is reviewed", final.State, why),
	}}
	return st, rr, deferred
}

// StopInput is the POST /v1/status request: the workflow's error path
// closes the status of a review that died between /v1/context and
// /v1/comments, so it does not stay INPROGRESS.
type StopInput struct {
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
	// PRID is the pull request; Ref the reviewed head (the context's ref).
	// One of them is needed; with both, Ref is the commit (the pull request
	// may have moved on to a head that another review is working on).
	PRID int    `json:"prId,omitempty"`
	Ref  string `json:"ref,omitempty"`
	// URL is what the status links to: the pull request's page when empty
	// and prId is given (required otherwise: Bitbucket refuses a status
	// without a link).
	URL string `json:"url,omitempty"`
	// State is STOPPED (default) or FAILED.
	State string `json:"state,omitempty"`
	// Reason says why the review ended, in a few words (the n8n error).
	Reason string `json:"reason,omitempty"`
}

// StopResult is the POST /v1/status answer.
type StopResult struct {
	Workspace   string        `json:"workspace"`
	RepoSlug    string        `json:"repoSlug"`
	PRID        int           `json:"prId,omitempty"`
	Ref         string        `json:"ref"`
	BuildStatus *StatusResult `json:"buildStatus"`
	Warnings    []string      `json:"warnings"`
}

// StopSources are the ports StopReview reads and writes.
type StopSources struct {
	Repo     pipeline.Repository
	PRs      pipeline.PullRequests
	Reporter pipeline.CommitReporter
}

var fullSHA = regexp.MustCompile(`^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$`)

// StopReview sets the build status of a review that ended without
// /v1/comments to STOPPED (or FAILED) with the reason. The next review of
// the same head replaces it anyway (same key). Without a reporter, or with
// the build status switched off, it does nothing and says so. Bad input is
// an *InvalidError naming the field; an upstream failure reading the pull
// request is returned (retrying is safe); a refused status is an outcome.
func StopReview(ctx context.Context, src StopSources, set Settings, in StopInput) (StopResult, error) {
	state := strings.ToUpper(strings.TrimSpace(in.State))
	switch {
	case strings.TrimSpace(in.Workspace) == "":
		return StopResult{}, pipeline.Invalidf("workspace", "required")
	case strings.TrimSpace(in.RepoSlug) == "":
		return StopResult{}, pipeline.Invalidf("repoSlug", "required")
	case in.PRID < 0:
		return StopResult{}, pipeline.Invalidf("prId", "must be a positive pull request id")
	case in.PRID == 0 && strings.TrimSpace(in.Ref) == "":
		return StopResult{}, pipeline.Invalidf("prId", "prId or ref is required")
	case state != "" && state != pipeline.StatusStopped && state != pipeline.StatusFailed:
		return StopResult{}, pipeline.Invalidf("state", "%q is not STOPPED or FAILED", pipeline.ClipRunes(in.State, 40))
	case in.PRID == 0 && strings.TrimSpace(in.URL) == "":
		return StopResult{}, pipeline.Invalidf("url", "required without prId: a build status needs a link")
	}
	if state == "" {
		state = pipeline.StatusStopped
	}
	repo := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
	out := StopResult{Workspace: in.Workspace, RepoSlug: in.RepoSlug, PRID: in.PRID, Ref: strings.TrimSpace(in.Ref), Warnings: []string{}}
	status := ended(in.URL, state, in.Reason)
	if src.Reporter == nil || !set.BuildStatus {
		out.BuildStatus = &StatusResult{Outcome: OutcomeSkipped, State: status.State, Description: status.Description, URL: status.URL, Warnings: []string{}}
		if src.Reporter == nil {
			out.Warnings = append(out.Warnings, "no provider with build statuses is configured: nothing to close")
		}
		return out, nil
	}
	if in.PRID > 0 {
		// The pull request gives what the request left out, and the
		// source branch the status belongs to.
		if src.PRs == nil {
			return out, pipeline.Invalidf("prId", "the configured provider has no pull requests: send ref and url instead")
		}
		pr, err := src.PRs.PullRequest(ctx, repo, in.PRID)
		if err != nil {
			return out, err
		}
		if out.Ref == "" {
			out.Ref = pr.SourceCommit
		}
		status.RefName = pr.SourceBranch
		if status.URL == "" {
			status.URL = pr.URL
		}
	}
	if !fullSHA.MatchString(out.Ref) && src.Repo != nil {
		// Bitbucket links 12-digit ids; a status belongs on the full commit.
		sha, err := pipeline.ResolveCommit(ctx, src.Repo, repo, "ref", out.Ref)
		if err != nil {
			return out, err
		}
		out.Ref = sha
	}
	out.BuildStatus = setStatus(ctx, src.Reporter, true, repo, out.Ref, status)
	out.Warnings = append(out.Warnings, out.BuildStatus.Warnings...)
	return out, nil
}

// ended is the status of a review that stopped (STOPPED) or failed
// (FAILED) before its comments were posted.
func ended(url, state, reason string) pipeline.BuildStatus {
	reason = pipeline.OneLine(reason)
	s := stopped(url, reason)
	if state == pipeline.StatusFailed {
		d := "review failed"
		if reason != "" {
			d += ": " + reason
		}
		s.State, s.Description = pipeline.StatusFailed, clip(d, maxDescription)
	}
	return s
}
