// Package gitmirror keeps a mirror of each Bitbucket Cloud repository prscout
// reviews: a bare, blob-less partial clone under a directory of its own
// (`git clone --bare --filter=blob:none`), updated by fetching the pull
// request's head and destination, with the blobs of the commits under review
// fetched in one request, except those over the read limit, and the whole
// directory kept under a size quota (quota.go). Provider serves repository reads, code search and
// pull request ancestry from the mirror when it has the commit, and from the
// REST adapter otherwise, so a candidate search costs no REST call and batch
// lookups cost none once the mirror is warm.
//
// Git runs as the git CLI (os/exec, no shell) bound to a context. Git over
// HTTPS authenticates with HTTP Basic: an Atlassian API token with the static
// user x-bitbucket-api-token-auth, a repository, project or workspace access
// token with x-token-auth. The credential is passed to each git command that
// talks to Bitbucket as an http.<url>.extraHeader in the command's
// environment (GIT_CONFIG_COUNT), never in the clone URL, the mirror's
// config, an argument or a log; git never follows a redirect
// (http.followRedirects false), so the credential never reaches another host.
package gitmirror

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// Defaults applied by New.
const (
	defaultFetchTimeout = 10 * time.Minute
	defaultReadWait     = 3 * time.Second
)

// Git users of Bitbucket Cloud's HTTPS clone URLs.
const (
	// APITokenUser goes with an Atlassian API token.
	APITokenUser = "x-bitbucket-api-token-auth"
	// AccessTokenUser goes with a repository, project or workspace access token.
	AccessTokenUser = "x-token-auth"
)

// Observer receives the mirror's fetches and where reads were served from;
// the API's metrics implement it.
type Observer interface {
	MirrorFetch(ok bool, d time.Duration)
	MirrorRead(fromMirror bool)
}

type nopObserver struct{}

func (nopObserver) MirrorFetch(bool, time.Duration) {}
func (nopObserver) MirrorRead(bool)                 {}

// Config configures a Mirror. cmd/prscout fills it from PRSCOUT_MIRROR_DIR,
// PRSCOUT_MIRROR_GIT_URL and the Bitbucket credentials.
type Config struct {
	// Dir holds one bare repository per Bitbucket repository, at
	// Dir/<workspace>/<repoSlug>. One directory per prscout process.
	Dir string
	// BaseURL is the root of the clone URLs: BaseURL/<workspace>/<repoSlug>.git
	// (Bitbucket Cloud: https://bitbucket.org).
	BaseURL string
	// User and Token authenticate git over HTTPS (see APITokenUser and
	// AccessTokenUser). An empty Token sends no credential.
	User, Token string
	// FetchTimeout bounds one fetch, a first clone included (default 10m).
	FetchTimeout time.Duration
	// ReadWait is how long a read of a commit the mirror lacks waits for a
	// fetch in flight into an existing mirror before asking REST (default
	// 3s). Reads never wait for a first clone.
	ReadWait time.Duration
	// BlobLimit is the read limit (PRSCOUT_MAX_FILE_BYTES): blobs larger
	// than this are never fetched (quota.go). 0: no limit.
	BlobLimit int64
	// MaxBytes is the quota of Dir (PRSCOUT_MIRROR_MAX_BYTES): past it the
	// least recently used repositories are removed (quota.go). 0 or less:
	// no quota.
	MaxBytes int64
	// Observer receives fetches and reads; when it also implements
	// SizeObserver, the directory's size and the removals.
	Observer Observer
	Logger   *slog.Logger
}

// Want is what a fetch brings into a mirror.
type Want struct {
	// Branches are fetched by name (always allowed by the server).
	Branches []string
	// Commits are full or abbreviated commit ids: abbreviated ones are
	// resolved after the branches were fetched; full ones the mirror still
	// lacks are fetched by id (the whole branch list when the server refuses).
	// Every commit found gets all the blobs of its tree.
	Commits []string
	// WithMergeBase also completes the merge base of the first two commits
	// (the old side of a pull request's diff).
	WithMergeBase bool
}

// Mirror manages the mirrors under Config.Dir. It is safe for concurrent use
// within one process; fetches into one repository run one at a time.
type Mirror struct {
	cfg    Config
	header string // "Authorization: Basic ..." or ""
	base   *url.URL
	log    *slog.Logger
	obs    Observer

	mu    sync.Mutex
	repos map[pipeline.Repo]*repoState

	quotaMu sync.Mutex // one measurement at a time
}

