// The harness of the abuse run: the fixture repository, the fake n8n, the
// prscout process under test and the HTTP helpers every class uses.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

type fixture struct {
	dir                         string
	mainSHA, featureSHA, bigSHA string
	hugeSHA                     string   // adds one hugeBytes file (round2.go)
	changed                     []string // paths changed on feature
}

func git(dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=abuse@example.invalid", "-c", "user.name=abuse", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	outb, err := cmd.CombinedOutput()
	if err != nil {
		must(fmt.Errorf("git %v: %v\n%s", args, err, outb))
	}
	return strings.TrimSpace(string(outb))
}

func write(path, content string) {
	must(os.MkdirAll(filepath.Dir(path), 0o755))
	must(os.WriteFile(path, []byte(content), 0o644))
}

func buildRepo(dir string) fixture {
	must(os.MkdirAll(dir, 0o755))
	git(dir, "init", "-q", "-b", "main")
	write(filepath.Join(dir, "a.go"), "package a\n\nfunc A() int { return 1 }\n")
	write(filepath.Join(dir, "b.go"), "package a\n\nfunc B() int { return 2 }\n")
	// Files whose names are secrets: never read, whoever asks.
	for _, p := range secretFiles {
		write(filepath.Join(dir, p), secretMarker+"\n")
	}
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "base")
	fx := fixture{dir: dir, mainSHA: git(dir, "rev-parse", "HEAD")}

	git(dir, "checkout", "-q", "-b", "feature")
	write(filepath.Join(dir, "a.go"), "package a\n\nfunc A() int { return 3 }\n")
	write(filepath.Join(dir, "b.go"), "package a\n\nfunc B() int { return 4 }\n")
	write(filepath.Join(dir, "src", "pkg", "c.go"), "package pkg\n\nfunc C() int { return 5 }\n")
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "feature")
	fx.featureSHA = git(dir, "rev-parse", "HEAD")
	fx.changed = []string{"a.go", "b.go", "src/pkg/c.go"}

	// A branch of many reviewable files (each diff well under the
	// too_large share of the prompt budget): a big context answer and, with
	// no scout budget, a scout prompt of megabytes.
	git(dir, "checkout", "-q", "-b", "big", "main")
	for i := 0; i < bigFiles; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package big\n\n")
		for j := 0; j < 250; j++ {
			fmt.Fprintf(&b, "var v%03d_%03d = %q\n", i, j, strings.Repeat("x", 56))
		}
		write(filepath.Join(dir, "src", "big", fmt.Sprintf("f%03d.go", i)), b.String())
	}
	git(dir, "add", "-A")
	git(dir, "commit", "-q", "-m", "big")
	fx.bigSHA = git(dir, "rev-parse", "HEAD")

	// Uncommitted work, stashed: must never be served.
	git(dir, "checkout", "-q", "feature")
	write(filepath.Join(dir, "a.go"), "package a\n\n// "+stashMarker+"\n")
	git(dir, "stash", "-q")
	git(dir, "update-ref", "refs/abuse/hidden", "stash@{0}")
	return fx
}

// bigFiles is the number of 20 KB files on the big branch.
const bigFiles = 200

var secretFiles = []string{
	"serviceAccountKey.json", "firebase-adminsdk-x1y2z.json", "secrets.toml", "terraform.tfvars",
	"terraform.tfvars.json", "secring.gpg", "private.asc", "application_default_credentials.json",
	".config/gh/hosts.yml", "rclone.conf", "local.settings.json", "app.env.local", ".env.production",
}

// ---- fake n8n ----

type fakeN8N struct {
	srv, thief *httptest.Server
	forwards   atomic.Int32
	stolen     atomic.Int32
}

func newFakeN8N() *fakeN8N {
	f := &fakeN8N{}
	f.thief = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.stolen.Add(1)
	}))
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("slow-forward")) {
			time.Sleep(7 * time.Second) // longer than the relay's wait for a first forward
		}
		if bytes.Contains(body, []byte("redirect-me")) {
			http.Redirect(w, r, f.thief.URL+"/collect", http.StatusTemporaryRedirect)
			return
		}
		f.forwards.Add(1)
	}))
	return f
}

func (f *fakeN8N) url() string { return f.srv.URL + "/webhook/pr" }
func (f *fakeN8N) close()      { f.srv.Close(); f.thief.Close() }

// ---- the server ----

type proc struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	defer ln.Close()
	return ln.Addr().String()
}

func start(bin, repo, forward string) *proc {
	addr := freeAddr()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"PRSCOUT_ADDR="+addr, "PRSCOUT_LOG_LEVEL=error", "PRSCOUT_LOCAL_ROOT="+repo,
		"PRSCOUT_API_KEYS="+apiKey, "PRSCOUT_METRICS_TOKEN="+metricsToken,
		"PRSCOUT_WEBHOOK_SECRET="+webhookSecret, "PRSCOUT_FORWARD_URL="+forward, "PRSCOUT_FORWARD_TOKEN="+forwardToken,
	)
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

func (p *proc) alive() bool {
	return p.cmd.ProcessState == nil && p.cmd.Process.Signal(syscall.Signal(0)) == nil
}

// metric reads one unlabelled sample from /metrics (with the metrics token).
func (p *proc) metric(name string) float64 {
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
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// rssKB reads VmRSS of /proc/<pid>/status in KiB.
func rssKB(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return -1
}

var client = &http.Client{Timeout: 60 * time.Second}

type answer struct {
	code int
	body []byte
	dur  time.Duration
	err  error
	hdr  http.Header
}

func (a answer) json() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(a.body, &m)
	return m
}

func (a answer) String() string {
	if a.err != nil {
		return fmt.Sprintf("no answer after %s (%v)", round(a.dur), a.err)
	}
	return fmt.Sprintf("%d in %s", a.code, round(a.dur))
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// call sends one request with the API key and reads the whole answer.
func call(method, path string, body []byte, timeout time.Duration, hdr ...string) answer {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, srvBase+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", apiKey)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return answer{dur: time.Since(start), err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, body: data, dur: time.Since(start), err: err, hdr: resp.Header}
}

var srvBase string

func post(path string, v any, timeout time.Duration, hdr ...string) answer {
	data, err := json.Marshal(v)
	must(err)
	return call("POST", path, data, timeout, hdr...)
}

func quick(a answer) bool { return a.err == nil && a.dur < *slowAfter }

// ---- availability ----

func workflow(typ string, params map[string]any) map[string]any {
	return map[string]any{"name": "abuse", "nodes": []any{map[string]any{"name": "n", "type": typ, "parameters": params}}, "connections": map[string]any{}}
}

// refusedNode reports whether a validate answer refused its one node
// (too_deep, too_large) or the export (a problem), and what it said.
func refusedNode(a answer) (bool, string) {
	m := a.json()
	if a.code == http.StatusRequestEntityTooLarge {
		return true, "413 " + fmt.Sprint(m["message"])
	}
	if a.code != 200 || m["ok"] != false {
		return false, fmt.Sprintf("%s ok=%v", a, m["ok"])
	}
	if probs, _ := m["problems"].([]any); len(probs) > 0 {
		p, _ := probs[0].(map[string]any)
		return true, "problem: " + fmt.Sprint(p["message"])
	}
	nodes, _ := m["nodes"].([]any)
	if len(nodes) == 0 {
		return false, "no node result"
	}
	n, _ := nodes[0].(map[string]any)
	v := fmt.Sprint(n["verdict"])
	return v == "too_deep" || v == "too_large", "verdict " + v
}
