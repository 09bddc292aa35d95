// Command fakebb is the scale test's fake Bitbucket Cloud
// (scripts/e2e-scale.sh): bitbuckettest's fake loaded with the world's
// repositories (real git repositories, also served over git's smart HTTP for
// prscout's mirrors), behind a front that counts every REST call per pull
// request, can answer a share of the calls 429 with Retry-After for a time
// window, and fails the comment posts of world.FailingRepo for good (503).
//
// Control API (its URL and the API's are written to -state-file):
//
//	GET  /_fake/state                       {api, prs:[{repo, slug, id, head, base, push, pushed}]}
//	POST /_fake/deliver?repo=R&pr=N&event=K  deliver the signed webhook to -webhook-url
//	POST /_fake/push?repo=R&pr=N             move the head to the prepared push commit
//	POST /_fake/throttle?seconds=S&every=K&retryAfter=A
//	                                        for S seconds answer every K-th REST call 429
//	                                        with Retry-After: A (a retried request passes)
//	GET  /_fake/calls                       every REST call: {t, repo, pr, method, path, status, retryAfter}
//	GET  /_fake/throttled                   the 429s: {repo, pr, t, retryAfter, retriedAfterMs}
//	GET  /_fake/comments?repo=R&pr=N        the PR's comments
//	GET  /_fake/status?repo=R&commit=SHA    the build status "prscout" (null when none)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/scripts/e2e/internal/webhook"
	"github.com/prscout/prscout/scripts/e2e/scale/world"
)

type prState struct {
	Repo   int    `json:"repo"`
	Slug   string `json:"slug"`
	ID     int    `json:"id"`
	Head   string `json:"head"`
	Base   string `json:"base"`
	Push   string `json:"push"`
	Pushed bool   `json:"pushed"`
}

type call struct {
	T          int64  `json:"t"` // unix ms
	Repo       int    `json:"repo"`
	PR         int    `json:"pr"` // 0: not attributable to one pull request
	Method     string `json:"method"`
	Path       string `json:"path"`
	Status     int    `json:"status"`
	RetryAfter int    `json:"retryAfter,omitempty"`
}

type throttled struct {
	Repo           int   `json:"repo"`
	PR             int   `json:"pr"`
	T              int64 `json:"t"`
	RetryAfter     int   `json:"retryAfter"`
	RetriedAfterMs int64 `json:"retriedAfterMs"` // -1 until the same request came again
	key            string
}

type front struct {
	fake  *bitbuckettest.Server
	proxy *httputil.ReverseProxy

	mu      sync.Mutex
	byHash  map[string]world.PR // 12-character commit prefix -> pull request
	calls   []call
	thr     []*throttled
	pending map[string]*throttled // request key -> its 429, until retried
	until   time.Time
	every   int
	ra      int
	n       int
}

var (
	repoPathRe = regexp.MustCompile(`^/2\.0/repositories/[^/]+/svc(\d+)(/.*)?$`)
	prPathRe   = regexp.MustCompile(`/pullrequests/(\d+)`)
	hashRe     = regexp.MustCompile(`[0-9a-f]{12,40}`)
)

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := repoPathRe.FindStringSubmatch(r.URL.Path)
	if m == nil { // git's smart HTTP, /user, anything else: passed through, not counted
		f.proxy.ServeHTTP(w, r)
		return
	}
	c := call{T: time.Now().UnixMilli(), Method: r.Method, Path: r.URL.Path}
	c.Repo, _ = strconv.Atoi(m[1])
	if pm := prPathRe.FindStringSubmatch(m[2]); pm != nil {
		c.PR, _ = strconv.Atoi(pm[1])
	} else {
		for _, h := range hashRe.FindAllString(m[2], -1) {
			f.mu.Lock()
			p, ok := f.byHash[h[:12]]
			f.mu.Unlock()
			if ok && p.Repo == c.Repo {
				c.PR = p.ID
				break
			}
		}
	}
	key := r.Method + " " + r.URL.RequestURI()
	now := time.Now()
	f.mu.Lock()
	if t, ok := f.pending[key]; ok {
		t.RetriedAfterMs = now.UnixMilli() - t.T
		delete(f.pending, key)
	} else if now.Before(f.until) && f.every > 0 {
		f.n++
		if f.n%f.every == 0 {
			c.Status, c.RetryAfter = http.StatusTooManyRequests, f.ra
			t := &throttled{Repo: c.Repo, PR: c.PR, T: c.T, RetryAfter: f.ra, RetriedAfterMs: -1, key: key}
			f.thr = append(f.thr, t)
			f.pending[key] = t
		}
	}
	if c.Status == 0 && c.Repo == world.FailingRepo && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments") {
		c.Status = http.StatusServiceUnavailable
	}
	if c.Status != 0 {
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if c.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(c.RetryAfter))
		}
		w.WriteHeader(c.Status)
		_, _ = fmt.Fprintf(w, `{"type":"error","error":{"message":"fakebb: %s"}}`, http.StatusText(c.Status))
		return
	}
	f.mu.Unlock()
	rec := &recorder{ResponseWriter: w, status: 200}
	f.proxy.ServeHTTP(rec, r)
	c.Status = rec.status
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

