package publish

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// budget is a pipeline.RateBudget answering a fixed headroom.
type budget pipeline.Headroom

func (b budget) Headroom() pipeline.Headroom { return pipeline.Headroom(b) }

// TestPublishDefersNearLimit: the annotations and the report are deferred
// when the budget says near (the flag, or fewer left than DeferBelow,
// reported within the hour), the build status too when it is spent (a 429,
// or none left); the comments are posted whatever the budget says, and
// switched-off surfaces are not listed as deferred.
func TestPublishDefersNearLimit(t *testing.T) {
	now := time.Now()
	on := insights.Settings{FailOn: insights.FailOnNone, BuildStatus: true, Report: true}
	cases := []struct {
		name  string
		b     pipeline.RateBudget
		below int
		set   insights.Settings
		want  string // posted.deferred
	}{
		{"no budget", nil, 100, on, "[]"},
		{"unknown", budget{Limit: -1, Remaining: -1}, 100, on, "[]"},
		{"plenty", budget{Known: true, Resource: "api", Limit: 1000, Remaining: -1, Seen: now}, 100, on, "[]"},
		{"near flag", budget{Known: true, Resource: "api", Limit: 1000, Remaining: -1, Near: true, Seen: now}, 100, on, "[annotations report]"},
		{"remaining below", budget{Known: true, Limit: 1000, Remaining: 99, Seen: now}, 100, on, "[annotations report]"},
		{"spent", budget{Known: true, Resource: "api", Limit: 1000, Remaining: -1, Near: true, Spent: true, Seen: now}, 100, on, "[annotations report status]"},
		{"none left", budget{Known: true, Limit: 1000, Remaining: 0, Seen: now}, 0, on, "[annotations report status]"},
		{"remaining at", budget{Known: true, Limit: 1000, Remaining: 100, Seen: now}, 100, on, "[]"},
		{"stale", budget{Known: true, Limit: 1000, Remaining: 3, Near: true, Seen: now.Add(-2 * time.Hour)}, 100, on, "[]"},
		{"switched off", budget{Known: true, Limit: 1000, Remaining: -1, Near: true, Seen: now}, -1, on, "[]"},
		{"report off", budget{Known: true, Limit: 1000, Remaining: -1, Near: true, Spent: true, Seen: now}, 100,
			insights.Settings{FailOn: insights.FailOnNone, BuildStatus: true}, "[status]"},
		{"report off, near", budget{Known: true, Limit: 1000, Remaining: -1, Near: true, Seen: now}, 100,
			insights.Settings{FailOn: insights.FailOnNone, BuildStatus: true}, "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
			store := newStore(7)
			store.SetCommentURLs("https://bitbucket.example/acme/shop/pull-requests/42/_/diff#comment-%d")
			rep := newReporter(nil)
			r, p, err := Publish(context.Background(), Ports{Comments: store, Reporter: rep.f, Surfaces: tc.set, Budget: tc.b, DeferBelow: tc.below}, in, PostOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(append([]string{}, p.Deferred...)); got != tc.want {
				t.Fatalf("deferred = %s, want %s", got, tc.want)
			}
			summaries, inline := live(store, 42)
			if len(summaries) != 1 || p.InlineCreated == 0 || len(inline) != p.InlineCreated {
				t.Fatalf("comments: %d summaries, %d inline (created %d): the budget must not cost comments", len(summaries), len(inline), p.InlineCreated)
			}
			calls := rep.order()
			statusDeferred := strings.Contains(tc.want, "status")
			if statusDeferred != (p.BuildStatus.Outcome == insights.OutcomeDeferred) {
				t.Errorf("build status outcome %s with deferred %s", p.BuildStatus.Outcome, tc.want)
			}
			if strings.Contains(tc.want, "report") {
				want := "[" + pipelinetest.OpSetStatus + " " + in.Ref + "]"
				if statusDeferred {
					want = "[]"
				}
				if fmt.Sprint(calls) != want || p.Report.Outcome != insights.OutcomeDeferred {
					t.Errorf("reporter calls %v, report %s; want %s and the report deferred", calls, p.Report.Outcome, want)
				}
				if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "Code Insights report prscout deferred: the rate limit of resource") {
					t.Errorf("warnings %q, want the deferral and why", w)
				}
			}
			if statusDeferred {
				if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "build status SUCCESSFUL deferred: the rate limit of resource") {
					t.Errorf("warnings %q, want the status deferral and why", w)
				}
			}
		})
	}
}
