package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// binPath is the prscout binary built once for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prscout-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "prscout")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build prscout: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// git runs git in dir with a fixed identity and dates, failing the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=prscout", "GIT_AUTHOR_EMAIL=prscout@example.invalid",
		"GIT_COMMITTER_NAME=prscout", "GIT_COMMITTER_EMAIL=prscout@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeRepoFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// makeReviewRepo builds a repository with a main branch and a feature
// branch whose change exercises every file decision of /v1/context.
func makeReviewRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeRepoFile(t, dir, "pkg/auth/token.go", "package auth\n\n// Validate reports whether tok is a valid session token.\nfunc Validate(tok string) bool { return len(tok) == 32 }\n")
	writeRepoFile(t, dir, "pkg/auth/claims.go", "package auth\n\ntype Claims struct{ Subject string }\n")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\treturn 200\n}\n")
	writeRepoFile(t, dir, "pkg/big/big.go", "package big\n\n"+numbered(1000, "var v%d = 0"))
	writeRepoFile(t, dir, "pkg/old/gone.go", "package old\n")
	writeRepoFile(t, dir, "vendor/lib/lib.go", "package lib\n")
	writeRepoFile(t, dir, ".env", "SECRET_TOKEN=hunter2\n")
	writeRepoFile(t, dir, "assets/logo.bin", "\x00\x01\x02binary")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif tok == \"\" || !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\tuser := lookup(tok)\n\treturn 200 + len(user) - len(user)\n}\n")
	writeRepoFile(t, dir, "pkg/big/big.go", "package big\n\n"+strings.Replace(numbered(1000, "var v%d = 0"), "var v990 = 0", "var v990 = 42", 1))
	writeRepoFile(t, dir, "pkg/api/new.go", "package api\n\nfunc lookup(tok string) string { return tok[:4] }\n")
	git(t, dir, "rm", "-q", "pkg/old/gone.go")
	writeRepoFile(t, dir, "vendor/lib/lib.go", "package lib\n\nvar X = 1\n")
	writeRepoFile(t, dir, "assets/logo.bin", "\x00\x01\x02binary changed")
	writeRepoFile(t, dir, ".env", "SECRET_TOKEN=hunter3\n")
	writeRepoFile(t, dir, "web/package-lock.json", "{}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "feature: check empty tokens")
	// An uncommitted change must never be served.
	writeRepoFile(t, dir, "pkg/auth/token.go", "UNCOMMITTED\n")
	return dir
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// server is a running prscout binary.
type server struct {
	base string
	key  string
	cmd  *exec.Cmd
	logs *bytes.Buffer
}

// startServer runs the real binary with env added and waits for /healthz.
func startServer(t *testing.T, env ...string) *server {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(binPath, "serve")
	// Every finding of these runs is placed as posted before the placement
	// policy existed (no budget, no floor, unverified kept): they check
	// posting, memory and the commit surfaces of each finding. The policy
	// has tests of its own (pipeline/review, TestCommentPolicyDefaults);
	// env given by a test wins (the last value of a key counts).
	policy := []string{"PRSCOUT_REVIEW_PROFILE=thorough", "PRSCOUT_UNVERIFIED=keep"}
	cmd.Env = append(os.Environ(), append(append(policy, "PRSCOUT_ADDR="+addr, "PRSCOUT_API_KEYS=e2e-key"), env...)...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{base: "http://" + addr, key: "e2e-key", cmd: cmd, logs: logs}
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
			t.Logf("server log:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server did not become healthy; log:\n%s", logs.String())
	return nil
}

// post sends body (any JSON value, or raw bytes) and decodes the answer.
func (s *server) post(t *testing.T, path string, body any) (int, map[string]any) {
	t.Helper()
	var data []byte
	switch b := body.(type) {
	case []byte:
		data = b
	default:
		var err error
		if data, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: status %d, answer is not one JSON object: %v\n%s", path, resp.StatusCode, err, raw)
	}
	return resp.StatusCode, out
}

func mustOK(t *testing.T, path string, code int, out map[string]any) {
	t.Helper()
	if code != 200 {
		t.Fatalf("%s: status %d: %v", path, code, out)
	}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func byPath(items []any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, it := range items {
		m := obj(it)
		out[fmt.Sprint(m["path"])] = m
	}
	return out
}

// The LLM answers the end-to-end tests feed to the stages, as raw text the
// way n8n passes a chat completion's content on (testdata/llm/).
var (
	scoutAnswer  = string(mustRead("../../testdata/llm/scout-bad-paths.md"))
	reviewAnswer = string(mustRead("../../testdata/llm/review-three-findings.md"))
)

func mustRead(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return data
}

// TestEndToEndLocalReview drives all five stages against the real binary and
// a real repository, feeding each answer to the next as n8n does.
func TestEndToEndLocalReview(t *testing.T) {
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	head := git(t, repo, "rev-parse", "feature")

	// 1. Context.
	code, ctxAns := s.post(t, "/v1/context", map[string]any{
		"workspace": "acme", "repoSlug": "app", "base": "main", "head": "feature",
		"title": "Reject empty tokens", "description": "Handle now refuses empty tokens.",
	})
	mustOK(t, "/v1/context", code, ctxAns)
	if ctxAns["ref"] != head {
		t.Errorf("context ref = %v, want head sha %s", ctxAns["ref"], head)
	}
	if ctxAns["mode"] != "full" || ctxAns["skip"] != false {
		t.Errorf("mode/skip = %v/%v, want full/false", ctxAns["mode"], ctxAns["skip"])
	}
	files := byPath(list(ctxAns["files"]))
	for _, p := range []string{"pkg/api/handler.go", "pkg/api/new.go", "pkg/big/big.go"} {
		if files[p] == nil {
			t.Errorf("context files lack %s; have %v", p, keys(files))
		}
	}
	if f := files["pkg/api/handler.go"]; f != nil {
		if !strings.Contains(fmt.Sprint(f["diff"]), "+\tif tok == \"\" || !auth.Validate(tok) {") {
			t.Errorf("handler.go diff lacks the change:\n%v", f["diff"])
		}
		if !strings.Contains(fmt.Sprint(f["source"]), "user := lookup(tok)") {
			t.Errorf("handler.go source is not the new source:\n%v", f["source"])
		}
	}
	if f := files["pkg/big/big.go"]; f != nil {
		sr := obj(f["sourceRange"])
		if sr["total"] != float64(1002) || sr["to"] != float64(1002) || sr["from"] == float64(1) {
			t.Errorf("big.go sourceRange = %v, want a window ending at 1002 of 1002", sr)
		}
		if !strings.Contains(fmt.Sprint(f["source"]), "1002") {
			t.Errorf("big.go window is not labelled with the total in its text")
		}
	}
	excluded := byPath(list(ctxAns["excluded"]))
	for _, p := range []string{"pkg/old/gone.go", "vendor/lib/lib.go", "assets/logo.bin", ".env", "web/package-lock.json"} {
		if excluded[p] == nil || excluded[p]["reason"] == "" {
			t.Errorf("excluded lacks %s with a reason; have %v", p, excluded)
		}
	}
	if files[".env"] != nil || strings.Contains(fmt.Sprint(ctxAns["scoutPrompt"]), "hunter") {
		t.Errorf("the secret .env reached the context")
	}
	sp := obj(ctxAns["scoutPrompt"])
	if !strings.Contains(fmt.Sprint(sp["system"])+fmt.Sprint(sp["user"]), `"needs"`) || !strings.Contains(fmt.Sprint(sp["user"]), "Reject empty tokens") {
		t.Errorf("scout prompt lacks the answer format or the PR title")
	}
	if obj(ctxAns["stats"])["promptChars"] == nil {
		t.Errorf("context stats lack promptChars: %v", ctxAns["stats"])
	}

	// 2. Needs, from the scout's raw text full of bad paths.
	code, needs := s.post(t, "/v1/needs", map[string]any{
		"workspace": ctxAns["workspace"], "repoSlug": ctxAns["repoSlug"], "ref": ctxAns["ref"],
		"files": ctxAns["files"], "scout": scoutAnswer,
	})
	mustOK(t, "/v1/needs", code, needs)
	if needs["skip"] != false {
		t.Errorf("needs skip = %v, want false", needs["skip"])
	}
	reqs := byPath(list(needs["requests"]))
	for _, p := range []string{"pkg/auth/token.go", "pkg/auth", "pkg/nope/missing.go"} {
		if reqs[p] == nil {
			t.Errorf("needs requests lack %s; have %v", p, keys(reqs))
		}
	}
	if len(reqs) != 3 {
		t.Errorf("needs kept %d requests, want 3: %v", len(reqs), keys(reqs))
	}
	reasons := map[string]bool{}
	for _, r := range list(needs["rejected"]) {
		m := obj(r)
		if m["ok"] != false || m["error"] == "" {
			t.Errorf("rejected entry without ok:false and an error: %v", m)
		}
		reasons[fmt.Sprint(m["reason"])] = true
	}
	for _, want := range []string{"parent_escape", "secret", "changed_file", "noise", "duplicate"} {
		if !reasons[want] {
			t.Errorf("rejected lacks reason %q; have %v", want, reasons)
		}
	}
	if got := len(list(needs["rejected"])); got != 6 {
		t.Errorf("rejected %d needs, want 6 (nothing silently vanishes): %v", got, needs["rejected"])
	}

	// 3. Batch lookup, taking the needs answer as is.
	code, batch := s.post(t, "/v1/repository/batch", needs)
	mustOK(t, "/v1/repository/batch", code, batch)
	results := byPath(list(batch["results"]))
	if r := results["pkg/auth/token.go"]; r == nil || r["ok"] != true || !strings.Contains(fmt.Sprint(r["content"]), "func Validate") {
		t.Errorf("token.go lookup = %v, want the committed content", r)
	}
	if strings.Contains(fmt.Sprint(batch), "UNCOMMITTED") {
		t.Errorf("the working tree leaked into a lookup")
	}
	if r := results["pkg/auth"]; r == nil || r["ok"] != true || len(list(r["entries"])) != 2 {
		t.Errorf("pkg/auth listing = %v, want 2 typed entries", r)
	} else {
		for _, e := range list(r["entries"]) {
			if obj(e)["type"] != "file" {
				t.Errorf("entry %v is not typed file", e)
			}
		}
	}
	if r := results["pkg/nope/missing.go"]; r == nil || r["ok"] != false || r["error"] == "" {
		t.Errorf("missing file lookup = %v, want ok:false with an error", r)
	}

	// 4. Merge the context and the results.
	code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": batch["results"], "rejected": batch["rejected"]})
	mustOK(t, "/v1/merge", code, merged)
	if merged["reviewPass"] != float64(2) {
		t.Errorf("reviewPass = %v, want 2", merged["reviewPass"])
	}
	add := byPath(list(merged["additionalContext"]))
	if a := add["pkg/auth/token.go"]; a == nil || a["ok"] != true || a["error"] != "" {
		t.Errorf("additionalContext token.go = %v", a)
	}
	if a := add["pkg/nope/missing.go"]; a == nil || a["ok"] != false || a["error"] == "" || a["content"] != "" {
		t.Errorf("additionalContext keeps errors as the reference workflow does: got %v", a)
	}
	rp := obj(merged["reviewPrompt"])
	if !strings.Contains(fmt.Sprint(rp["user"]), "func Validate(tok string) bool") || !strings.Contains(fmt.Sprint(rp["system"])+fmt.Sprint(rp["user"]), "existingCode") {
		t.Errorf("review prompt lacks the fetched context or the findings format")
	}

	// 5. Comments: render (the local provider never posts).
	in := map[string]any{}
	for k, v := range merged {
		in[k] = v
	}
	in["review"] = reviewAnswer
	in["dryRun"] = true
	code, com := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, com)
	md := fmt.Sprint(com["markdown"])
	if !regexp.MustCompile(`(?m)^\[prscout\]: # "review head=` + head + ` v=1"$`).MatchString(md) {
		t.Errorf("markdown lacks the hidden marker with the head sha:\n%s", md)
	}
	if regexp.MustCompile(`<(details|summary|sub|sup|br|!--)`).MatchString(md) {
		t.Errorf("markdown holds HTML:\n%s", md)
	}
	anchors := map[string]string{}
	for _, ic := range list(com["inline"]) {
		m := obj(ic)
		anchors[fmt.Sprint(m["path"])] = fmt.Sprintf("%v@%v", m["anchor"], m["line"])
	}
	if anchors["pkg/api/new.go"] != "line@3" {
		t.Errorf("new.go finding anchored %q, want line@3", anchors["pkg/api/new.go"])
	}
	if anchors["pkg/api/handler.go"] != "snippet@9" {
		t.Errorf("handler.go finding anchored %q, want snippet@9 (line 999 is outside the diff)", anchors["pkg/api/handler.go"])
	}
	if len(list(com["unanchored"])) != 1 || !strings.Contains(md, "not in this PR") {
		t.Errorf("the unanchorable finding must be kept in the summary: unanchored=%v", com["unanchored"])
	}
	if obj(com["posted"])["summary"] != "dry-run" {
		t.Errorf("posted = %v, want summary dry-run", com["posted"])
	}

	// Metrics saw it all.
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`prscout_needs_rejected_total{reason="parent_escape"} 2`,
		`prscout_lookups_total{op="get_file",outcome="not_found"} 1`,
		`prscout_http_requests_total{code="200",route="/v1/comments"} 1`,
	} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestEndToEndEmptyNeeds: a scout that needs nothing still yields one item
// at every stage, so the n8n chain never stops silently.
func TestEndToEndEmptyNeeds(t *testing.T) {
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo)
	_, ctxAns := s.post(t, "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": "main", "head": "feature"})
	code, needs := s.post(t, "/v1/needs", map[string]any{
		"workspace": "acme", "repoSlug": "app", "ref": ctxAns["ref"], "files": ctxAns["files"],
		"scout": "```json\n{\"files\":[]}\n```",
	})
	mustOK(t, "/v1/needs", code, needs)
	if needs["skip"] != true || len(list(needs["requests"])) != 0 || needs["requests"] == nil {
		t.Fatalf("empty needs = %v, want {skip:true, requests:[]}", needs)
	}
	code, batch := s.post(t, "/v1/repository/batch", needs)
	mustOK(t, "/v1/repository/batch", code, batch)
	if batch["results"] == nil || len(list(batch["results"])) != 0 {
		t.Fatalf("batch of nothing = %v, want results: []", batch)
	}
	code, merged := s.post(t, "/v1/merge", map[string]any{"context": ctxAns, "results": batch["results"]})
	mustOK(t, "/v1/merge", code, merged)
	if merged["reviewPass"] != float64(2) || merged["additionalContext"] == nil {
		t.Fatalf("merge of nothing = %v", merged)
	}
	in := map[string]any{"review": `{"summary":"Looks fine.","findings":[]}`, "dryRun": true}
	for _, k := range []string{"workspace", "repoSlug", "ref", "files"} {
		in[k] = merged[k]
	}
	code, com := s.post(t, "/v1/comments", in)
	mustOK(t, "/v1/comments", code, com)
	if !strings.Contains(fmt.Sprint(com["markdown"]), "Looks fine.") {
		t.Errorf("summary lost: %v", com["markdown"])
	}
}

