package bitbuckettest

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// The fake holds itself and its clients to Bitbucket's published API
// description (testdata/bitbucket-openapi.yaml, the operations prscout
// sends, with its source and date): every request of an operation the
// description names is validated against it (path parameters, query
// parameters, body schema, enums) before it runs, and answered 400 in
// Bitbucket's error shape when it does not fit; every answer the fake's
// own handlers write is validated against the operation's responses
// (status and schema), and a mismatch is kept as a violation (Violations),
// so a test can fail when the fake drifts from the description. Injected
// faults, the rate limit's 429 and the limits of limits.go are Bitbucket's
// behaviour beyond the description and are not validated.

//go:embed testdata/bitbucket-openapi.yaml
var specYAML []byte

// Spec returns the parsed API description the fake validates against.
var Spec = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(specYAML)
	if err != nil {
		return nil, fmt.Errorf("load the Bitbucket API description: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the Bitbucket API description is not valid OpenAPI: %w", err)
	}
	return doc, nil
})

const repoPath = "/repositories/{workspace}/{repo_slug}"

// specPaths maps each operation of the fake to its path in the
// description; the method is the request's.
var specPaths = map[string]string{
	OpGetUser:           "/user",
	OpGetPullRequest:    repoPath + "/pullrequests/{pull_request_id}",
	OpUpdatePullRequest: repoPath + "/pullrequests/{pull_request_id}",
	OpListPullRequests:  repoPath + "/pullrequests",
	OpCreatePullRequest: repoPath + "/pullrequests",
	OpPRDiff:            repoPath + "/pullrequests/{pull_request_id}/diff",
	OpPRDiffstat:        repoPath + "/pullrequests/{pull_request_id}/diffstat",
	OpPRCommits:         repoPath + "/pullrequests/{pull_request_id}/commits",
	OpListComments:      repoPath + "/pullrequests/{pull_request_id}/comments",
	OpCreateComment:     repoPath + "/pullrequests/{pull_request_id}/comments",
	OpGetComment:        repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpUpdateComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpDeleteComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}",
	OpResolveComment:    repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}/resolve",
	OpReopenComment:     repoPath + "/pullrequests/{pull_request_id}/comments/{comment_id}/resolve",
	OpListTasks:         repoPath + "/pullrequests/{pull_request_id}/tasks",
	OpCreateTask:        repoPath + "/pullrequests/{pull_request_id}/tasks",
	OpGetTask:           repoPath + "/pullrequests/{pull_request_id}/tasks/{task_id}",
	OpUpdateTask:        repoPath + "/pullrequests/{pull_request_id}/tasks/{task_id}",
	OpGetDiff:           repoPath + "/diff/{spec}",
	OpDiffstat:          repoPath + "/diffstat/{spec}",
	OpMergeBase:         repoPath + "/merge-base/{revspec}",
	OpGetCommit:         repoPath + "/commit/{commit}",
	OpGetSrc:            repoPath + "/src/{commit}/{path}",
	OpListDir:           repoPath + "/src/{commit}/{path}",
	OpCommitSrc:         repoPath + "/src",
	OpGetBranch:         repoPath + "/refs/branches/{name}",
	OpSetStatus:         repoPath + "/commit/{commit}/statuses/build",
	OpGetStatus:         repoPath + "/commit/{commit}/statuses/build/{key}",
	OpPutReport:         repoPath + "/commit/{commit}/reports/{reportId}",
	OpGetReport:         repoPath + "/commit/{commit}/reports/{reportId}",
	OpDeleteReport:      repoPath + "/commit/{commit}/reports/{reportId}",
	OpListAnnotations:   repoPath + "/commit/{commit}/reports/{reportId}/annotations",
	OpPostAnnotations:   repoPath + "/commit/{commit}/reports/{reportId}/annotations",
	OpDeleteAnnotation:  repoPath + "/commit/{commit}/reports/{reportId}/annotations/{annotationId}",
}

// specParams maps the fake's path wildcards to the description's names.
var specParams = map[string]string{
	"workspace": "workspace", "repo": "repo_slug", "id": "pull_request_id", "comment": "comment_id",
	"task": "task_id", "spec": "spec", "rev": "commit", "commit": "commit", "path": "path",
	"name": "name", "report": "reportId", "annotation": "annotationId", "key": "key",
}

// SpecOperation is one operation of the description: "GET /user".
func SpecOperation(method, path string) string { return method + " " + path }

