// Package bitbuckettest is an in-memory fake of the Bitbucket Cloud REST API
// 2.0 endpoints prscout uses, for tests: pull requests (with the diff 302),
// diffs and diffstats between commits, commits and merge bases, source files
// and paged directory listings, a pull request's commits (newest first, with
// their messages), pull request comments (POST, PUT and DELETE change the
// state and are recorded; POST and DELETE on .../comments/{id}/resolve
// resolve and reopen a top-level inline comment's thread, 409 when it is
// already resolved, 403 for a reply or a general comment), pull request
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
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
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
)

// PullRequest is a pull request held by the fake. Commits are full ids; the
// payload shows their first 12 characters like Bitbucket does.
type PullRequest struct {
	ID                int
	Title             string
	Description       string
	Author            string
	State             string // default "OPEN"
	SourceBranch      string
	DestinationBranch string
	SourceCommit      string
	DestinationCommit string
}

// Comment is a pull request comment held by the fake.
type Comment struct {
	ID      int64
	Body    string
	Path    string // inline path; "" for a general comment
	From    *int
	To      *int
	Parent  *int64
	Deleted bool
	Author  string // display name
	// AccountID is the author's account id; AddComment derives one from
	// Author when empty. Comments created through the API carry the
	// authenticated account's.
	AccountID string
	// Resolved is set by POST .../comments/{id}/resolve (and cleared by
	// DELETE on it); ResolvedBy is the account that resolved the thread.
	Resolved   bool
	ResolvedBy string
}

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
	Status     int           // answer status; 0 answers normally (after Delay)
	Times      int           // how many requests it hits (default 1)
	RetryAfter string        // Retry-After header value, when non-empty
	Delay      time.Duration // wait before answering (cut short when the client goes away)
	Body       string        // answer body; default an error JSON
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
}

