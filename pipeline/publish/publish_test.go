package publish

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/review"
)

// surfaceRecorder is a CommitReporter that records what it is given.
type surfaceRecorder struct {
	calls       []string // "report <commit>" or "status <state> <commit>", in order
	statuses    []pipeline.BuildStatus
	reports     []pipeline.InsightsReport
	annotations [][]pipeline.Annotation
	err         error
}

var _ pipeline.CommitReporter = (*surfaceRecorder)(nil)

func (r *surfaceRecorder) SetBuildStatus(_ context.Context, _ pipeline.Repo, commit string, s pipeline.BuildStatus) error {
	r.calls = append(r.calls, "status "+s.State+" "+commit)
	r.statuses = append(r.statuses, s)
	return r.err
}

func (r *surfaceRecorder) PutReport(_ context.Context, _ pipeline.Repo, commit, key string, rep pipeline.InsightsReport, as []pipeline.Annotation) (pipeline.PutReportResult, error) {
	r.calls = append(r.calls, "report "+key+" "+commit)
	r.reports = append(r.reports, rep)
	r.annotations = append(r.annotations, as)
	return pipeline.PutReportResult{Annotations: len(as), Warnings: []string{}}, r.err
}

func TestPublishLinksTheSummaryAndReportsFirst(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	in.Models = &review.Models{Scout: "small", Review: "large"}
	r, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	store := newFakeCommentStore(7)
	store.withURLs = true
	rep := &surfaceRecorder{}
	set := insights.Settings{FailOn: insights.FailOnHigh, BuildStatus: true, Report: true}

	first, err := publishCopy(context.Background(), store, rep, set, in, r)
	if err != nil {
		t.Fatal(err)
	}
	summaries, _ := store.live()
	if len(summaries) != 1 || first.SummaryURL == "" || first.SummaryURL != summaries[0].URL {
		t.Fatalf("SummaryURL = %q, want the summary's link (%v)", first.SummaryURL, summaries)
	}
	wantCalls := []string{"report prscout " + in.Ref, "status " + first.BuildStatus.State + " " + in.Ref}
	if d := cmp.Diff(wantCalls, rep.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if rep.statuses[0].URL != first.SummaryURL || rep.reports[0].Link != first.SummaryURL {
		t.Errorf("status links to %q, report to %q, want the summary %q", rep.statuses[0].URL, rep.reports[0].Link, first.SummaryURL)
	}
	findings := review.ReportFindings(r.Rendered)
	counts := insights.Count(findings)
	wantState := pipeline.StatusSuccessful
	if counts["critical"]+counts["high"] > 0 {
		wantState = pipeline.StatusFailed
	}
	if first.BuildStatus.Outcome != insights.OutcomeOK || first.BuildStatus.State != wantState ||
		first.BuildStatus.Description != insights.Description(counts, r.Coverage) {
		t.Errorf("buildStatus = %+v, want %s with %q", first.BuildStatus, wantState, insights.Description(counts, r.Coverage))
	}
	if first.Report.Outcome != insights.OutcomeOK || first.Report.Annotations != len(findings) || len(rep.annotations[0]) != len(findings) {
		t.Errorf("report = %+v, annotations sent %d, want one per finding (%d)", first.Report, len(rep.annotations[0]), len(findings))
	}
	var models any
	for _, d := range rep.reports[0].Data {
		if d.Title == "Models" {
			models = d.Value
		}
	}
	if models != "small (scout), large (review)" {
		t.Errorf("report models = %v", models)
	}

	// The same request again: the summary is unchanged and still linked.
	again, err := publishCopy(context.Background(), store, rep, set, in, r)
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary != summaryUnchanged || again.SummaryURL != first.SummaryURL || rep.statuses[1].URL != first.SummaryURL {
		t.Errorf("again: summary %s, url %q, status url %q, want unchanged and %q", again.Summary, again.SummaryURL, rep.statuses[1].URL, first.SummaryURL)
	}
}

func TestPublishWithoutReporterOrStore(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	r, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	p, err := publishCopy(context.Background(), newFakeCommentStore(3), nil, insights.DefaultSettings(), in, r)
	if err != nil || p.Summary != summaryCreated || p.BuildStatus != nil || p.Report != nil || len(p.SurfaceWarnings()) != 0 {
		t.Errorf("no reporter: %+v, %v; want comments posted and no surfaces", p, err)
	}
	rep := &surfaceRecorder{}
	p, err = publishCopy(context.Background(), nil, rep, insights.DefaultSettings(), in, r)
	if err != nil || p.Summary != summaryDryRun || len(rep.calls) != 0 {
		t.Errorf("no store: %+v, %v, reporter calls %v; want a dry run", p, err, rep.calls)
	}
	in.PRID = 0
	if _, err := publishCopy(context.Background(), newFakeCommentStore(3), rep, insights.DefaultSettings(), in, r); err == nil || !strings.Contains(err.Error(), "prId") {
		t.Errorf("no prId: err %v, want one naming prId", err)
	}
}

func TestPublishMissingScopeIsAWarning(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	r, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	store := newFakeCommentStore(4)
	store.withURLs = true
	rep := &surfaceRecorder{err: fmt.Errorf("bitbucket: 403: %w", pipeline.ErrMissingScope)}
	p, err := publishCopy(context.Background(), store, rep, insights.DefaultSettings(), in, r)
	if err != nil {
		t.Fatalf("a missing scope failed the call: %v", err)
	}
	if p.Summary != summaryCreated || p.BuildStatus.Outcome != insights.OutcomeMissingScope || p.Report.Outcome != insights.OutcomeMissingScope {
		t.Errorf("posted %+v, status %+v, report %+v", p, p.BuildStatus, p.Report)
	}
	if w := p.SurfaceWarnings(); len(w) != 2 || !strings.Contains(w[0], "report") || !strings.Contains(w[1], "build status") {
		t.Errorf("warnings = %q, want the report's then the status's", w)
	}
}

// publishCopy publishes a copy of r, as a caller that keeps its rendering
// would.
func publishCopy(ctx context.Context, store pipeline.CommentStore, rep pipeline.CommitReporter, set insights.Settings, in review.CommentsInput, r prepared) (Posted, error) {
	return Publish(ctx, store, rep, set, in, &r.Rendered, r.sum, PostOptions{ResolveThreads: true})
}
