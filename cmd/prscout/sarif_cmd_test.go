package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/sarif"
	"github.com/prscout/prscout/sarif/sariftest"
)

const sarifDiff = "diff --git a/upload/retry.go b/upload/retry.go\n--- a/upload/retry.go\n+++ b/upload/retry.go\n@@ -10,3 +10,4 @@\n func retry() {\n+\tfor attempt := 0; ; {\n \t}\n }\n"

func TestSARIFCommand(t *testing.T) {
	dir := t.TempDir()
	ctxJSON, _ := json.Marshal(map[string]any{
		"mode": "full", "ref": "668218c13e04",
		"files": []pipeline.ChangedFile{{Path: "upload/retry.go", Status: "modified", Diff: sarifDiff}},
	})
	ctxPath := writeFile(t, dir, "context.json", string(ctxJSON))
	// The model's raw text, with the JSON in a fence, as an LLM node answers.
	review := "Here is my review.\n```json\n" + `{"summary":"one bug","findings":[
		{"path":"upload/retry.go","line":11,"severity":"high","title":"Loop never ends","body":"attempt is never incremented"},
		{"path":"upload/other.go","severity":"low","title":"Naming","body":"not in the diff"}]}` + "\n```\n"
	reviewPath := writeFile(t, dir, "review.txt", review)

	var out, errOut bytes.Buffer
	if code := runSARIF([]string{"--review", reviewPath, "--context", ctxPath}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if err := sariftest.Validate(out.Bytes()); err != nil {
		t.Fatalf("invalid SARIF: %v\n%s", err, out.String())
	}
	l, err := sarif.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Rule, URI string
		Line      int
	}
	var got []row
	for _, r := range l.Runs[0].Results {
		x := row{Rule: r.RuleID, URI: r.Locations[0].PhysicalLocation.ArtifactLocation.URI}
		if reg := r.Locations[0].PhysicalLocation.Region; reg != nil {
			x.Line = reg.StartLine
		}
		if r.PartialFingerprints[sarif.FingerprintKey] == "" {
			t.Errorf("%s has no fingerprint", r.RuleID)
		}
		got = append(got, x)
	}
	want := []row{{"high/loop-never-ends", "upload/retry.go", 11}, {"low/naming", "upload/other.go", 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}

	outPath := filepath.Join(dir, "out.sarif")
	errOut.Reset()
	if code := runSARIF([]string{"--review", reviewPath, "--context", ctxPath, "--fail-on", "high", "--out", outPath}, &out, &errOut); code != 1 {
		t.Errorf("--fail-on high with a high finding: exit %d", code)
	}
	if b, err := os.ReadFile(outPath); err != nil || sariftest.Validate(b) != nil {
		t.Errorf("--out file: %v", err)
	}
	if !strings.Contains(errOut.String(), "1 high, 1 low · 1 of 1 files reviewed (fail-on high)") {
		t.Errorf("stderr: %s", errOut.String())
	}
	if code := runSARIF([]string{"--review", reviewPath, "--fail-on", "critical"}, &out, &errOut); code != 0 {
		t.Errorf("--fail-on critical without context: exit %d", code)
	}

	for name, args := range map[string][]string{
		"no review":        nil,
		"missing review":   {"--review", filepath.Join(dir, "nope.json")},
		"bad context":      {"--review", reviewPath, "--context", reviewPath},
		"bad fail-on":      {"--review", reviewPath, "--fail-on", "low"},
		"empty review":     {"--review", writeFile(t, dir, "empty.json", " \n")},
		"stray argument":   {"--review", reviewPath, "extra"},
		"review is a null": {"--review", writeFile(t, dir, "null.json", "null")},
	} {
		if code := runSARIF(args, &out, &errOut); code != 2 {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
	}
}

const gateCommit = "9ff1731e2b4c5d6e7f8091a2b3c4d5e6f7081920"

// gateSARIFFile writes the SARIF of validate-workflow over the broken
// export, named as a Pipelines step would see it (relative to the clone).
func gateSARIFFile(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.ReadFile("../../sarif/testdata/broken-export.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := gate.CheckExport("workflows/broken.json", src, gate.Options{Expressions: true})
	b, err := sarif.FromGateReport(rep, map[string][]byte{"workflows/broken.json": src}, sarif.Options{}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "gate.sarif", string(b))
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReportInsights(t *testing.T) {
	s := bitbuckettest.NewServer()
	defer s.Close()
	s.AddCommit("acme", "flows", gateCommit)
	sarifPath := gateSARIFFile(t, t.TempDir())
	env := map[string]string{
		"PRSCOUT_BITBUCKET_BASE_URL": s.BaseURL, "PRSCOUT_BITBUCKET_ACCESS_TOKEN": "tok",
		"BITBUCKET_WORKSPACE": "acme", "BITBUCKET_REPO_SLUG": "flows", "BITBUCKET_COMMIT": gateCommit,
	}
	var out, errOut bytes.Buffer
	for run := 1; run <= 2; run++ {
		out.Reset()
		if code := reportInsights([]string{"--sarif", sarifPath}, &out, &errOut, envOf(env)); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, errOut.String())
		}
	}
	if got := out.String(); got != "report prscout-workflow-gate on "+gateCommit+": FAILED, 4 annotation(s)\n" {
		t.Errorf("stdout %q", got)
	}
	reps := s.Reports("acme", "flows", gateCommit)
	rep := reps["prscout-workflow-gate"]
	if len(reps) != 1 || rep.Result != "FAILED" || rep.Title != "prscout-workflow-gate" || rep.Puts != 2 ||
		rep.Details != "4 result(s): 4 error(s), 0 warning(s), 0 note(s)" {
		t.Errorf("reports after two runs: %+v", reps)
	}
	type row struct {
		Path    string
		Line    int
		Summary string
	}
	var got []row
	for _, a := range s.Annotations("acme", "flows", gateCommit, "prscout-workflow-gate") {
		got = append(got, row{a.Path, a.Line, a.Summary})
		if a.Severity != "HIGH" || !strings.HasPrefix(a.ExternalID, "sarif-") {
			t.Errorf("annotation %+v", a)
		}
	}
	want := []row{
		{"workflows/broken.json", 13, `n8n/syntax-error: workflow "Broken flow" node "Parse" (n8n-nodes-base.code) jsCode: Unexpected token ;`},
		{"workflows/broken.json", 19, `n8n/missing-code: workflow "Broken flow" node "Empty" (n8n-nodes-base.code) jsCode: jsCode is empty: n8n fails the node (No code to execute)`},
		{"workflows/broken.json", 24, `n8n/syntax-error: workflow "Broken flow" node "Set fields" (n8n-nodes-base.set) expression options.body[0].value: Unexpected end of input (after the end of the code: an unbalanced } or an unclosed bracket, string, template or comment)`},
		{"workflows/broken.json", 29, `n8n/syntax-error: workflow "Broken flow" node "Escapes" (n8n-nodes-base.code) jsCode: Unexpected token )`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("annotations after two runs (-want +got):\n%s", d)
	}

	// A token without the scope: a warning, exit 0.
	s.DenyScope(bitbuckettest.InsightsOps...)
	errOut.Reset()
	if code := reportInsights([]string{"--sarif", sarifPath}, &out, &errOut, envOf(env)); code != 0 || !strings.Contains(errOut.String(), "warning: report not written") {
		t.Errorf("missing scope: exit %d\n%s", code, errOut.String())
	}
	s.DenyScope()

	// Another failure is an error.
	if code := reportInsights([]string{"--sarif", sarifPath, "--commit", "0000000deadbeef"}, &out, &errOut, envOf(env)); code != 1 {
		t.Errorf("unknown commit: exit %d", code)
	}
	if code := reportInsights([]string{"--sarif", sarifPath, "--key", "a/b"}, &out, &errOut, envOf(env)); code != 2 {
		t.Errorf("bad key: exit %d", code)
	}
	if code := reportInsights([]string{"--sarif", sarifPath}, &out, &errOut, envOf(map[string]string{})); code != 2 {
		t.Errorf("outside Pipelines without --commit: exit %d", code)
	}
	bad := writeFile(t, t.TempDir(), "bad.sarif", `{"version":"2.0.0","runs":[]}`)
	if code := reportInsights([]string{"--sarif", bad}, &out, &errOut, envOf(env)); code != 2 {
		t.Errorf("bad SARIF: exit %d", code)
	}
}

// TestReportInsightsThroughPipelinesProxy: inside a step without
// credentials the calls go through the proxy, with no Authorization.
func TestReportInsightsThroughPipelinesProxy(t *testing.T) {
	s := bitbuckettest.NewServer()
	defer s.Close()
	s.AddCommit("acme", "flows", gateCommit)
	sarifPath := gateSARIFFile(t, t.TempDir())
	env := map[string]string{"BITBUCKET_WORKSPACE": "acme", "BITBUCKET_REPO_SLUG": "flows", "BITBUCKET_COMMIT": gateCommit}
	var out, errOut bytes.Buffer
	if code := reportInsights([]string{"--sarif", sarifPath, "--proxy", s.URL}, &out, &errOut, envOf(env)); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if len(s.Annotations("acme", "flows", gateCommit, "prscout-workflow-gate")) != 4 {
		t.Error("annotations not stored through the proxy")
	}
	for _, r := range s.Requests() {
		if r.Authorization != "" {
			t.Errorf("%s carried Authorization through the proxy", r.Op)
		}
	}
	env["PRSCOUT_BITBUCKET_ACCESS_TOKEN"] = "tok"
	if code := reportInsights([]string{"--sarif", sarifPath, "--proxy", s.URL}, &out, &errOut, envOf(env)); code != 2 {
		t.Errorf("--proxy with credentials: exit %d", code)
	}
}

func TestRepoPath(t *testing.T) {
	for uri, want := range map[string]string{
		"workflows/a%20b.json":         "workflows/a b.json",
		"./c:/x.json":                  "c:/x.json",
		"../outside.json":              "",
		"file:///src/repo/wf/x.json":   "wf/x.json",
		"file:///elsewhere/x.json":     "",
		"https://example.invalid/x.js": "",
		"":                             "",
	} {
		if got := repoPath(uri, "/src/repo"); got != want {
			t.Errorf("repoPath(%q) = %q, want %q", uri, got, want)
		}
	}
}

// A SARIF result with a 2,000-character first message line becomes an
// annotation Bitbucket takes: the summary cut at a word at 450 characters
// with "…", the rest leading the details.
func TestReportInsightsLongMessage(t *testing.T) {
	s := bitbuckettest.NewServer()
	defer s.Close()
	s.AddCommit("acme", "flows", gateCommit)
	msg := strings.TrimSpace(strings.Repeat("the value flows into a shell command unchecked ", 43))
	log := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"lint"}},"results":[` +
		`{"ruleId":"sh1","level":"error","message":{"text":"` + msg + `\nsecond line"},` +
		`"locations":[{"physicalLocation":{"artifactLocation":{"uri":"run.sh"},"region":{"startLine":3}}}]}]}]}`
	path := writeFile(t, t.TempDir(), "long.sarif", log)
	env := map[string]string{
		"PRSCOUT_BITBUCKET_BASE_URL": s.BaseURL, "PRSCOUT_BITBUCKET_ACCESS_TOKEN": "tok",
		"BITBUCKET_WORKSPACE": "acme", "BITBUCKET_REPO_SLUG": "flows", "BITBUCKET_COMMIT": gateCommit,
	}
	var out, errOut bytes.Buffer
	if code := reportInsights([]string{"--sarif", path, "--key", "lint"}, &out, &errOut, envOf(env)); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	anns := s.Annotations("acme", "flows", gateCommit, "lint")
	if len(anns) != 1 {
		t.Fatalf("%d annotations", len(anns))
	}
	a := anns[0]
	if n := len([]rune(a.Summary)); n > 450 || !strings.HasSuffix(a.Summary, "…") || !strings.HasPrefix(a.Summary, "sh1: the value") {
		t.Fatalf("summary of %d characters: %q", n, a.Summary)
	}
	if !strings.HasPrefix(a.Details, "…") || !strings.HasSuffix(a.Details, "second line") {
		t.Fatalf("details %q", a.Details)
	}
}
