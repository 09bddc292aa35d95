package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/sarif/sariftest"
)

// failSurfaces makes f's build status and report writes fail with these
// errors (nil: they succeed).
func failSurfaces(f *pipelinetest.Fake, statusErr, reportErr error) *pipelinetest.Fake {
	f.Hook = func(_ context.Context, op, _ string) error {
		switch op {
		case pipelinetest.OpSetStatus:
			return statusErr
		case pipelinetest.OpPutReport:
			return reportErr
		}
		return nil
	}
	return f
}

var errScope = fmt.Errorf("bitbucket set_status: 403: %w", pipeline.ErrMissingScope)

// surfaceServer serves the spec's pull request from f, which also records
// the build statuses and reports.
func surfaceServer(t *testing.T, f *pipelinetest.Fake, set insights.Settings) *Server {
	t.Helper()
	srv, _ := newTestServer(t, Options{
		Repo: f, Diffs: f, PRs: f, Comments: f,
		Reporter: f, Surfaces: set,
	})
	return srv
}

func surfaceCount(t *testing.T, srv *Server, surface, outcome string) float64 {
	t.Helper()
	return testutil.ToFloat64(srv.metrics.CommitSurfaces.WithLabelValues(surface, outcome))
}

const surfaceFindings = `{"summary":"s","findings":[
 {"path":"src/billing/invoice.go","line":4,"existingCode":"func Total() int { return 0 }","severity":"high","title":"Total ignores lines","body":"b"},
 {"path":"src/billing/invoice.go","line":3,"severity":"high","title":"Doc is wrong","body":"b"},
 {"path":"src/billing/other.go","severity":"medium","title":"Off the diff","body":"b"}]}`

