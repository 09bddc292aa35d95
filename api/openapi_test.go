package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/prscout/prscout/n8n"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/lookup"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/preview"
	"github.com/prscout/prscout/pipeline/review"
	"github.com/prscout/prscout/pipeline/scope"
	"github.com/prscout/prscout/pipeline/thread"
)

// The tests below keep api/openapi.yaml honest: routes, field names and
// example round trips are checked against the code, so a renamed JSON field,
// a new route or an undocumented response field fails here first.

const specAPIKey = "test-key"
const specWebhookSecret = "webhook-secret"

// loadSpec parses openapi.yaml (duplicate keys refused) and normalizes it
// through JSON so numbers compare like decoded response bodies.
func loadSpec(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatalf("read spec: %v", err)
	}
	var raw any
	if err := yaml.UnmarshalWithOptions(data, &raw, yaml.Strict()); err != nil {
		t.Fatalf("parse openapi.yaml: %v", err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatalf("spec is not JSON-representable: %v", err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("spec root is not a mapping: %v", err)
	}
	return spec
}

func schemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// resolve follows a local $ref ("#/components/schemas/X") to its target.
func resolve(t *testing.T, spec map[string]any, v any) map[string]any {
	t.Helper()
	m := obj(v)
	for i := 0; m != nil && i < 8; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		m = lookupRef(spec, ref)
		if m == nil {
			t.Fatalf("dangling $ref %q", ref)
		}
	}
	return m
}

func lookupRef(spec map[string]any, ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := any(spec)
	for _, part := range strings.Split(ref[2:], "/") {
		cur = obj(cur)[part]
	}
	return obj(cur)
}

