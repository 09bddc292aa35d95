package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/n8n"
)

// fakeN8N mimics the parts of n8n 2.8.4's public API that deploy uses, with
// the validation answers of docs/operations.md, "Deploying a workflow".
type fakeN8N struct {
	mu        sync.Mutex
	key       string
	workflows map[string]map[string]any
	puts      int
	lastPut   map[string]any
}

func (f *fakeN8N) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("X-N8N-API-KEY") != f.key {
		writeJSON(w, 401, map[string]any{"message": "'X-N8N-API-KEY' header required"})
		return
	}
	id, ok := strings.CutPrefix(r.URL.Path, "/api/v1/workflows/")
	wf := f.workflows[id]
	if !ok || wf == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, 200, wf)
	case http.MethodPut:
		f.puts++
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeJSON(w, 400, map[string]any{"message": "request/body must be object"})
			return
		}
		if msg := validatePut(body); msg != "" {
			writeJSON(w, 400, map[string]any{"message": msg})
			return
		}
		f.lastPut = body
		for k, v := range body {
			wf[k] = v
		}
		wf["versionId"] = fmt.Sprintf("v%d", f.puts+1)
		writeJSON(w, 200, wf)
	default:
		writeJSON(w, 405, map[string]any{"message": "method not allowed"})
	}
}