// repoState is one repository's mirror state.
type repoState struct {
	fetchMu sync.Mutex // one fetch at a time

	mu       sync.Mutex
	pending  int             // fetches queued or running
	changed  chan struct{}   // closed when a fetch ends
	gen      int             // fetches ended
	ready    map[string]bool // commits whose tree blobs are all present
	notReady map[string]int  // commit -> gen when found not ready
	lastErr  error           // the last fetch's failure
	large    map[string]bool // blobs left out as too large (nil: not read yet)
	touched  time.Time       // when usedFile was last updated
}

// New checks cfg, creates Dir and applies defaults.
func New(cfg Config) (*Mirror, error) {
	if cfg.Dir == "" {
		return nil, errors.New("PRSCOUT_MIRROR_DIR is empty")
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("PRSCOUT_MIRROR_DIR: %w", err)
	}
	cfg.Dir = abs
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("PRSCOUT_MIRROR_DIR: %w", err)
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.User != nil {
		return nil, fmt.Errorf("PRSCOUT_MIRROR_GIT_URL must be an absolute http(s) URL without credentials, got %q", cfg.BaseURL)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("the Bitbucket mirror needs git: %w", err)
	}
	if cfg.BlobLimit < 0 {
		cfg.BlobLimit = 0
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = defaultFetchTimeout
	}
	if cfg.ReadWait < 0 {
		cfg.ReadWait = 0
	} else if cfg.ReadWait == 0 {
		cfg.ReadWait = defaultReadWait
	}
	m := &Mirror{cfg: cfg, base: base, log: cfg.Logger, obs: cfg.Observer, repos: map[pipeline.Repo]*repoState{}}
	if m.log == nil {
		m.log = slog.Default()
	}
	if m.obs == nil {
		m.obs = nopObserver{}
	}
	if cfg.Token != "" {
		m.header = "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(cfg.User+":"+cfg.Token))
	}
	m.enforceQuota(pipeline.Repo{})
	return m, nil
}

// Bitbucket's workspace ids and repository slugs: no path separator, no
// "..", never absolute, so Dir/<workspace>/<repoSlug> stays under Dir.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxNameLen bounds a workspace id or slug (Bitbucket's are far shorter).
const maxNameLen = 128

// checkRepo refuses a workspace or slug that is not one path element under
// the mirror's directory. Every method that builds a path or runs git calls
// it first.
func checkRepo(repo pipeline.Repo) error {
	for _, f := range [][2]string{{"workspace", repo.Workspace}, {"repoSlug", repo.RepoSlug}} {
		if v := f[1]; len(v) > maxNameLen || !namePattern.MatchString(v) || strings.Contains(v, "..") {
			return pipeline.Invalidf(f[0], "invalid %s %q: letters, digits, '.', '_' and '-' only, no \"..\", at most %d characters", f[0], pipeline.ClipRunes(v, 80), maxNameLen)
		}
	}
	return nil
}

// Path is the mirror's directory of repo.
func (m *Mirror) Path(repo pipeline.Repo) string {
	return filepath.Join(m.cfg.Dir, repo.Workspace, repo.RepoSlug)
}

// cloneURL is repo's clone URL (no credentials).
func (m *Mirror) cloneURL(repo pipeline.Repo) string {
	return m.base.String() + "/" + repo.Workspace + "/" + repo.RepoSlug + ".git"
}

func (m *Mirror) state(repo pipeline.Repo) *repoState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.repos[repo]
	if st == nil {
		st = &repoState{changed: make(chan struct{}), ready: map[string]bool{}, notReady: map[string]int{}}
		m.repos[repo] = st
	}
	return st
}

// exists reports whether repo's mirror has been cloned (never for a name
// checkRepo refuses).
func (m *Mirror) exists(repo pipeline.Repo) bool {
	if checkRepo(repo) != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(m.Path(repo), "HEAD"))
	return err == nil
}

// Prefetch starts a fetch of want into repo's mirror in the background,
// bounded by FetchTimeout and independent of any request: a review that
// cannot wait for it leaves it warm for the next one.
func (m *Mirror) Prefetch(repo pipeline.Repo, want Want) {
	if checkRepo(repo) != nil {
		return
	}
	st := m.state(repo)
	st.mu.Lock()
	st.pending++
	st.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.FetchTimeout)
		defer cancel()
		if err := m.fetch(ctx, repo, st, want); err != nil {
			m.log.Warn("bitbucket mirror: fetch failed; reads go to the REST API", "repo", repo.Workspace+"/"+repo.RepoSlug, "err", err.Error())
			return
		}
		m.enforceQuota(repo)
	}()
}

