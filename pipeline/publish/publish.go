package publish

import (
	"context"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/review"
)

// Publish posts a rendering to the pull request (Post, with review memory:
// r.Markdown and r.Memory become what was posted) and then puts the
// review on its head commit (in.Ref) through rep: the Code Insights report
// with one annotation per finding, then the build status SUCCESSFUL or
// FAILED by set.FailOn, both linking to the summary comment. The commit
// surfaces never fail the call: a missing scope or an upstream failure is
// an outcome with warnings in Posted.BuildStatus and Posted.Report. A nil
// store is a dry run: nothing is posted anywhere. A nil rep leaves both
// absent.
func Publish(ctx context.Context, store pipeline.CommentStore, rep pipeline.CommitReporter, set insights.Settings, in review.CommentsInput, r *review.Rendered, sum *review.Summary, opt PostOptions) (Posted, error) {
	if store == nil {
		return DryRunPosted(), nil
	}
	repo, prID, err := in.PostTarget()
	if err != nil {
		return Posted{Errors: []string{}}, err
	}
	posted, err := Post(ctx, store, repo, prID, r, sum, opt)
	if err != nil {
		return posted, err
	}
	posted.BuildStatus, posted.Report = insights.Publish(ctx, rep, set, insights.PublishInput{
		Repo: repo, Commit: strings.TrimSpace(in.Ref), Findings: review.ReportFindings(*r),
		Coverage: r.Coverage, Mode: in.Mode, Models: in.Models.Names(), Link: posted.SummaryURL,
		NotMet: r.Requirements.NotMet,
	})
	return posted, nil
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
