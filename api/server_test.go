package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

// newFake is the repository behind newTestServer: every revision resolves
// to sha, a.go holds a package clause, and every diff is empty.
func newFake() *pipelinetest.Fake {
	return pipelinetest.New().ResolveAll(sha).
		AddFiles("", map[string]string{"a.go": "package a\n"}).
		SetDiff("*", "")
}

func newTestServer(t *testing.T, opts Options) (*Server, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Registry = reg
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Repo == nil {
		f := newFake()
		opts.Repo, opts.Diffs = f, f
	}
	return mustServer(t, opts), reg
}

func do(s http.Handler, method, path, body string, header ...string) (*httptest.ResponseRecorder, map[string]any) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec, out
}

func TestAuth(t *testing.T) {
	s, _ := newTestServer(t, Options{APIKeys: []string{"k1", " k2 "}})
	body := `{"workspace":"w","repoSlug":"r","ref":"` + sha + `","requests":[{"op":"get_file","path":"a.go"}]}`
	cases := []struct {
		name   string
		header []string
		status int
		msg    string
	}{
		{"missing", nil, 401, "missing API key (X-API-Key or Authorization: Bearer header)"},
		{"bearer", []string{"Authorization", "Bearer k1"}, 200, ""},
		{"bearer, lower case", []string{"Authorization", "bearer k2"}, 200, ""},
		{"wrong bearer", []string{"Authorization", "Bearer nope"}, 401, "invalid API key"},
		{"basic is no key", []string{"Authorization", "Basic azE="}, 401, "missing API key (X-API-Key or Authorization: Bearer header)"},
		{"wrong", []string{"X-API-Key", "nope"}, 401, "invalid API key"},
		{"prefix of a key", []string{"X-API-Key", "k"}, 401, "invalid API key"},
		{"first key", []string{"X-API-Key", "k1"}, 200, ""},
		{"second key, trimmed in config", []string{"X-API-Key", "k2"}, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, out := do(s, "POST", "/v1/repository/batch", body, tc.header...)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.msg != "" && (out["message"] != tc.msg || out["error"] != "unauthorized") {
				t.Errorf("body %v, want error unauthorized, message %q", out, tc.msg)
			}
		})
	}
	// Health, readiness and metrics stay open for probes and scrapers.
	for _, p := range ProbeRoutes {
		if rec, _ := do(s, "GET", p, ""); rec.Code != 200 {
			t.Errorf("GET %s = %d, want 200 without a key", p, rec.Code)
		}
	}
}

func TestErrorPath(t *testing.T) {
	panicky := newFake()
	panicky.Hook = func(context.Context, string, string) error { panic("boom") }
	s, reg := newTestServer(t, Options{MaxBodyBytes: 2048, Repo: panicky, Diffs: panicky})
	cases := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"unknown route", "GET", "/v1/nope", "", 404, "not_found", ""},
		{"wrong method", "GET", "/v1/needs", "", 405, "method_not_allowed", ""},
		{"empty body", "POST", "/v1/needs", "  ", 400, "invalid", ""},
		{"oversized", "POST", "/v1/needs", `{"scout":"` + strings.Repeat("x", 4096) + `"}`, 413, "too_large", ""},
		{"wrong type", "POST", "/v1/merge", `{"results":[{"ok":true,"op":"get_file","path":"a","content":"x"},{"ok":"yes"}]}`, 400, "invalid", "results[1].ok"},
		{"missing field", "POST", "/v1/needs", `{"workspace":"w","repoSlug":"r","files":[],"scout":"{}"}`, 400, "invalid", "ref"},
		{"panic becomes JSON 500", "POST", "/v1/context", `{"base":"a","head":"b"}`, 500, "internal", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, out := do(s, tc.method, tc.path, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if out["error"] != tc.code || out["message"] == "" {
				t.Errorf("body %v, want error %q and a message", out, tc.code)
			}
			if tc.field != "" && out["field"] != tc.field {
				t.Errorf("field = %v, want %q", out["field"], tc.field)
			}
			// n8n shows the first of cause, error, message: the readable text.
			if !strings.HasPrefix(rec.Body.String(), `{"cause":"`) || out["cause"] == out["error"] ||
				(tc.field != "" && !strings.Contains(out["cause"].(string), tc.field)) {
				t.Errorf("cause must come first with the readable text and field: %s", rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
		})
	}
	if got := testutil.ToFloat64(s.metrics.InternalErrors); got != 1 {
		t.Errorf("internal errors counted %v, want 1 (the panic)", got)
	}
	if n, err := testutil.GatherAndCount(reg, "prscout_http_requests_total"); err != nil || n == 0 {
		t.Errorf("request counter not exported: %v %d", err, n)
	}
}

func TestRequestIDEchoed(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	rec, _ := do(s, "GET", "/healthz", "", "X-Request-Id", "n8n-exec-42")
	if got := rec.Header().Get("X-Request-Id"); got != "n8n-exec-42" {
		t.Errorf("X-Request-Id = %q", got)
	}
	rec, _ = do(s, "GET", "/healthz", "", "X-Request-Id", "bad\r\nheader")
	if got := rec.Header().Get("X-Request-Id"); got == "" || strings.ContainsAny(got, "\r\n") {
		t.Errorf("generated id = %q", got)
	}
}

func TestReadyz(t *testing.T) {
	s, _ := newTestServer(t, Options{Ready: func(context.Context) error { return io.ErrUnexpectedEOF }})
	rec, out := do(s, "GET", "/readyz", "")
	if rec.Code != 503 || out["error"] != "not_ready" {
		t.Errorf("readyz = %d %v", rec.Code, out)
	}
}

func TestMetricsPreinitialised(t *testing.T) {
	_, reg := newTestServer(t, Options{})
	for name, want := range map[string]int{
		"prscout_needs_rejected_total":    len(knownNeedsReasons),
		"prscout_lookups_total":           2 * len(knownLookupOutcomes),
		"prscout_review_mode_total":       len(knownReviewModes),
		"prscout_findings_anchored_total": len(knownAnchors),
		"prscout_findings_placed_total":   3, // inline, summary, unverified
		"prscout_findings_evidence_total": 3, // verified, elsewhere, unverified
		"prscout_findings_total":          len(knownFindingStates),
		"prscout_gate_nodes_total":        len(knownGateVerdicts),
	} {
		n, err := testutil.GatherAndCount(reg, name)
		if err != nil || n != want {
			t.Errorf("%s: %d series (err %v), want %d pre-initialised", name, n, err, want)
		}
	}
}

func TestBatchStageCountsLookups(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	body := `{"workspace":"w","repoSlug":"r","ref":"` + sha + `","requests":[{"op":"get_file","path":"a.go"},{"op":"get_file","path":"b.go"},{"op":"get_file","path":"../x"}]}`
	rec, out := do(s, "POST", "/v1/repository/batch", body)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if n := len(out["results"].([]any)); n != 3 {
		t.Fatalf("results = %d, want 3", n)
	}
	for outcome, want := range map[string]float64{"ok": 1, "not_found": 1, "parent_escape": 1} {
		if got := testutil.ToFloat64(s.metrics.Lookups.WithLabelValues("get_file", outcome)); got != want {
			t.Errorf("lookups{outcome=%q} = %v, want %v", outcome, got, want)
		}
	}
}
