package main

// The classes of the second hardening round that live outside the
// candidates engine and the comment writers: the webhook relay's limits and
// retries, the mirror's redirects, repository names and growth, and
// report-insights on a large SARIF log. Each prints what it cost: time,
// peak RSS, and what left the process.

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

// peakRSS samples a process's RSS every 20ms until stop is called, which
// returns the peak in MB.
func peakRSS(pid int) (stop func() int) {
	var peak atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			if kb := int64(rssKB(pid)); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() int { close(done); <-finished; return int(peak.Load() / 1024) }
}

// hookSender opens a webhook delivery declaring length bytes, sends the
// headers and 1 KB, then a byte every 200ms until the answer comes; it
// returns the status and when it came.
func hookSender(base string, length int, hdr map[string]string) (int, http.Header, time.Duration) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return 0, nil, 0
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "POST /v1/webhooks/bitbucket HTTP/1.1\r\nHost: abuse\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", length)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n{" + strings.Repeat(" ", 1023))
	start := time.Now()
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return 0, nil, time.Since(start)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(40 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, time.Since(start)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header, time.Since(start)
}

// webhookFlood: dozens of connections each declaring a body just under the
// relay's limit (and one just under the server's 32 MB limit) and
// trickling it: refused before the bodies are buffered, RSS flat.
func webhookFlood(srv *proc) {
	pid := srv.cmd.Process.Pid
	before := rssKB(pid) / 1024
	stop := peakRSS(pid)
	start := time.Now()
	type res struct {
		code int
		hdr  http.Header
		d    time.Duration
	}
	run := func(n, length int, hdr map[string]string) []res {
		out := make([]res, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := map[string]string{"X-Request-UUID": fmt.Sprint("flood-", i), "X-Event-Key": "pullrequest:updated"}
				for k, v := range hdr {
					h[k] = v
				}
				code, rh, d := hookSender(srv.base, length, h)
				out[i] = res{code, rh, d}
			}()
		}
		wg.Wait()
		return out
	}
	unsigned := run(64, 250_000, nil)
	huge := run(16, 32<<20-1024, map[string]string{"X-Hub-Signature": "sha256=" + strings.Repeat("0", 64)})
	forged := run(48, 250_000, map[string]string{"X-Hub-Signature": "sha256=" + strings.Repeat("0", 64)})
	d := time.Since(start)
	peak := stop()
	count := func(rs []res) (map[int]int, time.Duration) {
		c := map[int]int{}
		var slowest time.Duration
		for _, r := range rs {
			c[r.code]++
			slowest = max(slowest, r.d)
		}
		return c, slowest
	}
	cu, su := count(unsigned)
	ch, sh := count(huge)
	cf, sf := count(forged)
	retry := 0
	for _, r := range forged {
		if r.code == 429 && r.hdr.Get("Retry-After") != "" {
			retry++
		}
	}
	held := cu[401] == 64 && su < 2*time.Second && ch[413] == 16 && sh < 2*time.Second &&
		cf[429] >= 48-16 && cf[429]+cf[408] == 48 && retry == cf[429] && peak-before < 40 && srv.alive()
	report(held, "webhook-body-flood",
		"in %s: 64 unsigned senders of 250 KB %v (slowest %s); 16 declaring 32 MB %v (slowest %s); 48 forged-signature senders %v (slowest %s, %d with Retry-After); RSS %d MB before, peak %d MB",
		round(d), cu, round(su), ch, round(sh), cf, round(sf), retry, before, peak)
}