// NewServer starts a fake; Close it when done.
func NewServer() *Server {
	s := &Server{
		repos:  map[repoKey]*repoData{},
		faults: map[string][]Fault{},
		calls:  map[string]int{},
		nextID: 1000,
		self:   DefaultAccountID,
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

// AddPullRequest stores a pull request; its commits are added if unknown.
func (s *Server) AddPullRequest(ws, slug string, pr PullRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(ws, slug)
	if pr.State == "" {
		pr.State = "OPEN"
	}
	for _, c := range []string{pr.SourceCommit, pr.DestinationCommit} {
		if _, ok := r.commits[c]; !ok && c != "" {
			r.commits[c] = nil
		}
	}
	r.prs[pr.ID] = &pr
}

// SetPullRequestState sets a stored pull request's state (OPEN, MERGED,
// DECLINED or SUPERSEDED) and reports whether the pull request exists.
func (s *Server) SetPullRequestState(ws, slug string, id int, state string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.repo(ws, slug).prs[id]
	if pr == nil {
		return false
	}
	pr.State = state
	return true
}

// SetAccountID sets the authenticated account's id: GET /user answers it
// and comments created through the API carry it.
func (s *Server) SetAccountID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.self = id
}

// AddComment stores a comment and returns its id. Author defaults to
// "Reviewer", AccountID to one derived from Author (so by default not the
// authenticated account).
func (s *Server) AddComment(ws, slug string, prID int, c Comment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	if c.Author == "" {
		c.Author = "Reviewer"
	}
	if c.AccountID == "" {
		c.AccountID = "user-" + nickname(c.Author)
	}
	r := s.repo(ws, slug)
	r.comments[prID] = append(r.comments[prID], &c)
	return c.ID
}

// AddCommentAs stores a general comment written by accountID (its display
// name too) and returns its id: another participant's comment, or, with the
// authenticated account's id, one prscout wrote.
func (s *Server) AddCommentAs(ws, slug string, prID int, accountID, body string) int64 {
	return s.AddComment(ws, slug, prID, Comment{Body: body, Author: accountID, AccountID: accountID})
}

// Comments returns the pull request's comments (deleted ones included) in
// creation order.
func (s *Server) Comments(ws, slug string, prID int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repo(ws, slug).comments[prID] {
		out = append(out, *c)
	}
	return out
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

// PullRequestEvent returns a webhook body {actor, pullrequest, repository}
// for a stored pull request, as Bitbucket posts for pullrequest:created and
// pullrequest:updated. Sign it with bitbucket.Sign.
func (s *Server) PullRequestEvent(ws, slug string, id int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.repo(ws, slug).prs[id]
	if pr == nil {
		return nil
	}
	b, _ := json.Marshal(map[string]any{
		"actor":       account(pr.Author, ""),
		"pullrequest": s.prJSON(ws, slug, pr),
		"repository":  repository(ws, slug),
	})
	return b
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

func (s *Server) prJSON(ws, slug string, pr *PullRequest) map[string]any {
	self := fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d", s.BaseURL, ws, slug, pr.ID)
	spec := fmt.Sprintf("%s/%s:%s%%0D%s?from_pullrequest_id=%d&topic=true", ws, slug, short(pr.SourceCommit), short(pr.DestinationCommit), pr.ID)
	endpoint := func(branch, commit string) map[string]any {
		return map[string]any{
			"branch":     map[string]any{"name": branch},
			"commit":     map[string]any{"type": "commit", "hash": short(commit)},
			"repository": repository(ws, slug),
		}
	}
	text := func(s string) map[string]any {
		return map[string]any{"raw": s, "markup": "markdown", "html": "<p>" + s + "</p>"}
	}
	return map[string]any{
		"type": "pullrequest", "id": pr.ID, "title": pr.Title, "description": pr.Description,
		"summary":  text(pr.Description),
		"rendered": map[string]any{"title": text(pr.Title), "description": text(pr.Description)},
		"state":    pr.State, "author": account(pr.Author, ""),
		"source":       endpoint(pr.SourceBranch, pr.SourceCommit),
		"destination":  endpoint(pr.DestinationBranch, pr.DestinationCommit),
		"merge_commit": nil, "comment_count": 0, "task_count": 0, "close_source_branch": false, "reason": "",
		"created_on": "2026-11-02T09:14:07.118226+00:00", "updated_on": "2026-11-02T10:01:44.530841+00:00",
		"links": map[string]any{
			"self":     map[string]any{"href": self},
			"html":     map[string]any{"href": fmt.Sprintf("https://bitbucket.example/%s/%s/pull-requests/%d", ws, slug, pr.ID)},
			"comments": map[string]any{"href": self + "/comments"},
			"diff":     map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/diff/%s", s.BaseURL, ws, slug, spec)},
			"diffstat": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/diffstat/%s", s.BaseURL, ws, slug, spec)},
		},
	}
}

// resolutionJSON is a comment_resolution object.
func resolutionJSON(c *Comment) map[string]any {
	return map[string]any{"type": "comment_resolution", "user": account(c.ResolvedBy, c.ResolvedBy), "created_on": "2026-11-02T11:00:00.000000+00:00"}
}

func commentJSON(s *Server, ws, slug string, prID int, c *Comment) map[string]any {
	m := map[string]any{
		"type": "pullrequest_comment", "id": c.ID, "deleted": c.Deleted, "pending": false,
		"content":    map[string]any{"raw": c.Body, "markup": "markdown", "html": "<p>" + c.Body + "</p>", "type": "rendered"},
		"user":       account(c.Author, c.AccountID),
		"created_on": "2026-11-02T10:05:00.000000+00:00", "updated_on": "2026-11-02T10:05:00.000000+00:00",
		"links": map[string]any{
			"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d/comments/%d", s.BaseURL, ws, slug, prID, c.ID)},
			"html": map[string]any{"href": fmt.Sprintf("https://bitbucket.example/%s/%s/pull-requests/%d/_/diff#comment-%d", ws, slug, prID, c.ID)},
		},
		"resolution": nil,
	}
	if c.Resolved {
		m["resolution"] = resolutionJSON(c)
	}
	if c.Path != "" {
		in := map[string]any{"path": c.Path}
		if c.From != nil {
			in["from"] = *c.From
		}
		if c.To != nil {
			in["to"] = *c.To
		}
		m["inline"] = in
	}
	if c.Parent != nil {
		m["parent"] = map[string]any{"id": *c.Parent}
	}
	return m
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
	if q := s.faults[c.op]; len(q) > 0 {
		f := q[0]
		fault = &f
		q[0].Times--
		if q[0].Times <= 0 {
			s.faults[c.op] = q[1:]
		}
	}
	auth := s.auth
	s.mu.Unlock()

	if fault != nil && !s.serveFault(w, r, fault) {
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

	s.mu.Lock()
	defer s.mu.Unlock()
	if c.ws != "" {
		if c.rd = s.repos[repoKey{c.ws, c.slug}]; c.rd == nil {
			writeError(w, http.StatusNotFound, "Repository "+c.ws+"/"+c.slug+" not found")
			return
		}
	}
	h(c)
}

// serveFault applies an injected fault: it waits out its delay, then
// answers its status (429 with Bitbucket's rate limit headers, 555 with the
// diff timeout message). It reports whether the request goes on normally.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, fault *Fault) bool {
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
	if fault.Status == http.StatusTooManyRequests {
		w.Header().Set("X-RateLimit-Limit", "1000")
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

// pullRequest returns the pull request {id} names, or answers 404.
func (s *Server) pullRequest(c *call) *PullRequest {
	pr := s.pr(c.rd, c.r.PathValue("id"))
	if pr == nil {
		writeError(c.w, http.StatusNotFound, "Pull request not found")
	}
	return pr
}

func (s *Server) getPullRequest(c *call) {
	if pr := s.pullRequest(c); pr != nil {
		writeJSON(c.w, http.StatusOK, s.prJSON(c.ws, c.slug, pr))
	}
}

// prRedirect answers a pull request's diff or diffstat with a 302 to its
// link; like Bitbucket, the redirect carries the link's own query only.
func (s *Server) prRedirect(kind string) func(*call) {
	return func(c *call) {
		pr := s.pullRequest(c)
		if pr == nil {
			return
		}
		links := s.prJSON(c.ws, c.slug, pr)["links"].(map[string]any)
		http.Redirect(c.w, c.r, links[kind].(map[string]any)["href"].(string), http.StatusFound)
	}
}

func (s *Server) listPRCommits(c *call) {
	pr := s.pullRequest(c)
	if pr == nil {
		return
	}
	var vals []any
	for _, id := range prCommits(c.rd, pr.SourceCommit, pr.DestinationCommit) {
		vals = append(vals, map[string]any{"type": "commit", "hash": id, "message": c.rd.messages[id], "parents": parentsJSON(c.rd.commits[id])})
	}
	s.writePage(c.w, c.r, vals, 10)
}

// diffSpec resolves {spec}, or answers 404.
func (s *Server) diffSpec(c *call) (head, base string, ok bool) {
	head, base, ok = s.spec(c.rd, c.r.PathValue("spec"))
	if !ok {
		writeError(c.w, http.StatusNotFound, "Commit not found")
	}
	return head, base, ok
}

// getDiff answers the raw diff as stored, bytes as they are.
func (s *Server) getDiff(c *call) {
	head, base, ok := s.diffSpec(c)
	if !ok {
		return
	}
	d, ok := c.rd.diffs[[2]string{head, base}]
	if !ok {
		writeError(c.w, http.StatusNotFound, "No diff stored for "+head+".."+base)
		return
	}
	c.w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(c.w, d)
}

func (s *Server) getDiffstat(c *call) {
	head, base, ok := s.diffSpec(c)
	if !ok {
		return
	}
	entries := c.rd.stats[[2]string{head, base}]
	vals := make([]any, 0, len(entries))
	for _, e := range entries {
		vals = append(vals, diffstatJSON(s, c.ws, c.slug, head, base, e))
	}
	s.writePage(c.w, c.r, vals, 500)
}

func (s *Server) getCommit(c *call) {
	id, ok := s.resolve(c.rd, c.r.PathValue("rev"))
	if !ok {
		writeError(c.w, http.StatusNotFound, "Commit not found")
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{"type": "commit", "hash": id, "message": c.rd.messages[id], "parents": parentsJSON(c.rd.commits[id])})
}

func (s *Server) getMergeBase(c *call) {
	a, b, found := strings.Cut(c.r.PathValue("spec"), "..")
	ia, oka := s.resolve(c.rd, a)
	ib, okb := s.resolve(c.rd, b)
	if !found || !oka || !okb {
		writeError(c.w, http.StatusNotFound, "Commit not found")
		return
	}
	mb := mergeBase(c.rd, ia, ib)
	if mb == "" {
		writeError(c.w, http.StatusNotFound, "No common ancestor")
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{"type": "commit", "hash": mb})
}

// prID returns the pull request id of the path, or answers 404 when no such
// pull request exists.
func (s *Server) prID(c *call) (int, bool) {
	id, _ := strconv.Atoi(c.r.PathValue("id"))
	if c.rd.prs[id] == nil {
		writeError(c.w, http.StatusNotFound, "Pull request not found")
		return 0, false
	}
	return id, true
}

func (s *Server) listComments(c *call) {
	prID, ok := s.prID(c)
	if !ok {
		return
	}
	var vals []any
	for _, cm := range c.rd.comments[prID] {
		vals = append(vals, commentJSON(s, c.ws, c.slug, prID, cm))
	}
	s.writePage(c.w, c.r, vals, 100)
}

func (s *Server) createComment(c *call) {
	prID, ok := s.prID(c)
	if !ok {
		return
	}
	var in struct {
		Content struct {
			Raw string `json:"raw"`
		} `json:"content"`
		Inline *struct {
			Path string `json:"path"`
			From *int   `json:"from"`
			To   *int   `json:"to"`
		} `json:"inline"`
		Parent *struct {
			ID int64 `json:"id"`
		} `json:"parent"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil || in.Content.Raw == "" {
		writeError(c.w, http.StatusBadRequest, "content.raw: required")
		return
	}
	cm := &Comment{Body: in.Content.Raw, Author: botName, AccountID: s.self}
	if in.Inline != nil {
		if in.Inline.Path == "" {
			writeError(c.w, http.StatusBadRequest, "inline.path: required")
			return
		}
		cm.Path, cm.From, cm.To = in.Inline.Path, in.Inline.From, in.Inline.To
	}
	if in.Parent != nil {
		cm.Parent = &in.Parent.ID
	}
	s.nextID++
	cm.ID = s.nextID
	c.rd.comments[prID] = append(c.rd.comments[prID], cm)
	m := commentJSON(s, c.ws, c.slug, prID, cm)
	c.w.Header().Set("Location", m["links"].(map[string]any)["self"].(map[string]any)["href"].(string))
	writeJSON(c.w, http.StatusCreated, m)
}

// liveComment returns the comment {comment} of pull request {id} unless it
// is unknown or deleted (then nil).
func liveComment(c *call) (int, *Comment) {
	prID, _ := strconv.Atoi(c.r.PathValue("id"))
	id, _ := strconv.ParseInt(c.r.PathValue("comment"), 10, 64)
	for _, x := range c.rd.comments[prID] {
		if x.ID == id && !x.Deleted {
			return prID, x
		}
	}
	return prID, nil
}

// comment answers GET, PUT and DELETE of one comment; like Bitbucket, only
// a comment's author may edit or delete it.
func (s *Server) comment(c *call) {
	prID, cm := liveComment(c)
	if cm == nil {
		writeError(c.w, http.StatusNotFound, "Comment not found")
		return
	}
	if c.op != OpGetComment && cm.AccountID != s.self {
		writeError(c.w, http.StatusForbidden, "You are not allowed to modify this comment")
		return
	}
	switch c.op {
	case OpUpdateComment:
		var in struct {
			Content struct {
				Raw string `json:"raw"`
			} `json:"content"`
		}
		if err := json.Unmarshal(c.body, &in); err != nil || in.Content.Raw == "" {
			writeError(c.w, http.StatusBadRequest, "content.raw: required")
			return
		}
		cm.Body = in.Content.Raw
	case OpDeleteComment:
		cm.Deleted = true
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(c.w, http.StatusOK, commentJSON(s, c.ws, c.slug, prID, cm))
}

// resolveThread answers POST and DELETE .../comments/{id}/resolve with the
// documented rules: 404 for an unknown comment, 403 for a reply or a
// comment that is not on the diff, 409 when resolving a resolved thread;
// 200 with the comment_resolution, or 204 for a reopen.
func (s *Server) resolveThread(c *call) {
	_, cm := liveComment(c)
	switch {
	case cm == nil:
		writeError(c.w, http.StatusNotFound, "Comment not found")
	case cm.Parent != nil || cm.Path == "":
		writeError(c.w, http.StatusForbidden, "Only top-level comments on the diff can be resolved")
	case c.op == OpReopenComment:
		cm.Resolved, cm.ResolvedBy = false, ""
		c.w.WriteHeader(http.StatusNoContent)
	case cm.Resolved:
		writeError(c.w, http.StatusConflict, "This comment thread is already resolved")
	default:
		cm.Resolved, cm.ResolvedBy = true, s.self
		writeJSON(c.w, http.StatusOK, resolutionJSON(cm))
	}
}

func parentsJSON(ps []string) []any {
	out := []any{}
	for _, p := range ps {
		out = append(out, map[string]any{"type": "commit", "hash": p})
	}
	return out
}

func diffstatJSON(s *Server, ws, slug, head, base string, e DiffstatEntry) map[string]any {
	side := func(commit, p string) any {
		if p == "" {
			return nil
		}
		return map[string]any{
			"type": "commit_file", "path": p, "escaped_path": p,
			"links": map[string]any{"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/src/%s/%s", s.BaseURL, ws, slug, commit, p)}},
		}
	}
	return map[string]any{
		"type": "diffstat", "status": e.Status, "lines_added": e.LinesAdded, "lines_removed": e.LinesRemoved,
		"old": side(base, e.OldPath), "new": side(head, e.Path),
	}
}

func (s *Server) pr(rd *repoData, id string) *PullRequest {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil
	}
	return rd.prs[n]
}

// resolve turns a full or abbreviated (>= 7) id or a branch name into a full id.
func (s *Server) resolve(rd *repoData, rev string) (string, bool) {
	if id, ok := rd.branches[rev]; ok {
		return id, true
	}
	if _, ok := rd.commits[rev]; ok {
		return rev, true
	}
	if len(rev) < 7 {
		return "", false
	}
	var hit string
	for id := range rd.commits {
		if strings.HasPrefix(id, rev) {
			if hit != "" {
				return "", false // ambiguous
			}
			hit = id
		}
	}
	return hit, hit != ""
}

// spec parses "first..second" or the pull request link's
// "ws/repo:first\rsecond" (the %0D form); first is the commit with the changes.
func (s *Server) spec(rd *repoData, spec string) (head, base string, ok bool) {
	a, b, found := strings.Cut(spec, "\r")
	if found {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			a = a[i+1:]
		}
	} else if a, b, found = strings.Cut(spec, ".."); !found {
		return "", "", false
	}
	head, okh := s.resolve(rd, a)
	base, okb := s.resolve(rd, b)
	return head, base, okh && okb
}

// prCommits lists the commits reachable from source and not from
// destination, newest first (breadth-first from the source).
func prCommits(rd *repoData, source, destination string) []string {
	base := ancestors(rd, destination)
	var out []string
	seen := map[string]bool{}
	queue := []string{source}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] || base[c] || c == "" {
			continue
		}
		seen[c] = true
		out = append(out, c)
		queue = append(queue, rd.commits[c]...)
	}
	return out
}

func ancestors(rd *repoData, id string) map[string]bool {
	seen := map[string]bool{}
	queue := []string{id}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		queue = append(queue, rd.commits[c]...)
	}
	return seen
}

func mergeBase(rd *repoData, a, b string) string {
	inA := ancestors(rd, a)
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if inA[c] {
			return c
		}
		queue = append(queue, rd.commits[c]...)
	}
	return ""
}

// isListing reports whether a /src request names a directory: a trailing
// slash, the root, or a path with files below it.
func (s *Server) isListing(ws, slug, commit, p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repos[repoKey{ws, slug}]
	if p == "" || strings.HasSuffix(p, "/") {
		if rd == nil {
			return true
		}
		id, ok := s.resolve(rd, commit)
		if !ok {
			return true
		}
		_, isFile := rd.files[id][strings.Trim(p, "/")]
		return !isFile
	}
	if rd == nil {
		return false
	}
	id, _ := s.resolve(rd, commit)
	return isDir(rd.files[id], p)
}

func isDir(files map[string]file, dir string) bool {
	for p := range files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// src answers a file's bytes (or ?format=meta) or a directory's listing.
func (s *Server) src(c *call) {
	w, r, rd := c.w, c.r, c.rd
	id, ok := s.resolve(rd, r.PathValue("commit"))
	if !ok {
		writeError(w, http.StatusNotFound, "Commit not found")
		return
	}
	files := rd.files[id]
	p := r.PathValue("path")
	clean := strings.Trim(p, "/")
	meta := r.URL.Query().Get("format") == "meta"
	commit := map[string]any{"type": "commit", "hash": id}
	if f, ok := files[clean]; ok && clean != "" {
		if meta {
			writeJSON(w, http.StatusOK, map[string]any{
				"type": "commit_file", "path": clean, "commit": commit, "attributes": nonNil(f.attrs),
				"escaped_path": clean, "size": len(f.content), "mimetype": nil,
			})
			return
		}
		if slices.Contains(f.attrs, "lfs") {
			http.Redirect(w, r, "http://media.invalid/file/"+url.PathEscape(clean), http.StatusMovedPermanently)
			return
		}
		ct := mime.TypeByExtension(path.Ext(clean))
		if ct == "" {
			ct = "application/octet-stream"
		} else if i := strings.Index(ct, ";"); i >= 0 {
			ct = ct[:i] // Bitbucket derives the type from the name and sends no charset
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", "attachment; filename=\""+path.Base(clean)+"\"")
		_, _ = w.Write(f.content)
		return
	}
	if clean != "" && !isDir(files, clean) {
		writeError(w, http.StatusNotFound, "No such file or directory: "+clean)
		return
	}
	if meta {
		writeJSON(w, http.StatusOK, map[string]any{"type": "commit_directory", "path": clean, "commit": commit})
		return
	}
	children := map[string]any{}
	prefix := ""
	if clean != "" {
		prefix = clean + "/"
	}
	for fp, f := range files {
		if !strings.HasPrefix(fp, prefix) {
			continue
		}
		name, _, sub := strings.Cut(strings.TrimPrefix(fp, prefix), "/")
		child := prefix + name
		if sub {
			children[child] = map[string]any{"type": "commit_directory", "path": child, "commit": commit}
		} else {
			children[child] = map[string]any{"type": "commit_file", "path": child, "commit": commit,
				"attributes": nonNil(f.attrs), "escaped_path": child, "size": len(f.content)}
		}
	}
	names := make([]string, 0, len(children))
	for n := range children {
		names = append(names, n)
	}
	sort.Strings(names)
	vals := make([]any, 0, len(names))
	for _, n := range names {
		vals = append(vals, children[n])
	}
	s.writePage(w, r, vals, 10)
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// writePage answers one page of vals. The page size is Server.PageLen, else
// ?pagelen (max 100), else def. `next` is absolute and keeps the query; the
// envelope has no size and no page, like Bitbucket's forward-only lists.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, vals []any, def int) {
	q := r.URL.Query()
	n := def
	if v, err := strconv.Atoi(q.Get("pagelen")); err == nil && v > 0 {
		n = min(v, 100)
	}
	if s.PageLen > 0 {
		n = s.PageLen
	}
	pg := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		pg = v
	}
	from := min((pg-1)*n, len(vals))
	to := min(from+n, len(vals))
	out := map[string]any{"pagelen": n, "values": nonNilAny(vals[from:to])}
	if to < len(vals) {
		q.Set("page", strconv.Itoa(pg+1))
		u := *r.URL
		u.Scheme, u.Host, u.RawQuery = "http", r.Host, q.Encode()
		out["next"] = u.String()
	}
	writeJSON(w, http.StatusOK, out)
}

func nonNilAny(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}
