// Package bitbuckettest is an in-memory fake of the Bitbucket Cloud REST API
// 2.0 endpoints prscout uses, for tests: pull requests (with the diff 302),
// diffs and diffstats between commits, commits and merge bases, source files
// and paged directory listings, a pull request's commits (newest first, with
// their messages), pull request comments (POST, PUT and DELETE change the
// state and are recorded; POST and DELETE on .../comments/{id}/resolve
// resolve and reopen a top-level inline comment's thread, 409 when it is
// already resolved, 403 for a reply or a general comment; an inline anchor
// is taken when it fits the API description, on the diff or off it, as no
// documentation says which ranges Bitbucket refuses), pull request tasks
// (see tasks.go), pull request
// states (SetPullRequestState), the authenticated account
// (GET /user), commit build statuses and Code Insights reports with their
// annotations (see insights.go for the documented rules the fake enforces,
// and DenyScope for a token without the scope). Every comment has an author account; the authenticated
// account (SetAccountID, default DefaultAccountID) writes the comments
// created through the API, and like Bitbucket the fake answers 403 to a PUT
// or DELETE of another account's comment. It counts calls per operation
// and injects faults (429 with or without Retry-After, 5xx, 555, delays,
// 404s).
//
// Shapes follow the documented API and captured payloads: commit ids in pull
// request payloads are 12-character abbreviations, links.diff.href uses the
// fork-qualified "ws/repo:src%0Ddst" spec with from_pullrequest_id and
// topic=true, paged answers carry an absolute `next` link and neither `size`
// nor `page`, errors are {"type":"error","error":{"message":...}}.
//
// The API root is Server.BaseURL (".../2.0"). ServeGit also serves a real
// git repository at the clone URL {URL}/{workspace}/{slug}.git over git's
// smart HTTP protocol, behind the same credentials (see git.go).
package bitbuckettest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/internal/apicheck"
)

// Operation names, the same as the adapter reports to its Observer, plus
// the pull request diff redirects.
const (
	OpGetPullRequest = "get_pullrequest"
	OpPRDiff         = "pr_diff"     // GET /pullrequests/{id}/diff (302)
	OpPRDiffstat     = "pr_diffstat" // GET /pullrequests/{id}/diffstat (302)
	OpGetDiff        = "get_diff"
	OpDiffstat       = "diffstat"
	OpGetCommit      = "get_commit"
	OpMergeBase      = "merge_base"
	OpGetSrc         = "get_src" // file content and ?format=meta
	OpListDir        = "list_dir"
	OpListComments   = "list_comments"
	OpGetComment     = "get_comment"
	OpCreateComment  = "create_comment"
	OpUpdateComment  = "update_comment"
	OpDeleteComment  = "delete_comment"
	OpGetUser        = "get_user" // GET /user: the authenticated account
	OpPRCommits      = "list_pr_commits"
	// OpResolveComment is POST .../comments/{id}/resolve; OpReopenComment
	// DELETE on the same path.
	OpResolveComment = "resolve_comment"
	OpReopenComment  = "reopen_comment"
	// Pull request tasks: GET and POST .../tasks, GET and PUT .../tasks/{id}.
	OpListTasks  = "list_tasks"
	OpCreateTask = "create_task"
	OpGetTask    = "get_task"
	OpUpdateTask = "update_task"
)

// DefaultAccountID is the authenticated account's id until SetAccountID.
const DefaultAccountID = "prscout-bot"

// botName is the authenticated account's display name.
const botName = "prscout bot"

// DiffstatEntry is one diffstat value. OldPath is "" for added files, Path ""
// for removed ones.
type DiffstatEntry struct {
	Status       string
	Path         string
	OldPath      string
	LinesAdded   int
	LinesRemoved int
}

// Fault is an injected failure for the next Times requests of an operation.
type Fault struct {
	// PathContains, when non-empty, limits the fault to requests whose
	// escaped path contains it (one pull request's calls,
	// "/pullrequests/7/"); other requests of the operation pass and leave
	// it in place.
	PathContains string
	// BodyContains, when non-empty, limits it likewise to requests whose
	// body contains it (one comment's anchor, `"start_to":7`).
	BodyContains string
	Status       int           // answer status; 0 answers normally (after Delay)
	Times        int           // how many requests it hits (default 1)
	RetryAfter   string        // Retry-After header value, when non-empty
	Delay        time.Duration // wait before answering (cut short when the client goes away)
	Body         string        // answer body; default an error JSON
}