// webhookRetryInFlight: a retry of a delivery whose forward is still
// running is not acknowledged as a duplicate; once the forward succeeded
// it is, and n8n got the event once.
func webhookRetryInFlight(srv *proc, n8n *fakeN8N) {
	body := []byte(`{"actor":{},"pullrequest":{"id":11,"title":"slow-forward"},"repository":{"full_name":"acme/app"}}`)
	before := n8n.forwards.Load()
	start := time.Now()
	first := make(chan answer, 1)
	go func() { first <- hook(body, "pullrequest:updated", "uuid-slow-1") }()
	time.Sleep(300 * time.Millisecond)
	during := hook(body, "pullrequest:updated", "uuid-slow-1")
	a := <-first
	after := hook(body, "pullrequest:updated", "uuid-slow-1")
	got := n8n.forwards.Load() - before
	held := during.code == 409 && during.hdr.Get("Retry-After") != "" && a.code == 202 && after.code == 202 &&
		after.json()["status"] == "duplicate" && got == 1
	report(held, "webhook-retry-in-flight", "in %s: n8n takes 7s; a retry during the forward: %s %v Retry-After=%q; the first: %s %v; a retry after it: %s %v; n8n got %d",
		round(time.Since(start)), during, during.json()["error"], during.hdr.Get("Retry-After"), a, a.json()["status"], after, after.json()["status"], got)
}

// sarifRules: report-insights on a SARIF log of 50,000 rules and 50,000
// results naming their rule by id only.
func sarifRules(bin, work string) {
	type rule struct {
		ID                   string            `json:"id"`
		DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	}
	const n = 50_000
	rules := make([]rule, n)
	results := make([]map[string]any, n)
	for i := range n {
		rules[i] = rule{ID: fmt.Sprint("rule-", i), DefaultConfiguration: map[string]string{"level": "note"}}
		results[i] = map[string]any{"ruleId": fmt.Sprint("rule-", n-1-i%10), "message": map[string]string{"text": fmt.Sprint("result ", i)}}
	}
	log := map[string]any{"version": "2.1.0", "runs": []any{map[string]any{"tool": map[string]any{"driver": map[string]any{"name": "abuse", "rules": rules}}, "results": results}}}
	path := filepath.Join(work, "big.sarif")
	data, _ := json.Marshal(log)
	must(os.WriteFile(path, data, 0o644))
	fake := bitbuckettest.NewServer()
	defer fake.Close()
	fake.AddCommit("acme", "app", strings.Repeat("a", 40))
	cmd := exec.Command(bin, "report-insights", "--sarif", path, "--workspace", "acme", "--repo-slug", "app", "--commit", strings.Repeat("a", 40))
	cmd.Env = append(os.Environ(), "PRSCOUT_BITBUCKET_BASE_URL="+fake.BaseURL, "PRSCOUT_BITBUCKET_ACCESS_TOKEN=abuse-token", "BITBUCKET_COMMIT=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	maxRSS := 0
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSS = int(ru.Maxrss / 1024)
	}
	report(err == nil && d < 10*time.Second, "sarif-rules-per-result", "report-insights on %d rules x %d results (%d MB of SARIF): %s, peak RSS %d MB, %d request(s) to Bitbucket (%v); %.160s",
		n, n, len(data)>>20, round(d), maxRSS, len(fake.Requests()), err, lines[len(lines)-1])
}

// ---- the mirror: a second prscout with the Bitbucket provider ----

const bbToken = "abuse-bitbucket-token-0123456789"

// bbServer starts prscout with the Bitbucket provider on fake and the
// mirror in dir; gitURL is PRSCOUT_MIRROR_GIT_URL ("" derives it).
func bbServer(bin string, fake *bitbuckettest.Server, dir, gitURL string, env ...string) *proc {
	addr := freeAddr()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"PRSCOUT_ADDR="+addr, "PRSCOUT_LOG_LEVEL=error", "PRSCOUT_API_KEYS="+apiKey, "PRSCOUT_METRICS_TOKEN="+metricsToken,
		"PRSCOUT_BITBUCKET_BASE_URL="+fake.BaseURL, "PRSCOUT_BITBUCKET_ACCESS_TOKEN="+bbToken, "PRSCOUT_MIRROR_DIR="+dir)
	if gitURL != "" {
		cmd.Env = append(cmd.Env, "PRSCOUT_MIRROR_GIT_URL="+gitURL)
	}
	cmd.Env = append(cmd.Env, env...)
	logs := &bytes2{}
	cmd.Stdout, cmd.Stderr = logs, logs
	must(cmd.Start())
	p := &proc{cmd: cmd, base: "http://" + addr}
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	must(fmt.Errorf("prscout (Bitbucket) did not start:\n%s", logs.String()))
	return nil
}

