package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestModelAnswersCounted: /v1/needs and /v1/comments (review and verify
// answers) count the model answers they read by stage and quality (series
// pre-initialised), and an
// unreadable review's summary points to the request (the n8n execution),
// never to the answer.
func TestModelAnswersCounted(t *testing.T) {
	s, reg := newTestServer(t, Options{})
	if n, err := testutil.GatherAndCount(reg, "prscout_model_answers_total"); err != nil || n != 12 {
		t.Fatalf("prscout_model_answers_total: %d series (err %v), want 12 pre-initialised", n, err)
	}
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	scout := text(`{"needs": [{"op": "get_file", "path": "b.go"}, {"op": "get_file", "path": "c.go"}, {"op": "get_file", "path": "d`)
	rec, out := do(s, "POST", "/v1/needs", `{"workspace":"w","repoSlug":"r","ref":"`+sha+`","files":[{"path":"a.go"}],"scout":`+scout+`}`)
	if rec.Code != 200 || len(out["requests"].([]any)) != 2 {
		t.Fatalf("needs: %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(rec.Body.String(), "the scout answer was cut off: 2 complete requests kept, 1 incomplete dropped") {
		t.Errorf("needs warnings do not state the cut: %s", rec.Body)
	}

	comments := func(review, requestID string) (int, string) {
		body := `{"workspace":"w","repoSlug":"r","prId":1,"ref":"` + sha + `","files":[{"path":"a.go"}],"dryRun":true,"review":` + review + `}`
		rec, out := do(s, "POST", "/v1/comments", body, "X-Request-Id", requestID)
		md, _ := out["markdown"].(string)
		return rec.Code, md
	}
	code, md := comments(text(`{"summary": "Fine.", "findings": []}`), "n8n-1")
	if code != 200 || !strings.Contains(md, "Fine.") {
		t.Fatalf("clean review: %d %s", code, md)
	}
	broken := `Review: {"summary": "Leaks" "findings": [} {{ "path": a.go ]] done`
	code, md = comments(text(broken), "n8n-77")
	if code != 200 || !strings.Contains(md, "could not be read") || !strings.Contains(md, "`n8n-77`") || strings.Contains(md, "Leaks") {
		t.Fatalf("unreadable review: %d\n%s", code, md)
	}

	for labels, want := range map[[2]string]float64{
		{"scout", "salvaged"}: 1, {"scout", "clean"}: 0,
		{"review", "clean"}: 1, {"review", "unreadable"}: 1, {"review", "salvaged"}: 0,
	} {
		if got := testutil.ToFloat64(s.metrics.ModelAnswers.WithLabelValues(labels[0], labels[1])); got != want {
			t.Errorf("prscout_model_answers_total%v = %v, want %v", labels, got, want)
		}
	}
}
