package n8n

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testKey = "test-key"

// request is what the fake saw of one call.
type request struct {
	Method, Path, Key, Accept, ContentType, Body string
}

// fakeN8N answers with a fixed status and body and records the requests.
type fakeN8N struct {
	mu       sync.Mutex
	requests []request
	status   int
	body     string
	header   http.Header
}

func (f *fakeN8N) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, request{r.Method, r.URL.EscapedPath(), r.Header.Get("X-N8N-API-KEY"),
		r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(b)})
	for k, v := range f.header {
		w.Header()[k] = v
	}
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func (f *fakeN8N) seen() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

func newFake(t *testing.T, status int, body string) (*fakeN8N, *Client) {
	t.Helper()
	f := &fakeN8N{status: status, body: body}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	c, err := New(Config{BaseURL: ts.URL + "/", APIKey: testKey, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestWorkflow(t *testing.T) {
	const live = `{"id":"wf/1","name":"Review PR","nodes":[]}`
	f, c := newFake(t, http.StatusOK, live)
	got, err := c.Workflow(context.Background(), "wf/1")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != live {
		t.Errorf("body = %s, want the answer as sent", got)
	}
	want := []request{{Method: "GET", Path: "/api/v1/workflows/wf%2F1", Key: testKey, Accept: "application/json"}}
	if d := cmp.Diff(want, f.seen()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

func TestUpdateWorkflow(t *testing.T) {
	f, c := newFake(t, http.StatusOK, `{"id":"wf1","versionId":"v2"}`)
	body := `{"name":"Review PR","nodes":[],"connections":{},"settings":{}}`
	if err := c.UpdateWorkflow(context.Background(), "wf1", []byte(body)); err != nil {
		t.Fatal(err)
	}
	want := []request{{Method: "PUT", Path: "/api/v1/workflows/wf1", Key: testKey, Accept: "application/json",
		ContentType: "application/json", Body: body}}
	if d := cmp.Diff(want, f.seen()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

func TestAPIErrors(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name   string
		status int
		body   string
		want   string
		msg    string
	}{
		{"no key", 401, `{"message":"'X-N8N-API-KEY' header required"}`, `n8n answered 401: 'X-N8N-API-KEY' header required`, "'X-N8N-API-KEY' header required"},
		{"unknown workflow", 404, `{"message":"Not Found"}`, "n8n answered 404: Not Found", "Not Found"},
		{"schema refusal", 400, `{"message":"request/body must NOT have additional properties"}`,
			"n8n answered 400: request/body must NOT have additional properties", "request/body must NOT have additional properties"},
		{"html body", 502, "<html>Bad Gateway</html>\n", "n8n answered 502: <html>Bad Gateway</html>", ""},
		{"empty body", 500, "", "n8n answered 500", ""},
		{"long body is cut", 500, long, "n8n answered 500: " + strings.Repeat("é", 256) + "…", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := newFake(t, tt.status, tt.body)
			for _, call := range []func() error{
				func() error { _, err := c.Workflow(context.Background(), "wf1"); return err },
				func() error { return c.UpdateWorkflow(context.Background(), "wf1", []byte(`{}`)) },
			} {
				err := call()
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v, want an *APIError", err)
				}
				if ae.Status != tt.status || ae.Message != tt.msg || ae.Body != tt.body {
					t.Errorf("APIError = %+v", ae)
				}
				if err.Error() != tt.want {
					t.Errorf("err = %q\nwant  %q", err, tt.want)
				}
			}
		})
	}
}

// TestRedirectNotFollowed: the API key never reaches the host a redirect
// names, and a PUT answered with a redirect is an error, not a GET.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere sync.Map
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Store(r.Method, r.Header.Get("X-N8N-API-KEY"))
		_, _ = io.WriteString(w, `{"id":"wf1"}`)
	}))
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect} {
		f, c := newFake(t, status, "")
		f.header = http.Header{"Location": {other.URL + "/api/v1/workflows/wf1"}}
		_, err := c.Workflow(context.Background(), "wf1")
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != status || ae.Location != other.URL+"/api/v1/workflows/wf1" {
			t.Fatalf("%d: err = %v, want an APIError naming the Location", status, err)
		}
		if !strings.Contains(err.Error(), "redirect to "+other.URL+"/api/v1/workflows/wf1 not followed") {
			t.Errorf("%d: err = %q", status, err)
		}
		if err := c.UpdateWorkflow(context.Background(), "wf1", []byte(`{}`)); err == nil {
			t.Errorf("%d: PUT answered with a redirect reported success", status)
		}
	}
	elsewhere.Range(func(k, v any) bool {
		t.Errorf("%v request reached the redirect's host with key %q", k, v)
		return true
	})
}

func TestTransportErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Config{BaseURL: "http://" + addr, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Workflow(context.Background(), "wf1"); err == nil || !strings.HasPrefix(err.Error(), "get workflow: ") {
		t.Errorf("nothing listening: err = %v", err)
	}

	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	c, err = New(Config{BaseURL: slow.URL, APIKey: testKey, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The slow n8n answers only when the test ends: the timeout alone
	// returns.
	err = c.UpdateWorkflow(context.Background(), "wf1", []byte(`{}`))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.HasPrefix(err.Error(), "put workflow: ") {
		t.Errorf("slow n8n: err = %v, want a timeout", err)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // error; "" for ok
		url  string // WorkflowURL("a b") when ok
	}{
		{"ok", Config{BaseURL: "http://127.0.0.1:5678", APIKey: "k"}, "", "http://127.0.0.1:5678/api/v1/workflows/a%20b"},
		{"path prefix and slash", Config{BaseURL: " http://127.0.0.1:8080/n8n/ ", APIKey: "k"}, "", "http://127.0.0.1:8080/n8n/api/v1/workflows/a%20b"},
		{"empty url", Config{APIKey: "k"}, `n8n base URL "" is not an absolute http(s) URL`, ""},
		{"no scheme", Config{BaseURL: "127.0.0.1:5678", APIKey: "k"}, `n8n base URL "127.0.0.1:5678" is not an absolute http(s) URL`, ""},
		{"ftp", Config{BaseURL: "ftp://n8n", APIKey: "k"}, `n8n base URL "ftp://n8n" is not an absolute http(s) URL`, ""},
		{"query", Config{BaseURL: "http://n8n/?a=1", APIKey: "k"}, `n8n base URL "http://n8n/?a=1" must not hold a query, fragment or credentials`, ""},
		{"credentials", Config{BaseURL: "http://u:p@n8n", APIKey: "k"}, `n8n base URL "http://u:p@n8n" must not hold a query, fragment or credentials`, ""},
		{"no key", Config{BaseURL: "http://n8n", APIKey: " "}, "n8n API key is empty", ""},
		{"negative timeout", Config{BaseURL: "http://n8n", APIKey: "k", Timeout: -time.Second}, "n8n timeout -1s is negative", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("err = %v\nwant  %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.WorkflowURL("a b"); got != tt.url {
				t.Errorf("WorkflowURL = %q, want %q", got, tt.url)
			}
			if c.hc.Timeout != defaultTimeout {
				t.Errorf("timeout = %v, want defaultTimeout", c.hc.Timeout)
			}
		})
	}
}
