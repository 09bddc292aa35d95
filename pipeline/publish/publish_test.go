package publish

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/review"
)

// reporter is a CommitReporter (a pipelinetest.Fake) that also lists its
// calls in order, "put_report <commit>" or "set_status <commit>", and answers
// err to each (nil: accepts them).
type reporter struct {
	f *pipelinetest.Fake

	mu    sync.Mutex
	calls []string
}

func newReporter(err error) *reporter {
	r := &reporter{f: pipelinetest.New()}
	r.f.Hook = func(_ context.Context, op, arg string) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls = append(r.calls, op+" "+arg)
		return err
	}
	return r
}

func (r *reporter) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func TestPublishLinksTheSummaryAndReportsFirst(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	in.Models = &review.Models{Scout: "small", Review: "large"}
	r, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(7)
	store.SetCommentURLs("https://bitbucket.example/acme/shop/pull-requests/42/_/diff#comment-%d")
	rep := newReporter(nil)
	set := insights.Settings{FailOn: insights.FailOnHigh, BuildStatus: true, Report: true}

	first, err := publishTo(context.Background(), store, rep.f, set, in)
	if err != nil {
		t.Fatal(err)
	}
	summaries, _ := live(store, 42)
	if len(summaries) != 1 || first.SummaryURL == "" || first.SummaryURL != summaries[0].URL {
		t.Fatalf("SummaryURL = %q, want the summary's link (%v)", first.SummaryURL, summaries)
	}
	wantCalls := []string{pipelinetest.OpPutReport + " " + in.Ref, pipelinetest.OpSetStatus + " " + in.Ref}
	if d := cmp.Diff(wantCalls, rep.order()); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	statuses, reports := rep.f.Statuses(), rep.f.Reports()
	if len(statuses) != 1 || len(reports) != 1 || reports[0].Key != "prscout" || statuses[0].Status.State != first.BuildStatus.State {
		t.Fatalf("statuses %+v, reports %+v: want one report keyed prscout and one status in the answer's state %s", statuses, reports, first.BuildStatus.State)
	}
	if statuses[0].Status.URL != first.SummaryURL || reports[0].Report.Link != first.SummaryURL {
		t.Errorf("status links to %q, report to %q, want the summary %q", statuses[0].Status.URL, reports[0].Report.Link, first.SummaryURL)
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
	if first.Report.Outcome != insights.OutcomeOK || first.Report.Annotations != len(findings) || len(reports[0].Annotations) != len(findings) {
		t.Errorf("report = %+v, annotations sent %d, want one per finding (%d)", first.Report, len(reports[0].Annotations), len(findings))
	}
	var models any
	for _, d := range reports[0].Report.Data {
		if d.Title == "Models" {
			models = d.Value
		}
	}
	if models != "small (scout), large (review)" {
		t.Errorf("report models = %v", models)
	}

	// The same request again: the summary is unchanged and still linked.
	again, err := publishTo(context.Background(), store, rep.f, set, in)
	if err != nil {
		t.Fatal(err)
	}
	statuses = rep.f.Statuses()
	if len(statuses) != 2 {
		t.Fatalf("%d statuses after the second request, want 2", len(statuses))
	}
	if again.Summary != summaryUnchanged || again.SummaryURL != first.SummaryURL || statuses[1].Status.URL != first.SummaryURL {
		t.Errorf("again: summary %s, url %q, status url %q, want unchanged and %q", again.Summary, again.SummaryURL, statuses[1].Status.URL, first.SummaryURL)
	}
}

func TestPublishWithoutReporterOrStore(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	p, err := publishTo(context.Background(), newStore(3), nil, insights.DefaultSettings(), in)
	if err != nil || p.Summary != summaryCreated || p.BuildStatus != nil || p.Report != nil || len(p.SurfaceWarnings()) != 0 {
		t.Errorf("no reporter: %+v, %v; want comments posted and no surfaces", p, err)
	}
	rep := newReporter(nil)
	p, err = publishTo(context.Background(), nil, rep.f, insights.DefaultSettings(), in)
	if err != nil || p.Summary != summaryDryRun || rep.f.TotalCalls() != 0 {
		t.Errorf("no store: %+v, %v, reporter calls %v; want a dry run", p, err, rep.order())
	}
	in.PRID = 0
	if _, err := publishTo(context.Background(), newStore(3), rep.f, insights.DefaultSettings(), in); err == nil || !strings.Contains(err.Error(), "prId") {
		t.Errorf("no prId: err %v, want one naming prId", err)
	}
}

func TestPublishMissingScopeIsAWarning(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	store := newStore(4)
	store.SetCommentURLs("https://bitbucket.example/acme/shop/pull-requests/42/_/diff#comment-%d")
	rep := newReporter(fmt.Errorf("bitbucket: 403: %w", pipeline.ErrMissingScope))
	p, err := publishTo(context.Background(), store, rep.f, insights.DefaultSettings(), in)
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
	store := newStore(5)
	rep := newReporter(nil)
	if _, err := publishTo(context.Background(), store, rep.f, insights.DefaultSettings(), in); err != nil {
		t.Fatal(err)
	}
	before := len(store.Comments(42))
	calls := rep.f.TotalCalls()

	in.DryRun = true
	r, p, err := Publish(context.Background(), Ports{Comments: store, Reporter: rep.f, Surfaces: insights.DefaultSettings()}, in, PostOptions{ResolveThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary != summaryDryRun || len(store.Comments(42)) != before || rep.f.TotalCalls() != calls {
		t.Errorf("dry run: posted %+v, %d comments (was %d), %d reporter calls (was %d); want nothing written", p, len(store.Comments(42)), before, rep.f.TotalCalls(), calls)
	}
	if r.Memory == nil || r.Memory.EarlierHead == "" || !strings.Contains(r.Markdown, "Findings by state") {
		t.Errorf("dry run: memory %+v; want the compare with the earlier review in the rendering", r.Memory)
	}

	store.Hook = func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpListComments {
			return errUpstream("list")
		}
		return nil
	}
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
