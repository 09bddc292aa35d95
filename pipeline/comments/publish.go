package comments

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
)

// Models names the models of a review: the scout's and the reviewer's.
type Models struct {
	Scout  string `json:"scout,omitempty"`
	Review string `json:"review,omitempty"`
}

// names lists the models for the report, each with its role; one model in
// both roles is named once.
func (m *Models) names() []string {
	if m == nil {
		return nil
	}
	scout, review := pipeline.OneLine(m.Scout), pipeline.OneLine(m.Review)
	if scout != "" && scout == review {
		return []string{scout + " (scout, review)"}
	}
	var out []string
	if scout != "" {
		out = append(out, scout+" (scout)")
	}
	if review != "" {
		out = append(out, review+" (review)")
	}
	return out
}

// Formats of the /v1/comments answer besides its JSON.
const (
	FormatJSON  = "json"
	FormatSARIF = "sarif"
)

// WantsSARIF reports whether the request asks for the findings as SARIF
// (`formats: ["sarif"]`). An unknown format is an *InvalidError naming it.
func (in CommentsInput) WantsSARIF() (bool, error) {
	want := false
	for i, f := range in.Formats {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case FormatSARIF:
			want = true
		case FormatJSON:
		default:
			return false, pipeline.Invalidf(fmt.Sprintf("formats[%d]", i), "%q is not a format: json or sarif", pipeline.ClipRunes(f, 40))
		}
	}
	return want, nil
}

// Publish posts a rendering to the pull request (Post, with review memory:
// r.Markdown and r.Memory become what was posted) and then puts the
// review on its head commit (in.Ref) through rep: the Code Insights report
// with one annotation per finding, then the build status SUCCESSFUL or
// FAILED by set.FailOn, both linking to the summary comment. The commit
// surfaces never fail the call: a missing scope or an upstream failure is
// an outcome with warnings in Posted.BuildStatus and Posted.Report. A nil
// store is a dry run: nothing is posted anywhere. A nil rep leaves both
// absent.
func Publish(ctx context.Context, store pipeline.CommentStore, rep pipeline.CommitReporter, set insights.Settings, in CommentsInput, r *Rendered, opt PostOptions) (Posted, error) {
	if store == nil {
		return DryRunPosted(), nil
	}
	repo, prID, err := in.PostTarget()
	if err != nil {
		return Posted{Errors: []string{}}, err
	}
	posted, err := Post(ctx, store, repo, prID, r, opt)
	if err != nil {
		return posted, err
	}
	posted.BuildStatus, posted.Report = insights.Publish(ctx, rep, set, insights.PublishInput{
		Repo: repo, Commit: strings.TrimSpace(in.Ref), Findings: ReportFindings(*r),
		Coverage: r.Coverage, Mode: in.Mode, Models: in.Models.names(), Link: posted.SummaryURL,
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
