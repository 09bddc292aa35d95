// Package jiratest is an in-memory fake of the two Jira REST API v2
// endpoints the jira adapter calls, for tests and the end-to-end run:
//
//	GET {base}/rest/api/2/issue/{key}?fields=a,b,...   one issue
//	GET {base}/rest/api/2/field                        every field
//
// Shapes follow Jira's documented answers: an issue is {id, key, self,
// fields{summary, status{name}, description (wiki markup), custom fields}},
// `fields` filters the answer, keys are case-insensitive, errors are
// {"errorMessages":[...],"errors":{}} with Jira's 404 text. The fake records
// every issue key asked for, so a test can tell which issues a review linked.
package jiratest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/prscout/prscout/internal/apicheck"
)

// Operation names, the same as the adapter reports to its Observer.
const (
	OpGetIssue   = "get_issue"
	OpListFields = "list_fields"
)

// Issue is an issue held by the fake. Description is wiki markup (API v2);
// Fields holds custom fields by id ("customfield_10042": "...").
type Issue struct {
	Key         string
	Summary     string
	Status      string
	Description string
	Fields      map[string]any
}

// Field is one entry of the field list.
type Field struct {
	ID     string
	Name   string
	Custom bool
}

// Fake is the fake's handler; NewServer serves it on loopback.
type Fake struct {
	mu     sync.Mutex
	issues map[string]Issue // upper key ->
	fields []Field
	asked  []string // issue keys asked for, upper case, in order
	calls  map[string]int
	auth   string // required Authorization value; "" accepts any
	// violations are departures from the API description (spec.go).
	violations []string
}

// Server is a Fake listening on a loopback port; URL is the Jira base URL.
type Server struct {
	*Fake
	*httptest.Server
}

// New returns a fake with Jira's system fields and no issue.
func New() *Fake {
	return &Fake{
		issues: map[string]Issue{},
		calls:  map[string]int{},
		fields: []Field{{ID: "summary", Name: "Summary"}, {ID: "description", Name: "Description"}, {ID: "status", Name: "Status"}},
	}
}

// NewServer starts a fake on loopback; Close it when done.
func NewServer() *Server {
	f := New()
	return &Server{Fake: f, Server: httptest.NewServer(f)}
}

// RequireBearer makes every request without "Bearer token" fail with 401
// (a Data Center personal access token).
func (f *Fake) RequireBearer(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = "Bearer " + token
}

// AddIssue stores (or replaces) an issue.
func (f *Fake) AddIssue(is Issue) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issues[strings.ToUpper(is.Key)] = is
}

// AddField adds a field to the field list (a custom field such as
// {ID: "customfield_10042", Name: "Acceptance Criteria", Custom: true}).
func (f *Fake) AddField(fl Field) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fields = append(f.fields, fl)
}

// Asked returns the issue keys asked for so far (upper case, in order,
// repeats kept).
func (f *Fake) Asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// Calls returns how many requests an operation received.
func (f *Fake) Calls(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// ServeHTTP answers the two endpoints; anything else is a Jira 404.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const issuePrefix = "/rest/api/2/issue/"
	path := r.URL.Path
	op := ""
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(path, issuePrefix) && !strings.Contains(path[len(issuePrefix):], "/"):
		op = OpGetIssue
	case r.Method == http.MethodGet && strings.TrimSuffix(path, "/") == "/rest/api/2/field":
		op = OpListFields
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[op]++
	if f.auth != "" && r.Header.Get("Authorization") != f.auth {
		writeError(w, http.StatusUnauthorized, "You are not authenticated. Authentication required to perform this operation.")
		return
	}
	if !f.checkRequestLocked(w, op, r) {
		return
	}
	rec := &apicheck.Recorder{ResponseWriter: w}
	w = rec
	defer f.checkAnswerLocked(op, r, rec)
	switch op {
	case OpGetIssue:
		key := strings.ToUpper(path[len(issuePrefix):])
		f.asked = append(f.asked, key)
		is, ok := f.issues[key]
		if !ok {
			writeError(w, http.StatusNotFound, "Issue does not exist or you do not have permission to see it.")
			return
		}
		writeJSON(w, http.StatusOK, issueJSON(r, is))
	case OpListFields:
		list := make([]any, 0, len(f.fields))
		for _, fl := range f.fields {
			list = append(list, map[string]any{"id": fl.ID, "key": fl.ID, "name": fl.Name, "custom": fl.Custom,
				"orderable": true, "navigable": true, "searchable": true, "clauseNames": []string{fl.ID}})
		}
		writeJSON(w, http.StatusOK, list)
	default:
		writeError(w, http.StatusNotFound, "null for uri: "+r.URL.String())
	}
}

// issueJSON is the issue as Jira answers it, with only the fields asked for
// (all without `fields` or with "*all").
func issueJSON(r *http.Request, is Issue) map[string]any {
	all := map[string]any{
		"summary":     is.Summary,
		"status":      map[string]any{"name": is.Status},
		"description": is.Description,
	}
	for k, v := range is.Fields {
		all[k] = v
	}
	fields := all
	if q := r.URL.Query().Get("fields"); q != "" && q != "*all" {
		fields = map[string]any{}
		for _, k := range strings.Split(q, ",") {
			if v, ok := all[strings.TrimSpace(k)]; ok {
				fields[strings.TrimSpace(k)] = v
			}
		}
	}
	return map[string]any{"id": "10" + strings.TrimLeft(is.Key[strings.IndexByte(is.Key, '-')+1:], "0"), "key": is.Key,
		"self": "http://" + r.Host + "/rest/api/2/issue/" + is.Key, "fields": fields}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"errorMessages": []string{msg}, "errors": map[string]any{}})
}
