package gitmirror

import (
	"context"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// headerRecorder is the host a redirect points at: it records every
// request's Authorization header and serves the same repository over smart
// HTTP (git http-backend), so a git that followed the redirect would go on
// talking to it and send its later requests there too.
type headerRecorder struct {
	mu   sync.Mutex
	seen []string // "METHOD path Authorization"
	git  http.Handler
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	h.mu.Unlock()
	h.git.ServeHTTP(w, r)
}

func (h *headerRecorder) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// TestMirrorRefusesRedirects: a git server that answers with a 301 or a 302
// to another host gets the fetch refused; the other host sees no request
// carrying the credential (nor any request at all), and the error says why.
func TestMirrorRefusesRedirects(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	u := newUpstream(t)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			rec := &headerRecorder{git: &cgi.Handler{
				Path: gitPath, Args: []string{"http-backend"}, Root: "/" + repo.Workspace + "/" + repo.RepoSlug + ".git",
				Env: []string{"GIT_PROJECT_ROOT=" + filepath.Join(u.dir, ".git"), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"},
			}}
			thief := httptest.NewServer(rec)
			defer thief.Close()
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, thief.URL+r.URL.RequestURI(), code)
			}))
			defer front.Close()
			m, err := New(Config{Dir: t.TempDir(), BaseURL: front.URL, User: AccessTokenUser, Token: token})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = m.Fetch(ctx, repo, Want{Branches: []string{"main"}, Commits: []string{u.base}})
			if err == nil {
				t.Error("a fetch through a redirect succeeded")
			} else if strings.Contains(err.Error(), token) {
				t.Errorf("the error shows the token: %v", err)
			}
			for _, r := range rec.requests() {
				if strings.Contains(r, "Basic ") || strings.Contains(r, "Bearer ") {
					t.Errorf("the credential reached the redirect's target: %s", r)
				}
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("git followed the redirect: %d request(s) reached the other host: %v", n, rec.requests())
			}
			if m.exists(repo) {
				t.Error("a mirror was made from the redirect's target")
			}
		})
	}
}
