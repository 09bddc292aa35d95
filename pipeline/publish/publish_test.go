package publish

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
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

	first, err := publishTo(context.Background(), store, rep, set, in)
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
	again, err := publishTo(context.Background(), store, rep, set, in)
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary != summaryUnchanged || again.SummaryURL != first.SummaryURL || rep.statuses[1].URL != first.SummaryURL {
		t.Errorf("again: summary %s, url %q, status url %q, want unchanged and %q", again.Summary, again.SummaryURL, rep.statuses[1].URL, first.SummaryURL)
	}
}

func TestPublishWithoutReporterOrStore(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	p, err := publishTo(context.Background(), newFakeCommentStore(3), nil, insights.DefaultSettings(), in)
	if err != nil || p.Summary != summaryCreated || p.BuildStatus != nil || p.Report != nil || len(p.SurfaceWarnings()) != 0 {
		t.Errorf("no reporter: %+v, %v; want comments posted and no surfaces", p, err)
	}
	rep := &surfaceRecorder{}
	p, err = publishTo(context.Background(), nil, rep, insights.DefaultSettings(), in)
	if err != nil || p.Summary != summaryDryRun || len(rep.calls) != 0 {
		t.Errorf("no store: %+v, %v, reporter calls %v; want a dry run", p, err, rep.calls)
	}
	in.PRID = 0
	if _, err := publishTo(context.Background(), newFakeCommentStore(3), rep, insights.DefaultSettings(), in); err == nil || !strings.Contains(err.Error(), "prId") {
		t.Errorf("no prId: err %v, want one naming prId", err)
	}
}

func TestPublishMissingScopeIsAWarning(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	store := newFakeCommentStore(4)
	store.withURLs = true
	rep := &surfaceRecorder{err: fmt.Errorf("bitbucket: 403: %w", pipeline.ErrMissingScope)}
	p, err := publishTo(context.Background(), store, rep, insights.DefaultSettings(), in)
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

// publishTo publishes in with the service's default options and answers
// what was posted.
func publishTo(ctx context.Context, store pipeline.CommentStore, rep pipeline.CommitReporter, set insights.Settings, in review.CommentsInput) (Posted, error) {
	_, p, err := Publish(ctx, Ports{Comments: store, Reporter: rep, Surfaces: set}, in, PostOptions{ResolveThreads: true})
	return p, err
}

// TestPublishDryRun: a dry run writes nothing, but the rendering it answers
// carries the compare with the earlier review it read; a failed read costs
// only the compare, with a warning; without a pull request id nothing is
// read.
func TestPublishDryRun(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	store := newFakeCommentStore(5)
	rep := &surfaceRecorder{}
	if _, err := publishTo(context.Background(), store, rep, insights.DefaultSettings(), in); err != nil {
		t.Fatal(err)
	}
	before := len(store.comments)
	calls := len(rep.calls)

	in.DryRun = true
	r, p, err := Publish(context.Background(), Ports{Comments: store, Reporter: rep, Surfaces: insights.DefaultSettings()}, in, PostOptions{ResolveThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary != summaryDryRun || len(store.comments) != before || len(rep.calls) != calls {
		t.Errorf("dry run: posted %+v, %d comments (was %d), %d reporter calls (was %d); want nothing written", p, len(store.comments), before, len(rep.calls), calls)
	}
	if r.Memory == nil || r.Memory.EarlierHead == "" || !strings.Contains(r.Markdown, "Findings by state") {
		t.Errorf("dry run: memory %+v; want the compare with the earlier review in the rendering", r.Memory)
	}

	store.failList = true
	r, p, err = Publish(context.Background(), Ports{Comments: store}, in, PostOptions{})
	if err != nil || p.Summary != summaryDryRun || r.Memory != nil || !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "earlier reviews not read: ") }) {
		t.Errorf("failed read: %+v, memory %v, warnings %q, err %v; want a dry run with a warning", p, r.Memory, r.Warnings, err)
	}

	in.PRID = 0
	r, p, err = Publish(context.Background(), Ports{Comments: store}, in, PostOptions{})
	if err != nil || p.Summary != summaryDryRun || r.Memory != nil || len(r.Warnings) != 0 {
		t.Errorf("no pull request: %+v, memory %v, warnings %q, err %v; want a plain rendering", p, r.Memory, r.Warnings, err)
	}
}