// flatten resolves a schema and merges allOf members into one object schema
// (properties and required united), as every allOf here is a $ref wrapper.
func flatten(t *testing.T, spec map[string]any, v any) map[string]any {
	t.Helper()
	s := resolve(t, spec, v)
	all, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	out := map[string]any{}
	props := map[string]any{}
	var req []any
	merge := func(p map[string]any) {
		for k, v := range p {
			switch k {
			case "allOf":
			case "properties":
				for pk, pv := range obj(v) {
					props[pk] = pv
				}
			case "required":
				req = append(req, v.([]any)...)
			default:
				out[k] = v
			}
		}
	}
	merge(s)
	for _, part := range all {
		merge(flatten(t, spec, part))
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

var specMethods = []string{"get", "put", "post", "delete", "patch", "head", "options"}

func TestOpenAPIDocument(t *testing.T) {
	spec := loadSpec(t)
	v, _ := spec["openapi"].(string)
	if !strings.HasPrefix(v, "3.0.") && !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi = %q, want 3.0.x or 3.1.x", v)
	}
	for _, k := range []string{"info", "paths", "components"} {
		if obj(spec[k]) == nil {
			t.Errorf("missing top-level %q mapping", k)
		}
	}
	if s, _ := obj(spec["info"])["title"].(string); s != "prscout" {
		t.Errorf("info.title = %q", s)
	}
	if obj(obj(obj(spec["components"])["schemas"])["ErrorBody"]) == nil {
		t.Error("components.schemas.ErrorBody is missing")
	}
	// Every $ref resolves.
	var walkRefs func(v any, at string)
	walkRefs = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && lookupRef(spec, ref) == nil {
				t.Errorf("%s: dangling $ref %q", at, ref)
			}
			for k, c := range x {
				walkRefs(c, at+"/"+k)
			}
		case []any:
			for i, c := range x {
				walkRefs(c, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walkRefs(spec, "#")

	// Every error response is the one ErrorBody, every answer names X-Request-Id,
	// every /v1 stage is behind the API key and the webhook is not.
	for path, item := range obj(spec["paths"]) {
		for _, m := range specMethods {
			op := obj(obj(item)[m])
			if op == nil {
				continue
			}
			where := strings.ToUpper(m) + " " + path
			for code, r := range obj(op["responses"]) {
				resp := resolve(t, spec, r)
				if obj(obj(resp["headers"])["X-Request-Id"]) == nil {
					t.Errorf("%s %s: no X-Request-Id header", where, code)
				}
				if code[0] == '4' || code[0] == '5' {
					s := obj(obj(obj(resp["content"])["application/json"])["schema"])
					if s["$ref"] != "#/components/schemas/ErrorBody" {
						t.Errorf("%s %s: error schema is %v, want ErrorBody", where, code, s)
					}
				}
			}
			for code, r := range obj(op["responses"]) {
				for ct, m := range obj(resolve(t, spec, r)["content"]) {
					ex, ok := obj(m)["example"]
					if !ok || ct != "application/json" {
						continue
					}
					for _, e := range validate(t, spec, obj(m)["schema"], ex, "$", false) {
						t.Errorf("%s %s: the response example does not match its schema: %s", where, code, e)
					}
				}
			}
			sec, _ := op["security"].([]any)
			wantKey := strings.HasPrefix(path, "/v1/") && path != "/v1/webhooks/bitbucket"
			hasKey := len(sec) > 0 && obj(sec[0])["ApiKey"] != nil
			if hasKey != wantKey {
				t.Errorf("%s: ApiKey security = %v, want %v", where, hasKey, wantKey)
			}
		}
	}
}

// specOps lists "METHOD /path" of every operation in the spec.
func specOps(spec map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for path, item := range obj(spec["paths"]) {
		for _, m := range specMethods {
			if op := obj(obj(item)[m]); op != nil {
				out[strings.ToUpper(m)+" "+path] = op
			}
		}
	}
	return out
}

// ginPath turns gin's ":name" and "*name" segments into OpenAPI's "{name}".
func ginPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func TestOpenAPIRoutesMatchEngine(t *testing.T) {
	spec := loadSpec(t)
	srv, _ := newSpecServer(t, 0, "")
	registered := map[string]bool{}
	for _, r := range srv.engine.Routes() {
		registered[r.Method+" "+ginPath(r.Path)] = true
	}
	if len(registered) < 9 {
		t.Fatalf("only %d routes registered: %v", len(registered), registered)
	}
	documented := specOps(spec)
	for r := range registered {
		if documented[r] == nil {
			t.Errorf("route %s is registered but not in api/openapi.yaml", r)
		}
	}
	for r := range documented {
		if !registered[r] {
			t.Errorf("api/openapi.yaml documents %s, which the engine does not register", r)
		}
	}
}

// stageTypes ties each operation to its Go request and response types and
// to the component schemas that describe them.
var stageTypes = []struct {
	op             string
	reqType        reflect.Type
	reqSchema      string
	respType       reflect.Type
	respSchema     string
	respStatusCode string
}{
	{"POST /v1/context", reflect.TypeFor[collect.ContextInput](), "ContextRequest", reflect.TypeFor[collect.ContextResult](), "ContextResult", "200"},
	{"POST /v1/needs", reflect.TypeFor[lookup.NeedsInput](), "NeedsRequest", reflect.TypeFor[lookup.NeedsResult](), "NeedsResult", "200"},
	{"POST /v1/repository/batch", reflect.TypeFor[lookup.BatchInput](), "BatchRequest", reflect.TypeFor[lookup.BatchResult](), "BatchResult", "200"},
	{"POST /v1/merge", reflect.TypeFor[merge.MergeInput](), "MergeRequest", reflect.TypeFor[merge.MergeResult](), "MergeResult", "200"},
	{"POST /v1/comments", reflect.TypeFor[review.CommentsInput](), "CommentsRequest", reflect.TypeFor[commentsAnswer](), "CommentsResult", "200"},
	{"POST /v1/verify", reflect.TypeFor[review.VerifyInput](), "VerifyRequest", reflect.TypeFor[review.VerifyResult](), "VerifyResult", "200"},
	{"GET /healthz", nil, "", nil, "Health", "200"},
	{"GET /readyz", nil, "", nil, "Health", "200"},
	{"POST /v1/webhooks/bitbucket", nil, "", nil, "WebhookAccepted", "202"},
	{"POST /v1/workflows/validate", nil, "WorkflowExport", reflect.TypeFor[gate.Report](), "ValidateResult", "200"},
	{"POST /v1/preview", reflect.TypeFor[collect.ContextInput](), "ContextRequest", reflect.TypeFor[preview.PreviewResult](), "PreviewResult", "200"},
	{"POST /v1/rules/check", reflect.TypeFor[scope.RulesCheckInput](), "RulesCheckRequest", reflect.TypeFor[scope.RulesCheckResult](), "RulesCheckResult", "200"},
	{"POST /v1/status", reflect.TypeFor[insights.StopInput](), "StatusRequest", reflect.TypeFor[insights.StopResult](), "StatusResult", "200"},
	{"POST /v1/thread", reflect.TypeFor[thread.Input](), "ThreadRequest", reflect.TypeFor[thread.Result](), "ThreadResult", "200"},
	{"POST /v1/thread/answer", reflect.TypeFor[thread.AnswerInput](), "ThreadAnswerRequest", reflect.TypeFor[thread.Result](), "ThreadResult", "200"},
}

// schemaRefs collects the $refs a schema names directly or through
// oneOf/anyOf/allOf.
func schemaRefs(s map[string]any) []string {
	var out []string
	if r, ok := s["$ref"].(string); ok {
		out = append(out, r)
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		list, _ := s[k].([]any)
		for _, c := range list {
			out = append(out, schemaRefs(obj(c))...)
		}
	}
	return out
}

func TestOpenAPIStageSchemasMatchGoTypes(t *testing.T) {
	spec := loadSpec(t)
	ops := specOps(spec)
	for _, st := range stageTypes {
		t.Run(st.op, func(t *testing.T) {
			op := ops[st.op]
			if op == nil {
				t.Fatalf("%s is not in the spec", st.op)
			}
			if st.reqSchema != "" {
				s := obj(obj(obj(obj(op["requestBody"])["content"])["application/json"])["schema"])
				if !contains(schemaRefs(s), "#/components/schemas/"+st.reqSchema) {
					t.Errorf("request body schema %v does not name %s", s, st.reqSchema)
				}
			}
			resp := resolve(t, spec, obj(op["responses"])[st.respStatusCode])
			s := obj(obj(obj(resp["content"])["application/json"])["schema"])
			if s["$ref"] != "#/components/schemas/"+st.respSchema {
				t.Errorf("%s response schema is %v, want %s", st.respStatusCode, s, st.respSchema)
			}
			if st.reqType != nil {
				// Requests: every Go field is documented (decoders may read more).
				checkFields(t, spec, st.reqType, schemaRef(st.reqSchema), st.reqSchema, false, 0)
			}
			if st.respType != nil {
				// Responses: exactly the Go fields, both ways.
				checkFields(t, spec, st.respType, schemaRef(st.respSchema), st.respSchema, true, 0)
			}
		})
	}
	// The error body, both ways.
	checkFields(t, spec, reflect.TypeFor[ErrorBody](), schemaRef("ErrorBody"), "ErrorBody", true, 0)
}

// jsonFields lists a struct's JSON names as encoding/json sees them
// (embedded structs without a tag promoted, "-" and unexported skipped).
func jsonFields(rt reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, shadowed := out[k]; !shadowed {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// openAPIType is the schema type a Go type encodes as ("" when any).
func openAPIType(rt reflect.Type) string {
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt == rawMessageType {
		return ""
	}
	switch rt.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// checkFields walks a Go type and its schema together: JSON names must be
// properties (and, with both, properties must be JSON names), kinds must
// match, and named nested structs, slices and maps are walked too.
func checkFields(t *testing.T, spec map[string]any, rt reflect.Type, schema any, where string, both bool, depth int) {
	t.Helper()
	if depth > 12 {
		return
	}
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	s := flatten(t, spec, schema)
	if s == nil {
		t.Errorf("%s: no schema", where)
		return
	}
	if _, union := s["oneOf"]; union && reflect.PointerTo(rt).Implements(unmarshalerType) {
		return // a Go type with its own decoder for a oneOf (rules: text or rule file); examples check it
	}
	want := openAPIType(rt)
	if got, ok := s["type"].(string); ok && want != "" && got != want && !(got == "number" && want == "integer") {
		t.Errorf("%s: schema type %q, Go %s encodes as %q", where, got, rt, want)
	}
	switch {
	case rt == rawMessageType:
		return
	case rt.Kind() == reflect.Struct:
		props := obj(s["properties"])
		if props == nil {
			t.Errorf("%s: Go %s has fields but the schema has no properties", where, rt)
			return
		}
		fields := jsonFields(rt)
		for name, f := range fields {
			p, ok := props[name]
			if !ok {
				t.Errorf("%s: Go field %s.%s (json %q) is not a property of the schema", where, rt.Name(), f.Name, name)
				continue
			}
			checkFields(t, spec, f.Type, p, where+"."+name, both, depth+1)
		}
		if both {
			for name := range props {
				if _, ok := fields[name]; !ok {
					t.Errorf("%s: schema property %q is no JSON field of Go %s", where, name, rt)
				}
			}
		}
	case rt.Kind() == reflect.Slice || rt.Kind() == reflect.Array:
		if items := s["items"]; items != nil {
			checkFields(t, spec, rt.Elem(), items, where+"[]", both, depth+1)
		} else {
			t.Errorf("%s: array schema without items", where)
		}
	case rt.Kind() == reflect.Map:
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			checkFields(t, spec, rt.Elem(), ap, where+"{}", both, depth+1)
		} else {
			t.Errorf("%s: Go map %s needs additionalProperties in the schema", where, rt)
		}
	}
}

// validate checks a decoded JSON value against a schema. Unless open, objects
// with properties and no additionalProperties are closed: an undocumented
// field in an answer is an error. Requests are open (unknown fields are
// ignored by the decoders).
func validate(t *testing.T, spec map[string]any, schema any, v any, at string, open bool) []string {
	t.Helper()
	s := flatten(t, spec, schema)
	if s == nil {
		return []string{at + ": no schema"}
	}
	if v == nil {
		if n, _ := s["nullable"].(bool); n {
			return nil
		}
		if len(s) == 0 {
			return nil // {} accepts anything
		}
		return []string{at + ": null where the schema wants " + fmt.Sprint(s["type"])}
	}
	var errs []string
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if len(validate(t, spec, a, v, at, open)) == 0 {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, fmt.Sprintf("%s: matches %d of oneOf's %d alternatives", at, n, len(alts)))
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if len(validate(t, spec, a, v, at, open)) == 0 {
				n++
			}
		}
		if n == 0 {
			errs = append(errs, at+": matches none of anyOf")
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if reflect.DeepEqual(e, v) {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %v not in enum %v", at, v, enum))
		}
	}
	typ, _ := s["type"].(string)
	switch x := v.(type) {
	case string:
		if typ != "" && typ != "string" {
			errs = append(errs, fmt.Sprintf("%s: string where %s expected", at, typ))
		}
	case bool:
		if typ != "" && typ != "boolean" {
			errs = append(errs, fmt.Sprintf("%s: boolean where %s expected", at, typ))
		}
	case float64:
		if typ == "integer" && x != float64(int64(x)) {
			errs = append(errs, fmt.Sprintf("%s: %v is not an integer", at, x))
		} else if typ != "" && typ != "integer" && typ != "number" {
			errs = append(errs, fmt.Sprintf("%s: number where %s expected", at, typ))
		}
	case []any:
		if typ != "" && typ != "array" {
			errs = append(errs, fmt.Sprintf("%s: array where %s expected", at, typ))
			break
		}
		if items, ok := s["items"]; ok {
			for i, el := range x {
				errs = append(errs, validate(t, spec, items, el, at+"["+strconv.Itoa(i)+"]", open)...)
			}
		}
	case map[string]any:
		if typ != "" && typ != "object" {
			errs = append(errs, fmt.Sprintf("%s: object where %s expected", at, typ))
			break
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required %q missing", at, r))
			}
		}
		props := obj(s["properties"])
		ap, hasAP := s["additionalProperties"]
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := props[k]; ok {
				errs = append(errs, validate(t, spec, p, x[k], at+"."+k, open)...)
				continue
			}
			switch {
			case hasAP && ap == false:
				errs = append(errs, at+": property "+k+" not allowed")
			case hasAP && obj(ap) != nil:
				errs = append(errs, validate(t, spec, ap, x[k], at+"."+k, open)...)
			case !hasAP && props != nil && !open:
				errs = append(errs, at+": undocumented property "+strconv.Quote(k))
			}
		}
	}
	return errs
}

// ---- a Server with fake ports, to run the spec's examples through ----

const (
	specBase = "3a1f0c2b4d6e8f90a1b2c3d4e5f60718293a4b5c"
	specHead = "9f2c4e1a7b3d5f60718293a4b5c6d7e8f9012345"
)

const specDiff = "diff --git a/src/billing/invoice.go b/src/billing/invoice.go\n" +
	"index 1111111..2222222 100644\n" +
	"--- a/src/billing/invoice.go\n" +
	"+++ b/src/billing/invoice.go\n" +
	"@@ -1,3 +1,4 @@\n" +
	" package billing\n" +
	" \n" +
	"+// Total sums the invoice lines, rounded half-even.\n" +
	" func Total() int { return 0 }\n" +
	"diff --git a/go.sum b/go.sum\n" +
	"index 3333333..4444444 100644\n" +
	"--- a/go.sum\n" +
	"+++ b/go.sum\n" +
	"@@ -1 +1 @@\n" +
	"-a v1\n" +
	"+a v2\n"

var specFiles = map[string]string{
	"src/billing/invoice.go": "package billing\n\n// Total sums the invoice lines, rounded half-even.\nfunc Total() int { return 0 }\n",
	"src/money/round.go":     "package money\n\nfunc RoundHalfEven(c int64) int64 { return c }\n",
}

// newSpecFake is the pull request of the spec's examples: #42 of
// acme/billing-api, head specHead on base specBase, with its diff, its files
// at every commit, and comments linked as Bitbucket links them.
func newSpecFake() *pipelinetest.Fake {
	n := int64(len(specFiles["src/money/round.go"]))
	return pipelinetest.New().
		AddCommit(specHead, specBase).
		AddRef("main", specBase).AddRef("feature/PAY-17-rounding", specHead).
		AddFiles("", specFiles).
		SetListing("", "src/money", []pipeline.DirEntry{{Path: "src/money/round.go", Type: "file", Size: &n}, {Path: "src/money/testdata", Type: "dir"}}).
		SetDiff("*", specDiff).
		AddPullRequest(pipeline.PullRequestInfo{ID: 42, State: "OPEN", SourceCommit: specHead[:12], DestinationCommit: specBase[:12],
			PullRequest: pipeline.PullRequest{Title: "PAY-17: round invoice totals half-even", Author: "Dana Kim",
				SourceBranch: "feature/PAY-17-rounding", DestinationBranch: "main",
				URL: "https://bitbucket.example/acme/billing-api/pull-requests/42"}}).
		SetCommentURLs("https://bitbucket.example/acme/billing-api/pull-requests/42/_/diff#comment-%d")
}

func specParseWebhook(body []byte) (pipeline.Repo, int, error) {
	var ev struct {
		PullRequest struct {
			ID int `json:"id"`
		} `json:"pullrequest"`
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return pipeline.Repo{}, 0, pipeline.Invalidf("pullrequest", "%v", err)
	}
	ws, slug, ok := strings.Cut(ev.Repository.FullName, "/")
	if !ok || ev.PullRequest.ID <= 0 {
		return pipeline.Repo{}, 0, pipeline.Invalidf("repository.full_name", "want workspace/slug and a pull request id")
	}
	return pipeline.Repo{Workspace: ws, RepoSlug: slug}, ev.PullRequest.ID, nil
}

func specSign(body []byte) string {
	m := hmac.New(sha256.New, []byte(specWebhookSecret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// newSpecServer builds a Server with every port faked, the API key and the
// webhook on. maxBody 0 keeps the default limit; forwardURL "" acknowledges
// webhooks without forwarding.
func newSpecServer(t *testing.T, maxBody int64, forwardURL string) (*Server, *pipelinetest.Fake) {
	t.Helper()
	store := newSpecFake()
	srv := mustServer(t, Options{
		Repo: store, Diffs: store, PRs: store, Comments: store, Reporter: store,
		Surfaces:     insights.DefaultSettings(),
		ParseWebhook: specParseWebhook,
		Webhook: &WebhookOptions{
			Verify: func(body []byte, sig string) error {
				if subtle.ConstantTimeCompare([]byte(sig), []byte(specSign(body))) != 1 {
					return errors.New("signature mismatch")
				}
				return nil
			},
			Events:     []string{"pullrequest:created", "pullrequest:updated"},
			ForwardURL: forwardURL,
			Forwarder:  &n8n.Forwarder{},
		},
		APIKeys:      []string{specAPIKey},
		MaxBodyBytes: maxBody,
		Logger:       discardLogger(),
	})
	return srv, store
}

// call sends one request and decodes the JSON answer.
func call(t *testing.T, h http.Handler, method, path string, body []byte, hdr map[string]string) (*httptest.ResponseRecorder, any) {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var v any
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, rec.Body.String())
		}
	}
	return rec, v
}

// responseSchema is the schema of one documented status of an operation, or
// nil when the status is not documented.
func responseSchema(t *testing.T, spec, op map[string]any, status int) any {
	t.Helper()
	r := obj(op["responses"])[strconv.Itoa(status)]
	if r == nil {
		return nil
	}
	resp := resolve(t, spec, r)
	return obj(obj(resp["content"])["application/json"])["schema"]
}

func checkAnswer(t *testing.T, spec, op map[string]any, name string, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	if rec.Header().Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id in the answer", name)
	}
	r := obj(op["responses"])[strconv.Itoa(rec.Code)]
	if r == nil {
		t.Errorf("%s: status %d is not documented; body %s", name, rec.Code, clip(rec.Body.String()))
		return
	}
	ct, _, _ := strings.Cut(rec.Header().Get("Content-Type"), ";")
	if obj(resolve(t, spec, r)["content"])[ct] == nil {
		t.Errorf("%s: %d answer is %s, not documented", name, rec.Code, ct)
		return
	}
	s := responseSchema(t, spec, op, rec.Code)
	if ct != "application/json" {
		return
	}
	for _, e := range validate(t, spec, s, v, "$", false) {
		t.Errorf("%s: %d answer does not match the spec: %s", name, rec.Code, e)
	}
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// successCode is the operation's documented 2xx status.
func successCode(op map[string]any) int {
	for code := range obj(op["responses"]) {
		if code[0] == '2' {
			n, _ := strconv.Atoi(code)
			return n
		}
	}
	return 0
}

// TestOpenAPIExamplesRoundTrip sends every request example of the spec to a
// Server with fake ports and validates the answer against the documented
// response schema, closed objects included.
func TestOpenAPIExamplesRoundTrip(t *testing.T) {
	spec := loadSpec(t)
	srv, store := newSpecServer(t, 0, "")
	registered := map[string]bool{}
	for _, r := range srv.engine.Routes() {
		registered[r.Method+" "+ginPath(r.Path)] = true
	}
	ops := specOps(spec)
	// Workflow order: the context runs before comments post a summary.
	names := []string{"GET /healthz", "GET /readyz", "GET /metrics", "POST /v1/context", "POST /v1/needs",
		"POST /v1/repository/batch", "POST /v1/merge", "POST /v1/verify", "POST /v1/comments", "POST /v1/workflows/validate",
		"POST /v1/webhooks/bitbucket", "POST /v1/preview", "POST /v1/rules/check", "POST /v1/rules/propose", "POST /v1/status", "POST /v1/thread", "POST /v1/thread/answer"}
	if len(names) != len(ops) {
		t.Errorf("the spec has %d operations, this test orders %d: add the new one", len(ops), len(names))
	}
	ran := 0
	for _, name := range names {
		op := ops[name]
		if !registered[name] {
			continue // pending; TestOpenAPIRoutesMatchEngine reports it
		}
		method, path, _ := strings.Cut(name, " ")
		media := obj(obj(obj(op["requestBody"])["content"])["application/json"])
		examples := obj(media["examples"])
		if media == nil {
			rec, v := call(t, srv, method, path, nil, map[string]string{"X-API-Key": specAPIKey})
			checkAnswer(t, spec, op, name, rec, v)
			if want := successCode(op); rec.Code != want {
				t.Errorf("%s: status %d, want %d: %s", name, rec.Code, want, clip(rec.Body.String()))
			}
			ran++
			continue
		}
		if len(examples) == 0 {
			t.Errorf("%s: request body has no examples", name)
		}
		exNames := make([]string, 0, len(examples))
		for k := range examples {
			exNames = append(exNames, k)
		}
		sort.Strings(exNames)
		for _, exName := range exNames {
			value := obj(examples[exName])["value"]
			for _, e := range validate(t, spec, media["schema"], value, "$", true) {
				t.Errorf("%s example %s does not match the request schema: %s", name, exName, e)
			}
			body, err := json.Marshal(value)
			if err != nil {
				t.Fatal(err)
			}
			hdr := map[string]string{"X-API-Key": specAPIKey, "X-Request-Id": "n8n-exec-" + exName}
			if path == "/v1/webhooks/bitbucket" {
				hdr = map[string]string{"X-Hub-Signature": specSign(body), "X-Event-Key": "pullrequest:updated", "X-Request-Id": "n8n-exec-" + exName}
			}
			label := name + " example " + exName
			rec, v := call(t, srv, method, path, body, hdr)
			if want := successCode(op); rec.Code != want {
				t.Errorf("%s: status %d, want %d: %s", label, rec.Code, want, clip(rec.Body.String()))
			}
			if got := rec.Header().Get("X-Request-Id"); got != "n8n-exec-"+exName {
				t.Errorf("%s: X-Request-Id %q, want the caller's", label, got)
			}
			checkAnswer(t, spec, op, label, rec, v)
			ran++
		}
	}
	if ran < 12 {
		t.Errorf("only %d examples ran", ran)
	}
	if len(store.Comments(42)) == 0 {
		t.Fatal("no example posted a comment: the posting path went unchecked")
	}
	// The same pull request again: its head is reviewed now, so skip.
	ex := obj(obj(obj(obj(obj(ops["POST /v1/context"]["requestBody"])["content"])["application/json"])["examples"])["pullRequest"])["value"]
	body, _ := json.Marshal(ex)
	rec, v := call(t, srv, "POST", "/v1/context", body, map[string]string{"X-API-Key": specAPIKey})
	if m := obj(v); rec.Code != http.StatusOK || m["mode"] != "skip" || m["skip"] != true {
		t.Errorf("context after the review: %d %s, want mode skip", rec.Code, clip(rec.Body.String()))
	}
	checkAnswer(t, spec, ops["POST /v1/context"], "context after the review", rec, v)
}

// TestOpenAPIErrorAnswers elicits each documented error class and checks
// that its status is documented for the operation and its body is ErrorBody.
func TestOpenAPIErrorAnswers(t *testing.T) {
	spec := loadSpec(t)
	ops := specOps(spec)
	srv, _ := newSpecServer(t, 0, "")
	small, _ := newSpecServer(t, 256, "")
	key := map[string]string{"X-API-Key": specAPIKey}
	stages := []string{"/v1/context", "/v1/needs", "/v1/repository/batch", "/v1/merge", "/v1/comments"}

	expect := func(t *testing.T, h http.Handler, path string, body []byte, hdr map[string]string, status int, code, field string) {
		t.Helper()
		name := "POST " + path
		rec, v := call(t, h, "POST", path, body, hdr)
		if rec.Code != status {
			t.Fatalf("%s: status %d, want %d: %s", name, rec.Code, status, rec.Body.String())
		}
		checkAnswer(t, spec, ops[name], name, rec, v)
		m := obj(v)
		if m["error"] != code {
			t.Errorf("%s: error %v, want %q", name, m["error"], code)
		}
		if field != "" && m["field"] != field {
			t.Errorf("%s: field %v, want %q", name, m["field"], field)
		}
	}
	for _, path := range stages {
		t.Run(path, func(t *testing.T) {
			expect(t, srv, path, []byte(`{}`), nil, http.StatusUnauthorized, "unauthorized", "")
			expect(t, srv, path, []byte(`{}`), map[string]string{"X-API-Key": "wrong"}, http.StatusUnauthorized, "unauthorized", "")
			expect(t, srv, path, []byte(`{"workspace": 7}`), key, http.StatusBadRequest, "invalid", "workspace")
			expect(t, srv, path, []byte(`[]`), key, http.StatusBadRequest, "invalid", "")
			expect(t, small, path, []byte(`{"workspace":"`+strings.Repeat("a", 300)+`"}`), key, http.StatusRequestEntityTooLarge, "too_large", "")
		})
	}
	t.Run("missing required fields", func(t *testing.T) {
		expect(t, srv, "/v1/needs", []byte(`{"workspace":"acme","repoSlug":"billing-api","scout":"x"}`), key, http.StatusBadRequest, "invalid", "ref")
		expect(t, srv, "/v1/context", []byte(`{"workspace":"acme","repoSlug":"billing-api","head":"main"}`), key, http.StatusBadRequest, "invalid", "base")
		expect(t, srv, "/v1/comments", []byte(`{"ref":"`+specHead+`"}`), key, http.StatusBadRequest, "invalid", "review")
		expect(t, srv, "/v1/merge", []byte(`{"context":{"files":[{"path":""}]}}`), key, http.StatusBadRequest, "invalid", "context.files[0].path")
	})
	t.Run("not found", func(t *testing.T) {
		expect(t, srv, "/v1/context", []byte(`{"workspace":"acme","repoSlug":"billing-api","prId":7}`), key, http.StatusNotFound, "not_found", "")
	})
	t.Run("webhook", func(t *testing.T) {
		body := []byte(`{"pullrequest":{"id":42},"repository":{"full_name":"acme/billing-api"}}`)
		path := "/v1/webhooks/bitbucket"
		expect(t, srv, path, body, map[string]string{"X-Hub-Signature": "sha256=00", "X-Event-Key": "pullrequest:updated"}, http.StatusUnauthorized, "bad_signature", "X-Hub-Signature")
		expect(t, srv, path, body, map[string]string{"X-Hub-Signature": specSign(body), "X-Event-Key": "repo:push"}, http.StatusBadRequest, "unsupported_event", "X-Event-Key")

		n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Event-Key") == "pullrequest:created" {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(http.StatusNotFound)
		}))
		defer n8n.Close()
		fwd, _ := newSpecServer(t, 0, n8n.URL)
		expect(t, fwd, path, body, map[string]string{"X-Hub-Signature": specSign(body), "X-Event-Key": "pullrequest:updated"}, http.StatusBadGateway, "forward_failed", "")
		rec, v := call(t, fwd, "POST", path, body, map[string]string{"X-Hub-Signature": specSign(body), "X-Event-Key": "pullrequest:created"})
		if rec.Code != http.StatusAccepted || obj(v)["forwarded"] != true {
			t.Fatalf("forward: %d %s", rec.Code, rec.Body.String())
		}
		checkAnswer(t, spec, ops["POST "+path], "forwarded webhook", rec, v)
	})
	t.Run("not ready", func(t *testing.T) {
		down := mustServer(t, Options{Logger: discardLogger(), Ready: func(context.Context) error { return errors.New("git not found in PATH") }})
		rec, v := call(t, down, "GET", "/readyz", nil, nil)
		if rec.Code != http.StatusServiceUnavailable || obj(v)["error"] != "not_ready" {
			t.Fatalf("readyz: %d %s", rec.Code, rec.Body.String())
		}
		checkAnswer(t, spec, ops["GET /readyz"], "readyz down", rec, v)
	})
	t.Run("unknown path and method", func(t *testing.T) {
		errSchema := "#/components/schemas/ErrorBody"
		for _, c := range []struct {
			method, path string
			status       int
		}{{"GET", "/v1/nope", http.StatusNotFound}, {"GET", "/v1/needs", http.StatusMethodNotAllowed}} {
			rec, v := call(t, srv, c.method, c.path, nil, key)
			if rec.Code != c.status {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.status)
			}
			for _, e := range validate(t, spec, map[string]any{"$ref": errSchema}, v, "$", false) {
				t.Errorf("%s %s: %s", c.method, c.path, e)
			}
		}
	})
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// designContract is the stage contract of docs/architecture.md, schema by schema: the field
// names the shipped workflow, users' workflows and checks rely on. Renaming a
// Go field and its schema property together passes the tests above; it fails
// here. Each listed property must exist and be marked x-prscout-contract, and
// every marked property must be listed (so the marks stay honest).
var designContract = map[string][]string{
	"ContextRequest":  {"workspace", "repoSlug", "prId", "base", "head", "contextLines", "jiraKeys"},
	"ContextResult":   {"mode", "skip", "workspace", "repoSlug", "prId", "ref", "base", "reviewedCommit", "pr", "jira", "rules", "files", "excluded", "scoutPrompt", "stats", "warnings"},
	"PullRequest":     {"title", "description", "author", "sourceBranch", "destinationBranch"},
	"ChangedFile":     {"path", "status", "language", "diff", "source", "sourceRange", "needs"},
	"SourceRange":     {"from", "to", "total"},
	"Excluded":        {"path", "reason"},
	"Prompt":          {"system", "user"},
	"ContextStats":    {"promptChars", "sourceChars"},
	"NeedsRequest":    {"workspace", "repoSlug", "ref", "files", "scout"},
	"Need":            {"op", "path"},
	"NeedsResult":     {"skip", "requests", "rejected", "limits", "stats"},
	"Request":         {"op", "path", "workspace", "repoSlug", "ref"},
	"Rejected":        {"ok", "op", "path", "error"},
	"NeedsLimits":     {"total", "perFile"},
	"BatchRequest":    {"workspace", "repoSlug", "ref", "requests"},
	"BatchResult":     {"results", "stats"},
	"LookupResult":    {"ok", "op", "path", "content", "size", "entries", "error"},
	"DirEntry":        {"path", "type", "size"},
	"BatchStats":      {"requested", "ok", "failed", "cacheHits", "upstreamCalls"},
	"MergeRequest":    {"context", "results"},
	"MergeResult":     {"reviewPass", "additionalContext", "reviewPrompt", "stats"},
	"ContextItem":     {"ok", "op", "path", "content", "error"},
	"MergeStats":      {"promptChars", "dropped"},
	"CommentsRequest": {"workspace", "repoSlug", "prId", "ref", "files", "review", "dryRun", "verify"},
	"VerifyResult":    {"verify", "verifyPrompt"},
	"Review":          {"summary", "findings"},
	"Finding":         {"path", "line", "existingCode", "severity", "title", "body"},
	"CommentsResult":  {"markdown", "inline", "unanchored", "posted"},
	"InlineComment":   {"path", "line", "anchor", "body"},
	"Posted":          {"summary", "inlineCreated", "inlineSkipped"},
	"ValidateResult":  {"ok", "nodes"},
	"GateNodeResult":  {"workflow", "node", "type", "ok", "error"},
	"GateNodeError":   {"message", "line", "column"},
	"ErrorBody":       {"error", "message", "field"},
}

