package publish

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
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
}

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
	posted.BuildStatus, posted.Report = insights.Publish(ctx, to.Reporter, to.Surfaces, insights.PublishInput{
		Repo: repo, Commit: strings.TrimSpace(in.Ref), Findings: review.ReportFindings(r),
		Coverage: r.Coverage, Mode: in.Mode, Models: in.Models.Names(), Link: posted.SummaryURL,
		NotMet: r.Requirements.NotMet,
	})
	r.Warnings = append(r.Warnings, posted.SurfaceWarnings()...)
	return r, posted, nil
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
