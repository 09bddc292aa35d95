package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// driveTraffic runs the five stages as n8n does (dry-run comments), the
// workflow gate, a bad request and a keep-alive call, so every kind of
// metric has moved.
func driveTraffic(t *testing.T, s *server, repo string) {
	t.Helper()
	code, ctxAns := s.post(t, "/v1/context", map[string]any{
		"workspace": "acme", "repoSlug": "app", "base": "main", "head": "feature", "title": "Reject empty tokens",
	})
	mustOK(t, "/v1/context", code, ctxAns)
	code, needs := s.post(t, "/v1/needs", map[string]any{
		"workspace": "acme", "repoSlug": "app", "ref": ctxAns["ref"], "files": ctxAns["files"], "scout": scoutAnswer,
	})
	mustOK(t, "/v1/needs", code, needs)
	code, batch := s.post(t, "/v1/repository/batch", needs)
	mustOK(t, "/v1/repository/batch", code, batch)
	code, _ = s.post(t, "/v1/repository/batch", needs) // cache hits
	mustOK(t, "/v1/repository/batch", code, nil)
	code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": batch["results"], "rejected": needs["rejected"]})
	mustOK(t, "/v1/merge", code, merged)
	in := map[string]any{"review": reviewAnswer, "dryRun": true}
	for _, k := range []string{"workspace", "repoSlug", "ref", "files"} {
		in[k] = merged[k]
	}
	code, com := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, com)
	export, err := os.ReadFile("testdata/validate/good/review.json")
	if err != nil {
		t.Fatal(err)
	}
	code, _ = s.post(t, "/v1/workflows/validate", export)
	mustOK(t, "/v1/workflows/validate", code, nil)
	if code, _ := s.post(t, "/v1/needs", map[string]any{"workspace": 1}); code != 400 {
		t.Errorf("bad needs: status %d, want 400", code)
	}
	req, _ := http.NewRequest("POST", s.base+"/v1/merge", strings.NewReader(mustJSON(t, map[string]any{"context": ctxAns, "results": batch["results"]})))
	req.Header.Set("X-API-Key", s.key)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.HasPrefix(raw, []byte(`{"type":"result"`)) {
		t.Errorf("ndjson merge answered %d %.200s", resp.StatusCode, raw)
	}
}

func scrape(t *testing.T, s *server) []byte {
	t.Helper()
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	return raw
}

// metricRef finds metric names in PromQL (and in the rules' prose).
var metricRef = regexp.MustCompile(`\b(?:prscout|process|go)_[a-zA-Z0-9_]+`)

// referencedMetrics returns the metric names of every dashboard target
// expression and of the alert rules file, with where each comes from.
func referencedMetrics(t *testing.T) (map[string][]string, []string) {
	t.Helper()
	refs := map[string][]string{}
	var exprs []string
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	raw, err := os.ReadFile("../../ops/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
			names := metricRef.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: query names no metric: %s", p.Title, tg.Expr)
			}
			for _, n := range names {
				refs[n] = append(refs[n], "dashboard panel "+p.Title)
			}
		}
	}
	for _, v := range dash.Templating.List {
		for _, n := range metricRef.FindAllString(v.Definition, -1) {
			refs[n] = append(refs[n], "dashboard variable")
		}
	}
	rules, err := os.ReadFile("../../ops/prometheus-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(rules))
	for line := 1; sc.Scan(); line++ {
		for _, n := range metricRef.FindAllString(sc.Text(), -1) {
			refs[n] = append(refs[n], fmt.Sprintf("prometheus-alerts.yml:%d", line))
		}
	}
	exprs = append(exprs, string(rules))
	return refs, exprs
}

// selectorRef finds `metric{matchers}`; matcherLabel the label names in them.
var (
	selectorRef  = regexp.MustCompile(`\b((?:prscout|process|go)_[a-zA-Z0-9_]+)\{([^}]*)\}`)
	matcherLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
)