// workflowContract are fields beyond the stage contract's table that the shipped n8n
// workflow (workflows/pr-review.json) reads or passes on: the batch answer's
// rejected into /v1/merge, /v1/merge's echoes into /v1/comments (the comments
// body is Object.assign of the merge answer, review and dryRun) and the final
// Set node.
var workflowContract = map[string][]string{
	"BatchResult":     {"rejected"},
	"MergeRequest":    {"rejected"},
	"MergeResult":     {"workspace", "repoSlug", "prId", "ref", "mode", "files", "excluded"},
	"CommentsRequest": {"mode", "additionalContext", "excluded"},
}

func TestOpenAPIContractFields(t *testing.T) {
	spec := loadSpec(t)
	schemas := obj(obj(spec["components"])["schemas"])
	for name, s := range schemas {
		want := map[string]bool{}
		for _, f := range append(append([]string(nil), designContract[name]...), workflowContract[name]...) {
			want[f] = true
		}
		props := obj(obj(s)["properties"])
		for f := range want {
			p := obj(props[f])
			if p == nil {
				t.Errorf("%s: contract field %q is missing", name, f)
			} else if p["x-prscout-contract"] != true {
				t.Errorf("%s.%s: contract field not marked x-prscout-contract", name, f)
			}
		}
		for f, p := range props {
			if obj(p)["x-prscout-contract"] == true && !want[f] {
				t.Errorf("%s.%s: marked x-prscout-contract but not in the stage contract (docs/architecture.md)", name, f)
			}
		}
	}
	for name := range workflowContract {
		if schemas[name] == nil {
			t.Errorf("contract schema %s is missing", name)
		}
	}
	for name := range designContract {
		if schemas[name] == nil {
			t.Errorf("contract schema %s is missing", name)
		}
	}
}