// Fetch brings want into repo's mirror and returns when it is done.
func (m *Mirror) Fetch(ctx context.Context, repo pipeline.Repo, want Want) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	st := m.state(repo)
	st.mu.Lock()
	st.pending++
	st.mu.Unlock()
	if err := m.fetch(ctx, repo, st, want); err != nil {
		return err
	}
	m.enforceQuota(repo)
	return nil
}

// fetch runs one fetch (st.pending already counts it): a first clone when
// needed, the branches, the commits, then the blobs of their trees.
func (m *Mirror) fetch(ctx context.Context, repo pipeline.Repo, st *repoState, want Want) (err error) {
	st.fetchMu.Lock()
	defer st.fetchMu.Unlock()
	start := time.Now()
	var done []string
	defer func() {
		m.obs.MirrorFetch(err == nil, time.Since(start))
		st.mu.Lock()
		for _, c := range done {
			st.ready[c] = true
		}
		st.pending--
		st.gen++
		st.lastErr = err
		close(st.changed)
		st.changed = make(chan struct{})
		st.mu.Unlock()
	}()
	dir := m.Path(repo)
	if !m.exists(repo) {
		if err := m.clone(ctx, repo); err != nil {
			return err
		}
	}
	if err := m.fetchBranches(ctx, dir, want.Branches); err != nil {
		return err
	}
	full, err := m.fetchCommits(ctx, repo, dir, want)
	if err != nil {
		return err
	}
	m.touch(repo, st)
	if len(full) == 0 {
		return nil
	}
	if err := m.fetchBlobs(ctx, repo, st, dir, full); err != nil {
		return err
	}
	done = full
	return nil
}

// fetchBranches brings the wanted branches (a branch of a fork, or one
// deleted meanwhile: every branch).
func (m *Mirror) fetchBranches(ctx context.Context, dir string, branches []string) error {
	var specs []string
	for _, b := range branches {
		if validBranch(b) {
			specs = append(specs, "+refs/heads/"+b+":refs/heads/"+b)
		}
	}
	if len(specs) > 0 {
		if _, err := m.git(ctx, dir, nil, true, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", "origin"}, specs...)...); err != nil {
			// A branch of a fork, or one deleted meanwhile: every branch.
			return m.fetchAllBranches(ctx, dir)
		}
	}
	return nil
}

// fetchCommits brings the wanted commits by id when the branches did not,
// and answers their full ids (with their merge base when asked).
func (m *Mirror) fetchCommits(ctx context.Context, repo pipeline.Repo, dir string, want Want) ([]string, error) {
	var full, byID []string
	for _, c := range want.Commits {
		if sha, ok := m.resolve(ctx, dir, c); ok {
			full = append(full, sha)
		} else if pipeline.IsFullCommit(c) {
			byID = append(byID, c)
		}
	}
	if len(byID) > 0 {
		if _, err := m.git(ctx, dir, nil, true, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", "origin"}, byID...)...); err != nil {
			// The server does not hand out commits by id: every branch.
			if err := m.fetchAllBranches(ctx, dir); err != nil {
				return nil, err
			}
		}
		for _, c := range byID {
			sha, ok := m.resolve(ctx, dir, c)
			if !ok {
				return nil, fmt.Errorf("commit %s is not in %s", c, m.cloneURL(repo))
			}
			full = append(full, sha)
		}
	}
	if want.WithMergeBase && len(full) >= 2 {
		if out, err := m.git(ctx, dir, nil, false, "merge-base", "--end-of-options", full[0], full[1]); err == nil {
			if mb := strings.TrimSpace(string(out)); pipeline.IsFullCommit(mb) {
				full = append(full, mb)
			}
		}
	}
	return full, nil
}

