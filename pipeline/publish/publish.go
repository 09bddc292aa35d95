package publish

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/evidence"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/review"
)

// Ports are where Publish puts a review: the pull request's comments, and
// the head commit's build status and Code Insights report (Reporter, as
// Surfaces says). A nil Comments posts nothing: the review is only rendered.
// A nil Reporter leaves the commit surfaces absent.
type Ports struct {
	Comments pipeline.CommentStore
	Reporter pipeline.CommitReporter
	Surfaces insights.Settings
	// Sources reads a changed file at the head when the request carries
	// its diff but not its new source (/v1/merge echoes files without
	// them) and a finding's quoted code was not found in the diff: the
	// review prompt showed that source, so the evidence check reads it
	// (sourcesForEvidence). Nil checks against the request alone.
	Sources pipeline.Repository
	// Budget is the rate-limit budget of the credentials Comments and
	// Reporter use; nil never defers. When it is near the limit
	// (pipeline.Headroom.NearLimit with DeferBelow) after the comments are
	// posted, the annotations and the report are deferred, and the build
	// status too when the budget is spent (insights.Defer): the comments are
	// never given up for the budget.
	Budget pipeline.RateBudget
	// DeferBelow is the remaining count under which the budget counts as
	// near the limit even when the upstream does not say so
	// (PRSCOUT_DEFER_BELOW); a negative value never defers.
	DeferBelow int
}

// Bounds of the head reads for the evidence check: files per request and
// bytes per file (a larger file is not read; its findings stay as checked).
const (
	maxEvidenceReads     = 20
	maxEvidenceReadBytes = 1 << 20
)

// Publish is the /v1/comments stage. It renders the review (review.Prepare)
// and posts it to the pull request (Post, with review memory: the rendering
// answered is what was posted), then puts it on the head commit (in.Ref):
// the Code Insights report with one annotation per finding, then the build
// status SUCCESSFUL or FAILED by Surfaces.FailOn, both linking to the
// summary comment. The commit surfaces never fail the call: a missing scope
// or an upstream failure is an outcome with warnings in Posted.BuildStatus
// and Posted.Report, also added to the rendering's warnings.
//
// A dry run (in.DryRun) writes nothing anywhere; for a pull request it still
// reads the comments, so the rendering shows the compare with earlier
// reviews, and a failed read only costs the compare (a warning).
// opt.DryRun is taken from in.DryRun.
func Publish(ctx context.Context, to Ports, in review.CommentsInput, opt PostOptions) (review.Rendered, Posted, error) {
	r, sum, err := review.Prepare(in)
	if err != nil {
		return review.Rendered{}, Posted{Errors: []string{}}, err
	}
	filled, warnings := sourcesForEvidence(ctx, to.Sources, in, r)
	if filled != nil {
		// The same request with the sources read: rendering is pure, so
		// the second rendering differs only by the evidence verdicts.
		if r2, sum2, err := review.Prepare(*filled); err == nil {
			in, r, sum = *filled, r2, sum2
		}
	}
	r.Warnings = append(r.Warnings, warnings...)
	if to.Comments == nil {
		return r, DryRunPosted(), nil
	}
	repo, prID, err := in.PostTarget()
	opt.DryRun = in.DryRun
	if in.DryRun {
		if err != nil {
			return r, DryRunPosted(), nil // no pull request to read
		}
		dry := r
		if _, err := Post(ctx, to.Comments, repo, prID, &dry, sum, opt); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("earlier reviews not read: %v", err))
			return r, DryRunPosted(), nil
		}
		return dry, DryRunPosted(), nil
	}
	if err != nil {
		return r, Posted{Errors: []string{}}, err
	}
	posted, err := Post(ctx, to.Comments, repo, prID, &r, sum, opt)
	if err != nil {
		return r, posted, err
	}
	surfaces := insights.PublishInput{
		Repo: repo, Commit: strings.TrimSpace(in.Ref), Findings: review.ReportFindings(r),
		Coverage: r.Coverage, Mode: in.Mode, Models: in.Models.Names(), Link: posted.SummaryURL,
		NotMet: r.Requirements.NotMet, Branch: in.Branch(),
	}
	if why, spent := nearLimit(to); why != "" {
		posted.BuildStatus, posted.Report, posted.Deferred = insights.Defer(ctx, to.Reporter, to.Surfaces, surfaces, why, spent)
	} else {
		posted.BuildStatus, posted.Report = insights.Publish(ctx, to.Reporter, to.Surfaces, surfaces)
	}
	r.Warnings = append(r.Warnings, posted.SurfaceWarnings()...)
	return r, posted, nil
}