// TestOpsQueriesUseExistingMetrics: every metric that the shipped Grafana
// dashboard and alert rules query exists in a live /metrics after ordinary
// traffic, so no panel or alert watches a name that is never exported.
func TestOpsQueriesUseExistingMetrics(t *testing.T) {
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	driveTraffic(t, s, repo)

	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(scrape(t, s)))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	exists := func(name string) bool {
		if f, ok := fams[name]; ok && len(f.GetMetric()) > 0 {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				if f, ok := fams[base]; ok && len(f.GetMetric()) > 0 && f.GetType() == dto.MetricType_HISTOGRAM {
					return true
				}
			}
		}
		return false
	}
	refs, exprs := referencedMetrics(t)
	if len(refs) < 20 {
		t.Fatalf("only %d metric names found in the dashboard and rules; the extraction is broken", len(refs))
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !exists(n) {
			t.Errorf("%s is queried by %v but is not in /metrics", n, refs[n])
		}
	}
	t.Logf("%d metric names checked: %s", len(names), strings.Join(names, " "))

	// Every label a selector matches on exists on that metric (job and
	// instance come from the scrape, le from the histogram).
	labelsOf := func(name string) map[string]bool {
		out := map[string]bool{"job": true, "instance": true, "le": true}
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && fams[b] != nil {
				base = b
			}
		}
		if f := fams[base]; f != nil {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					out[l.GetName()] = true
				}
			}
		}
		return out
	}
	checked := 0
	for _, e := range exprs {
		for _, m := range selectorRef.FindAllStringSubmatch(e, -1) {
			have := labelsOf(m[1])
			for _, lm := range matcherLabel.FindAllStringSubmatch(m[2], -1) {
				checked++
				if !have[lm[1]] {
					t.Errorf("%s{%s}: %s has no label %q", m[1], m[2], m[1], lm[1])
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d label matchers checked; the extraction is broken", checked)
	}

	// Traffic moved the stage series the dashboard's first row shows.
	for _, want := range []string{
		`prscout_http_requests_total{code="200",route="/v1/comments"} 1`,
		`prscout_review_mode_total{mode="full"} 1`,
		`prscout_keepalive_requests_total{mode="ndjson"} 1`,
	} {
		if !bytes.Contains(scrape(t, s), []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestMetricsPassPromtool runs `promtool check metrics` on a live /metrics
// after traffic (skipped when promtool is not installed:
// scripts/install-ops-tools.sh installs it).
func TestMetricsPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (scripts/install-ops-tools.sh)")
	}
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	driveTraffic(t, s, repo)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(scrape(t, s))
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	out, err := exec.Command(promtool, "check", "rules", "../../ops/prometheus-alerts.yml").CombinedOutput()
	if err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}

// TestPrometheusScrape starts Debian's prometheus server on loopback,
// scraping prscout every second with the shipped alert rules loaded, and
// asks its HTTP API for prscout's series (skipped when prometheus is not
// installed).
func TestPrometheusScrape(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (scripts/install-ops-tools.sh)")
	}
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	driveTraffic(t, s, repo)

	dir := t.TempDir()
	rules, _ := filepath.Abs("../../ops/prometheus-alerts.yml")
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: prscout
    static_configs: [{targets: [%q]}]
`, rules, strings.TrimPrefix(s.base, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("prometheus log:\n%s", logs)
		}
	})
	query := func(q string) []any {
		resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var out struct {
			Status string `json:"status"`
			Data   struct {
				Result []any `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&out) != nil || out.Status != "success" {
			return nil
		}
		return out.Data.Result
	}
	// Prometheus is another process: its scrapes and rule evaluations are
	// waited for by polling its API, within a deadline.
	deadline := time.Now().Add(60 * time.Second)
	if !pollUntil(deadline, func() bool { return len(query(`up{job="prscout"} == 1`)) > 0 }) {
		t.Fatal("prometheus never scraped prscout successfully")
	}
	for q, min := range map[string]int{
		`prscout_build_info{job="prscout"}`:                                               1,
		`prscout_http_requests_total{job="prscout", route="/v1/context", code="200"} > 0`: 1,
		`prscout_lookups_total{job="prscout"}`:                                            2,
		`prscout_upstream_requests_total{job="prscout"}`:                                  2,
		`prscout_http_request_duration_seconds_bucket{route="/v1/merge"}`:                 2,
	} {
		if got := len(query(q)); got < min {
			t.Errorf("%s: %d series, want at least %d", q, got, min)
		}
	}
	// The rules loaded and, once each has been evaluated, evaluate without
	// errors.
	type rule struct {
		Name   string `json:"name"`
		Health string `json:"health"` // "unknown" until the first evaluation
	}
	listRules := func() ([]rule, error) {
		resp, err := http.Get("http://" + addr + "/api/v1/rules")
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var rs struct {
			Data struct {
				Groups []struct {
					Rules []rule `json:"rules"`
				} `json:"groups"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&rs); err != nil || len(rs.Data.Groups) != 1 || len(rs.Data.Groups[0].Rules) < 5 {
			return nil, fmt.Errorf("rules API: %v %+v", err, rs)
		}
		return rs.Data.Groups[0].Rules, nil
	}
	var got []rule
	var rerr error
	evaluated := pollUntil(deadline, func() bool {
		got, rerr = listRules()
		return rerr == nil && !slices.ContainsFunc(got, func(r rule) bool { return r.Health == "unknown" })
	})
	if !evaluated {
		t.Fatalf("the rules were never all evaluated: %v %+v", rerr, got)
	}
	for _, r := range got {
		if r.Health != "ok" {
			t.Errorf("rule %s evaluates with health %q", r.Name, r.Health)
		}
	}
}

// pollUntil calls cond every 200ms until it holds (true) or the deadline
// passes (false). Only for another process's state, which nothing signals.
func pollUntil(deadline time.Time, cond func() bool) bool {
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
	return true
}
