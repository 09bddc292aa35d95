package bitbuckettest

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"os/exec"
	"strings"
)

// Git operations: the requests of git's smart HTTP protocol the fake serves
// (ServeGit), counted and faulted like the API's operations.
const (
	OpGitInfoRefs   = "git_info_refs"   // GET /{ws}/{slug}.git/info/refs?service=git-upload-pack
	OpGitUploadPack = "git_upload_pack" // POST /{ws}/{slug}.git/git-upload-pack
)

// IsGitOp reports whether op is a git smart HTTP operation rather than a
// REST API call.
func IsGitOp(op string) bool { return strings.HasPrefix(op, "git_") }

// ServeGit serves the git repository gitDir (a bare repository or a work
// tree's .git) as Bitbucket Cloud's clone URL {URL}/{workspace}/{slug}.git
// over git's smart HTTP protocol, read-only, through `git http-backend` run
// as CGI. Partial clone filters and fetches of any commit by id are allowed
// (uploadpack.allowFilter, uploadpack.allowAnySHA1InWant), protocol v2 is
// passed through.
//
// Git requests pass the same auth as the API, in git's form: after
// RequireBasic(email, token), HTTP Basic with the static user
// x-bitbucket-api-token-auth and the API token as password; after
// RequireBearer(token), Basic with x-token-auth and the access token. A
// wrong or missing credential answers 401 with a Basic challenge, as
// Bitbucket does.
func (s *Server) ServeGit(workspace, slug, gitDir string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("serve git: %w", err)
	}
	root := "/" + workspace + "/" + slug + ".git"
	h := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Root: root,
		Dir:  gitDir,
		Env: []string{
			"GIT_PROJECT_ROOT=" + gitDir,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_COUNT=3",
			"GIT_CONFIG_KEY_0=uploadpack.allowFilter", "GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_KEY_1=uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_1=true",
			"GIT_CONFIG_KEY_2=http.receivepack", "GIT_CONFIG_VALUE_2=false",
		},
		InheritEnv: []string{"PATH", "HOME", "TMPDIR"},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.git == nil {
		s.git = map[string]http.Handler{}
	}
	s.git[root] = h
	return nil
}

// gitAuth is the Authorization header git must send, derived from the API's
// required header ("" accepts any).
func gitAuth(apiAuth, basicToken, bearerToken string) string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	switch {
	case bearerToken != "":
		r.SetBasicAuth("x-token-auth", bearerToken)
	case basicToken != "":
		r.SetBasicAuth("x-bitbucket-api-token-auth", basicToken)
	default:
		return apiAuth
	}
	return r.Header.Get("Authorization")
}

// serveGit answers a git smart HTTP request when r is one for a repository
// ServeGit registered, and reports whether it did.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	i := strings.Index(p, ".git/")
	if i < 0 {
		return false
	}
	root := p[:i+len(".git")]
	s.mu.Lock()
	h := s.git[root]
	s.mu.Unlock()
	if h == nil {
		return false
	}
	op := ""
	switch rest := p[len(root):]; {
	case r.Method == http.MethodGet && rest == "/info/refs" && r.URL.Query().Get("service") == "git-upload-pack":
		op = OpGitInfoRefs
	case r.Method == http.MethodPost && rest == "/git-upload-pack":
		op = OpGitUploadPack
	default:
		http.Error(w, "only fetches (git-upload-pack) are served", http.StatusForbidden)
		return true
	}
	s.mu.Lock()
	s.countLocked(op)
	s.requests = append(s.requests, Request{Op: op, Method: r.Method, EscapedPath: r.URL.EscapedPath(), Query: r.URL.Query(), Authorization: r.Header.Get("Authorization")})
	var fault *Fault
	if q := s.faults[op]; len(q) > 0 {
		f := q[0]
		fault = &f
		q[0].Times--
		if q[0].Times <= 0 {
			s.faults[op] = q[1:]
		}
	}
	want := gitAuth(s.auth, s.basicToken, s.bearerToken)
	s.mu.Unlock()
	if fault != nil && fault.Status != 0 {
		http.Error(w, http.StatusText(fault.Status), fault.Status)
		return true
	}
	if want != "" && r.Header.Get("Authorization") != want {
		w.Header().Set("WWW-Authenticate", `Basic realm="Bitbucket.org HTTP"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return true
	}
	h.ServeHTTP(w, r)
	return true
}