// nearLimit says why the budget of to is near its limit, or "" when it is
// not (or there is no budget), and whether it is spent (the latest answer
// was a 429). It is read after the comments are posted, so their own
// answers count.
func nearLimit(to Ports) (why string, spent bool) {
	if to.Budget == nil || to.DeferBelow < 0 {
		return "", false
	}
	h, now := to.Budget.Headroom(), time.Now()
	if !h.NearLimit(to.DeferBelow, now) {
		return "", false
	}
	res := h.Resource
	if res == "" {
		res = "unnamed"
	}
	switch {
	case h.SpentAt(now):
		why = fmt.Sprintf("the rate limit of resource %s is spent (429, limit %d)", res, h.Limit)
	case h.Near:
		why = fmt.Sprintf("the rate limit of resource %s is near (X-RateLimit-NearLimit, limit %d)", res, h.Limit)
	default:
		why = fmt.Sprintf("the rate limit of resource %s is near (%d of %d left, below %d)", res, h.Remaining, h.Limit, to.DeferBelow)
	}
	return why, h.SpentAt(now)
}

// SurfaceWarnings lists the warnings of the build status and the report,
// for the answer's top-level warnings.
func (p Posted) SurfaceWarnings() []string {
	var out []string
	if p.Report != nil {
		out = append(out, p.Report.Warnings...)
	}
	if p.BuildStatus != nil {
		out = append(out, p.BuildStatus.Warnings...)
	}
	return out
}

// sourcesForEvidence reads at the head (in.Ref) the new source of each
// changed file that the request carries without one, when an unverified
// finding names it and its quote was not found: the request with those
// sources, or nil when nothing was read. Deleted files are not read; at
// most maxEvidenceReads files of at most maxEvidenceReadBytes each; a
// failed read is a warning and leaves the finding as checked.
func sourcesForEvidence(ctx context.Context, repo pipeline.Repository, in review.CommentsInput, r review.Rendered) (*review.CommentsInput, []string) {
	if repo == nil || len(r.Unverified) == 0 || strings.TrimSpace(in.Workspace) == "" || strings.TrimSpace(in.RepoSlug) == "" {
		return nil, nil
	}
	byPath := map[string]int{}
	for i, f := range in.Files {
		if f.Source == "" && f.Status != "deleted" {
			byPath[anchor.NormalizePath(f.Path)] = i
		}
	}
	var want []int
	seen := map[int]bool{}
	for _, u := range r.Unverified {
		if u.Evidence.Reason != evidence.ReasonNotFound && u.Evidence.Reason != evidence.ReasonDeleted {
			continue
		}
		if i, ok := byPath[anchor.NormalizePath(u.Path)]; ok && !seen[i] {
			seen[i] = true
			want = append(want, i)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	var warnings []string
	if len(want) > maxEvidenceReads {
		warnings = append(warnings, fmt.Sprintf("evidence: %d changed files without their source in the request; the first %d were read at the head", len(want), maxEvidenceReads))
		want = want[:maxEvidenceReads]
	}
	files := append([]pipeline.ChangedFile(nil), in.Files...)
	target := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
	read := 0
	for _, i := range want {
		data, err := repo.ReadFile(ctx, target, strings.TrimSpace(in.Ref), files[i].Path, maxEvidenceReadBytes)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("evidence: %s not read at the head: %v", files[i].Path, err))
			continue
		}
		files[i].Source = redact.Secrets(string(data), nil)
		read++
	}
	if read == 0 {
		return nil, warnings
	}
	out := in
	out.Files = files
	return &out, warnings
}
