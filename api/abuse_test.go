package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/prscout/prscout/n8n"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// Requests built to exhaust the server (issue: "no request can take prscout
// down"): each gets a quick 4xx or an explained verdict, never a crash, a
// 500 or unbounded work.

// blockingRepo resolves revisions only when released (or its context ends),
// standing in for a stage waiting on Bitbucket; it holds no files.
type blockingRepo struct {
	*pipelinetest.Fake
	started chan struct{}
	release chan struct{}
	ctxErr  chan error
}

func newBlockingRepo() *blockingRepo {
	b := &blockingRepo{Fake: pipelinetest.New().ResolveAll(sha).SetDiff("*", ""),
		started: make(chan struct{}, 16), release: make(chan struct{}), ctxErr: make(chan error, 16)}
	b.Hook = func(ctx context.Context, op, _ string) error {
		if op != pipelinetest.OpResolve {
			return nil
		}
		b.started <- struct{}{}
		select {
		case <-b.release:
			b.ctxErr <- nil
			return nil
		case <-ctx.Done():
			b.ctxErr <- ctx.Err()
			return ctx.Err()
		}
	}
	return b
}

const contextBody = `{"workspace":"acme","repoSlug":"app","base":"main","head":"feature"}`

func TestAbuseInflightCapped(t *testing.T) {
	repo := newBlockingRepo()
	srv, _ := newTestServer(t, Options{Repo: repo, Diffs: repo, RequestLimits: RequestLimits{MaxInflight: 2}})
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(srv, "POST", "/v1/context", contextBody)
		}()
		<-repo.started
	}
	// A request that queued would wait for the running ones, which end
	// only after the loop: the 429 answered at all says it did not queue.
	for _, path := range []string{"/v1/context", "/v1/needs", "/v1/workflows/validate"} {
		rec, out := do(srv, "POST", path, `{}`)
		if rec.Code != http.StatusTooManyRequests || out["error"] != "busy" || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("%s with 2 running: %d %v Retry-After=%q", path, rec.Code, out, rec.Header().Get("Retry-After"))
		}
		if !strings.Contains(fmt.Sprint(out["message"]), "PRSCOUT_MAX_INFLIGHT") {
			t.Errorf("message does not name the setting: %v", out["message"])
		}
	}
	// Cheap routes are not capped.
	if rec, _ := do(srv, "GET", "/healthz", ""); rec.Code != http.StatusOK {
		t.Errorf("healthz: %d", rec.Code)
	}
	close(repo.release)
	wg.Wait()
	// Tokens are given back: the next heavy request runs.
	if rec, _ := do(srv, "POST", "/v1/needs", `{}`); rec.Code == http.StatusTooManyRequests {
		t.Errorf("still 429 after the running requests ended")
	}
	if n := testutil.ToFloat64(srv.metrics.Throttled.WithLabelValues("/v1/context")); n != 1 {
		t.Errorf("throttled counter for /v1/context = %v, want 1", n)
	}
}