// Request is one request the fake received.
type Request struct {
	Op            string
	Method        string
	EscapedPath   string
	Query         url.Values
	Body          []byte
	Authorization string
}

type repoKey struct{ ws, slug string }

type file struct {
	content []byte
	attrs   []string
}

type repoData struct {
	commits  map[string][]string // full id -> parents
	messages map[string]string   // full id -> commit message
	branches map[string]string   // name -> full id
	files    map[string]map[string]file
	diffs    map[[2]string]string // {head, base} full ids -> diff
	stats    map[[2]string][]DiffstatEntry
	prs      map[int]*PullRequest
	comments map[int][]*Comment
	tasks    map[int][]*Task
	statuses map[string]map[string]*CommitStatus // full commit id -> key ->
	reports  map[string]map[string]*storedReport // full commit id -> external id ->
}

// Server is the fake. Its exported methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	// BaseURL is the API root to give the adapter: URL + "/2.0".
	BaseURL string
	// PageLen, when positive, is the page size of every paged answer
	// (ignoring pagelen); otherwise pagelen is honoured, default 10, max 100.
	PageLen int

	mu       sync.Mutex
	repos    map[repoKey]*repoData
	faults   map[string][]Fault
	calls    map[string]int
	requests []Request
	auth     string // required Authorization value; "" accepts any
	// basicToken and bearerToken are the API token or access token the
	// required auth carries; git requests must send it in git's form.
	basicToken, bearerToken string
	git                     map[string]http.Handler // "/{ws}/{slug}.git" -> git http-backend
	denied                  map[string]bool         // operations answered 403 for a missing scope
	nextID                  int64
	self                    string // the authenticated account's id
	waiters                 []callWaiter
	rate                    RateLimit
	rateUsed                int
	violations              []string        // departures from the API description (spec.go)
	specOps                 map[string]bool // operations of the description requested
}

// RateLimit is the fake's rate limit; every API request uses one call. Like
// Bitbucket, the headers are an access-token feature: every answer to a
// Bearer request carries X-RateLimit-Limit, X-RateLimit-Resource ("api")
// and X-RateLimit-NearLimit ("true" when less than a fifth of the limit is
// left, else "false"); an API token (Basic) request gets none of them, only
// the 429 (with Retry-After when set) once the limit is enforced and used
// up. The default is a limit of 1000 that is never enforced.
type RateLimit struct {
	// Limit is the calls per window (default 1000).
	Limit int
	// Enforce answers 429 "Rate limit for this resource has been exceeded"
	// once Limit calls were used, with Retry-After when RetryAfter is set.
	Enforce    bool
	RetryAfter string
	// SendRemaining adds X-RateLimit-Remaining (Bitbucket does not send
	// it; Jira-style upstreams do), for tests of a remaining threshold.
	SendRemaining bool
}

// SetRateLimit replaces the rate limit and sets the calls already used in
// the window (used counts as requests made before).
func (s *Server) SetRateLimit(rl RateLimit, used int) {
	if rl.Limit <= 0 {
		rl.Limit = defaultRateLimit
	}
	s.mu.Lock()
	s.rate, s.rateUsed = rl, used
	s.mu.Unlock()
}

// RateUsed is how many calls of the window were used.
func (s *Server) RateUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateUsed
}

// defaultRateLimit is Bitbucket's base limit of /2.0/repositories/* per
// hour.
const defaultRateLimit = 1000

// useRateLocked counts one call against the rate limit and writes the
// rate-limit headers on w for an access token (bearer); it reports whether
// the limit is exceeded (the answer must be 429).
func (s *Server) useRateLocked(w http.ResponseWriter, bearer bool) (exceeded bool) {
	rl := s.rate
	s.rateUsed++
	left := max(rl.Limit-s.rateUsed, 0)
	h := w.Header()
	if bearer {
		h.Set("X-RateLimit-Limit", strconv.Itoa(rl.Limit))
		h.Set("X-RateLimit-Resource", "api")
		h.Set("X-RateLimit-NearLimit", strconv.FormatBool(left*5 < rl.Limit))
		if rl.SendRemaining {
			h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
		}
	}
	if rl.Enforce && s.rateUsed > rl.Limit {
		if rl.RetryAfter != "" {
			h.Set("Retry-After", rl.RetryAfter)
		}
		return true
	}
	return false
}

