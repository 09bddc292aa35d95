package api

import (
	"bufio"
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

	n8nadapter "github.com/prscout/prscout/n8n"
)

// countingListener counts the bytes the server read from its connections:
// what a sender made it buffer.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.read}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// relayOnNetwork serves a webhook relay (acknowledge only) on a loopback
// port behind a counting listener.
func relayOnNetwork(t *testing.T, wo *WebhookOptions, readTimeout time.Duration) (*Server, string, *countingListener) {
	t.Helper()
	wo.Verify = func(body []byte, sig string) error {
		if sig != sign(body) {
			return errors.New("mismatch")
		}
		return nil
	}
	wo.Events = []string{"pullrequest:created", "pullrequest:updated"}
	srv, _ := newTestServer(t, Options{Webhook: wo, RequestLimits: RequestLimits{ReadTimeout: readTimeout}})
	ts := httptest.NewUnstartedServer(srv)
	cl := &countingListener{Listener: ts.Listener}
	ts.Listener = cl
	ts.Start()
	t.Cleanup(ts.Close)
	return srv, ts.Listener.Addr().String(), cl
}

// slowSender opens a delivery declaring length bytes, sends the headers
// and the first kilobyte, then a byte every 100ms until the answer comes
// or stop is closed. It returns the status and how long the answer took.
func slowSender(addr string, length int, hdr map[string]string, stop <-chan struct{}) (int, http.Header, time.Duration, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, nil, 0, err
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "POST /v1/webhooks/bitbucket HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", length)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n{" + strings.Repeat(" ", 1023))
	start := time.Now()
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return 0, nil, 0, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, time.Since(start), err
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header, time.Since(start), nil
}

// TestWebhookRefusesSlowSendersBeforeBuffering: dozens of concurrent
// senders each declaring a body just under the relay's limit and trickling
// it are refused before their bodies are read: unsigned ones at once
// (401), signed-looking ones past the delivery cap at once (429 with
// Retry-After), the ones holding a slot when the relay's read timeout cuts
// them; a declared body over the limit gets 413 unread. What the server
// read in all is bounded by the slots times the limit, not by the senders
// times the body; and once they are gone a real delivery goes through.
func TestWebhookRefusesSlowSendersBeforeBuffering(t *testing.T) {
	const slots, limit = 4, 64 << 10
	_, addr, cl := relayOnNetwork(t, &WebhookOptions{MaxBodyBytes: limit, MaxInflight: slots}, 1500*time.Millisecond)
	stop := make(chan struct{})
	defer close(stop)

	type result struct {
		code int
		hdr  http.Header
		d    time.Duration
		err  error
	}
	run := func(n int, hdr map[string]string) []result {
		out := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := map[string]string{"X-Request-UUID": fmt.Sprint("slow-", i)}
				for k, v := range hdr {
					h[k] = v
				}
				code, rh, d, err := slowSender(addr, limit-10, h, stop)
				out[i] = result{code, rh, d, err}
			}()
		}
		wg.Wait()
		return out
	}

	const unsigned = 64
	for i, r := range run(unsigned, map[string]string{"X-Event-Key": "pullrequest:updated"}) {
		if r.err != nil || r.code != http.StatusUnauthorized || r.d > time.Second {
			t.Errorf("unsigned sender %d: %d after %s (%v), want 401 at once", i, r.code, r.d, r.err)
		}
	}
	t.Logf("%d unsigned slow senders: the server read %d bytes", unsigned, cl.read.Load())
	if got := cl.read.Load(); got > unsigned*8<<10 {
		t.Errorf("the server read %d bytes from %d unsigned senders, want at most %d", got, unsigned, unsigned*8<<10)
	}
	if res := run(4, map[string]string{"X-Hub-Signature": "sha256=00"}); res[0].code != http.StatusBadRequest {
		t.Errorf("no event key: %d, want 400 before the body", res[0].code)
	}

	before := cl.read.Load()
	const signed = 32
	counts := map[int]int{}
	for i, r := range run(signed, map[string]string{"X-Event-Key": "pullrequest:updated", "X-Hub-Signature": "sha256=forged"}) {
		counts[r.code]++
		switch r.code {
		case http.StatusTooManyRequests:
			if r.d > time.Second || r.hdr.Get("Retry-After") == "" {
				t.Errorf("sender %d: 429 after %s, Retry-After %q", i, r.d, r.hdr.Get("Retry-After"))
			}
		case http.StatusRequestTimeout:
			if r.d > 5*time.Second {
				t.Errorf("sender %d held its slot %s", i, r.d)
			}
		default:
			t.Errorf("sender %d: %d (%v), want 429 or a 408 from the read timeout", i, r.code, r.err)
		}
	}
	if counts[http.StatusRequestTimeout] > slots || counts[http.StatusTooManyRequests] < signed-slots {
		t.Errorf("answers %v: at most %d senders may hold a slot", counts, slots)
	}
	t.Logf("%d signed-looking slow senders: answers %v, the server read %d bytes", signed, counts, cl.read.Load()-before)
	if got, bound := cl.read.Load()-before, int64(slots*limit+signed*8<<10); got > bound {
		t.Errorf("the server read %d bytes from %d signed slow senders, want at most %d", got, signed, bound)
	}

	before = cl.read.Load()
	code, _, d, err := slowSender(addr, 10<<20, map[string]string{"X-Event-Key": "pullrequest:updated", "X-Hub-Signature": "sha256=x"}, stop)
	if code != http.StatusRequestEntityTooLarge || d > time.Second || err != nil {
		t.Errorf("a declared 10 MB body: %d after %s (%v), want 413 at once", code, d, err)
	}
	if got := cl.read.Load() - before; got > 8<<10 {
		t.Errorf("the server read %d bytes of a body it refused by its length", got)
	}

	// Every slot is free again: a real delivery is accepted.
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/webhooks/bitbucket", strings.NewReader(hookBody))
	for i, h := 0, hookHeaders(hookBody, "pullrequest:updated", "real"); i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("a real delivery after the flood: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestWebhookChunkedBodyOverLimit: a body without a declared length is
// cut at the relay's limit (413), not at the server's.
func TestWebhookChunkedBodyOverLimit(t *testing.T) {
	srv, _ := newTestServer(t, Options{Webhook: &WebhookOptions{
		Verify: func([]byte, string) error { return nil },
		Events: []string{"pullrequest:updated"}, MaxBodyBytes: 1 << 10,
	}})
	req := httptest.NewRequest("POST", "/v1/webhooks/bitbucket", io.MultiReader(strings.NewReader(`{"a":"`), strings.NewReader(strings.Repeat("x", 4<<10)), strings.NewReader(`"}`)))
	req.ContentLength = -1
	req.Header.Set("X-Event-Key", "pullrequest:updated")
	req.Header.Set("X-Hub-Signature", "sha256=whatever")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "PRSCOUT_WEBHOOK_MAX_BODY_BYTES") {
		t.Errorf("a 4 KiB chunked body over a 1 KiB limit: %d %s", rec.Code, rec.Body)
	}
}

