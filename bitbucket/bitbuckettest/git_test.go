package bitbuckettest

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runGit(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// authEnv passes an Authorization header to git for one command, as prscout's
// mirror does (never in the URL).
func authEnv(user, token string) []string {
	v := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+token))
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=" + v}
}

// TestServeGit: a blob-less partial clone over smart HTTP with the
// configured credentials in git's form; a wrong token is refused; only
// fetches are counted as git operations, not as API calls.
func TestServeGit(t *testing.T) {
	src := t.TempDir()
	if out, err := runGit(t, src, nil, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(out)
	}
	if err := os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, src, nil, "add", "-A")
	if out, err := runGit(t, src, nil, "commit", "-q", "-m", "c"); err != nil {
		t.Fatal(out)
	}
	head, _ := runGit(t, src, nil, "rev-parse", "HEAD")

	for _, tc := range []struct {
		name, user string
		require    func(s *Server)
	}{
		{"api token", "x-bitbucket-api-token-auth", func(s *Server) { s.RequireBasic("bot@example.invalid", "tok-1") }},
		{"access token", "x-token-auth", func(s *Server) { s.RequireBearer("tok-1") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer()
			defer s.Close()
			tc.require(s)
			if err := s.ServeGit("acme", "app", filepath.Join(src, ".git")); err != nil {
				t.Fatal(err)
			}
			url := s.URL + "/acme/app.git"
			work := t.TempDir()
			if out, err := runGit(t, work, authEnv(tc.user, "wrong"), "clone", "-q", "--bare", "--filter=blob:none", url, "refused.git"); err == nil {
				t.Fatalf("clone with a wrong token succeeded: %s", out)
			}
			if out, err := runGit(t, work, authEnv(tc.user, "tok-1"), "clone", "-q", "--bare", "--filter=blob:none", url, "m.git"); err != nil {
				t.Fatalf("clone: %v: %s", err, out)
			}
			m := filepath.Join(work, "m.git")
			if got, _ := runGit(t, m, nil, "rev-parse", "main"); got != head {
				t.Errorf("mirror main = %s, want %s", got, head)
			}
			// Blob-less: the commit and its tree, not the blob.
			missing, _ := runGit(t, m, nil, "rev-list", "--objects", "--no-walk", "--missing=print", head)
			if !strings.Contains(missing, "?") {
				t.Errorf("a blob-less clone holds every blob:\n%s", missing)
			}
			if s.Calls(OpGitUploadPack) == 0 || s.Calls(OpGitInfoRefs) == 0 {
				t.Errorf("git calls = info/refs %d, upload-pack %d", s.Calls(OpGitInfoRefs), s.Calls(OpGitUploadPack))
			}
			for _, r := range s.Requests() {
				if !IsGitOp(r.Op) {
					t.Errorf("a clone made API call %s", r.Op)
				}
			}
			if got, err := runGit(t, m, nil, "config", "--get-regexp", "."); err != nil || strings.Contains(got, "tok-1") {
				t.Errorf("the token is in the mirror's config:\n%s", got)
			}
		})
	}
}