// NewServer starts a fake; Close it when done.
func NewServer() *Server {
	s := &Server{
		repos:  map[repoKey]*repoData{},
		faults: map[string][]Fault{},
		calls:  map[string]int{},
		nextID: 1000,
		self:   DefaultAccountID,
		rate:   RateLimit{Limit: defaultRateLimit},
	}
	s.Server = httptest.NewServer(s.routes())
	s.BaseURL = s.URL + "/2.0"
	return s
}

// RequireBasic makes every request without "Basic base64(email:token)" fail with 401.
func (s *Server) RequireBasic(email, token string) {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(email, token)
	s.mu.Lock()
	s.auth = r.Header.Get("Authorization")
	s.basicToken, s.bearerToken = token, ""
	s.mu.Unlock()
}

// RequireBearer makes every request without "Bearer token" fail with 401.
func (s *Server) RequireBearer(token string) {
	s.mu.Lock()
	s.auth = "Bearer " + token
	s.basicToken, s.bearerToken = "", token
	s.mu.Unlock()
}

func (s *Server) repo(ws, slug string) *repoData {
	k := repoKey{ws, slug}
	r := s.repos[k]
	if r == nil {
		r = &repoData{
			commits: map[string][]string{}, messages: map[string]string{}, branches: map[string]string{},
			files: map[string]map[string]file{}, diffs: map[[2]string]string{},
			stats: map[[2]string][]DiffstatEntry{}, prs: map[int]*PullRequest{},
			comments: map[int][]*Comment{},
			tasks:    map[int][]*Task{},
			statuses: map[string]map[string]*CommitStatus{},
			reports:  map[string]map[string]*storedReport{},
		}
		s.repos[k] = r
	}
	return r
}

// AddCommit records a commit (full id) and its parents, for commit
// resolution and merge bases.
func (s *Server) AddCommit(ws, slug, id string, parents ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(ws, slug).commits[id] = parents
}

// SetCommitMessage sets a commit's message (the commit is added if unknown).
func (s *Server) SetCommitMessage(ws, slug, id, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(ws, slug)
	if _, ok := r.commits[id]; !ok {
		r.commits[id] = nil
	}
	r.messages[id] = message
}

// SetBranch points a branch name at a commit.
func (s *Server) SetBranch(ws, slug, name, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(ws, slug).branches[name] = id
}

// SetFile stores a file at a commit (full id; the commit is added if
// unknown). attrs are Bitbucket commit_file attributes such as "binary" or
// "lfs" (an LFS file's content answers 301 to another host).
func (s *Server) SetFile(ws, slug, commit, p string, content []byte, attrs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(ws, slug)
	if _, ok := r.commits[commit]; !ok {
		r.commits[commit] = nil
	}
	if r.files[commit] == nil {
		r.files[commit] = map[string]file{}
	}
	r.files[commit][strings.Trim(p, "/")] = file{content: content, attrs: attrs}
}

// SetDiff stores the diff from base to head (git order). Bitbucket serves it
// at /diff/{head}..{base} (its reversed order) and through the pull
// request's diff link.
func (s *Server) SetDiff(ws, slug, base, head, diff string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(ws, slug).diffs[[2]string{head, base}] = diff
}

// SetDiffstat stores the diffstat from base to head (git order).
func (s *Server) SetDiffstat(ws, slug, base, head string, entries []DiffstatEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(ws, slug).stats[[2]string{head, base}] = entries
}

// SetAccountID sets the authenticated account's id: GET /user answers it
// and comments created through the API carry it.
func (s *Server) SetAccountID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.self = id
}

// Fail queues a fault for the next requests of op.
func (s *Server) Fail(op string, f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[op] = append(s.faults[op], f)
}

// Calls returns how many requests op received (faulted ones included).
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// CallsReached returns a channel that is closed once op has received n
// requests (faulted ones included), for a test to wait on instead of
// polling Calls.
func (s *Server) CallsReached(op string, n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	if s.calls[op] >= n {
		close(ch)
		return ch
	}
	s.waiters = append(s.waiters, callWaiter{op, n, ch})
	return ch
}

type callWaiter struct {
	op string
	n  int
	ch chan struct{}
}

// countLocked counts one request of op and wakes the waiters it satisfies.
func (s *Server) countLocked(op string) {
	s.calls[op]++
	s.waiters = slices.DeleteFunc(s.waiters, func(w callWaiter) bool {
		if w.op == op && s.calls[op] >= w.n {
			close(w.ch)
			return true
		}
		return false
	})
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func nickname(name string) string { return strings.ToLower(strings.ReplaceAll(name, " ", "")) }

// account is a user object; id "" derives the account id from name. The
// uuid is derived from the account id, so both identify the same account.
func account(name, id string) map[string]any {
	if id == "" {
		id = "user-" + nickname(name)
	}
	h := sha256.Sum256([]byte(id))
	x := hex.EncodeToString(h[:16])
	return map[string]any{
		"type": "user", "display_name": name, "nickname": nickname(name),
		"uuid": "{" + x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:] + "}", "account_id": id,
	}
}