func main() {
	stateFile := flag.String("state-file", "", "write {api, control} URLs here once listening")
	token := flag.String("token", "", "bearer token the API requires")
	webhookURL := flag.String("webhook-url", "", "where /_fake/deliver posts webhooks")
	secret := flag.String("webhook-secret", "", "webhook secret used to sign deliveries")
	flag.Parse()

	fake := bitbuckettest.NewServer()
	defer fake.Close()
	if *token != "" {
		fake.RequireBearer(*token)
	}
	tmp, err := os.MkdirTemp("", "prscout-scalebb-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	var prs []*prState
	byHash := map[string]world.PR{}
	for r := 1; r <= world.Repos; r++ {
		dir := filepath.Join(tmp, world.Slug(r))
		st, err := loadRepo(fake, r, dir)
		if err != nil {
			log.Fatalf("fakebb: build %s: %v", world.Slug(r), err)
		}
		if err := fake.ServeGit(world.Workspace, world.Slug(r), filepath.Join(dir, ".git")); err != nil {
			log.Fatal(err)
		}
		for _, s := range st {
			for _, h := range []string{s.Head, s.Base, s.Push} {
				byHash[h[:12]] = world.PR{Repo: r, ID: s.ID}
			}
		}
		prs = append(prs, st...)
	}
	target, _ := url.Parse(fake.URL)
	f := &front{fake: fake, proxy: httputil.NewSingleHostReverseProxy(target), byHash: byHash, pending: map[string]*throttled{}}
	apiLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	apiURL := "http://" + apiLn.Addr().String() + "/2.0"
	find := func(q url.Values) *prState {
		r, _ := strconv.Atoi(q.Get("repo"))
		id, _ := strconv.Atoi(q.Get("pr"))
		for _, p := range prs {
			if p.Repo == r && p.ID == id {
				return p
			}
		}
		return nil
	}
	var mu sync.Mutex
	ctl := http.NewServeMux()
	ctl.HandleFunc("GET /_fake/state", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		writeJSON(w, 200, map[string]any{"api": apiURL, "prs": prs})
	})
	ctl.HandleFunc("POST /_fake/deliver", func(w http.ResponseWriter, r *http.Request) {
		p := find(r.URL.Query())
		if p == nil {
			writeJSON(w, 400, map[string]string{"error": "unknown repo or pr"})
			return
		}
		event := r.URL.Query().Get("event")
		if event == "" {
			event = "pullrequest:created"
		}
		body := fake.PullRequestEvent(world.Workspace, p.Slug, p.ID)
		a, err := webhook.Deliver(r.Context(), *webhookURL, event, []byte(*secret), body)
		if err != nil {
			writeJSON(w, 502, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, 200, map[string]any{"status": a.Status, "body": a.Body, "retryAfter": a.RetryAfter})
	})
	ctl.HandleFunc("POST /_fake/push", func(w http.ResponseWriter, r *http.Request) {
		p := find(r.URL.Query())
		if p == nil {
			writeJSON(w, 400, map[string]string{"error": "unknown repo or pr"})
			return
		}
		mu.Lock()
		p.Pushed = true
		mu.Unlock()
		wp := world.PR{Repo: p.Repo, ID: p.ID}
		fake.SetBranch(world.Workspace, p.Slug, wp.Branch(), p.Push)
		fake.AddPullRequest(world.Workspace, p.Slug, pullRequest(wp, p.Push, p.Base))
		writeJSON(w, 200, map[string]string{"head": p.Push})
	})
	ctl.HandleFunc("POST /_fake/throttle", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		secs, _ := strconv.ParseFloat(q.Get("seconds"), 64)
		every, _ := strconv.Atoi(q.Get("every"))
		ra, _ := strconv.Atoi(q.Get("retryAfter"))
		f.mu.Lock()
		f.until, f.every, f.ra, f.n = time.Now().Add(time.Duration(secs*float64(time.Second))), every, ra, 0
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"seconds": secs, "every": every, "retryAfter": ra})
	})
	ctl.HandleFunc("GET /_fake/calls", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		out := append([]call{}, f.calls...)
		f.mu.Unlock()
		writeJSON(w, 200, out)
	})
	ctl.HandleFunc("GET /_fake/throttled", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		out := []throttled{}
		for _, t := range f.thr {
			out = append(out, *t)
		}
		f.mu.Unlock()
		writeJSON(w, 200, out)
	})
	ctl.HandleFunc("GET /_fake/comments", func(w http.ResponseWriter, r *http.Request) {
		p := find(r.URL.Query())
		if p == nil {
			writeJSON(w, 400, map[string]string{"error": "unknown repo or pr"})
			return
		}
		cs := fake.Comments(world.Workspace, p.Slug, p.ID)
		if cs == nil {
			cs = []bitbuckettest.Comment{}
		}
		writeJSON(w, 200, cs)
	})
	ctl.HandleFunc("GET /_fake/status", func(w http.ResponseWriter, r *http.Request) {
		rn, _ := strconv.Atoi(r.URL.Query().Get("repo"))
		st, ok := fake.Status(world.Workspace, world.Slug(rn), r.URL.Query().Get("commit"), "prscout")
		if !ok {
			writeJSON(w, 200, nil)
			return
		}
		writeJSON(w, 200, st)
	})
	ctlLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	if *stateFile != "" {
		b, _ := json.Marshal(map[string]string{"api": apiURL, "control": "http://" + ctlLn.Addr().String()})
		if err := os.WriteFile(*stateFile, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("fakebb: api %s, control http://%s, %d pull requests", apiURL, ctlLn.Addr(), len(prs))
	api := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	cs := &http.Server{Handler: ctl, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = api.Serve(apiLn) }()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = cs.Shutdown(sctx)
		_ = api.Shutdown(sctx)
	}()
	if err := cs.Serve(ctlLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func pullRequest(p world.PR, head, base string) bitbuckettest.PullRequest {
	return bitbuckettest.PullRequest{ID: p.ID, Title: p.Title(), Description: "Scale test change.", Author: "Mina Park",
		SourceBranch: p.Branch(), DestinationBranch: world.Base, SourceCommit: head, DestinationCommit: base}
}

// loadRepo builds repository r in dir: main gets one commit per pull
// request (each pull request branches from its own), then each pull
// request's head and prepared push.
func loadRepo(fake *bitbuckettest.Server, r int, dir string) ([]*prState, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GIT_AUTHOR_NAME=Mina Park", "GIT_AUTHOR_EMAIL=mina@example.invalid",
			"GIT_COMMITTER_NAME=Mina Park", "GIT_COMMITTER_EMAIL=mina@example.invalid",
			"GIT_AUTHOR_DATE=2026-11-02T09:00:00Z", "GIT_COMMITTER_DATE=2026-11-02T09:00:00Z",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	files := map[string]string{}
	write := func(p, c string) error {
		files[p] = c
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		return os.WriteFile(full, []byte(c), 0o644)
	}
	commit := func(msg string) (string, error) {
		if _, err := git("add", "-A"); err != nil {
			return "", err
		}
		if _, err := git("commit", "-q", "-m", msg); err != nil {
			return "", err
		}
		out, err := git("rev-parse", "HEAD")
		return strings.TrimSpace(out), err
	}
	snapshot := func(c string, parents ...string) {
		fake.AddCommit(world.Workspace, world.Slug(r), c, parents...)
		for p, content := range files {
			fake.SetFile(world.Workspace, world.Slug(r), c, p, []byte(content))
		}
	}
	slug := world.Slug(r)
	if _, err := git("init", "-q", "-b", world.Base); err != nil {
		return nil, err
	}
	for p, c := range world.BaseFiles(r) {
		if err := write(p, c); err != nil {
			return nil, err
		}
	}
	prev, err := commit("Initial " + slug)
	if err != nil {
		return nil, err
	}
	snapshot(prev)
	bases := map[int]string{}
	baseFiles := map[int]map[string]string{}
	for p := 1; p <= world.PRsPerRepo; p++ {
		np, nc := world.BaseNote(p)
		if err := write(np, nc); err != nil {
			return nil, err
		}
		c, err := commit(fmt.Sprintf("Note %d", p))
		if err != nil {
			return nil, err
		}
		snapshot(c, prev)
		prev, bases[p] = c, c
		baseFiles[p] = copyMap(files)
	}
	fake.SetBranch(world.Workspace, slug, world.Base, prev)
	var out []*prState
	for p := 1; p <= world.PRsPerRepo; p++ {
		wp := world.PR{Repo: r, ID: p}
		base := bases[p]
		if _, err := git("checkout", "-q", "-B", wp.Branch(), base); err != nil {
			return nil, err
		}
		files = copyMap(baseFiles[p])
		if err := write(wp.Path(), wp.Head()); err != nil {
			return nil, err
		}
		head, err := commit(wp.Title())
		if err != nil {
			return nil, err
		}
		snapshot(head, base)
		fake.SetCommitMessage(world.Workspace, slug, head, wp.Title())
		if err := write(wp.Path(), wp.Pushed()); err != nil {
			return nil, err
		}
		push, err := commit(wp.Title() + " (audit)")
		if err != nil {
			return nil, err
		}
		snapshot(push, head)
		fake.SetCommitMessage(world.Workspace, slug, push, wp.Title()+" (audit)")
		for _, d := range [][2]string{{base, head}, {base, push}, {head, push}} {
			diff, err := git("diff", "-U30", d[0], d[1])
			if err != nil {
				return nil, err
			}
			stats, err := bitbuckettest.GitDiffstat(git, d[0], d[1])
			if err != nil {
				return nil, err
			}
			fake.SetDiff(world.Workspace, slug, d[0], d[1], diff)
			fake.SetDiffstat(world.Workspace, slug, d[0], d[1], stats)
		}
		fake.SetBranch(world.Workspace, slug, wp.Branch(), head)
		fake.AddPullRequest(world.Workspace, slug, pullRequest(wp, head, base))
		out = append(out, &prState{Repo: r, Slug: slug, ID: p, Head: head, Base: base, Push: push})
	}
	return out, nil
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