// TestEndToEndBadInput: malformed requests get 4xx JSON naming the field.
func TestEndToEndBadInput(t *testing.T) {
	repo := makeReviewRepo(t)
	s := startServer(t, "PRSCOUT_LOCAL_ROOT="+repo, "PRSCOUT_MAX_BODY_BYTES=4096")
	cases := []struct {
		name, path string
		body       any
		status     int
		field      string
	}{
		{"invalid json", "/v1/needs", []byte(`{"scout": `), 400, ""},
		{"array body", "/v1/needs", []byte(`[]`), 400, ""},
		{"wrong type", "/v1/needs", []byte(`{"ref":"x","files":[{"path":"a.go"},{"path":5}],"scout":"{}"}`), 400, "files[1].path"},
		{"missing head", "/v1/context", map[string]any{"base": "main"}, 400, "head"},
		{"unknown revision", "/v1/context", map[string]any{"base": "main", "head": "no-such-branch"}, 404, ""},
		{"oversized", "/v1/needs", []byte(`{"scout":"` + strings.Repeat("a", 5000) + `"}`), 413, ""},
		{"requests not array", "/v1/repository/batch", []byte(`{"requests":{"op":"get_file"}}`), 400, "requests"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := s.post(t, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d, want %d: %v", code, tc.status, out)
			}
			if out["error"] == nil || out["message"] == "" {
				t.Errorf("error body %v lacks error/message", out)
			}
			if tc.field != "" && out["field"] != tc.field {
				t.Errorf("field = %v, want %q", out["field"], tc.field)
			}
		})
	}
	t.Run("no api key", func(t *testing.T) {
		resp, err := http.Post(s.base+"/v1/needs", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("status %d, want 401", resp.StatusCode)
		}
	})
}

// TestServeRefusesOpenListenWithoutKeys: no keys and a non-loopback address
// is a configuration error, unless explicitly allowed.
func TestServeRefusesOpenListenWithoutKeys(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--addr", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "PRSCOUT_API_KEYS=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "PRSCOUT_API_KEYS") {
		t.Errorf("message does not name the variable:\n%s", out)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