func commentsBody(t *testing.T, extra map[string]any) string {
	t.Helper()
	in := map[string]any{
		"workspace": "acme", "repoSlug": "billing-api", "prId": 42, "ref": specHead, "mode": "full", "dryRun": false,
		"files":  []map[string]any{{"path": "src/billing/invoice.go", "status": "modified", "diff": specDiff}},
		"review": json.RawMessage(surfaceFindings),
	}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestContextSetsInProgress(t *testing.T) {
	rep := newSpecFake()
	srv := surfaceServer(t, rep, insights.DefaultSettings())
	rec, out := do(srv, http.MethodPost, "/v1/context", `{"workspace":"acme","repoSlug":"billing-api","prId":42}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	bs, _ := out["buildStatus"].(map[string]any)
	if bs["outcome"] != "ok" || bs["state"] != "INPROGRESS" || bs["url"] != "https://bitbucket.example/acme/billing-api/pull-requests/42" {
		t.Errorf("buildStatus = %v", bs)
	}
	if len(rep.Statuses()) != 1 || rep.Statuses()[0].Status.State != pipeline.StatusInProgress || rep.Statuses()[0].Status.Key != "prscout" || rep.Statuses()[0].Commit != specHead {
		t.Errorf("statuses = %+v on %v, want one INPROGRESS on the full head", rep.Statuses(), rep.Statuses())
	}
	if n := surfaceCount(t, srv, "status", "ok"); n != 1 {
		t.Errorf("status/ok = %v, want 1", n)
	}

	// base..head has no pull request: no status; /v1/preview never sets one.
	before := len(rep.Statuses())
	rec, out = do(srv, http.MethodPost, "/v1/context", `{"workspace":"acme","repoSlug":"billing-api","base":"main","head":"feature/PAY-17-rounding"}`)
	if rec.Code != 200 || out["buildStatus"] != nil || len(rep.Statuses()) != before {
		t.Errorf("base..head: status %d, buildStatus %v, reporter saw %v", rec.Code, out["buildStatus"], rep.Statuses())
	}
	rec, _ = do(srv, http.MethodPost, "/v1/preview", `{"workspace":"acme","repoSlug":"billing-api","prId":42}`)
	if rec.Code != 200 || len(rep.Statuses()) != before {
		t.Errorf("preview: status %d, reporter saw %v", rec.Code, rep.Statuses())
	}
}

func TestContextSkipSetsNoStatus(t *testing.T) {
	rep := newSpecFake()
	rep.AddComment(42, pipeline.Comment{ID: 1, Body: "Review\n\n[prscout]: # \"review head=" + specHead + " v=1\""})
	srv := surfaceServer(t, rep, insights.DefaultSettings())
	rec, out := do(srv, http.MethodPost, "/v1/context", `{"workspace":"acme","repoSlug":"billing-api","prId":42}`)
	if rec.Code != 200 || out["mode"] != "skip" {
		t.Fatalf("status %d mode %v, want a skip", rec.Code, out["mode"])
	}
	if out["buildStatus"] != nil || len(rep.Statuses()) != 0 {
		t.Errorf("skip set a status: %v %v", out["buildStatus"], rep.Statuses())
	}
}

func TestContextMissingScopeIsAWarning(t *testing.T) {
	rep := failSurfaces(newSpecFake(), errScope, nil)
	srv := surfaceServer(t, rep, insights.DefaultSettings())
	rec, out := do(srv, http.MethodPost, "/v1/context", `{"workspace":"acme","repoSlug":"billing-api","prId":42}`)
	if rec.Code != 200 {
		t.Fatalf("a missing scope failed the context: %d %s", rec.Code, rec.Body)
	}
	if bs, _ := out["buildStatus"].(map[string]any); bs["outcome"] != "missing_scope" {
		t.Errorf("buildStatus = %v, want missing_scope", bs)
	}
	if w := fmt.Sprint(out["warnings"]); !strings.Contains(w, "lack the scope") {
		t.Errorf("warnings = %v, want the missing scope", w)
	}
	if n := surfaceCount(t, srv, "status", "missing_scope"); n != 1 {
		t.Errorf("status/missing_scope = %v, want 1", n)
	}
}

func TestCommentsPublishByThreshold(t *testing.T) {
	for _, tc := range []struct {
		failOn, state, result string
	}{
		{"none", pipeline.StatusSuccessful, pipeline.ReportPassed},
		{"critical", pipeline.StatusSuccessful, pipeline.ReportPassed},
		{"high", pipeline.StatusFailed, pipeline.ReportFailed},
	} {
		t.Run(tc.failOn, func(t *testing.T) {
			rep := newSpecFake()
			srv := surfaceServer(t, rep, insights.Settings{FailOn: tc.failOn, BuildStatus: true, Report: true})
			rec, out := do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"models": map[string]string{"scout": "s-1", "review": "r-1"}}))
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			posted, _ := out["posted"].(map[string]any)
			bs, _ := posted["buildStatus"].(map[string]any)
			wantDesc := "2 high, 1 medium · 1 of 1 files reviewed"
			if bs["outcome"] != "ok" || bs["state"] != tc.state || bs["description"] != wantDesc || bs["url"] != posted["summaryUrl"] || posted["summaryUrl"] == "" {
				t.Errorf("buildStatus = %v (summaryUrl %v), want %s %q linking to the summary", bs, posted["summaryUrl"], tc.state, wantDesc)
			}
			rr, _ := posted["report"].(map[string]any)
			if rr["outcome"] != "ok" || rr["result"] != tc.result || rr["annotations"] != float64(3) {
				t.Errorf("report = %v, want %s with 3 annotations", rr, tc.result)
			}
			if len(rep.Reports()) != 1 || len(rep.Statuses()) != 1 {
				t.Fatalf("reporter saw %d reports, %d statuses", len(rep.Reports()), len(rep.Statuses()))
			}
			data := map[string]any{}
			for _, d := range rep.Reports()[0].Report.Data {
				data[d.Title] = d.Value
			}
			if data["High"] != 2 || data["Medium"] != 1 || data["Mode"] != "full" || data["Models"] != "s-1 (scout), r-1 (review)" || data["Files reviewed"] != "1 of 1" {
				t.Errorf("report data = %v", data)
			}
			lines := map[string]int{}
			for _, a := range rep.Reports()[0].Annotations {
				if !strings.HasPrefix(a.ExternalID, "prscout-") {
					t.Errorf("annotation external id %q lacks the prscout- prefix", a.ExternalID)
				}
				lines[a.Summary] = a.Line
			}
			if lines["Total ignores lines"] != 4 || lines["Doc is wrong"] != 3 || lines["Off the diff"] != 0 {
				t.Errorf("annotation lines = %v, want 4, 3 and none for the unanchored finding", lines)
			}
		})
	}
}

func TestCommentsSurfacesOffOrDryRun(t *testing.T) {
	rep := newSpecFake()
	srv := surfaceServer(t, rep, insights.Settings{FailOn: "none"})
	rec, out := do(srv, http.MethodPost, "/v1/comments", commentsBody(t, nil))
	posted, _ := out["posted"].(map[string]any)
	if rec.Code != 200 || obj(posted["buildStatus"])["outcome"] != "skipped" || obj(posted["report"])["outcome"] != "skipped" {
		t.Errorf("switched off: status %d, posted %v", rec.Code, posted)
	}
	if len(rep.Statuses())+len(rep.Reports()) != 0 {
		t.Errorf("switched off but the reporter saw %v %v", rep.Statuses(), rep.Reports())
	}
	if n := surfaceCount(t, srv, "report", "skipped"); n != 1 {
		t.Errorf("report/skipped = %v, want 1", n)
	}
	srv = surfaceServer(t, rep, insights.DefaultSettings())
	_, out = do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"dryRun": true}))
	posted, _ = out["posted"].(map[string]any)
	if posted["summary"] != "dry-run" || posted["buildStatus"] != nil || posted["report"] != nil || len(rep.Statuses())+len(rep.Reports()) != 0 {
		t.Errorf("dry run posted %v; reporter saw %v %v", posted, rep.Statuses(), rep.Reports())
	}
}

func TestCommentsMissingScopeStillPosts(t *testing.T) {
	rep := failSurfaces(newSpecFake(), errScope, fmt.Errorf("bitbucket put_report: 403: %w", pipeline.ErrMissingScope))
	srv := surfaceServer(t, rep, insights.DefaultSettings())
	rec, out := do(srv, http.MethodPost, "/v1/comments", commentsBody(t, nil))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	posted, _ := out["posted"].(map[string]any)
	if posted["summary"] != "created" || posted["inlineCreated"] != float64(2) {
		t.Errorf("comments not posted: %v", posted)
	}
	if obj(posted["buildStatus"])["outcome"] != "missing_scope" || obj(posted["report"])["outcome"] != "missing_scope" {
		t.Errorf("posted = %v, want both missing_scope", posted)
	}
	if w := fmt.Sprint(out["warnings"]); strings.Count(w, "lack the scope") != 2 {
		t.Errorf("warnings = %v, want the report's and the status's missing scope", w)
	}
	for _, s := range []string{"status", "report"} {
		if n := surfaceCount(t, srv, s, "missing_scope"); n != 1 {
			t.Errorf("%s/missing_scope = %v, want 1", s, n)
		}
	}
	rep = failSurfaces(newSpecFake(), errors.New("bitbucket set_status: 500"), nil)
	srv = surfaceServer(t, rep, insights.DefaultSettings())
	rec, out = do(srv, http.MethodPost, "/v1/comments", commentsBody(t, nil))
	if rec.Code != 200 || obj(obj(out["posted"])["buildStatus"])["outcome"] != "error" {
		t.Errorf("a failed status: %d %v, want 200 with outcome error", rec.Code, out["posted"])
	}
}

func TestCommentsSARIF(t *testing.T) {
	srv := surfaceServer(t, newSpecFake(), insights.DefaultSettings())
	check := func(name string, body []byte) {
		t.Helper()
		var out struct {
			SARIF json.RawMessage `json:"sarif"`
		}
		if err := json.Unmarshal(body, &out); err != nil || len(out.SARIF) == 0 {
			t.Fatalf("%s: no sarif in the answer (%v): %s", name, err, body)
		}
		if err := sariftest.Validate(out.SARIF); err != nil {
			t.Errorf("%s: the SARIF does not validate: %v", name, err)
		}
		if n := strings.Count(string(out.SARIF), `"ruleId"`); n != 3 {
			t.Errorf("%s: %d results, want 3", name, n)
		}
	}
	rec, _ := do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"dryRun": true, "formats": []string{"sarif"}}))
	check("formats", rec.Body.Bytes())
	rec, _ = do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"dryRun": true}), "Accept", "application/json, application/sarif+json")
	check("Accept", rec.Body.Bytes())
	_, out := do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"dryRun": true}))
	if _, ok := out["sarif"]; ok {
		t.Error("sarif in an answer that did not ask for it")
	}
	rec, out = do(srv, http.MethodPost, "/v1/comments", commentsBody(t, map[string]any{"dryRun": true, "formats": []string{"sarif", "xml"}}))
	if rec.Code != 400 || out["field"] != "formats[1]" {
		t.Errorf("unknown format: %d %v, want 400 naming formats[1]", rec.Code, out)
	}
}

func TestStatusEndpoint(t *testing.T) {
	rep := newSpecFake()
	srv := surfaceServer(t, rep, insights.DefaultSettings())
	// prId only: the pull request's head and page.
	rec, out := do(srv, http.MethodPost, "/v1/status", `{"workspace":"acme","repoSlug":"billing-api","prId":42,"reason":"Review LLM:\ntimeout"}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	bs := obj(out["buildStatus"])
	if out["ref"] != specHead || bs["outcome"] != "ok" || bs["state"] != "STOPPED" || bs["description"] != "review stopped: Review LLM: timeout" ||
		bs["url"] != "https://bitbucket.example/acme/billing-api/pull-requests/42" {
		t.Errorf("answer = %v", out)
	}
	if len(rep.Statuses()) != 1 || rep.Statuses()[0].Commit != specHead || rep.Statuses()[0].Status.State != pipeline.StatusStopped {
		t.Errorf("reporter saw %+v on %v", rep.Statuses(), rep.Statuses())
	}
	// ref and url: FAILED on that commit, no pull request read.
	rec, out = do(srv, http.MethodPost, "/v1/status", `{"workspace":"acme","repoSlug":"billing-api","ref":"`+specBase+`","url":"https://n8n.example/execution/7","state":"failed","reason":"boom"}`)
	if rec.Code != 200 || out["ref"] != specBase || obj(out["buildStatus"])["state"] != "FAILED" || rep.Statuses()[1].Commit != specBase {
		t.Errorf("ref+url: %d %v (reporter %v)", rec.Code, out, rep.Statuses())
	}
	if n := surfaceCount(t, srv, "status", "ok"); n != 2 {
		t.Errorf("status/ok = %v, want 2", n)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"repoSlug":"b","prId":1}`, "workspace"},
		{`{"workspace":"a","repoSlug":"b"}`, "prId"},
		{`{"workspace":"a","repoSlug":"b","ref":"` + specBase + `"}`, "url"},
		{`{"workspace":"a","repoSlug":"b","prId":1,"state":"SUCCESSFUL"}`, "state"},
		{`{"workspace":"a","repoSlug":"b","prId":"x"}`, "prId"},
	} {
		rec, out := do(srv, http.MethodPost, "/v1/status", tc.body)
		if rec.Code != 400 || out["field"] != tc.field {
			t.Errorf("%s: %d %v, want 400 naming %s", tc.body, rec.Code, out, tc.field)
		}
	}
	// No reporter (the local provider): nothing to close, not an error.
	f := newSpecFake()
	srv, _ = newTestServer(t, Options{Repo: f, Diffs: f, PRs: f, Comments: f, Surfaces: insights.DefaultSettings()})
	rec, out = do(srv, http.MethodPost, "/v1/status", `{"workspace":"acme","repoSlug":"billing-api","prId":42}`)
	if rec.Code != 200 || obj(out["buildStatus"])["outcome"] != "skipped" || len(list(out["warnings"])) != 1 {
		t.Errorf("no reporter: %d %v", rec.Code, out)
	}
}

func list(v any) []any { l, _ := v.([]any); return l }

func TestCommitSurfaceMetricsPreinitialised(t *testing.T) {
	_, reg := newTestServer(t, Options{})
	n, err := testutil.GatherAndCount(reg, "prscout_commit_surface_total")
	if want := len(insights.Surfaces) * len(insights.Outcomes); err != nil || n != want {
		t.Errorf("prscout_commit_surface_total: %d series (err %v), want %d", n, err, want)
	}
}

// TestCommentsOutliveTheirCaller: when n8n's connection drops after the
// first comment is posted (a worker killed), posting goes on to the build
// status, so the head is not left INPROGRESS (its redelivered webhook
// skips it as reviewed). With PostTimeout 0 it stops with the request.
func TestCommentsOutliveTheirCaller(t *testing.T) {
	for _, tc := range []struct {
		timeout    time.Duration
		wantStatus bool
	}{{time.Minute, true}, {0, false}} {
		rep := newSpecFake()
		ctx, cancel := context.WithCancel(context.Background())
		rep.CreateHook = func(context.Context, int, pipeline.NewComment) error {
			cancel() // the caller is gone once the first comment is written
			return nil
		}
		srv, _ := newTestServer(t, Options{Repo: rep, Diffs: rep, PRs: rep, Comments: rep, Reporter: rep,
			Surfaces: insights.DefaultSettings(), PostTimeout: tc.timeout})
		req := httptest.NewRequest(http.MethodPost, "/v1/comments", strings.NewReader(commentsBody(t, nil))).WithContext(ctx)
		srv.ServeHTTP(httptest.NewRecorder(), req)
		final := false
		for _, s := range rep.Statuses() {
			if s.Status.State != pipeline.StatusInProgress {
				final = true
			}
		}
		if final != tc.wantStatus {
			t.Errorf("PostTimeout %v: final build status written %v, want %v (statuses %+v)", tc.timeout, final, tc.wantStatus, rep.Statuses())
		}
	}
}
