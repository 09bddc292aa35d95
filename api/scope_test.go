package api

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/scope"
)

// scopeKey is an AWS access key id assembled at run time (so this file
// holds no string a secret scanner would flag); not AWS's documented
// example key, which redaction leaves alone.
var scopeKey = "AK" + "IA" + "Q7R2M4T6W3Y5Z2B7"

func newScopeServer(t *testing.T, opts Options) *Server {
	t.Helper()
	key := scopeKey
	files := map[string]string{
		"a.go":              "package a\nconst k = \"" + key + "\"\n",
		"vendor/x/x.go":     "package x\n",
		scope.RepoRulesPath: `{"rules":[{"path":"*.go","rule":"repository rule"}]}`,
	}
	d := pipelinetest.New().ResolveAll(sha).AddFiles("", files).SetDiff("*",
		"diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n package a\n+const k = \""+key+"\"\n"+
			"diff --git a/vendor/x/x.go b/vendor/x/x.go\n--- a/vendor/x/x.go\n+++ b/vendor/x/x.go\n@@ -1 +1 @@\n-package y\n+package x\n")
	opts.Repo, opts.Diffs = d, d
	s, _ := newTestServer(t, opts)
	return s
}

func TestContextCoverageAndMetrics(t *testing.T) {
	s := newScopeServer(t, Options{})
	rec, out := do(s, "POST", "/v1/context", `{"base":"main","head":"topic","exclude":["docs/**"]}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	cov, _ := out["coverage"].(map[string]any)
	if cov["changed"] != 2.0 || cov["reviewed"] != 1.0 || cov["excluded"] != 1.0 {
		t.Errorf("coverage %v", cov)
	}
	if strings.Contains(rec.Body.String(), scopeKey) {
		t.Error("secret in the context answer")
	}
	m := s.metrics
	if got := testutil.ToFloat64(m.ContextFiles.WithLabelValues(pipeline.GateDefaultPath)); got != 1 {
		t.Errorf("context files default_path = %v", got)
	}
	if got := testutil.ToFloat64(m.Redactions.WithLabelValues(redact.KindAWSKey)); got != 2 {
		t.Errorf("redactions aws_access_key = %v, want 2 (diff and source)", got)
	}

	rec, out = do(s, "POST", "/v1/context", `{"base":"main","head":"topic","include":["src/{a,b"]}`)
	if rec.Code != 400 || out["field"] != "include[0]" {
		t.Errorf("bad glob: %d %v", rec.Code, out)
	}
	rec, out = do(s, "POST", "/v1/context", `{"base":"main","head":"topic","rules":{"rules":[{"path":"**","rule":"x","bogus":1}]}}`)
	if rec.Code != 400 || out["field"] != "rules" {
		t.Errorf("bad rules object: %d %v", rec.Code, out)
	}
}

func TestPreviewEndpoint(t *testing.T) {
	s := newScopeServer(t, Options{})
	rec, out := do(s, "POST", "/v1/preview", `{"base":"main","head":"topic","rules":{"rules":[{"path":"a.go","rule":"request rule"}]}}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	files, _ := out["files"].([]any)
	if len(files) != 2 {
		t.Fatalf("files %v", out["files"])
	}
	first := files[0].(map[string]any)
	second := files[1].(map[string]any)
	if first["decision"] != "review" || !strings.HasPrefix(first["ruleSource"].(string), "request") ||
		second["decision"] != "exclude" || second["reason"] != "default_path" {
		t.Errorf("files %v", files)
	}
	if out["scoutPromptChars"].(float64) <= 0 || out["reviewPromptChars"].(float64) <= 0 ||
		out["estimatedChars"].(float64) != out["scoutPromptChars"].(float64)+out["reviewPromptChars"].(float64) {
		t.Errorf("sizes %v %v %v", out["scoutPromptChars"], out["reviewPromptChars"], out["estimatedChars"])
	}
	if got := testutil.ToFloat64(s.metrics.ContextFiles.WithLabelValues("reviewed")); got != 0 {
		t.Errorf("a preview counted %v reviewed files", got)
	}
}

func TestRulesCheckEndpoint(t *testing.T) {
	svc := &scope.RuleFile{Rules: []scope.PathRule{{Path: "**/*.sql", Rule: "service rule"}}}
	s := newScopeServer(t, Options{ServiceRules: svc, ServiceRulesSource: "/etc/prscout/rules.json"})
	rec, out := do(s, "POST", "/v1/rules/check", `{"ref":"main","paths":["cmd/main.go","db/1.sql","vendor/a.py"]}`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	res, _ := out["results"].([]any)
	want := []struct{ layer, pattern, gate string }{
		{"repository", "*.go", ""}, {"service", "**/*.sql", ""}, {"builtin", "language:python", "default_path"},
	}
	if len(res) != len(want) {
		t.Fatalf("results %v", res)
	}
	for i, w := range want {
		r := res[i].(map[string]any)
		if r["layer"] != w.layer || r["pattern"] != w.pattern || r["gate"] != w.gate {
			t.Errorf("results[%d] = %v, want %+v", i, r, w)
		}
	}
	rec, out = do(s, "POST", "/v1/rules/check", `{"paths":[]}`)
	if rec.Code != 400 || out["field"] != "paths" {
		t.Errorf("no paths: %d %v", rec.Code, out)
	}
}

// TestRedactionsCounted: the batch, merge and comments answers carry no
// secret, and what each stage redacted is added to prscout_redactions_total,
// whose every kind exists from the start.
func TestRedactionsCounted(t *testing.T) {
	s := newScopeServer(t, Options{})
	m := s.metrics
	for _, k := range redact.Kinds {
		if got := testutil.ToFloat64(m.Redactions.WithLabelValues(k)); got != 0 {
			t.Errorf("redactions %s = %v at start", k, got)
		}
	}
	if n := testutil.CollectAndCount(m.Redactions); n != len(redact.Kinds) {
		t.Errorf("%d redaction series at start, want %d (redact.Kinds)", n, len(redact.Kinds))
	}
	aws := func() float64 { return testutil.ToFloat64(m.Redactions.WithLabelValues(redact.KindAWSKey)) }

	rec, out := do(s, "POST", "/v1/repository/batch", `{"workspace":"w","repoSlug":"r","ref":"`+sha+`","requests":[{"op":"get_file","path":"a.go"}]}`)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), scopeKey) {
		t.Fatalf("batch: %d, secret in answer: %v", rec.Code, strings.Contains(rec.Body.String(), scopeKey))
	}
	if st, _ := out["stats"].(map[string]any); st["redactions"].(map[string]any)[redact.KindAWSKey] != 1.0 || aws() != 1 {
		t.Errorf("batch: stats %v, metric %v", out["stats"], aws())
	}

	merge := `{"context":{"ref":"` + sha + `","files":[]},"results":[{"ok":true,"op":"get_file","path":"b.go","content":"k := \"` + scopeKey + `\"\n"}]}`
	if rec, _ = do(s, "POST", "/v1/merge", merge); rec.Code != 200 || strings.Contains(rec.Body.String(), scopeKey) || aws() != 2 {
		t.Errorf("merge: %d, metric %v", rec.Code, aws())
	}

	review := `{\"summary\":\"found ` + scopeKey + `\",\"findings\":[]}`
	comments := `{"ref":"` + sha + `","dryRun":true,"files":[],"review":"` + review + `"}`
	if rec, _ = do(s, "POST", "/v1/comments", comments); rec.Code != 200 || strings.Contains(rec.Body.String(), scopeKey) || aws() != 3 {
		t.Errorf("comments: %d, metric %v: %s", rec.Code, aws(), rec.Body)
	}
}
