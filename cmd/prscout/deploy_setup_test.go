package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// setupFake adds to fakeN8N what --setup uses of n8n 2.8.4's public API:
// listing and creating credentials and workflows, and activating one.
type setupFake struct {
	*fakeN8N
	creds     []map[string]any
	order     []string // workflow ids in creation order
	activated map[string]int
}

func (f *setupFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if r.Header.Get("X-N8N-API-KEY") != f.key {
		f.mu.Unlock()
		writeJSON(w, 401, map[string]any{"message": "'X-N8N-API-KEY' header required"})
		return
	}
	route := r.Method + " " + r.URL.Path
	switch {
	case route == "GET /api/v1/credentials":
		writeJSON(w, 200, map[string]any{"data": f.creds, "nextCursor": nil})
	case route == "POST /api/v1/credentials":
		var c map[string]any
		_ = json.NewDecoder(r.Body).Decode(&c)
		if c["name"] == "" || c["type"] == "" || c["data"] == nil {
			writeJSON(w, 400, map[string]any{"message": "request/body must have required property 'data'"})
			break
		}
		c["id"] = fmt.Sprintf("cred%d", len(f.creds)+1)
		f.creds = append(f.creds, c)
		writeJSON(w, 200, map[string]any{"id": c["id"], "name": c["name"], "type": c["type"]})
	case route == "GET /api/v1/workflows":
		var list []map[string]any
		for _, id := range f.order {
			list = append(list, map[string]any{"id": id, "name": f.workflows[id]["name"]})
		}
		writeJSON(w, 200, map[string]any{"data": list})
	case route == "POST /api/v1/workflows":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if msg := validatePut(body); msg != "" {
			writeJSON(w, 400, map[string]any{"message": msg})
			break
		}
		id := fmt.Sprintf("wfnew%d", len(f.order)+1)
		body["id"] = id
		f.workflows[id] = body
		f.order = append(f.order, id)
		writeJSON(w, 200, body)
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/activate"):
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/workflows/"), "/activate")
		if f.workflows[id] == nil {
			writeJSON(w, 404, map[string]any{"message": "Not Found"})
			break
		}
		f.activated[id]++
		writeJSON(w, 200, f.workflows[id])
	default:
		f.mu.Unlock()
		f.fakeN8N.ServeHTTP(w, r)
		return
	}
	f.mu.Unlock()
}

// TestDeploySetup: --setup creates the three credentials of three types,
// links every node of both shipped workflows to them by id, sets Config,
// creates and publishes both; a second run finds the credentials, updates
// the workflows of the same names (backed up) and creates nothing.
func TestDeploySetup(t *testing.T) {
	base, _ := newFake(t)
	base.workflows = map[string]map[string]any{}
	f := &setupFake{fakeN8N: base, activated: map[string]int{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	t.Setenv("PRSCOUT_API_KEYS", "k0123456789abcdef,second-key-0123456")
	t.Setenv("PRSCOUT_FORWARD_TOKEN", "forward-token")
	t.Setenv("LLM_API_KEY", "llm-key")
	files := []string{filepath.Join("..", "..", "workflows", "pr-review.json"), filepath.Join("..", "..", "workflows", "pr-comments.json")}
	args := append([]string{"--setup", "--n8n-url", ts.URL, "--api-key", "test-key", "--backup-dir", t.TempDir(),
		"--prscout-url", "http://prscout:8080", "--llm-base-url", "http://ollama:11434/v1"}, files...)

	code, out, errOut := runDeployT(t, args...)
	if code != 0 {
		t.Fatalf("setup: exit %d\n%s\n%s", code, out, errOut)
	}
	types := map[string]string{}
	for _, c := range f.creds {
		types[c["name"].(string)] = c["type"].(string)
	}
	want := map[string]string{"prscout API key": "httpBearerAuth", "LLM API key": "openAiApi", "prscout webhook token": "httpHeaderAuth"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("credentials created %v, want %v", types, want)
	}
	if d := f.creds[0]["data"].(map[string]any); d["token"] != "k0123456789abcdef" {
		t.Errorf("prscout API key data %v, want the first key", d)
	}
	if len(f.order) != 2 || f.activated[f.order[0]] != 1 || f.activated[f.order[1]] != 1 {
		t.Fatalf("workflows %v activated %v, want 2 created and published", f.order, f.activated)
	}
	byID := map[string]string{}
	for _, c := range f.creds {
		byID[c["id"].(string)] = c["type"].(string) + "/" + c["name"].(string)
	}
	linked := 0
	for _, id := range f.order {
		for _, raw := range f.workflows[id]["nodes"].([]any) {
			n := raw.(map[string]any)
			for typ, v := range mapOf(n["credentials"]) {
				ref := v.(map[string]any)
				if byID[fmt.Sprint(ref["id"])] != typ+"/"+fmt.Sprint(ref["name"]) {
					t.Errorf("%s: %s credential %v is not linked to the created one", n["name"], typ, ref)
				}
				linked++
			}
			if n["name"] == "Config" && !strings.Contains(fmt.Sprint(n["parameters"]), "http://prscout:8080") {
				t.Errorf("Config of %s kept its prscoutUrl", id)
			}
		}
	}
	if linked != 15 {
		t.Errorf("%d credential references linked, want 15 (11 + 4)", linked)
	}

	code, out, errOut = runDeployT(t, args...)
	if code != 0 || strings.Count(out, ": found, id ") != 3 || strings.Count(out, "backed up live workflow") != 2 || len(f.creds) != 3 || len(f.order) != 2 {
		t.Errorf("second setup: exit %d, %d credentials, %d workflows\n%s%s", code, len(f.creds), len(f.order), out, errOut)
	}

	t.Setenv("PRSCOUT_FORWARD_TOKEN", "")
	if code, _, errOut := runDeployT(t, args...); code != 2 || !strings.Contains(errOut, "PRSCOUT_FORWARD_TOKEN is empty") {
		t.Errorf("no forward token: exit %d, %q", code, errOut)
	}
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
