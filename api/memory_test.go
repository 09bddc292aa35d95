package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCommentsMemory: /v1/comments counts review memory per repository,
// and a dry run for a pull request reads the earlier review without
// writing or counting.
func TestCommentsMemory(t *testing.T) {
	srv, store := newSpecServer(t, 0, "")
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+var x = load()\n"
	body := func(ref string, dry bool) []byte {
		b, _ := json.Marshal(map[string]any{
			"workspace": "acme", "repoSlug": "shop", "prId": 5, "ref": ref, "mode": "full", "dryRun": dry,
			"files":  []any{map[string]any{"path": "a.go", "status": "modified", "diff": diff}},
			"review": `{"summary":"s","findings":[{"path":"a.go","line":2,"severity":"high","title":"load error ignored","body":"b"}]}`,
		})
		return b
	}
	hdr := map[string]string{"X-API-Key": specAPIKey}
	rec, _ := call(t, srv, http.MethodPost, "/v1/comments", body("1111111111111111111111111111111111111111", false), hdr)
	if rec.Code != 200 {
		t.Fatalf("post: %d %s", rec.Code, rec.Body)
	}
	m := srv.metrics.FindingStates
	if got := testutil.ToFloat64(m.WithLabelValues("acme/shop", "posted")); got != 1 {
		t.Errorf("posted = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.WithLabelValues("acme/shop", "resolved")); got != 0 {
		t.Errorf("resolved = %v, want 0 (pre-initialised with the repository)", got)
	}
	before := len(store.Comments(42))

	rec, v := call(t, srv, http.MethodPost, "/v1/comments", body("2222222222222222222222222222222222222222", true), hdr)
	if rec.Code != 200 {
		t.Fatalf("dry run: %d %s", rec.Code, rec.Body)
	}
	ans := v.(map[string]any)
	mem, _ := ans["memory"].(map[string]any)
	entries, _ := mem["entries"].([]any)
	if mem["earlierHead"] != "1111111111111111111111111111111111111111" || len(entries) != 1 || entries[0].(map[string]any)["state"] != "still_open" {
		t.Errorf("dry-run memory = %v", mem)
	}
	if p := ans["posted"].(map[string]any); p["summary"] != "dry-run" {
		t.Errorf("dry run posted %v", p)
	}
	if len(store.Comments(42)) != before {
		t.Errorf("the dry run wrote %d comments", len(store.Comments(42))-before)
	}
	if got := testutil.ToFloat64(m.WithLabelValues("acme/shop", "still_open")); got != 0 {
		t.Errorf("the dry run counted still_open = %v", got)
	}
}
