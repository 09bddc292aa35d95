package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// slowServer answers lookups after delay and fails to resolve ref "boom"
// (after delay too) with an upstream error; heartbeats come every 10 ms.
func slowServer(t *testing.T, delay time.Duration) *Server {
	t.Helper()
	wait := func(ctx context.Context) error {
		select {
		case <-time.After(delay):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f := newFake()
	f.Hook = func(ctx context.Context, op, arg string) error {
		if op != pipelinetest.OpResolve && op != pipelinetest.OpRead {
			return nil
		}
		if err := wait(ctx); err != nil {
			return err
		}
		if op == pipelinetest.OpResolve && arg == "boom" {
			return fmt.Errorf("bitbucket answered 503: %w", pipeline.ErrUpstream)
		}
		return nil
	}
	s, _ := newTestServer(t, Options{Repo: f, Diffs: f, KeepaliveInterval: 10 * time.Millisecond})
	return s
}

// stageCall is a batch lookup for a good ref; for "boom" it is a context
// call whose head does not resolve, which fails the whole stage (batch
// isolates failures per lookup).
func stageCall(ref, query string) (path, body string) {
	if ref == "boom" {
		return "/v1/context" + query, `{"workspace":"w","repoSlug":"r","base":"main","head":"boom"}`
	}
	return "/v1/repository/batch" + query, `{"workspace":"w","repoSlug":"r","ref":"` + ref + `","requests":[{"op":"get_file","path":"a.go"}]}`
}

func TestKeepaliveNDJSON(t *testing.T) {
	for _, tc := range []struct {
		name, ref  string
		delay      time.Duration
		wantStatus int
		wantPings  bool
		wantType   string
		wantCode   float64
	}{
		{"slow result", sha, 80 * time.Millisecond, 200, true, "result", 200},
		{"slow error", "boom", 80 * time.Millisecond, 200, true, "error", 502},
		{"fast error keeps its status", "boom", 0, 502, false, "error", 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := slowServer(t, tc.delay)
			path, body := stageCall(tc.ref, "")
			rec, _ := do(s, "POST", path, body, "Accept", "application/x-ndjson")
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.wantStatus, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/x-ndjson" {
				t.Errorf("Content-Type %q", ct)
			}
			var lines []map[string]any
			sc := bufio.NewScanner(bytes.NewReader(rec.Body.Bytes()))
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
				}
				lines = append(lines, m)
			}
			if len(lines) == 0 {
				t.Fatal("no lines")
			}
			for _, l := range lines[:len(lines)-1] {
				if l["type"] != "ping" {
					t.Errorf("line before the last is %v, want a ping", l)
				}
			}
			if got := len(lines) > 1; got != tc.wantPings {
				t.Errorf("pings sent = %v, want %v (%d lines)", got, tc.wantPings, len(lines))
			}
			last := lines[len(lines)-1]
			if last["type"] != tc.wantType || last["status"] != tc.wantCode {
				t.Fatalf("last line %v, want type %s status %v", last, tc.wantType, tc.wantCode)
			}
			if tc.wantType == "result" {
				res := last["data"].(map[string]any)["results"].([]any)
				if len(res) != 1 || res[0].(map[string]any)["content"] != "package a\n" {
					t.Errorf("result data %v", last["data"])
				}
			} else if last["error"] != "upstream" || last["message"] == "" {
				t.Errorf("error line %v", last)
			}
			// Metrics count the stage's real outcome, not the 200 sent early.
			if got := testutil.ToFloat64(s.metrics.HTTPRequests.WithLabelValues(path, fmt.Sprint(tc.wantCode))); got != 1 {
				t.Errorf("http_requests_total{code=%v} = %v, want 1", tc.wantCode, got)
			}
		})
	}
}

// durations removes the one field that differs between two runs.
var durations = regexp.MustCompile(`"durationMs":\d+`)

