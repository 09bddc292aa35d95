package jira

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeJira behaves like Jira's REST API v2 as documented for the two
// endpoints the adapter uses:
//
//	GET {ctx}/rest/api/2/issue/{key}?fields=a,b&expand=renderedFields,names
//	GET {ctx}/rest/api/2/field
//
// Issues come from testdata/issues/*.json (the real answer shape). Keys are
// case-insensitive, moved issues answer with their new key, `fields` filters
// the answer ("*all" or absent: all), `expand` adds renderedFields and names.
// Errors use Jira's {"errorMessages":[...],"errors":{}} body. Faults are
// scripted per request.
type fakeJira struct {
	t          *testing.T
	srv        *httptest.Server
	contextPth string
	auth       string // the exact Authorization header expected

	mu       sync.Mutex
	issues   map[string]map[string]any // upper key -> issue JSON
	moved    map[string]string         // old key -> new key
	fieldLst []map[string]any
	script   []fault // consumed one per request, before normal handling
	requests []*http.Request
}

// fault is one scripted answer: a status with headers and body, or a delay
// before normal handling.
type fault struct {
	status int
	header map[string]string
	body   string
	delay  time.Duration
	hang   chan struct{} // if set, block until closed or the client gives up
	// arrived, if set, is closed when the request arrives, before hanging.
	arrived chan struct{}
	// partial with hang: send 200 headers and half a body first.
	partial bool
}

func newFakeJira(t *testing.T, contextPath, auth string) *fakeJira {
	t.Helper()
	f := &fakeJira{t: t, contextPth: contextPath, auth: auth, issues: map[string]map[string]any{}, moved: map[string]string{}}
	paths, err := filepath.Glob("testdata/issues/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no issue fixtures: %v", err)
	}
	for _, p := range paths {
		var iss map[string]any
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &iss); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.issues[iss["key"].(string)] = iss
	}
	b, err := os.ReadFile("testdata/fields.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f.fieldLst); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+contextPath+"/rest/api/2/issue/{key}", f.getIssue)
	mux.HandleFunc("GET "+contextPath+"/rest/api/2/field", f.listFields)
	f.srv = httptest.NewServer(f.record(mux))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeJira) URL() string { return f.srv.URL + f.contextPth }

func (f *fakeJira) push(fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, fs...)
}

func (f *fakeJira) calls(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasSuffix(r.URL.Path, path) {
			n++
		}
	}
	return n
}

func (f *fakeJira) lastRequest() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

func (f *fakeJira) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(r.Context()))
		var ft *fault
		if len(f.script) > 0 {
			ft = &f.script[0]
			f.script = f.script[1:]
		}
		f.mu.Unlock()
		if r.Header.Get("Authorization") != f.auth {
			// Jira Cloud answers bad or missing credentials with 401.
			writeJiraError(w, http.StatusUnauthorized, nil, "You are not authenticated. Authentication required to perform this operation.")
			return
		}
		if ft != nil && ft.arrived != nil {
			close(ft.arrived)
		}
		if ft != nil {
			if ft.hang != nil {
				if ft.partial {
					w.Header().Set("Content-Type", "application/json;charset=UTF-8")
					w.WriteHeader(http.StatusOK)
					_, _ = w.Write([]byte(`{"id":"10123","key":"PROJ-123","fields":{"summary":"Lo`))
					w.(http.Flusher).Flush()
				}
				select {
				case <-ft.hang:
				case <-r.Context().Done():
				}
				return
			}
			if ft.delay > 0 {
				select {
				case <-time.After(ft.delay):
				case <-r.Context().Done():
					return
				}
			}
			if ft.status != 0 {
				for k, v := range ft.header {
					w.Header().Set(k, v)
				}
				if ft.body != "" {
					w.WriteHeader(ft.status)
					_, _ = w.Write([]byte(ft.body))
					return
				}
				writeJiraError(w, ft.status, nil, http.StatusText(ft.status))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func writeJiraError(w http.ResponseWriter, status int, errs map[string]string, msgs ...string) {
	if errs == nil {
		errs = map[string]string{}
	}
	if msgs == nil {
		msgs = []string{}
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errorMessages": msgs, "errors": errs})
}

func (f *fakeJira) getIssue(w http.ResponseWriter, r *http.Request) {
	key := strings.ToUpper(r.PathValue("key"))
	f.mu.Lock()
	if to, ok := f.moved[key]; ok {
		key = to
	}
	iss, ok := f.issues[key]
	f.mu.Unlock()
	if !ok {
		writeJiraError(w, http.StatusNotFound, nil, "Issue does not exist or you do not have permission to see it.")
		return
	}
	all := iss["fields"].(map[string]any)
	want := r.URL.Query().Get("fields")
	fields := map[string]any{}
	for k, v := range all {
		if want == "" || want == "*all" || containsCSV(want, k) {
			fields[k] = v
		}
	}
	out := map[string]any{
		"expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
		"id":     iss["id"], "self": f.srv.URL + f.contextPth + "/rest/api/2/issue/" + iss["id"].(string),
		"key": iss["key"], "fields": fields,
	}
	expand := r.URL.Query().Get("expand")
	if containsCSV(expand, "names") {
		names := map[string]any{}
		for _, fd := range f.fieldLst {
			if _, ok := fields[fd["id"].(string)]; ok {
				names[fd["id"].(string)] = fd["name"]
			}
		}
		out["names"] = names
	}
	if containsCSV(expand, "renderedFields") {
		rendered := map[string]any{}
		for k := range fields {
			rendered[k] = nil
		}
		if _, ok := fields["description"]; ok {
			rendered["description"] = "<p>rendered</p>"
		}
		out["renderedFields"] = rendered
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(out)
}

func (f *fakeJira) listFields(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(f.fieldLst)
}

func containsCSV(list, item string) bool {
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == item {
			return true
		}
	}
	return false
}
