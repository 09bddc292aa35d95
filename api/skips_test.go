package api

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/insights"
)

// TestContextSkipMetrics: every skip code is a series from the start, and
// each skipped context answer counts once under its code; a review that
// runs counts none.
func TestContextSkipMetrics(t *testing.T) {
	f := newSpecFake()
	srv, reg := newTestServer(t, Options{Repo: f, Diffs: f, PRs: f, Comments: f, Reporter: f, Surfaces: insights.DefaultSettings(),
		Skips: collect.SkipPolicy{Drafts: true, BotAuthors: []string{"dependabot"}}})
	if n, err := testutil.GatherAndCount(reg, "prscout_reviews_skipped_total"); err != nil || n != len(collect.SkipCodes) {
		t.Fatalf("prscout_reviews_skipped_total: %d series (err %v), want %d pre-initialised", n, err, len(collect.SkipCodes))
	}
	skipped := func(code string) float64 { return testutil.ToFloat64(srv.metrics.ReviewsSkipped.WithLabelValues(code)) }
	const body = `{"workspace":"acme","repoSlug":"billing-api","prId":42}`

	rec, out := do(srv, http.MethodPost, "/v1/context", body)
	if rec.Code != 200 || out["mode"] != "full" {
		t.Fatalf("open pull request: %d mode %v, want a full review", rec.Code, out["mode"])
	}
	for _, code := range collect.SkipCodes {
		if n := skipped(code); n != 0 {
			t.Errorf("a full review counted a %s skip (%v)", code, n)
		}
	}

	pr, err := f.PullRequest(t.Context(), pipeline.Repo{}, 42)
	if err != nil {
		t.Fatal(err)
	}
	pr.Draft = true
	f.AddPullRequest(pr)
	for range 2 {
		rec, out = do(srv, http.MethodPost, "/v1/context", body)
		if rec.Code != 200 || out["skipCode"] != collect.SkipDraft || out["skipReason"] != "draft: reviewed when marked ready" {
			t.Fatalf("draft: %d %v / %v, want skipCode draft", rec.Code, out["skipCode"], out["skipReason"])
		}
	}
	pr.Draft, pr.AuthorAccount = false, pipeline.Account{Nickname: "Dependabot"}
	f.AddPullRequest(pr)
	if rec, out = do(srv, http.MethodPost, "/v1/context", body); out["skipCode"] != collect.SkipBotAuthor {
		t.Fatalf("bot: %d %v, want skipCode bot_author", rec.Code, out["skipCode"])
	}
	if skipped(collect.SkipDraft) != 2 || skipped(collect.SkipBotAuthor) != 1 || skipped(collect.SkipReviewed) != 0 {
		t.Errorf("skips counted: draft %v, bot_author %v, reviewed %v; want 2, 1, 0",
			skipped(collect.SkipDraft), skipped(collect.SkipBotAuthor), skipped(collect.SkipReviewed))
	}
	if n := testutil.ToFloat64(srv.metrics.ReviewModes.WithLabelValues("skip")); n != 3 {
		t.Errorf("review_mode{skip} = %v, want 3", n)
	}
}