// validatePut applies n8n's schema (additionalProperties:false at workflow,
// node and settings level; required name, nodes, connections, settings).
func validatePut(body map[string]any) string {
	writable := n8n.StringSet("name", "nodes", "connections", "settings", "staticData", "shared", "activeVersion")
	readOnly := n8n.StringSet("id", "active", "createdAt", "updatedAt", "tags")
	keys := slices.Sorted(maps.Keys(body))
	for _, k := range keys {
		if readOnly[k] {
			return "request/body/" + k + " is read-only"
		}
		if !writable[k] {
			return "request/body must NOT have additional properties"
		}
	}
	for _, k := range []string{"name", "nodes", "connections", "settings"} {
		if _, ok := body[k]; !ok {
			return "request/body must have required property '" + k + "'"
		}
	}
	for i, n := range body["nodes"].([]any) {
		for k := range n.(map[string]any) {
			if !n8n.AllowedNodeKeys[k] {
				return fmt.Sprintf("request/body/nodes/%d must NOT have additional properties", i)
			}
		}
	}
	for k := range body["settings"].(map[string]any) {
		if !n8n.AllowedSettingsKeys[k] {
			return "request/body/settings must NOT have additional properties"
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

const liveWorkflow = `{"id":"wf1","name":"Review PR","active":true,"versionId":"v1","createdAt":"2026-01-01T00:00:00.000Z",
 "nodes":[{"id":"n1","name":"Code","type":"n8n-nodes-base.code","typeVersion":2,"position":[0,0],"parameters":{"jsCode":"return items;"}}],
 "connections":{},"settings":{"executionOrder":"v1"},"tags":[],"pinData":{},"meta":{"instanceId":"x"}}`

func newFake(t *testing.T) (*fakeN8N, *httptest.Server) {
	t.Helper()
	var live map[string]any
	if err := json.Unmarshal([]byte(liveWorkflow), &live); err != nil {
		t.Fatal(err)
	}
	f := &fakeN8N{key: "test-key", workflows: map[string]map[string]any{"wf1": live}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, ts
}

// uiDownload is a full UI download: fields the public API refuses included.
const uiDownload = `{"name":"Review PR","id":"wf1","active":true,"versionId":"abc","pinData":{"Code":[]},"meta":{"instanceId":"x"},"tags":[{"id":"t","name":"prod"}],
 "nodes":[{"id":"n1","name":"Code","type":"n8n-nodes-base.code","typeVersion":2,"position":[0,0],"rewireOutputLogTo":"x",
   "parameters":{"jsCode":"const n = $json.needs ?? [];\nreturn n.slice(0, 12); // cap"}}],
 "connections":{},"settings":{"executionOrder":"v1","binaryMode":"separate"}}`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runDeployT(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runDeploy(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDeployAndRollback(t *testing.T) {
	f, ts := newFake(t)
	dir := t.TempDir()
	backups := filepath.Join(dir, "backups")
	export := writeFile(t, dir, "wf.json", uiDownload)

	code, out, errOut := runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", backups, export)
	if code != 0 {
		t.Fatalf("deploy: exit %d\n%s\n%s", code, out, errOut)
	}
	if keys := slices.Sorted(maps.Keys(f.lastPut)); strings.Join(keys, ",") != "connections,name,nodes,settings" {
		t.Errorf("PUT keys = %v, want exactly name, nodes, connections, settings", keys)
	}
	if _, ok := f.lastPut["settings"].(map[string]any)["binaryMode"]; ok {
		t.Errorf("unknown settings key was sent")
	}
	for _, want := range []string{"settings.binaryMode", "nodes[0].rewireOutputLogTo"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no warning about dropped %s:\n%s", want, errOut)
		}
	}
	code0 := f.workflows["wf1"]["nodes"].([]any)[0].(map[string]any)["parameters"].(map[string]any)["jsCode"]
	if !strings.Contains(code0.(string), "slice(0, 12)") {
		t.Errorf("live code not updated: %v", code0)
	}
	files, _ := filepath.Glob(filepath.Join(backups, "wf1-*.json"))
	if len(files) != 1 {
		t.Fatalf("backups = %v, want one", files)
	}
	backup, _ := os.ReadFile(files[0])
	if !strings.Contains(string(backup), `"return items;"`) {
		t.Errorf("backup does not hold the live code:\n%s", backup)
	}

	// Rollback: the backup (a full GET answer) is gated and PUT through the same filter.
	code, out, errOut = runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", backups, "--rollback", files[0])
	if code != 0 {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "rolled back") {
		t.Errorf("rollback output: %s", out)
	}
	code0 = f.workflows["wf1"]["nodes"].([]any)[0].(map[string]any)["parameters"].(map[string]any)["jsCode"]
	if code0 != "return items;" {
		t.Errorf("rollback did not restore the code: %v", code0)
	}
	if f.puts != 2 {
		t.Errorf("PUT calls = %d, want 2", f.puts)
	}
}

func TestDeployRefusesInvalidCode(t *testing.T) {
	f, ts := newFake(t)
	dir := t.TempDir()
	bad := strings.Replace(uiDownload, `// cap"`, `// cap };\n};"`, 1)
	export := writeFile(t, dir, "wf.json", bad)
	code, out, errOut := runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", filepath.Join(dir, "b"), export)
	if code != 1 || f.puts != 0 {
		t.Fatalf("exit %d, PUT calls %d; want 1 and 0\n%s\n%s", code, f.puts, out, errOut)
	}
	if !strings.Contains(errOut, "FAIL") || !strings.Contains(errOut, "nothing was sent") {
		t.Errorf("stderr lacks the gate report:\n%s", errOut)
	}
	// A broken backup cannot be rolled back either.
	code, _, _ = runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", filepath.Join(dir, "b"), "--rollback", export)
	if code != 1 || f.puts != 0 {
		t.Errorf("rollback of a broken backup: exit %d, PUT calls %d", code, f.puts)
	}
}

func TestDeployErrors(t *testing.T) {
	f, ts := newFake(t)
	dir := t.TempDir()
	export := writeFile(t, dir, "wf.json", uiDownload)
	backups := filepath.Join(dir, "b")

	code, _, errOut := runDeployT(t, "--n8n-url", ts.URL, "--api-key", "wrong", "--backup-dir", backups, export)
	if code != 3 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "hint: n8n refused the API key") {
		t.Errorf("wrong key: exit %d, stderr %s", code, errOut)
	}
	code, _, errOut = runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", backups, "--id", "nope", export)
	if code != 3 || !strings.Contains(errOut, "404") || !strings.Contains(errOut, "hint: n8n has no workflow with this id") {
		t.Errorf("unknown id: exit %d, stderr %s", code, errOut)
	}
	code, out, _ := runDeployT(t, "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", backups, "--dry-run", export)
	if code != 0 || f.puts != 0 || !strings.Contains(out, "dry run") {
		t.Errorf("dry run: exit %d, PUT calls %d\n%s", code, f.puts, out)
	}
	t.Setenv("N8N_API_KEY", "")
	if code, _, _ := runDeployT(t, "--n8n-url", ts.URL, export); code != 2 {
		t.Errorf("no key: exit %d, want 2", code)
	}
	t.Setenv("N8N_API_KEY", "test-key")
	if code, out, errOut := runDeployT(t, "--n8n-url", ts.URL, "--backup-dir", backups, "--dry-run", export); code != 0 {
		t.Errorf("key from env: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := runDeployT(t, "--n8n-url", ts.URL, filepath.Join(dir, "missing.json")); code != 2 {
		t.Errorf("missing export: exit %d, want 2", code)
	}
	if code, _, errOut := runDeployT(t, "--n8n-url", "127.0.0.1:5678", "--api-key", "test-key", export); code != 2 ||
		!strings.Contains(errOut, `n8n base URL "127.0.0.1:5678" is not an absolute http(s) URL`) {
		t.Errorf("URL without scheme: exit %d, want 2\n%s", code, errOut)
	}
	two := writeFile(t, dir, "two.json", "["+uiDownload+","+uiDownload+"]")
	if code, _, _ := runDeployT(t, "--n8n-url", ts.URL, two); code != 2 {
		t.Errorf("two workflows: exit %d, want 2", code)
	}
}

// TestFakeN8NRejectsExtraFields shows the fake answers as n8n does, so the
// deploy tests above prove the body filter matters.
func TestFakeN8NRejectsExtraFields(t *testing.T) {
	_, ts := newFake(t)
	tests := map[string]string{
		uiDownload: "request/body/active is read-only",
		`{"name":"a","nodes":[],"connections":{},"settings":{},"pinData":{}}`: "request/body must NOT have additional properties",
		`{"name":"a","nodes":[],"connections":{}}`:                            "request/body must have required property 'settings'",
		`{"name":"a","nodes":[{"x":1}],"connections":{},"settings":{}}`:       "request/body/nodes/0 must NOT have additional properties",
		`{"name":"a","nodes":[],"connections":{},"settings":{"foo":1}}`:       "request/body/settings must NOT have additional properties",
	}
	keys := make([]string, 0, len(tests))
	for k := range tests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, body := range keys {
		req, _ := http.NewRequest(http.MethodPut, ts.URL+"/api/v1/workflows/wf1", strings.NewReader(body))
		req.Header.Set("X-N8N-API-KEY", "test-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(got), tests[body]) {
			t.Errorf("PUT %.40s...: %d %s, want 400 %s", body, resp.StatusCode, got, tests[body])
		}
	}
}