func TestAbuseNeedsCapped(t *testing.T) {
	srv, _ := newTestServer(t, Options{})
	head := `{"workspace":"acme","repoSlug":"app","ref":"` + sha + `",`
	t.Run("700k needs in the scout answer", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(head + `"scout":{"files":[{"path":"a.go","needs":[`)
		for i := 0; i < 700_000; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"x"`)
		}
		b.WriteString(`]}]}}`)
		srvBig, _ := newTestServer(t, Options{MaxBodyBytes: 64 << 20, RequestLimits: RequestLimits{MaxScoutBytes: 8 << 20}})
		// The refusal must cost about one read of the body, not a pass per
		// need: it is timed against decoding the same body once, in the
		// same process, so a busy machine slows both alike.
		start := time.Now()
		var decoded any
		if err := json.Unmarshal([]byte(b.String()), &decoded); err != nil {
			t.Fatal(err)
		}
		once := time.Since(start)
		start = time.Now()
		rec, out := do(srvBig, "POST", "/v1/needs", b.String())
		if rec.Code != http.StatusUnprocessableEntity || out["field"] != "scout" || !strings.Contains(fmt.Sprint(out["message"]), "PRSCOUT_MAX_NEEDS") {
			t.Fatalf("%d %v", rec.Code, out)
		}
		if d := time.Since(start); d > 20*once+time.Second {
			t.Errorf("took %v; decoding the body once took %v", d, once)
		}
		// With the default scout size limit the same answer is refused
		// before it is read.
		rec, out = do(srv, "POST", "/v1/needs", b.String())
		if rec.Code != http.StatusRequestEntityTooLarge || out["field"] != "scout" || !strings.Contains(fmt.Sprint(out["message"]), "PRSCOUT_MAX_SCOUT_BYTES") {
			t.Fatalf("default limits: %d %v", rec.Code, out)
		}
	})
	t.Run("files[].needs", func(t *testing.T) {
		needs := strings.Repeat(`{"op":"get_file","path":"x"},`, 1500)
		body := head + `"files":[{"path":"a.go","needs":[` + strings.TrimSuffix(needs, ",") + `]}]}`
		rec, out := do(srv, "POST", "/v1/needs", body)
		if rec.Code != http.StatusUnprocessableEntity || out["field"] != "files[].needs" || !strings.Contains(fmt.Sprint(out["message"]), "1500 entries, over the limit of 1000") {
			t.Fatalf("%d %v", rec.Code, out)
		}
	})
	t.Run("under the limit", func(t *testing.T) {
		rec, out := do(srv, "POST", "/v1/needs", head+`"files":[{"path":"a.go"}],"scout":{"files":[{"path":"a.go","needs":["b.go"]}]}}`)
		if rec.Code != http.StatusOK {
			t.Fatalf("%d %v", rec.Code, out)
		}
	})
}

func TestAbuseFilesCapped(t *testing.T) {
	srv, _ := newTestServer(t, Options{RequestLimits: RequestLimits{MaxFiles: 10}})
	files := strings.TrimSuffix(strings.Repeat(`{"path":"a.go","diff":""},`, 11), ",")
	cases := []struct{ path, body string }{
		{"/v1/needs", `{"workspace":"acme","repoSlug":"app","ref":"` + sha + `","files":[` + files + `],"scout":"[]"}`},
		{"/v1/merge", `{"context":{"workspace":"acme","repoSlug":"app","ref":"` + sha + `","files":[` + files + `]},"results":[]}`},
		{"/v1/comments", `{"workspace":"acme","repoSlug":"app","ref":"` + sha + `","files":[` + files + `],"review":"{}","dryRun":true}`},
	}
	for _, tc := range cases {
		rec, out := do(srv, "POST", tc.path, tc.body)
		if rec.Code != http.StatusUnprocessableEntity || out["field"] != "files" || !strings.Contains(fmt.Sprint(out["message"]), "11 entries, over the limit of 10 (PRSCOUT_MAX_FILES)") {
			t.Errorf("%s: %d %v", tc.path, rec.Code, out)
		}
	}
}

func TestAbuseBatchRequestsCapped(t *testing.T) {
	srv, _ := newTestServer(t, Options{})
	reqs := strings.TrimSuffix(strings.Repeat(`{"op":"get_file","path":"a.go"},`, 1001), ",")
	rec, out := do(srv, "POST", "/v1/repository/batch", `{"workspace":"acme","repoSlug":"app","ref":"`+sha+`","requests":[`+reqs+`]}`)
	if rec.Code != http.StatusUnprocessableEntity || out["field"] != "requests" || !strings.Contains(fmt.Sprint(out["message"]), "PRSCOUT_MAX_BATCH_REQUESTS") {
		t.Fatalf("%d %v", rec.Code, out)
	}
	rec, out = do(srv, "POST", "/v1/merge", `{"context":{"workspace":"acme","repoSlug":"app","ref":"`+sha+`","files":[]},"results":[`+strings.Repeat(`{"ok":true,"op":"get_file","path":"a.go","content":"x"},`, 1000)+`{"ok":true,"op":"get_file","path":"a.go","content":"x"}]}`)
	if rec.Code != http.StatusUnprocessableEntity || out["field"] != "results" {
		t.Fatalf("merge: %d %v", rec.Code, out)
	}
}

// TestAbuseSlowBodyCut: a body trickled a byte at a time is cut at the read
// timeout, not held for as long as the client likes.
func TestAbuseSlowBodyCut(t *testing.T) {
	srv, _ := newTestServer(t, Options{RequestLimits: RequestLimits{ReadTimeout: 500 * time.Millisecond}})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/needs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	trickled := 0
	done := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			done <- "closed: " + err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		done <- fmt.Sprintf("%d %s", resp.StatusCode, body)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case got := <-done:
			if !strings.HasPrefix(got, "408") || !strings.Contains(got, "PRSCOUT_READ_TIMEOUT") {
				t.Errorf("answer %q, want 408 naming PRSCOUT_READ_TIMEOUT", got)
			}
			return
		case <-tick.C:
			// Counted in bytes trickled (a byte per tick), not in time.
			if trickled++; trickled > 600 {
				t.Fatalf("the trickled body was never cut (%d bytes sent)", trickled)
			}
			_, _ = conn.Write([]byte(" "))
		}
	}
}

// TestAbuseTimeoutsKeepLongStages: the read and write timeouts bound the
// body and each write, not the stage: a stage much longer than both ends
// normally, plainly and in the keep-alive modes, with its context alive.
// It runs in a synctest bubble over an in-memory network, so the stage's
// second (five read and write timeouts) passes on the fake clock, which the
// connections' deadlines follow.
func TestAbuseTimeoutsKeepLongStages(t *testing.T) {
	for _, mode := range []string{"plain", "n8n", "ndjson"} {
		t.Run(mode, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				repo := newBlockingRepo()
				srv, _ := newTestServer(t, Options{Repo: repo, Diffs: repo, KeepaliveInterval: 100 * time.Millisecond,
					RequestLimits: RequestLimits{ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}})
				client := servePipe(t, srv)
				req, _ := http.NewRequest("POST", "http://prscout/v1/context", strings.NewReader(contextBody))
				switch mode {
				case "n8n":
					req.Header.Set("X-Prscout-Keepalive", "1")
				case "ndjson":
					req.Header.Set("Accept", "application/x-ndjson")
				}
				type answer struct {
					status int
					body   []byte
					err    error
				}
				answered := make(chan answer, 1)
				go func() {
					resp, err := client.Do(req)
					if err != nil {
						answered <- answer{err: err}
						return
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					answered <- answer{resp.StatusCode, body, err}
				}()
				<-repo.started
				time.Sleep(time.Second) // on the fake clock: 5 read and write timeouts
				select {
				case a := <-answered:
					t.Fatalf("answered before the stage ended: %d %q %v", a.status, a.body, a.err)
				default:
				}
				close(repo.release)
				a := <-answered
				if a.err != nil {
					t.Fatalf("answer cut: %v (%q)", a.err, a.body)
				}
				if err := <-repo.ctxErr; err != nil {
					t.Fatalf("the stage's context ended: %v", err)
				}
				if a.status != http.StatusOK || !json.Valid([]byte(strings.TrimSpace(string(lastLine(a.body))))) {
					t.Fatalf("%d %q", a.status, a.body)
				}
			})
		})
	}
}

// servePipe serves h over in-memory connections (net.Pipe, whose deadlines
// follow the bubble's clock) and returns a client dialling them. Both are
// closed when the test ends.
func servePipe(t *testing.T, h http.Handler) *http.Client {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	hs := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() { defer close(served); _ = hs.Serve(l) }()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, s := net.Pipe()
		select {
		case l.conns <- s:
			return c, nil
		case <-l.done:
			return nil, net.ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = hs.Close()
		<-served
	})
	return &http.Client{Transport: tr}
}

// pipeListener hands out the server ends of servePipe's connections.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}

// TestAbuseClientGoneStopsStage: when the client goes away, the stage's
// context ends (and with it the git and upstream calls bound to it).
func TestAbuseClientGoneStopsStage(t *testing.T) {
	repo := newBlockingRepo()
	srv, _ := newTestServer(t, Options{Repo: repo, Diffs: repo})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/context", strings.NewReader(contextBody))
	go func() {
		<-repo.started
		cancel()
	}()
	_, _ = ts.Client().Do(req)
	select {
	case err := <-repo.ctxErr:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stage context: %v, want canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stage kept running after the client left")
	}
}

func TestAbuseValidateNesting(t *testing.T) {
	srv, _ := newTestServer(t, Options{})
	for name, code := range map[string]string{
		"a million (":    strings.Repeat("(", 1_000_000),
		"deep [[[":       "x = " + strings.Repeat("[", 200_000),
		"deep {a:{a:":    "x = " + strings.Repeat("{a:", 200_000),
		"500k blocks":    strings.Repeat("{", 500_000) + strings.Repeat("}", 500_000),
		"expression (((": "",
	} {
		t.Run(name, func(t *testing.T) {
			params := map[string]any{"jsCode": code}
			typ := "n8n-nodes-base.code"
			if code == "" {
				params = map[string]any{"url": "={{ " + strings.Repeat("(", 1_000_000) + " }}"}
				typ = "n8n-nodes-base.httpRequest"
			}
			wf, _ := json.Marshal(map[string]any{"name": "abuse", "nodes": []any{map[string]any{"name": "n", "type": typ, "parameters": params}}})
			rec, out := do(srv, "POST", "/v1/workflows/validate", string(wf))
			nodes, _ := out["nodes"].([]any)
			if rec.Code != http.StatusOK || out["ok"] != false || len(nodes) != 1 {
				t.Fatalf("%d %.300v", rec.Code, out)
			}
			n := nodes[0].(map[string]any)
			if v := n["verdict"]; v != "too_deep" && v != "too_large" || n["ok"] != false {
				t.Fatalf("node %v", n)
			}
		})
	}
}

func TestAbuseValidateTimeBudget(t *testing.T) {
	srv, _ := newTestServer(t, Options{RequestLimits: RequestLimits{GateTimeout: 20 * time.Millisecond}})
	var nodes []any
	for i := 0; i < 40; i++ {
		nodes = append(nodes, map[string]any{"name": fmt.Sprint(i), "type": "n8n-nodes-base.code",
			"parameters": map[string]any{"jsCode": strings.Repeat("x = x + 1;\n", 20_000)}})
	}
	wf, _ := json.Marshal(map[string]any{"name": "abuse", "nodes": nodes})
	rec, out := do(srv, "POST", "/v1/workflows/validate", string(wf))
	if rec.Code != http.StatusOK || out["ok"] != false || !strings.Contains(fmt.Sprint(out["problems"]), "time budget ran out") {
		t.Fatalf("%d problems %v", rec.Code, out["problems"])
	}
}

func TestAbuseMetricsProtected(t *testing.T) {
	const token = "metrics-token-0123456789"
	const key = "api-key-0123456789abcdef"
	cases := []struct {
		name string
		opts Options
		hdr  []string
		want int
	}{
		{"open by default", Options{APIKeys: []string{key}}, nil, 200},
		{"token, none sent", Options{MetricsToken: token}, nil, 401},
		{"token, wrong", Options{MetricsToken: token}, []string{"Authorization", "Bearer nope"}, 401},
		{"token, right", Options{MetricsToken: token}, []string{"Authorization", "Bearer " + token}, 200},
		{"token, API key refused", Options{MetricsToken: token, APIKeys: []string{key}}, []string{"X-API-Key", key}, 401},
		{"auth, none sent", Options{MetricsAuth: true, APIKeys: []string{key}}, nil, 401},
		{"auth, key as bearer", Options{MetricsAuth: true, APIKeys: []string{key}}, []string{"Authorization", "bearer " + key}, 200},
		{"auth, X-API-Key", Options{MetricsAuth: true, APIKeys: []string{key}}, []string{"X-API-Key", key}, 200},
		{"auth, token too", Options{MetricsAuth: true, MetricsToken: token, APIKeys: []string{key}}, []string{"Authorization", "Bearer " + token}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newTestServer(t, tc.opts)
			rec, _ := do(srv, "GET", "/metrics", "", tc.hdr...)
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d", rec.Code, tc.want)
			}
			if tc.want == 200 && !strings.Contains(rec.Body.String(), "prscout_http_requests_total") {
				t.Errorf("no metrics in the answer")
			}
		})
	}
}

// webhookServer is a relay forwarding to forwardURL with signatures checked
// against sign.
func webhookServer(t *testing.T, forwardURL string, check func(string, []byte) error) *Server {
	srv, _ := newTestServer(t, Options{Webhook: &WebhookOptions{
		Verify: func(body []byte, sig string) error {
			if sig != sign(body) {
				return errors.New("mismatch")
			}
			return nil
		},
		Events:     []string{"pullrequest:created", "pullrequest:updated"},
		CheckEvent: check,
		ForwardURL: forwardURL,
		Forwarder: &n8n.Forwarder{Header: "X-Prscout-Token", Token: "n8n-secret-token",
			HTTPClient: &http.Client{Timeout: 5 * time.Second}},
	}})
	return srv
}

func sign(body []byte) string { return fmt.Sprintf("test-%d-%x", len(body), body[:min(len(body), 8)]) }

const hookBody = `{"actor":{},"pullrequest":{"id":42},"repository":{"full_name":"acme/app"}}`

func hookHeaders(body, event, uuid string) []string {
	return []string{"X-Hub-Signature", sign([]byte(body)), "X-Event-Key", event, "X-Request-UUID", uuid}
}

func TestAbuseWebhookNoRedirect(t *testing.T) {
	var stolen atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	defer elsewhere.Close()
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/steal", code)
		}))
		srv := webhookServer(t, n8n.URL, nil)
		rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", hookBody, hookHeaders(hookBody, "pullrequest:updated", fmt.Sprint("u", code))...)
		n8n.Close()
		if rec.Code != http.StatusBadGateway || !strings.Contains(fmt.Sprint(out["message"]), "redirects are not followed") {
			t.Errorf("redirect %d: %d %v", code, rec.Code, out)
		}
	}
	if n := stolen.Load(); n != 0 {
		t.Fatalf("the token and body went to another host %d times", n)
	}
}

func TestAbuseWebhookReplay(t *testing.T) {
	var got atomic.Int32
	var fail atomic.Bool
	n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		got.Add(1)
	}))
	defer n8n.Close()
	srv := webhookServer(t, n8n.URL, nil)
	post := func(body, uuid string) (int, string) {
		rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", body, hookHeaders(body, "pullrequest:updated", uuid)...)
		return rec.Code, fmt.Sprint(out["status"])
	}
	if code, status := post(hookBody, "uuid-1"); code != 202 || status != "forwarded" {
		t.Fatalf("first delivery: %d %s", code, status)
	}
	for _, uuid := range []string{"uuid-1", "uuid-2", ""} {
		if code, status := post(hookBody, uuid); code != 202 || status != "duplicate" {
			t.Errorf("replay with uuid %q: %d %s, want 202 duplicate", uuid, code, status)
		}
	}
	other := strings.Replace(hookBody, "42", "43", 1)
	if code, status := post(other, "uuid-1"); code != 202 || status != "duplicate" {
		t.Errorf("another body under a seen uuid: %d %s", code, status)
	}
	// A failed forward is not remembered: Bitbucket's retry goes through.
	fail.Store(true)
	if code, _ := post(other, "uuid-3"); code != http.StatusBadGateway {
		t.Fatalf("failed forward: %d", code)
	}
	fail.Store(false)
	if code, status := post(other, "uuid-3"); code != 202 || status != "forwarded" {
		t.Errorf("retry after a failed forward: %d %s", code, status)
	}
	if n := got.Load(); n != 2 {
		t.Errorf("n8n got %d deliveries, want 2", n)
	}
}

func TestAbuseWebhookEventMismatch(t *testing.T) {
	check := func(key string, body []byte) error {
		if strings.Contains(string(body), `"comment"`) {
			return errors.New("a " + key + " event has no \"comment\"")
		}
		return nil
	}
	srv := webhookServer(t, "", check)
	comment := `{"actor":{},"pullrequest":{"id":42},"repository":{"full_name":"acme/app"},"comment":{"id":1}}`
	rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", comment, hookHeaders(comment, "pullrequest:updated", "c1")...)
	if rec.Code != http.StatusBadRequest || out["error"] != "event_mismatch" || out["field"] != "X-Event-Key" {
		t.Fatalf("%d %v", rec.Code, out)
	}
	if rec, _ := do(srv, "POST", "/v1/webhooks/bitbucket", hookBody, hookHeaders(hookBody, "pullrequest:updated", "c2")...); rec.Code != http.StatusAccepted {
		t.Fatalf("a matching body: %d", rec.Code)
	}
}

func TestReplayGuardBounded(t *testing.T) {
	g := newReplayGuard(time.Hour, 100)
	now := time.Unix(0, 0)
	g.now = func() time.Time { return now }
	for i := 0; i < 10_000; i++ {
		if d, _ := g.reserve(fmt.Sprint("k", i)); d == nil {
			t.Fatalf("new key %d refused", i)
		}
		now = now.Add(time.Millisecond)
	}
	if len(g.seen) > 100 || len(g.order) > 300 {
		t.Errorf("guard holds %d keys and %d entries, bound 100", len(g.seen), len(g.order))
	}
	if d, _ := g.reserve("k9999"); d != nil {
		t.Error("a recent key was forgotten")
	}
	now = now.Add(2 * time.Hour)
	if d, _ := g.reserve("k9999"); d == nil {
		t.Error("a key older than the window is still refused")
	}
}

// TestWebhookRelayRedacts: the relayed event lands in n8n's execution data,
// so a secret in the pull request's description is redacted before the
// forward (and counted); an event without one is forwarded byte for byte;
// Bitbucket's signature, which the redacted body would no longer match, is
// not passed on.
func TestWebhookRelayRedacts(t *testing.T) {
	var bodies [][]byte
	var sigs []string
	n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, b)
		sigs = append(sigs, r.Header.Get("X-Hub-Signature"))
	}))
	defer n8n.Close()
	srv := webhookServer(t, n8n.URL, nil)
	token := "ghp_" + "9fQ2xLm7Tz4KpW8vR1cN6yH3bJ5dG0sEaUo7" // generated, never real
	secretBody := strings.Replace(hookBody, `"pullrequest":{`, `"pullrequest":{"description":"rotate `+token+` today",`, 1)
	if secretBody == hookBody {
		t.Fatal("the test body has no pullrequest object to add a description to")
	}
	for i, body := range []string{hookBody, secretBody} {
		rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", body, hookHeaders(body, "pullrequest:updated", fmt.Sprintf("uuid-r%d", i))...)
		if rec.Code != 202 || out["status"] != "forwarded" {
			t.Fatalf("delivery %d: %d %v", i, rec.Code, out)
		}
	}
	if len(bodies) != 2 {
		t.Fatalf("n8n got %d deliveries, want 2", len(bodies))
	}
	if string(bodies[0]) != hookBody {
		t.Errorf("an event without secrets was changed:\n%s", bodies[0])
	}
	if strings.Contains(string(bodies[1]), token) || !strings.Contains(string(bodies[1]), "[REDACTED:github_token]") {
		t.Errorf("forwarded body still holds the token or lacks the marker:\n%s", bodies[1])
	}
	var v map[string]any
	if err := json.Unmarshal(bodies[1], &v); err != nil || v["pullrequest"] == nil {
		t.Errorf("the redacted body is not the event any more: %v", err)
	}
	for _, s := range sigs {
		if s != "" {
			t.Errorf("Bitbucket's signature was forwarded: %q", s)
		}
	}
}