// bytes2 is a goroutine-safe log buffer.
type bytes2 struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *bytes2) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *bytes2) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// labelled reads one labelled sample (name{label="value"}) from /metrics.
func (p *proc) labelled(name, label string) float64 {
	req, _ := http.NewRequest("GET", p.base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	resp, err := client.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+"{"+label+"} "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// callOn sends one request with the API key to p.
func callOn(p *proc, method, path string, v any) answer {
	saved := srvBase
	srvBase = p.base
	defer func() { srvBase = saved }()
	return post(path, v, 30*time.Second)
}

// waitMetric waits up to d for f() to reach at least want.
func waitMetric(d time.Duration, want float64, f func() float64) float64 {
	deadline := time.Now().Add(d)
	v := f()
	for v < want && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		v = f()
	}
	return v
}

// mirrorClasses runs the mirror's classes against prscout with the
// Bitbucket provider on a fake Bitbucket serving fx's repository over git.
func mirrorClasses(bin, work string, fx fixture) {
	fake := bitbuckettest.NewServer()
	defer fake.Close()
	fake.RequireBearer(bbToken)
	gitDir := filepath.Join(fx.dir, ".git")
	for _, slug := range []string{"app", "app2"} {
		must(fake.ServeGit("acme", slug, gitDir))
		fake.SetBranch("acme", slug, "main", fx.mainSHA)
		fake.SetBranch("acme", slug, "huge", fx.hugeSHA)
		fake.AddPullRequest("acme", slug, bitbuckettest.PullRequest{ID: 1, Title: "huge", SourceBranch: "huge", DestinationBranch: "main", SourceCommit: fx.hugeSHA, DestinationCommit: fx.mainSHA})
	}

	// Redirects: the git URL answers 302 to a host recording credentials,
	// which serves the repository without asking for any (so a git that
	// follows the redirect goes on talking to it).
	var thiefAll, thiefCreds atomic.Int32
	open := bitbuckettest.NewServer()
	defer open.Close()
	must(open.ServeGit("acme", "app", gitDir))
	target, _ := url.Parse(open.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		thiefAll.Add(1)
		if r.Header.Get("Authorization") != "" {
			thiefCreds.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer thief.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, thief.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer redirector.Close()
	red := bbServer(bin, fake, filepath.Join(work, "mirror-redirect"), redirector.URL)
	start := time.Now()
	a := callOn(red, "POST", "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "prId": 1})
	failed := waitMetric(20*time.Second, 1, func() float64 { return red.labelled("prscout_mirror_fetches_total", `outcome="failed"`) })
	report(failed >= 1 && thiefCreds.Load() == 0 && red.alive(), "mirror-redirect",
		"git URL answers 302 to another host: context %s, fetch failed %v time(s) in %s; requests that reached the other host: %d, with a credential: %d",
		a, failed, round(time.Since(start)), thiefAll.Load(), thiefCreds.Load())

	// Repository names that would leave the mirror's directory: a
	// repository next to it (work/victim is Dir/../victim) holding the
	// fixture's commits, asked for by an abbreviated id (which the mirror
	// resolves itself).
	victim := filepath.Join(work, "victim")
	git(work, "clone", "-q", "--bare", fx.dir, victim)
	bad := 0
	var got []string
	leaked := false
	for _, r := range [][2]string{{"..", "victim"}, {"acme", "../../victim"}, {"acme", "/etc"}, {"acme/..", "victim"}} {
		a := callOn(red, "POST", "/v1/repository/batch", map[string]any{"workspace": r[0], "repoSlug": r[1], "ref": fx.mainSHA[:12],
			"requests": []map[string]any{{"op": "get_file", "path": "HEAD"}}})
		var out struct {
			Results []struct {
				OK     bool   `json:"ok"`
				Error  string `json:"error"`
				Reason string `json:"reason"`
			} `json:"results"`
		}
		_ = json.Unmarshal(a.body, &out)
		what := fmt.Sprint(a.code)
		if len(out.Results) == 1 {
			what = fmt.Sprintf("%d, result %q (%s)", a.code, out.Results[0].Error, out.Results[0].Reason)
		}
		got = append(got, r[0]+" "+r[1]+": "+what)
		leaked = leaked || strings.Contains(string(a.body), "refs/heads")
		if a.code == 400 || (len(out.Results) == 1 && !out.Results[0].OK && out.Results[0].Reason == "invalid_repo") {
			bad++
		}
	}
	ctx := callOn(red, "POST", "/v1/context", map[string]any{"workspace": "..", "repoSlug": "victim", "base": fx.mainSHA, "head": fx.featureSHA})
	got = append(got, fmt.Sprintf("context on ../victim: %d field %v", ctx.code, ctx.json()["field"]))
	if ctx.code/100 == 4 {
		bad++
	}
	red.stop()
	report(bad == 5 && !leaked, "mirror-repo-name-escape", "batch reads naming a repository outside the mirror: %s; the other repository's files served: %v", strings.Join(got, "; "), leaked)

	// Growth: a pull request adding a 40 MB file, with a quota for one
	// repository.
	dir := filepath.Join(work, "mirror-growth")
	grow := bbServer(bin, fake, dir, "", "PRSCOUT_MIRROR_MAX_BYTES=48KiB")
	pid := grow.cmd.Process.Pid
	stop := peakRSS(pid)
	start = time.Now()
	callOn(grow, "POST", "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "prId": 1})
	ok1 := waitMetric(60*time.Second, 1, func() float64 { return grow.labelled("prscout_mirror_fetches_total", `outcome="ok"`) })
	size1 := dirBytes(dir)
	callOn(grow, "POST", "/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app2", "prId": 1})
	ok2 := waitMetric(60*time.Second, 2, func() float64 { return grow.labelled("prscout_mirror_fetches_total", `outcome="ok"`) })
	evicted := waitMetric(5*time.Second, 1, func() float64 { return grow.metric("prscout_mirror_evictions_total") })
	gauge := grow.metric("prscout_mirror_bytes")
	d := time.Since(start)
	peak := stop()
	size2 := dirBytes(dir)
	_, appGone := os.Stat(filepath.Join(dir, "acme", "app"))
	held := ok1 >= 1 && ok2 >= 2 && size1 < 5<<20 && size2 < 5<<20 && evicted >= 1 && os.IsNotExist(appGone) && gauge > 0 && grow.alive()
	report(held, "mirror-growth", "in %s: PR adding a %d MB file: mirror %d KB after the fetch (blob left out); a second repository over a 48 KiB quota: %.0f removed, directory %d KB, prscout_mirror_bytes %.0f; peak RSS %d MB",
		round(d), hugeBytes>>20, size1>>10, evicted, size2>>10, gauge, peak)
	grow.stop()
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// hugeBytes is the size of the file the huge branch adds.
const hugeBytes = 40 << 20

// addHugeBranch commits a branch adding one large random file.
func addHugeBranch(fx *fixture) {
	git(fx.dir, "checkout", "-q", "-b", "huge", fx.mainSHA)
	f, err := os.Create(filepath.Join(fx.dir, "assets", "model.bin"))
	if err != nil {
		must(os.MkdirAll(filepath.Join(fx.dir, "assets"), 0o755))
		f, err = os.Create(filepath.Join(fx.dir, "assets", "model.bin"))
		must(err)
	}
	_, err = io.CopyN(f, rand.Reader, hugeBytes)
	must(err)
	must(f.Close())
	write(filepath.Join(fx.dir, "assets", "README.md"), "the model\n")
	git(fx.dir, "add", "-A")
	git(fx.dir, "commit", "-q", "-m", "huge")
	fx.hugeSHA = git(fx.dir, "rev-parse", "HEAD")
	git(fx.dir, "checkout", "-q", "feature")
}