// fetchBlobs brings the blobs the commits' trees lack, all at once; with a
// blob limit, the ones over it are left out and recorded, never fetched.
func (m *Mirror) fetchBlobs(ctx context.Context, repo pipeline.Repo, st *repoState, dir string, full []string) error {
	large := m.large(repo, st)
	missing, err := m.missingBlobs(ctx, dir, full)
	if err != nil {
		return err
	}
	st.mu.Lock()
	missing = without(missing, large)
	st.mu.Unlock()
	if len(missing) > 0 {
		if m.cfg.BlobLimit > 0 {
			// The trees that hold them, without the blobs over the limit.
			if err := m.fetchSmallBlobs(ctx, dir, full, missing); err != nil {
				return fmt.Errorf("fetch %d blobs: %w", len(missing), err)
			}
		} else {
			// One request for every blob the trees lack, as git's own
			// lazy fetch asks for them, but all at once.
			in := strings.NewReader(strings.Join(missing, "\n") + "\n")
			if _, err := m.git(ctx, dir, in, true, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--no-tags", "--no-write-fetch-head",
				"--recurse-submodules=no", "--filter=blob:none", "--stdin", "origin"); err != nil {
				return fmt.Errorf("fetch %d blobs: %w", len(missing), err)
			}
		}
		if missing, err = m.missingBlobs(ctx, dir, full); err != nil {
			return err
		}
		st.mu.Lock()
		missing = without(missing, large)
		st.mu.Unlock()
		if len(missing) > 0 && m.cfg.BlobLimit > 0 {
			// What the filtered fetch left out is over the limit: never
			// read, so never fetched.
			if err := m.recordLarge(ctx, repo, st, missing); err != nil {
				return err
			}
			m.log.Info("bitbucket mirror: blobs over the read limit left out", "repo", repo.Workspace+"/"+repo.RepoSlug,
				"blobs", len(missing), "limit_bytes", m.cfg.BlobLimit)
			missing = nil
		}
		if len(missing) > 0 {
			return fmt.Errorf("%d blobs still missing after the fetch", len(missing))
		}
	}
	return nil
}

// clone makes repo's mirror: a bare blob-less partial clone into a temporary
// directory, renamed into place when complete (a half-made mirror is never
// used). The mirror is never garbage collected by git (gc.auto 0): fetched
// commits no branch points to stay.
func (m *Mirror) clone(ctx context.Context, repo pipeline.Repo) error {
	parent := filepath.Dir(m.Path(repo))
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("create mirror directory: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+repo.RepoSlug+".clone-")
	if err != nil {
		return fmt.Errorf("create mirror directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if _, err := m.git(ctx, parent, nil, true, "clone", "--quiet", "--bare", "--filter=blob:none", "--no-tags", "--", m.cloneURL(repo), tmp); err != nil {
		return fmt.Errorf("clone %s: %w", m.cloneURL(repo), err)
	}
	// http.followRedirects false also holds for git's own lazy fetches,
	// which run without prscout's environment.
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"core.logAllRefUpdates", "false"}, {"fetch.writeCommitGraph", "false"}, {"http.followRedirects", "false"}} {
		if _, err := m.git(ctx, tmp, nil, false, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, m.Path(repo)); err != nil {
		return fmt.Errorf("move the new mirror into place: %w", err)
	}
	return nil
}

func (m *Mirror) fetchAllBranches(ctx context.Context, dir string) error {
	_, err := m.git(ctx, dir, nil, true, "fetch", "--no-tags", "--no-write-fetch-head", "origin", "+refs/heads/*:refs/heads/*")
	return err
}

// resolve returns the full id of commit c when the mirror has it.
func (m *Mirror) resolve(ctx context.Context, dir, c string) (string, bool) {
	if !isHex(c) || len(c) < 7 {
		return "", false
	}
	out, err := m.git(ctx, dir, nil, false, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")
	if err != nil {
		return "", false
	}
	sha := strings.TrimSpace(string(out))
	return sha, pipeline.IsFullCommit(sha)
}

// missingBlobs lists the objects of the commits' trees the mirror lacks,
// without fetching them (`git rev-list --objects --no-walk --missing=print`).
func (m *Mirror) missingBlobs(ctx context.Context, dir string, commits []string) ([]string, error) {
	out, err := m.git(ctx, dir, nil, false, append([]string{"rev-list", "--objects", "--no-walk", "--missing=print", "--end-of-options"}, commits...)...)
	if err != nil {
		return nil, fmt.Errorf("list missing blobs: %w", err)
	}
	var missing []string
	for _, line := range strings.Split(string(out), "\n") {
		if oid, ok := strings.CutPrefix(line, "?"); ok && isHex(oid) {
			missing = append(missing, oid)
		}
	}
	return missing, nil
}

// Has reports whether repo's mirror has commit (a full id) and every blob of
// its tree. When it does not and a fetch into an existing mirror is running,
// it waits for it up to wait (never for a first clone).
func (m *Mirror) Has(ctx context.Context, repo pipeline.Repo, commit string, wait time.Duration) bool {
	if !pipeline.IsFullCommit(commit) || checkRepo(repo) != nil {
		return false
	}
	st := m.state(repo)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		st.mu.Lock()
		ready, pending, ch := st.ready[commit], st.pending, st.changed
		st.mu.Unlock()
		if ready {
			m.touch(repo, st)
			return true
		}
		if pending == 0 || !m.exists(repo) {
			return m.check(ctx, repo, st, commit)
		}
		select {
		case <-ch:
		case <-timer.C:
			return m.check(ctx, repo, st, commit)
		case <-ctx.Done():
			return false
		}
	}
}

// check looks on disk whether commit is complete in the mirror, once per
// commit until the next fetch ends.
func (m *Mirror) check(ctx context.Context, repo pipeline.Repo, st *repoState, commit string) bool {
	st.mu.Lock()
	gen, seen := st.notReady[commit]
	if st.ready[commit] || (seen && gen == st.gen) {
		r := st.ready[commit]
		st.mu.Unlock()
		return r
	}
	gen = st.gen
	st.mu.Unlock()
	ok := false
	if m.exists(repo) {
		dir := m.Path(repo)
		if _, err := m.git(ctx, dir, nil, false, "cat-file", "-e", commit+"^{commit}"); err == nil {
			large := m.large(repo, st)
			missing, err := m.missingBlobs(ctx, dir, []string{commit})
			st.mu.Lock()
			missing = without(missing, large)
			st.mu.Unlock()
			ok = err == nil && len(missing) == 0
		}
	}
	if ctx.Err() != nil {
		return false
	}
	st.mu.Lock()
	if ok {
		st.ready[commit] = true
	} else {
		st.notReady[commit] = gen
	}
	st.mu.Unlock()
	return ok
}

// Ensure makes sure repo's mirror has commit and its blobs, fetching it when
// needed, and waits for that as long as ctx allows. The error says why the
// mirror cannot serve the commit (yet).
func (m *Mirror) Ensure(ctx context.Context, repo pipeline.Repo, commit string) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	if !pipeline.IsFullCommit(commit) {
		return pipeline.Invalidf("ref", "the mirror needs a full commit id, got %q", commit)
	}
	if m.Has(ctx, repo, commit, 0) {
		return nil
	}
	first := !m.exists(repo)
	m.Prefetch(repo, Want{Commits: []string{commit}})
	st := m.state(repo)
	for {
		st.mu.Lock()
		ready, pending, ch, lastErr := st.ready[commit], st.pending, st.changed, st.lastErr
		st.mu.Unlock()
		if ready {
			return nil
		}
		if pending == 0 {
			if m.check(ctx, repo, st, commit) {
				return nil
			}
			if lastErr != nil {
				return fmt.Errorf("the mirror of %s/%s has no commit %s: %w", repo.Workspace, repo.RepoSlug, pipeline.ShortCommit(commit), lastErr)
			}
			return fmt.Errorf("the mirror of %s/%s has no commit %s: %w", repo.Workspace, repo.RepoSlug, pipeline.ShortCommit(commit), pipeline.ErrNotFound)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			what := "a fetch is running"
			if first {
				what = "its first clone is running"
			}
			return fmt.Errorf("the mirror of %s/%s does not have commit %s yet (%s): %w", repo.Workspace, repo.RepoSlug, pipeline.ShortCommit(commit), what, ctx.Err())
		}
	}
}

