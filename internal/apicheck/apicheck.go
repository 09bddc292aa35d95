// Package apicheck checks HTTP requests and answers against an OpenAPI
// description with kin-openapi, for the test fakes of the upstreams
// prscout calls (bitbuckettest, jiratest): a request that does not fit is a
// Violation naming the field, an answer that does not fit is a violation
// text. It routes by the description's path the caller names, so path
// parameters may hold slashes (a branch, a file path, a diff spec).
package apicheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Doc is a loaded, valid OpenAPI description.
type Doc struct{ *openapi3.T }

// Load parses an OpenAPI 3 description (YAML or JSON) and validates it.
// Examples are not validated: published descriptions carry some that do
// not fit their own schemas (Jira's field list gives its example as a
// string), and they fix nothing a request or answer must do.
func Load(data []byte) (*Doc, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load the API description: %w", err)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("the API description is not valid OpenAPI: %w", err)
	}
	return &Doc{doc}, nil
}

// Operation names one operation of the description: "GET /user".
func Operation(method, path string) string { return method + " " + path }

// route returns the description's route for method on path; ok is false
// when it has no such operation.
func (d *Doc) route(method, path string) (*routers.Route, bool) {
	doc := d.T
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
func (d *Doc) CheckRequest(path string, r *http.Request, params map[string]string, body []byte) (v Violation, ok bool) {
	rt, known := d.route(r.Method, path)
	if !known {
		return v, true
	}
	if v, ok := declaredQuery(rt, r); !ok {
		return v, false
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
		// Bitbucket names the field as a dotted path ("data.0.type"),
		// words an enum miss as "... is not a valid choice." and a
		// missing field as "This field is required."
		se = telling(se)
		v.Field, v.Msg = strings.Join(se.JSONPointer(), "."), se.Reason
		switch se.SchemaField {
		case "enum":
			v.Msg = fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(se.Value))
		case "required":
			v.Msg = "This field is required."
		}
	}
	return v, false
}

// telling returns the error of se that names what is wrong: for a value
// that fits no branch of a oneOf or anyOf, the error of the branch it
// failed deepest in, past the branch's discriminating enum or `not` (a
// datum of type NUMBER whose value is a string: its value, not its type),
// else the enum miss itself (a type no branch has); else se.
func telling(se *openapi3.SchemaError) *openapi3.SchemaError {
	if se.SchemaField != "oneOf" && se.SchemaField != "anyOf" {
		return se
	}
	var branches openapi3.MultiError
	if !errors.As(se.Origin, &branches) {
		return se
	}
	var enum *openapi3.SchemaError
	for _, b := range branches {
		var be *openapi3.SchemaError
		if !errors.As(b, &be) {
			continue
		}
		switch be.SchemaField {
		case "enum":
			if enum == nil {
				enum = be
			}
		case "not":
		default:
			return telling(be)
		}
	}
	if enum != nil {
		return enum
	}
	return se
}

// queryLanguage are the filtering and sorting parameters: accepted only on
// an operation whose description declares them, so a query the upstream
// would not run is not taken for one it does. (Other undeclared query
// parameters, such as paging, pass as the validator lets them.)
var queryLanguage = []string{"q", "sort"}

// declaredQuery reports a filtering or sorting parameter the operation of
// rt does not declare.
func declaredQuery(rt *routers.Route, r *http.Request) (Violation, bool) {
	for _, name := range queryLanguage {
		if !r.URL.Query().Has(name) {
			continue
		}
		if rt.Operation.Parameters.GetByInAndName(openapi3.ParameterInQuery, name) == nil &&
			rt.PathItem.Parameters.GetByInAndName(openapi3.ParameterInQuery, name) == nil {
			msg := "the operation declares no such query parameter"
			return Violation{Text: fmt.Sprintf("%s %s: request: query parameter %q: %s", r.Method, rt.Path, name, msg), Field: name, Msg: msg}, false
		}
	}
	return Violation{}, true
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// CheckResponse validates an answer (status, header, body) to r, a request
// of the operation at path; it returns the violation, or "". Only JSON
// bodies are checked against a schema (raw diffs are text); the status
// always is.
func (d *Doc) CheckResponse(path string, r *http.Request, params map[string]string, status int, h http.Header, body []byte) string {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return d.checkResponse(path, r, params, status, h, body, mt == "application/json")
}

// CheckStatus validates an answer's status and header but not its body:
// for an answer whose body is content, not the API's JSON (a file served
// with the type its name implies, application/json for a .json file).
func (d *Doc) CheckStatus(path string, r *http.Request, params map[string]string, status int, h http.Header) string {
	return d.checkResponse(path, r, params, status, h, nil, false)
}

func (d *Doc) checkResponse(path string, r *http.Request, params map[string]string, status int, h http.Header, body []byte, withBody bool) string {
	rt, known := d.route(r.Method, path)
	if !known {
		return ""
	}
	opts := options()
	opts.ExcludeResponseBody = !withBody
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
