package main

import (
	"strings"
	"testing"
)

// policyDiff adds a file of four calls.
const policyDiff = "diff --git a/p.go b/p.go\nnew file mode 100644\n--- /dev/null\n+++ b/p.go\n@@ -0,0 +1,4 @@\n+package p\n+func A() { first() }\n+func B() { second() }\n+func C() { third() }\n"

// TestCommentPolicyDefaults: with the shipped defaults (balanced, fold) a
// verified high finding is inline, a verified low one is in the summary
// only, one without evidence is folded; the metrics count them by
// placement, and a bad commentPolicy is a 400 naming its field.
func TestCommentPolicyDefaults(t *testing.T) {
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+t.TempDir(), "PRSCOUT_REVIEW_PROFILE=balanced", "PRSCOUT_UNVERIFIED=fold")
	in := map[string]any{
		"ref": "0123456789abcdef0123456789abcdef01234567", "dryRun": true,
		"files": []map[string]any{{"path": "p.go", "status": "added", "diff": policyDiff}},
		"review": `{"summary":"s","findings":[
 {"path":"p.go","line":2,"existingCode":"func A() { first() }","severity":"high","title":"A is wrong","body":"a"},
 {"path":"p.go","line":3,"existingCode":"func B() { second() }","severity":"low","title":"B is a nit","body":"b"},
 {"path":"p.go","line":4,"existingCode":"func D() { fourth() }","severity":"critical","title":"D does not exist","body":"d"}]}`,
	}
	code, out := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	if n := len(list(out["inline"])); n != 1 {
		t.Errorf("inline = %v, want the high finding only", out["inline"])
	}
	if n := len(list(out["summaryOnly"])); n != 1 {
		t.Errorf("summaryOnly = %v, want the low finding", out["summaryOnly"])
	}
	if n := len(list(out["unverified"])); n != 1 {
		t.Errorf("unverified = %v, want the critical finding without evidence", out["unverified"])
	}
	md, _ := out["markdown"].(string)
	for _, want := range []string{"### Unverified findings (1)", "D does not exist", "### Not posted inline (1)", "B is a nit"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	metrics := s.metricsText(t)
	for series, want := range map[string]float64{
		`prscout_findings_placed_total{placement="inline"}`:     1,
		`prscout_findings_placed_total{placement="summary"}`:    1,
		`prscout_findings_placed_total{placement="unverified"}`: 1,
		`prscout_findings_evidence_total{verdict="verified"}`:   2,
	} {
		if got := metricValue(metrics, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}

	in["commentPolicy"] = map[string]any{"profile": "loud"}
	code, out = s.post(t, "/v1/comments", in)
	if code != 400 || out["field"] != "commentPolicy.profile" {
		t.Errorf("bad profile: %d %v, want 400 naming commentPolicy.profile", code, out)
	}
	in["commentPolicy"] = map[string]any{"profile": "thorough"}
	code, out = s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, out)
	if n := len(list(out["inline"])); n != 2 {
		t.Errorf("thorough: inline = %v, want the high and the low finding", out["inline"])
	}
}
