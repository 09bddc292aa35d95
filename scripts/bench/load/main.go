// Command load is prscout's load test, on loopback only. It builds a git
// repository fixture, starts the prscout binary (-bin) on the local git
// provider and, for each stage in turn, runs -c concurrent clients for -d
// with one fixed payload (its size is printed). It prints requests/s, p50
// and p99 per stage, prscout's peak RSS under load, goroutines before and
// after, and then proves graceful shutdown: a second prscout in front of a
// slow fake Bitbucket gets SIGTERM while -inflight batch requests run, and
// every one of them must still get its complete answer.
//
//	go run ./scripts/bench/load -bin ./prscout [-c 8] [-d 5s]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

func main() {
	bin := flag.String("bin", "", "prscout binary (required)")
	conc := flag.Int("c", 8, "concurrent clients per stage")
	dur := flag.Duration("d", 5*time.Second, "load duration per stage")
	inflight := flag.Int("inflight", 20, "requests in flight at SIGTERM in the shutdown check")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "load: -bin is required")
		os.Exit(2)
	}
	ok := run(*bin, *conc, *dur) && shutdownCheck(*bin, *inflight)
	if !ok {
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func git(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=load", "GIT_AUTHOR_EMAIL=load@example.invalid",
		"GIT_COMMITTER_NAME=load", "GIT_COMMITTER_EMAIL=load@example.invalid", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		must(fmt.Errorf("git %v: %v\n%s", args, err, out))
	}
	return strings.TrimSpace(string(out))
}

// fixture is a repository whose feature branch changes 20 Go files of 300
// lines (a few lines each) and adds 2: a typical mid-size pull request.
func fixture(dir string) {
	git(dir, "init", "-q", "-b", "main")
	write := func(p, s string) {
		must(os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		must(os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	src := func(pkg string, n, changed int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\n", pkg)
		for i := 1; i <= n; i++ {
			if changed > 0 && i%60 == 0 {
				fmt.Fprintf(&b, "func F%d(x int) int { return x * %d } // changed\n", i, i+changed)
			} else {
				fmt.Fprintf(&b, "func F%d(x int) int { return x + %d }\n", i, i)
			}
		}
		return b.String()
	}
	for i := 0; i < 20; i++ {
		write(fmt.Sprintf("pkg/p%02d/code.go", i), src(fmt.Sprintf("p%02d", i), 300, 0))
		write(fmt.Sprintf("pkg/p%02d/types.go", i), src(fmt.Sprintf("p%02d", i), 100, 0))
	}
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "base")
	git(dir, "checkout", "-q", "-b", "feature")
	for i := 0; i < 20; i++ {
		write(fmt.Sprintf("pkg/p%02d/code.go", i), src(fmt.Sprintf("p%02d", i), 300, 1))
	}
	write("pkg/new/a.go", src("new", 50, 0))
	write("pkg/new/b.go", src("new", 50, 0))
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "feature")
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	defer ln.Close()
	return ln.Addr().String()
}

type proc struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
}

func start(bin string, env ...string) *proc {
	addr := freeAddr()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append([]string{"PRSCOUT_ADDR=" + addr, "PRSCOUT_LOG_LEVEL=warn"}, env...)...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	must(cmd.Start())
	p := &proc{cmd: cmd, base: "http://" + addr, logs: logs}
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	must(fmt.Errorf("prscout did not start:\n%s", logs))
	return nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// rssKB reads a field (VmRSS, VmHWM) of /proc/<pid>/status in KiB.
func rssKB(pid int, field string) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return -1
}

// metric reads one unlabelled sample from /metrics.
func (p *proc) metric(name string) float64 {
	resp, err := http.Get(p.base + "/metrics")
	must(err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}, Timeout: 60 * time.Second}