func repository(ws, slug string) map[string]any {
	return map[string]any{
		"type": "repository", "full_name": ws + "/" + slug, "name": slug,
		"uuid": "{a1b2c3d4-e5f6-4789-8abc-def012345678}",
	}
}

// --- HTTP ---

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"message": msg}})
}

// writeErrorDetail answers Bitbucket's error object with its detail.
func writeErrorDetail(w http.ResponseWriter, status int, msg, detail string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"message": msg, "detail": detail}})
}

// call is one API request on its way to its handler: the operation it is
// counted under, its body, and the repository its path names (nil for
// GET /user).
type call struct {
	w        http.ResponseWriter
	r        *http.Request
	op       string
	ws, slug string
	rd       *repoData
	body     []byte
}

// routes maps every endpoint the fake serves to its operation and handler,
// with the method and path patterns of Bitbucket's API reference.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	handle := func(pattern, op string, h func(*call)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.serveAPI(w, r, op, h) })
	}
	const repo = "/2.0/repositories/{workspace}/{repo}"
	const pr = repo + "/pullrequests/{id}"
	const commit = repo + "/commit/{commit}"

	handle("GET /2.0/user", OpGetUser, s.getUser)
	handle("GET /2.0/user/{$}", OpGetUser, s.getUser)

	handle("GET "+pr, OpGetPullRequest, s.getPullRequest)
	handle("GET "+pr+"/diff", OpPRDiff, s.prRedirect("diff"))
	handle("GET "+pr+"/diffstat", OpPRDiffstat, s.prRedirect("diffstat"))
	handle("GET "+pr+"/commits", OpPRCommits, s.listPRCommits)
	for _, p := range []string{pr + "/comments", pr + "/comments/{$}"} {
		handle("GET "+p, OpListComments, s.listComments)
		handle("POST "+p, OpCreateComment, s.createComment)
	}
	handle("GET "+pr+"/comments/{comment}", OpGetComment, s.comment)
	handle("PUT "+pr+"/comments/{comment}", OpUpdateComment, s.comment)
	handle("DELETE "+pr+"/comments/{comment}", OpDeleteComment, s.comment)
	handle("POST "+pr+"/comments/{comment}/resolve", OpResolveComment, s.resolveThread)
	handle("DELETE "+pr+"/comments/{comment}/resolve", OpReopenComment, s.resolveThread)
	for _, p := range []string{pr + "/tasks", pr + "/tasks/{$}"} {
		handle("GET "+p, OpListTasks, s.listTasks)
		handle("POST "+p, OpCreateTask, s.createTask)
	}
	handle("GET "+pr+"/tasks/{task}", OpGetTask, s.task)
	handle("PUT "+pr+"/tasks/{task}", OpUpdateTask, s.task)

	// {spec...} keeps the slashes of a fork-qualified spec ("ws/repo:a\rb").
	handle("GET "+repo+"/diff/{spec...}", OpGetDiff, s.getDiff)
	handle("GET "+repo+"/diffstat/{spec...}", OpDiffstat, s.getDiffstat)
	handle("GET "+repo+"/merge-base/{spec...}", OpMergeBase, s.getMergeBase)
	// {rev...}: a branch name may hold slashes.
	handle("GET "+repo+"/commit/{rev...}", OpGetCommit, s.getCommit)
	// The root listing needs the trailing slash; without one the fake
	// lists the root too instead of redirecting.
	handle("GET "+repo+"/src/{commit}", OpGetSrc, s.src)
	handle("GET "+repo+"/src/{commit}/{path...}", OpGetSrc, s.src)

	s.branchRoutes(handle, repo)

	handle("POST "+commit+"/statuses/build", OpSetStatus, s.insights)
	handle("GET "+commit+"/statuses/build/{key}", OpGetStatus, s.insights)
	handle("PUT "+commit+"/reports/{report}", OpPutReport, s.insights)
	handle("GET "+commit+"/reports/{report}", OpGetReport, s.insights)
	handle("DELETE "+commit+"/reports/{report}", OpDeleteReport, s.insights)
	handle("POST "+commit+"/reports/{report}/annotations", OpPostAnnotations, s.insights)
	handle("GET "+commit+"/reports/{report}/annotations", OpListAnnotations, s.insights)
	handle("DELETE "+commit+"/reports/{report}/annotations/{annotation}", OpDeleteAnnotation, s.insights)

	// Any other request of a repository is counted, checked and answered
	// 404 like a known one (so it also answers 404 for a method the
	// endpoint lacks); one outside the API is a git clone URL or 404.
	handle(repo+"/{rest...}", "", func(c *call) { writeError(c.w, http.StatusNotFound, "Resource not found") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !s.serveGit(w, r) {
			writeError(w, http.StatusNotFound, "Resource not found")
		}
	})
	return mux
}

