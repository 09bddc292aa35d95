// Package bbspec holds Bitbucket Cloud's published API description for the
// operations prscout sends (testdata/bitbucket-openapi.yaml, with its
// source and date) and the limits Bitbucket enforces beyond it (Limits,
// each with its source), and checks requests and answers against both. The
// fake Bitbucket (package bitbuckettest) runs every request through it.
package bbspec

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

//go:embed testdata/bitbucket-openapi.yaml
var specYAML []byte

// Spec returns the parsed API description.
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

// Operation names one operation of the description: "GET /user".
func Operation(method, path string) string { return method + " " + path }

// route returns the description's route for method on path; ok is false
// when it has no such operation (or does not load).
func route(method, path string) (*routers.Route, bool) {
	doc, err := Spec()
	if err != nil {
		return nil, false
	}
	item := doc.Paths.Value(path)
	if item == nil || item.GetOperation(method) == nil {
		return nil, false
	}
	return &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: item.GetOperation(method)}, true
}

// options validate enums, schemas and statuses; authentication is the
// fake's own.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
}

// Violation is a request that does not fit the description or a limit:
// the whole account (Text), and the field and message Bitbucket's 400
// names (Field "" when no single field is at fault).
type Violation struct {
	Text, Field, Msg string
}

// CheckRequest validates r, a request of the operation at path (the
// description's path) with the path parameters params (by the
// description's names) and body; ok is true when it fits, or when the
// description has no such operation.
func CheckRequest(path string, r *http.Request, params map[string]string, body []byte) (v Violation, ok bool) {
	rt, known := route(r.Method, path)
	if !known {
		return v, true
	}
	rq := r.Clone(r.Context())
	rq.Body = http.NoBody
	if len(body) > 0 {
		rq.Body = readCloser{bytes.NewReader(body)}
	}
	in := &openapi3filter.RequestValidationInput{Request: rq, PathParams: params, Route: rt, Options: options()}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	if err == nil {
		return v, true
	}
	v = Violation{Text: fmt.Sprintf("%s %s: request: %v", r.Method, path, err), Msg: err.Error()}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		// Bitbucket names the field as a dotted path ("data.0.type") and
		// words an enum miss as "... is not a valid choice."
		v.Field, v.Msg = strings.Join(se.JSONPointer(), "."), se.Reason
		if se.SchemaField == "enum" {
			v.Msg = fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(se.Value))
		}
	}
	return v, false
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// CheckResponse validates an answer (status, header, body) to r, a request
// of the operation at path; it returns the violation, or "". Only JSON
// bodies are checked against a schema (raw diffs and file contents are
// text); the status always is.
func CheckResponse(path string, r *http.Request, params map[string]string, status int, h http.Header, body []byte) string {
	rt, known := route(r.Method, path)
	if !known {
		return ""
	}
	opts := options()
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/json" {
		opts.ExcludeResponseBody = true
	}
	req := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: rt, Options: opts}
	in := &openapi3filter.ResponseValidationInput{RequestValidationInput: req, Status: status, Header: h, Options: opts}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		return fmt.Sprintf("%s %s: answer %d: %v", r.Method, path, status, err)
	}
	return ""
}

// Recorder is an http.ResponseWriter that keeps the status and (up to
// 8 MiB of) the body it passes on, for CheckResponse.
type Recorder struct {
	http.ResponseWriter
	Status int
	Body   bytes.Buffer
}

// maxRecorded bounds the answer kept.
const maxRecorded = 8 << 20

// WriteHeader records the first status.
func (w *Recorder) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *Recorder) Write(p []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	if w.Body.Len() < maxRecorded {
		w.Body.Write(p[:min(len(p), maxRecorded-w.Body.Len())])
	}
	return w.ResponseWriter.Write(p)
}
