package jiratest

import (
	_ "embed"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/prscout/prscout/internal/apicheck"
)

// The fake holds itself and its clients to Jira's published API
// description for the two operations (testdata/jira-openapi.json, the
// parts of Jira Cloud's platform description prscout calls, with its
// source and date): each request is validated against it before it is
// answered (a request that does not fit is answered 400 in Jira's error
// shape), and each answer against the operation's responses, a mismatch
// kept as a violation (Violations).

//go:embed testdata/jira-openapi.json
var specJSON []byte

// Spec returns the parsed API description.
var Spec = sync.OnceValues(func() (*apicheck.Doc, error) { return apicheck.Load(specJSON) })

// specPaths maps the fake's operations to the description's paths.
var specPaths = map[string]string{
	OpGetIssue:   "/rest/api/2/issue/{issueIdOrKey}",
	OpListFields: "/rest/api/2/field",
}

// checkRequestLocked validates a request of op; it answers 400, records the
// violation and reports false when the request does not fit. f.mu is held.
func (f *Fake) checkRequestLocked(w http.ResponseWriter, op string, r *http.Request) bool {
	path, ok := specPaths[op]
	doc, err := Spec()
	if !ok || err != nil {
		return true
	}
	params := map[string]string{}
	if op == OpGetIssue {
		params["issueIdOrKey"] = strings.TrimPrefix(r.URL.Path, "/rest/api/2/issue/")
	}
	v, fits := doc.CheckRequest(path, r, params, nil)
	if fits {
		return true
	}
	f.violations = append(f.violations, v.Text)
	writeError(w, http.StatusBadRequest, v.Msg)
	return false
}

// checkAnswerLocked validates what the fake answered; f.mu is held.
func (f *Fake) checkAnswerLocked(op string, r *http.Request, rec *apicheck.Recorder) {
	path, ok := specPaths[op]
	doc, err := Spec()
	if !ok || err != nil {
		return
	}
	params := map[string]string{}
	if op == OpGetIssue {
		params["issueIdOrKey"] = strings.TrimPrefix(r.URL.Path, "/rest/api/2/issue/")
	}
	if v := doc.CheckResponse(path, r, params, rec.Status, rec.Header(), rec.Body.Bytes()); v != "" {
		f.violations = append(f.violations, v)
	}
}

// Violations lists every departure from the API description seen so far:
// requests that did not fit it, and answers of the fake that do not fit
// the operation's responses.
func (f *Fake) Violations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.violations)
}