// git runs one git command in dir. With auth, the credential header is given
// to git through its environment for this command only. stdout is returned;
// a failure carries the first line of stderr.
func (m *Mirror) git(ctx context.Context, dir string, stdin io.Reader, auth bool, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = m.env(auth)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitWriter{w: &stderr, n: 4 << 10}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, pipeline.FirstLine(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// env is the environment of a git command: no inherited GIT_* variable (no
// redirection, no tracing that could print headers), no system or global
// config (no credential helper that could store the token, no URL rewrite),
// never a prompt; with auth, the credential header scoped to the clone URLs.
func (m *Mirror) env(auth bool) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	out = append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C")
	// Redirects are never followed: git's default ("initial") moves every
	// later request of the command to the redirect's host, extraHeader
	// included, so a redirect would hand the credential to another host.
	config := [][2]string{{"http.followRedirects", "false"}}
	if auth && m.header != "" {
		config = append(config, [2]string{"http." + m.base.String() + "/.extraHeader", m.header}, [2]string{"credential.helper", ""})
	}
	out = append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(config)))
	for i, kv := range config {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validBranch accepts the branch names a fetch refspec may carry: no
// whitespace or control characters, none of git's special characters, no
// ".." and no leading '-' or '/'.
func validBranch(b string) bool {
	if b == "" || len(b) > 255 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.Contains(b, "..") || strings.Contains(b, "@{") || strings.HasSuffix(b, ".lock") {
		return false
	}
	for _, r := range b {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			return false
		}
	}
	return true
}