func TestKeepaliveN8N(t *testing.T) {
	plain := func(ref string) (int, string) {
		s := slowServer(t, 0)
		path, body := stageCall(ref, "")
		rec, _ := do(s, "POST", path, body)
		return rec.Code, rec.Body.String()
	}
	okCode, okBody := plain(sha)
	errCode, errBody := plain("boom")
	if okCode != 200 || errCode != 502 {
		t.Fatalf("plain answers %d, %d", okCode, errCode)
	}
	for _, tc := range []struct {
		name, ref, query string
		header           []string
		delay            time.Duration
		wantStatus       int
		wantBody         string // exact body after leading whitespace, or "" to check the error object
	}{
		{"slow result, header", sha, "", []string{"X-Prscout-Keepalive", "1"}, 80 * time.Millisecond, 200, okBody},
		{"slow result, query", sha, "?keepalive=1", nil, 80 * time.Millisecond, 200, okBody},
		{"fast result passes through", sha, "?keepalive=1", nil, 0, 200, okBody},
		{"fast error passes through", "boom", "?keepalive=1", nil, 0, 502, errBody},
		{"slow error in the body", "boom", "?keepalive=1", nil, 80 * time.Millisecond, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := slowServer(t, tc.delay)
			path, body := stageCall(tc.ref, tc.query)
			rec, _ := do(s, "POST", path, body, tc.header...)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.wantStatus, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q: n8n parses only application/json", ct)
			}
			raw := rec.Body.String()
			trimmed := strings.TrimLeft(raw, " \n")
			if tc.delay > 0 && trimmed == raw {
				t.Errorf("no whitespace heartbeat before the body")
			}
			// What n8n does: JSON.parse of the whole body (leading whitespace is legal).
			var m map[string]any
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				t.Fatalf("body is not one JSON document: %v\n%q", err, raw)
			}
			if tc.wantBody != "" {
				if durations.ReplaceAllString(trimmed, "") != durations.ReplaceAllString(tc.wantBody, "") {
					t.Errorf("body\n%s\nwant the plain answer\n%s", trimmed, tc.wantBody)
				}
				return
			}
			if m["error"] != "upstream" || m["status"] != float64(502) || m["message"] == "" {
				t.Errorf("error body %v, want error, message and status 502", m)
			}
		})
	}
}

func TestKeepaliveMode(t *testing.T) {
	for _, tc := range []struct {
		accept, header, query, want string
	}{
		{"", "", "", keepaliveNone},
		{"application/json", "", "", keepaliveNone},
		{"application/x-ndjson", "", "", keepaliveNDJSON},
		{"application/json, application/x-ndjson;q=0.9", "", "", keepaliveNDJSON},
		{"", "1", "", keepaliveN8N},
		{"", "0", "", keepaliveNone},
		{"", "false", "", keepaliveNone},
		{"", "", "keepalive=1", keepaliveN8N},
		{"", "", "keepalive=0", keepaliveNone},
	} {
		r := httptest.NewRequest("POST", "/v1/context?"+tc.query, nil)
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		if tc.header != "" {
			r.Header.Set("X-Prscout-Keepalive", tc.header)
		}
		if got := keepaliveMode(r); got != tc.want {
			t.Errorf("Accept %q, header %q, query %q: mode %q, want %q", tc.accept, tc.header, tc.query, got, tc.want)
		}
	}
}