// specRoute returns the description's route of a request of op, with its
// path parameters; ok is false when the description has no such operation.
func specRoute(op string, r *http.Request) (*routers.Route, map[string]string, bool) {
	doc, err := Spec()
	p, known := specPaths[op]
	if err != nil || !known {
		return nil, nil, false
	}
	item := doc.Paths.Value(p)
	if item == nil || item.GetOperation(r.Method) == nil {
		return nil, nil, false
	}
	params := map[string]string{}
	for fake, name := range specParams {
		if v := r.PathValue(fake); v != "" {
			params[name] = v
		}
	}
	if op == OpMergeBase {
		params["revspec"] = params["spec"]
	}
	if (op == OpGetSrc || op == OpListDir) && params["path"] == "" {
		params["path"] = "/" // the root listing: the trailing slash
	}
	route := &routers.Route{Spec: doc, Path: p, PathItem: item, Method: r.Method, Operation: item.GetOperation(r.Method)}
	return route, params, true
}

// specOptions validate enums, schemas and statuses; authentication is the
// fake's own (RequireBasic, RequireBearer).
func specOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            false,
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	}
}

// specViolation is a request that does not fit the description: the
// whole account, and the field and message Bitbucket's 400 names.
type specViolation struct {
	text, field, msg string
}

// checkRequest validates a request of op against the description; ok is
// true when the request fits (or the description has no such operation).
func checkRequest(op string, r *http.Request, body []byte) (v specViolation, ok bool) {
	route, params, known := specRoute(op, r)
	if !known {
		return v, true
	}
	rq := r.Clone(r.Context())
	rq.Body = http.NoBody
	if len(body) > 0 {
		rq.Body = readCloser{bytes.NewReader(body)}
	}
	in := &openapi3filter.RequestValidationInput{Request: rq, PathParams: params, Route: route, Options: specOptions()}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	if err == nil {
		return v, true
	}
	v = specViolation{text: fmt.Sprintf("%s %s: request: %v", r.Method, route.Path, err), msg: err.Error()}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		// Bitbucket names the field as a dotted path ("data.0.type") and
		// words an enum miss as "... is not a valid choice."
		v.field, v.msg = strings.Join(se.JSONPointer(), "."), se.Reason
		if se.SchemaField == "enum" {
			v.msg = fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(se.Value))
		}
	}
	return v, false
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// checkResponse validates an answer of the fake to a request of op; it
// returns the violation, or "". Only JSON bodies are checked against a
// schema (raw diffs and file contents are text); the status always is.
func checkResponse(op string, r *http.Request, status int, h http.Header, body []byte) string {
	route, params, ok := specRoute(op, r)
	if !ok {
		return ""
	}
	opts := specOptions()
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/json" {
		opts.ExcludeResponseBody = true
	}
	req := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	in := &openapi3filter.ResponseValidationInput{RequestValidationInput: req, Status: status, Header: h, Options: opts}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		return fmt.Sprintf("%s %s: answer %d: %v", r.Method, route.Path, status, err)
	}
	return ""
}

// captureWriter keeps what a handler answers, for checkResponse.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *captureWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *captureWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len() < maxCaptured {
		w.body.Write(p[:min(len(p), maxCaptured-w.body.Len())])
	}
	return w.ResponseWriter.Write(p)
}

// maxCaptured bounds the answer kept for validation.
const maxCaptured = 8 << 20

// Violations lists every departure from the API description seen so far:
// requests refused for not fitting it, and answers of the fake that do not
// fit the operation's responses.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

// SpecOperations lists the operations the fake validated a request of
// ("POST /repositories/{workspace}/{repo_slug}/src"), each once, sorted.
func (s *Server) SpecOperations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.specOps))
	for k := range s.specOps {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// noteSpecLocked records that a request of op was checked.
func (s *Server) noteSpecLocked(op string, r *http.Request) {
	if p, ok := specPaths[op]; ok {
		if s.specOps == nil {
			s.specOps = map[string]bool{}
		}
		s.specOps[SpecOperation(r.Method, p)] = true
	}
}

// writeSpecError answers a request that does not fit the description with
// Bitbucket's 400: the field and its message when one field is at fault.
func writeSpecError(w http.ResponseWriter, v specViolation) {
	if v.field != "" {
		writeFieldError(w, v.field, v.msg)
		return
	}
	writeError(w, http.StatusBadRequest, "body: "+v.msg)
}