// serveAPI runs one API request: it is counted and recorded under op,
// takes the next injected fault of op, must carry the required credentials
// and scope, and must name a known repository; h then runs with s.mu held.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, op string, h func(*call)) {
	body, _ := io.ReadAll(r.Body)
	c := &call{w: w, r: r, op: op, ws: r.PathValue("workspace"), slug: r.PathValue("repo"), body: body}
	if op == OpGetSrc && r.URL.Query().Get("format") != "meta" && s.isListing(c.ws, c.slug, r.PathValue("commit"), r.PathValue("path")) {
		c.op = OpListDir
	}
	raw := r.URL.EscapedPath()

	s.mu.Lock()
	s.countLocked(c.op)
	s.requests = append(s.requests, Request{Op: c.op, Method: r.Method, EscapedPath: raw, Query: r.URL.Query(), Body: body, Authorization: r.Header.Get("Authorization")})
	var fault *Fault
	q := s.faults[c.op]
	for i := range q {
		if q[i].PathContains != "" && !strings.Contains(raw, q[i].PathContains) ||
			q[i].BodyContains != "" && !strings.Contains(string(body), q[i].BodyContains) {
			continue
		}
		f := q[i]
		fault = &f
		q[i].Times--
		if q[i].Times <= 0 {
			s.faults[c.op] = slices.Delete(q, i, i+1)
		}
		break
	}
	bearer := strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	exceeded := s.useRateLocked(w, bearer)
	auth := s.auth
	s.mu.Unlock()

	if exceeded {
		writeError(w, http.StatusTooManyRequests, "Rate limit for this resource has been exceeded")
		return
	}
	if fault != nil && !s.serveFault(w, r, fault, bearer) {
		return
	}
	if auth != "" && r.Header.Get("Authorization") != auth {
		writeError(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if s.scopeDenied(c.op) {
		writeScopeError(w)
		return
	}
	if !s.checkSpec(w, c.op, r, body) {
		return
	}

	rec := &apicheck.Recorder{ResponseWriter: w}
	c.w = rec
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.checkAnswerLocked(c.op, r, rec)
	if c.ws != "" {
		if c.rd = s.repos[repoKey{c.ws, c.slug}]; c.rd == nil {
			writeError(rec, http.StatusNotFound, "Repository "+c.ws+"/"+c.slug+" not found")
			return
		}
	}
	h(c)
}

// serveFault applies an injected fault: it waits out its delay, then
// answers its status (429 with X-RateLimit-NearLimit for an access token,
// 555 with the diff timeout message). It reports whether the request goes
// on normally.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, fault *Fault, bearer bool) bool {
	if fault.Delay > 0 {
		select {
		case <-time.After(fault.Delay):
		case <-r.Context().Done():
			return false
		}
	}
	if fault.Status == 0 {
		return true
	}
	if fault.RetryAfter != "" {
		w.Header().Set("Retry-After", fault.RetryAfter)
	}
	if fault.Status == http.StatusTooManyRequests && bearer {
		w.Header().Set("X-RateLimit-NearLimit", "true")
	}
	if fault.Body != "" {
		w.WriteHeader(fault.Status)
		_, _ = io.WriteString(w, fault.Body)
		return false
	}
	msg := http.StatusText(fault.Status)
	switch fault.Status {
	case http.StatusTooManyRequests:
		msg = "Rate limit for this resource has been exceeded"
	case 555:
		msg = "Service Timeout: the diff is too large"
	}
	writeError(w, fault.Status, msg)
	return false
}

func (s *Server) getUser(c *call) {
	u := account(botName, s.self)
	u["created_on"] = "2026-01-05T09:00:00.000000+00:00"
	writeJSON(c.w, http.StatusOK, u)
}