// TestWebhookRetryDuringSlowForward: a copy of a delivery arriving while
// the first is still being forwarded is not answered "duplicate": it waits
// for the first; forwarded, it is a duplicate; failed, it is forwarded
// itself (the event is not lost); still running past the wait, it is
// answered 409 with Retry-After, and a retry after the first succeeded is
// a duplicate.
//
// It runs in a synctest bubble with n8n in memory: each forward reports
// its arrival and then holds until the test names its status, and
// synctest.Wait returns once every copy is parked (in n8n, or waiting on
// the first copy in awaitDelivery). The relay's wait passes on the fake
// clock, only when nothing else can run.
func TestWebhookRetryDuringSlowForward(t *testing.T) {
	synctest.Test(t, testWebhookRetryDuringSlowForward)
}

func testWebhookRetryDuringSlowForward(t *testing.T) {
	var got atomic.Int32
	arrived := make(chan string, 8) // X-Request-UUID of each forward n8n receives
	release := make(chan int, 8)    // status n8n answers the next forward with
	n8n := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.Header.Get("X-Request-UUID")
		code, ok := <-release
		if !ok {
			code = http.StatusServiceUnavailable // the test ended early
		}
		if code < 300 {
			got.Add(1)
		}
		w.WriteHeader(code)
	})
	// A test that stops early lets the forwards it holds end, so the
	// bubble's goroutines exit and only its own failure is reported.
	t.Cleanup(func() { close(release) })
	srv := webhookServer(t, "http://n8n/webhook/prscout", nil)
	srv.opts.Webhook.Forwarder = &n8nadapter.Forwarder{Header: "X-Prscout-Token", Token: "n8n-secret-token",
		HTTPClient: &http.Client{Transport: handlerTransport{n8n}}}
	post := func(uuid string) (int, map[string]any, http.Header) {
		rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", hookBody, hookHeaders(hookBody, "pullrequest:updated", uuid)...)
		return rec.Code, out, rec.Header()
	}
	type answer struct {
		code   int
		status string
	}
	pending := func(what string, ch <-chan answer) {
		t.Helper()
		synctest.Wait()
		select {
		case a := <-ch:
			t.Fatalf("%s answered %v while the first forward runs, want it to wait", what, a)
		default:
		}
	}
	// forwardOf checks that the copies in flight got exactly as far as one
	// forward to n8n, of delivery id.
	forwardOf := func(id, what string) {
		t.Helper()
		synctest.Wait()
		select {
		case got := <-arrived:
			if got != id {
				t.Fatalf("n8n got a forward of %q, want %s (%q)", got, what, id)
			}
		default:
			t.Fatalf("n8n got no forward, want %s (%q)", what, id)
		}
		select {
		case got := <-arrived:
			t.Fatalf("n8n got a second forward (of %q) with %s", got, what)
		default:
		}
	}
	first := make(chan answer, 1)
	go func() { code, out, _ := post("uuid-slow"); first <- answer{code, fmt.Sprint(out["status"])} }()
	forwardOf("uuid-slow", "the first delivery")

	// Still running past the wait: 409 with Retry-After, after the wait.
	start := time.Now()
	code, out, hdr := post("uuid-slow")
	if code != http.StatusConflict || out["error"] != "in_flight" || hdr.Get("Retry-After") == "" {
		t.Errorf("a retry while the forward runs: %d %v Retry-After %q, want 409 in_flight", code, out, hdr.Get("Retry-After"))
	}
	if waited := time.Since(start); waited != webhookWait {
		t.Errorf("the retry was answered after %v, want the relay's wait %v", waited, webhookWait)
	}

	// The first fails while the retry waits: the retry forwards it itself.
	retry := make(chan answer, 1)
	go func() { code, out, _ := post("uuid-slow"); retry <- answer{code, fmt.Sprint(out["status"])} }()
	pending("a retry", retry)
	release <- http.StatusServiceUnavailable // the first forward
	if a := <-first; a.code != http.StatusBadGateway {
		t.Errorf("the first delivery: %v, want 502", a)
	}
	forwardOf("uuid-slow", "the retry's own forward")
	release <- http.StatusOK // the retry's own forward
	if a := <-retry; a.code != http.StatusAccepted || a.status != "forwarded" {
		t.Errorf("the retry after the first failed: %v, want 202 forwarded", a)
	}

	// Forwarded now: a later copy is a duplicate.
	if code, out, _ := post("uuid-slow"); code != http.StatusAccepted || out["status"] != "duplicate" {
		t.Errorf("a copy after the forward succeeded: %d %v", code, out)
	}

	// A copy that waits for a first forward which then succeeds: duplicate.
	other := strings.Replace(hookBody, "42", "44", 1)
	postOther := func(uuid string) answer {
		rec, out := do(srv, "POST", "/v1/webhooks/bitbucket", other, hookHeaders(other, "pullrequest:updated", uuid)...)
		return answer{rec.Code, fmt.Sprint(out["status"])}
	}
	a1, a2 := make(chan answer, 1), make(chan answer, 1)
	go func() { a1 <- postOther("uuid-b") }()
	forwardOf("uuid-b", "the other event's first copy")
	go func() { a2 <- postOther("uuid-b") }()
	pending("a second copy", a2)
	release <- http.StatusOK
	if a := <-a1; a.code != http.StatusAccepted || a.status != "forwarded" {
		t.Errorf("first copy: %v", a)
	}
	if a := <-a2; a.code != http.StatusAccepted || a.status != "duplicate" {
		t.Errorf("a copy that waited for a successful forward: %v, want 202 duplicate", a)
	}
	if n := got.Load(); n != 2 {
		t.Errorf("n8n took %d events, want 2 (one per event)", n)
	}
}

// handlerTransport serves a client's requests with h in memory: no
// connection, so a handler blocked on a channel is durably blocked in a
// synctest bubble.
type handlerTransport struct{ h http.Handler }

func (tr handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	tr.h.ServeHTTP(rec, r)
	if r.Body != nil {
		r.Body.Close()
	}
	return rec.Result(), nil
}