// A client that leaves mid-stage must not leave the handler goroutine
// behind: the wrapper waits for it before gin reuses the context.
func TestKeepaliveClientGone(t *testing.T) {
	f := newFake()
	waiting := make(chan struct{}, 1)
	f.Hook = func(ctx context.Context, op, _ string) error {
		waiting <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	s, _ := newTestServer(t, Options{Repo: f, Diffs: f, KeepaliveInterval: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	path, body := stageCall(sha, "?keepalive=1")
	req := httptest.NewRequest("POST", path, strings.NewReader(body)).WithContext(ctx)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { s.ServeHTTP(rec, req); close(done) }()
	<-waiting // the stage waits upstream: the client leaves
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("handler still running 5s after the client left")
	}
	if rec.Code != http.StatusOK {
		t.Errorf("status %d", rec.Code)
	}
}

// writeSignal is a ResponseRecorder that signals its first write.
type writeSignal struct {
	*httptest.ResponseRecorder
	once  sync.Once
	wrote chan struct{}
}

func (w *writeSignal) Write(b []byte) (int, error) {
	n, err := w.ResponseRecorder.Write(b)
	w.once.Do(func() { close(w.wrote) })
	return n, err
}

func (w *writeSignal) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// A panic in a stage that already sent heartbeats still ends the answer with
// an error the client can read, and is logged and counted like any panic.
func TestKeepalivePanic(t *testing.T) {
	for _, tc := range []struct{ name, header, value string }{
		{"ndjson", "Accept", "application/x-ndjson"},
		{"n8n", "X-Prscout-Keepalive", "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &writeSignal{ResponseRecorder: httptest.NewRecorder(), wrote: make(chan struct{})}
			f := newFake()
			f.Hook = func(context.Context, string, string) error {
				<-rec.wrote // a heartbeat is out
				panic("boom")
			}
			s, _ := newTestServer(t, Options{Repo: f, Diffs: f, KeepaliveInterval: 10 * time.Millisecond})
			path, body := stageCall("boom", "")
			req := httptest.NewRequest("POST", path, strings.NewReader(body))
			req.Header.Set(tc.header, tc.value)
			s.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			lines := strings.Split(strings.TrimSpace(rec.Body.String()), "\n")
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
			}
			if last["error"] != "internal" || last["status"] != float64(500) {
				t.Errorf("last line %v, want the internal error", last)
			}
			if got := testutil.ToFloat64(s.metrics.InternalErrors); got != 1 {
				t.Errorf("internal errors = %v, want 1", got)
			}
		})
	}
}

// FuzzKeepaliveFinalLine: whatever a stage wrote (any status, any bytes), the
// NDJSON answer's last line is one line of JSON with type and status, and the
// n8n answer is one JSON document, so clients can always parse the end.
func FuzzKeepaliveFinalLine(f *testing.F) {
	f.Add(200, []byte(`{"results":[]}`))
	f.Add(200, []byte("{\n  \"a\": \"x\\ny\"\n}\n"))
	f.Add(502, []byte(`{"error":"upstream","message":"bitbucket 503"}`))
	f.Add(400, []byte(`{"error":"invalid","message":"bad","field":"files[0].path"}`))
	f.Add(200, []byte("not json"))
	f.Add(500, []byte{})
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 999 {
			status = 200
		}
		for _, mode := range []string{keepaliveNDJSON, keepaliveN8N} {
			rec := &recorder{header: http.Header{}, status: status}
			rec.buf.Write(body)
			out := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(out)
			if mode == keepaliveNDJSON {
				writeNDJSONResult(c.Writer, rec)
				got := out.Body.Bytes()
				if bytes.Count(got, []byte("\n")) != 1 || got[len(got)-1] != '\n' {
					t.Fatalf("ndjson answer is not one line: %q", got)
				}
				// A struct, not a map: JSON numbers beyond float64 (1E1000)
				// are valid JSON that clients in other languages read.
				var m struct {
					Type   *string `json:"type"`
					Status *int    `json:"status"`
				}
				if err := json.Unmarshal(got, &m); err != nil || !json.Valid(got) || m.Type == nil || m.Status == nil {
					t.Fatalf("ndjson line %q: %v", got, err)
				}
			} else {
				writeN8NResult(c.Writer, rec)
				if !json.Valid(out.Body.Bytes()) {
					t.Fatalf("n8n answer %q is not JSON", out.Body.Bytes())
				}
			}
		}
	})
}