func post(base, path string, body []byte) (int, []byte, error) {
	resp, err := client.Post(base+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

func mustPost(base, path string, body any) []byte {
	data, err := json.Marshal(body)
	must(err)
	code, raw, err := post(base, path, data)
	must(err)
	if code != 200 {
		must(fmt.Errorf("%s: %d %.300s", path, code, raw))
	}
	return raw
}

type stage struct {
	path string
	body []byte
	note string
}

// payloads runs the flow once, as n8n would, to get each stage's input.
func payloads(base, head string) []stage {
	ctxIn := map[string]any{"workspace": "acme", "repoSlug": "app", "base": "main", "head": "feature", "title": "load"}
	ctxRaw := mustPost(base, "/v1/context", ctxIn)
	var ctx map[string]any
	must(json.Unmarshal(ctxRaw, &ctx))
	var scout strings.Builder
	scout.WriteString(`{"files":[`)
	for i := 0; i < 6; i++ {
		if i > 0 {
			scout.WriteString(",")
		}
		fmt.Fprintf(&scout, `{"path":"pkg/p%02d/code.go","needs":[{"op":"get_file","path":"pkg/p%02d/types.go"},{"op":"list_dir","path":"pkg/p%02d"},{"op":"get_file","path":"../../etc/passwd"}]}`, i, i, i)
	}
	scout.WriteString("]}")
	needsIn := map[string]any{"workspace": "acme", "repoSlug": "app", "ref": head, "files": ctx["files"], "scout": scout.String()}
	needsRaw := mustPost(base, "/v1/needs", needsIn)
	batchRaw := mustPost(base, "/v1/repository/batch", json.RawMessage(needsRaw))
	var batch map[string]any
	must(json.Unmarshal(batchRaw, &batch))
	mergeIn := map[string]any{"context": json.RawMessage(ctxRaw), "results": batch["results"]}
	mergeRaw := mustPost(base, "/v1/merge", mergeIn)
	var merged map[string]any
	must(json.Unmarshal(mergeRaw, &merged))
	var review strings.Builder
	review.WriteString(`{"summary":"Multiplications replace additions in 20 packages.","findings":[`)
	for i := 0; i < 10; i++ {
		if i > 0 {
			review.WriteString(",")
		}
		fmt.Fprintf(&review, `{"path":"pkg/p%02d/code.go","line":60,"existingCode":"func F60(x int) int { return x * 61 } // changed","severity":"medium","title":"behaviour change %d","body":"F60 now multiplies."}`, i, i)
	}
	review.WriteString("]}")
	comIn := map[string]any{"review": review.String(), "dryRun": true}
	for _, k := range []string{"workspace", "repoSlug", "ref", "files"} {
		comIn[k] = merged[k]
	}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		must(err)
		return b
	}
	export, err := os.ReadFile("cmd/prscout/testdata/validate/good/review.json")
	must(err)
	nFiles := len(ctx["files"].([]any))
	return []stage{
		{"/v1/context", enc(ctxIn), fmt.Sprintf("base..head of %d changed Go files (300 lines each); answer %d KiB", nFiles, len(ctxRaw)>>10)},
		{"/v1/needs", enc(needsIn), "scout answer: 6 files x 3 needs (one parent escape each)"},
		{"/v1/repository/batch", needsRaw, fmt.Sprintf("%d lookups (get_file + list_dir), warm per-replica cache", len(batch["results"].([]any)))},
		{"/v1/merge", enc(mergeIn), fmt.Sprintf("context + %d results; review prompt %d KiB", len(batch["results"].([]any)), len(mergeRaw)>>10)},
		{"/v1/comments", enc(comIn), "10 findings to anchor and render, dryRun"},
		{"/v1/workflows/validate", export, "2-node workflow export (1 Code node)"},
	}
}

type result struct {
	n, errs int
	lat     []time.Duration
	elapsed time.Duration
}

func hammer(base string, st stage, conc int, d time.Duration) result {
	var mu sync.Mutex
	var res result
	var stop atomic.Bool
	var wg sync.WaitGroup
	begin := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			errs := 0
			for !stop.Load() {
				t := time.Now()
				code, _, err := post(base, st.path, st.body)
				lat = append(lat, time.Since(t))
				if err != nil || code != 200 {
					errs++
				}
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			res.errs += errs
			mu.Unlock()
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	res.elapsed = time.Since(begin)
	res.n = len(res.lat)
	sort.Slice(res.lat, func(i, j int) bool { return res.lat[i] < res.lat[j] })
	return res
}

func pct(l []time.Duration, p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	i := int(float64(len(l))*p+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(l) {
		i = len(l) - 1
	}
	return l[i]
}

func run(bin string, conc int, d time.Duration) bool {
	dir, err := os.MkdirTemp("", "prscout-load-")
	must(err)
	defer os.RemoveAll(dir)
	fixture(dir)
	head := git(dir, "rev-parse", "feature")
	p := start(bin, "PRSCOUT_LOCAL_ROOT="+dir)
	defer p.stop()
	pid := p.cmd.Process.Pid

	stages := payloads(p.base, head)
	// Warm up each stage briefly so "before" counts steady-state goroutines
	// (idle keep-alive connections included).
	for _, st := range stages {
		hammer(p.base, st, conc, 200*time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	gBefore := p.metric("go_goroutines")
	rssIdle := rssKB(pid, "VmRSS")

	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := int64(rssKB(pid, "VmRSS")); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()

	fmt.Printf("prscout load test: %d concurrent clients x %s per stage, loopback, local git provider, %d host cores (shared)\n", conc, d, numCPU())
	fmt.Printf("%-24s %8s %9s %9s %9s %9s %6s  %s\n", "stage", "req_KiB", "requests", "req/s", "p50_ms", "p99_ms", "errors", "payload")
	okAll := true
	for _, st := range stages {
		r := hammer(p.base, st, conc, d)
		fmt.Printf("%-24s %8.1f %9d %9.1f %9.2f %9.2f %6d  %s\n", st.path, float64(len(st.body))/1024, r.n,
			float64(r.n)/r.elapsed.Seconds(), ms(pct(r.lat, .5)), ms(pct(r.lat, .99)), r.errs, st.note)
		if r.errs > 0 {
			okAll = false
		}
	}
	close(done)
	client.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	gAfter := p.metric("go_goroutines")
	inflight := p.metric("prscout_http_requests_in_flight")
	fmt.Printf("memory: RSS idle %.1f MiB, peak under load %.1f MiB (VmHWM %.1f MiB)\n", float64(rssIdle)/1024, float64(peak.Load())/1024, float64(rssKB(pid, "VmHWM"))/1024)
	fmt.Printf("goroutines: %.0f before load, %.0f two seconds after (client connections closed); in flight after: %.0f (the /metrics request itself)\n", gBefore, gAfter, inflight)
	if gAfter > gBefore {
		fmt.Println("FAIL: goroutines grew")
		okAll = false
	}
	return okAll
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// shutdownCheck: n batch requests are in flight against a fake Bitbucket
// that answers source requests after 1s when prscout gets SIGTERM; each
// must still receive its complete 200 answer, and prscout must exit 0.
func shutdownCheck(bin string, n int) bool {
	fake := bitbuckettest.NewServer()
	defer fake.Close()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	fake.AddCommit("acme", "app", commit)
	for i := 0; i < n; i++ {
		fake.SetFile("acme", "app", commit, fmt.Sprintf("f%d.go", i), []byte(fmt.Sprintf("package f\n\nconst N = %d\n", i)))
	}
	fake.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Delay: time.Second, Times: 1 << 30})
	p := start(bin, "PRSCOUT_BITBUCKET_BASE_URL="+fake.BaseURL, "PRSCOUT_BITBUCKET_ACCESS_TOKEN=fake", "PRSCOUT_SHUTDOWN_TIMEOUT=30s")

	type answer struct {
		code int
		ok   bool
		err  error
	}
	answers := make(chan answer, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			body := fmt.Sprintf(`{"workspace":"acme","repoSlug":"app","ref":%q,"requests":[{"op":"get_file","path":"f%d.go"}]}`, commit, i)
			code, raw, err := post(p.base, "/v1/repository/batch", []byte(body))
			var out struct {
				Results []struct {
					OK      bool   `json:"ok"`
					Content string `json:"content"`
				} `json:"results"`
			}
			ok := err == nil && json.Unmarshal(raw, &out) == nil && len(out.Results) == 1 && out.Results[0].OK &&
				strings.Contains(out.Results[0].Content, fmt.Sprintf("N = %d", i))
			answers <- answer{code, ok, err}
		}(i)
	}
	// Wait until every request is inside prscout, then SIGTERM.
	deadline := time.Now().Add(10 * time.Second)
	for p.metric("prscout_http_requests_in_flight") < float64(n) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	t0 := time.Now()
	must(p.cmd.Process.Signal(syscall.SIGTERM))
	var exitErr error
	exited := make(chan struct{})
	go func() { exitErr = p.cmd.Wait(); close(exited) }()
	complete := 0
	for i := 0; i < n; i++ {
		if a := <-answers; a.code == 200 && a.ok {
			complete++
		}
	}
	<-exited
	_, errAfter := http.Get(p.base + "/healthz")
	fmt.Printf("graceful shutdown: SIGTERM with %d batch requests in flight (each waits 2 x 1s upstream): %d/%d complete 200 answers, exit %v after %.1fs, new connections refused: %v\n",
		n, complete, n, exitCode(exitErr), time.Since(t0).Seconds(), errAfter != nil)
	return complete == n && exitErr == nil && errAfter != nil
}

func exitCode(err error) string {
	if err == nil {
		return "0"
	}
	return err.Error()
}
