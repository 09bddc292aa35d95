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
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
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

// route names the operation of a request and splits its path into unescaped
// segments after /2.0/repositories/{ws}/{slug}/.
func route(method string, seg []string) string {
	if len(seg) < 1 {
		return ""
	}
	switch seg[0] {
	case "pullrequests":
		switch {
		case len(seg) == 2 && method == http.MethodGet:
			return OpGetPullRequest
		case len(seg) == 3 && seg[2] == "diff":
			return OpPRDiff
		case len(seg) == 3 && seg[2] == "diffstat":
			return OpPRDiffstat
		case len(seg) == 3 && seg[2] == "commits" && method == http.MethodGet:
			return OpPRCommits
		case (len(seg) == 3 || len(seg) == 4 && seg[3] == "") && seg[2] == "comments":
			if method == http.MethodPost {
				return OpCreateComment
			}
			return OpListComments
		case len(seg) == 5 && seg[2] == "comments" && seg[4] == "resolve":
			switch method {
			case http.MethodPost:
				return OpResolveComment
			case http.MethodDelete:
				return OpReopenComment
			}
		case len(seg) == 4 && seg[2] == "comments":
			switch method {
			case http.MethodPut:
				return OpUpdateComment
			case http.MethodDelete:
				return OpDeleteComment
			default:
				return OpGetComment
			}
		}
	case "diff":
		return OpGetDiff
	case "diffstat":
		return OpDiffstat
	case "commit":
		if op := insightsRoute(method, seg); op != "" {
			return op
		}
		return OpGetCommit
	case "merge-base":
		return OpMergeBase
	case "src":
		return OpGetSrc // list_dir decided later
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveGit(w, r) {
		return
	}
	body, _ := io.ReadAll(r.Body)
	raw := r.URL.EscapedPath()
	const prefix = "/2.0/repositories/"
	var (
		op, ws, slug string
		rest         []string
	)
	switch {
	case (raw == "/2.0/user" || raw == "/2.0/user/") && r.Method == http.MethodGet:
		op = OpGetUser
	case !strings.HasPrefix(raw, prefix):
		writeError(w, http.StatusNotFound, "Resource not found")
		return
	default:
		parts := strings.Split(strings.TrimPrefix(raw, prefix), "/")
		seg := make([]string, len(parts))
		for i, p := range parts {
			u, err := url.PathUnescape(p)
			if err != nil {
				writeError(w, http.StatusBadRequest, "bad path escape")
				return
			}
			seg[i] = u
		}
		if len(seg) < 3 {
			writeError(w, http.StatusNotFound, "Resource not found")
			return
		}
		ws, slug, rest = seg[0], seg[1], seg[2:]
		op = route(r.Method, rest)
		if op == OpGetSrc && r.URL.Query().Get("format") != "meta" && s.isListing(ws, slug, rest) {
			op = OpListDir
		}
	}

	s.mu.Lock()
	s.calls[op]++
	s.requests = append(s.requests, Request{Op: op, Method: r.Method, EscapedPath: raw, Query: r.URL.Query(), Body: body, Authorization: r.Header.Get("Authorization")})
	var fault *Fault
	if q := s.faults[op]; len(q) > 0 {
		f := q[0]
		fault = &f
		q[0].Times--
		if q[0].Times <= 0 {
			s.faults[op] = q[1:]
		}
	}
	auth := s.auth
	s.mu.Unlock()

	if fault != nil {
		if fault.Delay > 0 {
			select {
			case <-time.After(fault.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if fault.Status != 0 {
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
				return
			}
			msg := http.StatusText(fault.Status)
			switch fault.Status {
			case http.StatusTooManyRequests:
				msg = "Rate limit for this resource has been exceeded"
			case 555:
				msg = "Service Timeout: the diff is too large"
			}
			writeError(w, fault.Status, msg)
			return
		}
	}
	if auth != "" && r.Header.Get("Authorization") != auth {
		writeError(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if s.scopeDenied(op) {
		writeScopeError(w)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if op == OpGetUser {
		u := account(botName, s.self)
		u["created_on"] = "2026-01-05T09:00:00.000000+00:00"
		writeJSON(w, http.StatusOK, u)
		return
	}
	rd := s.repos[repoKey{ws, slug}]
	if rd == nil {
		writeError(w, http.StatusNotFound, "Repository "+ws+"/"+slug+" not found")
		return
	}
	switch op {
	case OpGetPullRequest:
		pr := s.pr(rd, rest[1])
		if pr == nil {
			writeError(w, http.StatusNotFound, "Pull request not found")
			return
		}
		writeJSON(w, http.StatusOK, s.prJSON(ws, slug, pr))
	case OpPRDiff, OpPRDiffstat:
		pr := s.pr(rd, rest[1])
		if pr == nil {
			writeError(w, http.StatusNotFound, "Pull request not found")
			return
		}
		links := s.prJSON(ws, slug, pr)["links"].(map[string]any)
		kind := "diff"
		if op == OpPRDiffstat {
			kind = "diffstat"
		}
		// Like Bitbucket, the redirect carries the link's own query only.
		http.Redirect(w, r, links[kind].(map[string]any)["href"].(string), http.StatusFound)
	case OpGetDiff, OpDiffstat:
		head, base, ok := s.spec(rd, strings.Join(rest[1:], "/"))
		if !ok {
			writeError(w, http.StatusNotFound, "Commit not found")
			return
		}
		if op == OpGetDiff {
			d, ok := rd.diffs[[2]string{head, base}]
			if !ok {
				writeError(w, http.StatusNotFound, "No diff stored for "+head+".."+base)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, d)
			return
		}
		entries := rd.stats[[2]string{head, base}]
		vals := make([]any, 0, len(entries))
		for _, e := range entries {
			vals = append(vals, diffstatJSON(s, ws, slug, head, base, e))
		}
		s.writePage(w, r, vals, 500)
	case OpGetCommit:
		id, ok := s.resolve(rd, strings.Join(rest[1:], "/"))
		if !ok {
			writeError(w, http.StatusNotFound, "Commit not found")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"type": "commit", "hash": id, "message": rd.messages[id], "parents": parentsJSON(rd.commits[id])})
	case OpPRCommits:
		pr := s.pr(rd, rest[1])
		if pr == nil {
			writeError(w, http.StatusNotFound, "Pull request not found")
			return
		}
		var vals []any
		for _, id := range prCommits(rd, pr.SourceCommit, pr.DestinationCommit) {
			vals = append(vals, map[string]any{"type": "commit", "hash": id, "message": rd.messages[id], "parents": parentsJSON(rd.commits[id])})
		}
		s.writePage(w, r, vals, 10)
	case OpMergeBase:
		a, b, found := strings.Cut(strings.Join(rest[1:], "/"), "..")
		ia, oka := s.resolve(rd, a)
		ib, okb := s.resolve(rd, b)
		if !found || !oka || !okb {
			writeError(w, http.StatusNotFound, "Commit not found")
			return
		}
		mb := mergeBase(rd, ia, ib)
		if mb == "" {
			writeError(w, http.StatusNotFound, "No common ancestor")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"type": "commit", "hash": mb})
	case OpGetSrc, OpListDir:
		s.src(w, r, ws, slug, rd, rest)
	case OpSetStatus, OpGetStatus, OpPutReport, OpGetReport, OpDeleteReport,
		OpPostAnnotations, OpListAnnotations, OpDeleteAnnotation:
		s.insights(w, r, op, rd, rest, body)
	case OpListComments:
		prID, _ := strconv.Atoi(rest[1])
		if rd.prs[prID] == nil {
			writeError(w, http.StatusNotFound, "Pull request not found")
			return
		}
		var vals []any
		for _, c := range rd.comments[prID] {
			vals = append(vals, commentJSON(s, ws, slug, prID, c))
		}
		s.writePage(w, r, vals, 100)
	case OpCreateComment:
		prID, _ := strconv.Atoi(rest[1])
		if rd.prs[prID] == nil {
			writeError(w, http.StatusNotFound, "Pull request not found")
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
		if err := json.Unmarshal(body, &in); err != nil || in.Content.Raw == "" {
			writeError(w, http.StatusBadRequest, "content.raw: required")
			return
		}
		c := &Comment{Body: in.Content.Raw, Author: botName, AccountID: s.self}
		if in.Inline != nil {
			if in.Inline.Path == "" {
				writeError(w, http.StatusBadRequest, "inline.path: required")
				return
			}
			c.Path, c.From, c.To = in.Inline.Path, in.Inline.From, in.Inline.To
		}
		if in.Parent != nil {
			c.Parent = &in.Parent.ID
		}
		s.nextID++
		c.ID = s.nextID
		rd.comments[prID] = append(rd.comments[prID], c)
		m := commentJSON(s, ws, slug, prID, c)
		w.Header().Set("Location", m["links"].(map[string]any)["self"].(map[string]any)["href"].(string))
		writeJSON(w, http.StatusCreated, m)
	case OpResolveComment, OpReopenComment:
		s.resolveThread(w, rd, rest, op)
	case OpGetComment, OpUpdateComment, OpDeleteComment:
		prID, _ := strconv.Atoi(rest[1])
		id, _ := strconv.ParseInt(rest[3], 10, 64)
		var c *Comment
		for _, x := range rd.comments[prID] {
			if x.ID == id && !x.Deleted {
				c = x
			}
		}
		if c == nil {
			writeError(w, http.StatusNotFound, "Comment not found")
			return
		}
		if op != OpGetComment && c.AccountID != s.self {
			// Bitbucket lets only a comment's author edit or delete it.
			writeError(w, http.StatusForbidden, "You are not allowed to modify this comment")
			return
		}
		switch op {
		case OpUpdateComment:
			var in struct {
				Content struct {
					Raw string `json:"raw"`
				} `json:"content"`
			}
			if err := json.Unmarshal(body, &in); err != nil || in.Content.Raw == "" {
				writeError(w, http.StatusBadRequest, "content.raw: required")
				return
			}
			c.Body = in.Content.Raw
		case OpDeleteComment:
			c.Deleted = true
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, commentJSON(s, ws, slug, prID, c))
	default:
		writeError(w, http.StatusNotFound, "Resource not found")
	}
}

// resolveThread answers POST and DELETE .../comments/{id}/resolve with the
// documented rules: 404 for an unknown comment, 403 for a reply or a
// comment that is not on the diff, 409 when resolving a resolved thread;
// 200 with the comment_resolution, or 204 for a reopen.
func (s *Server) resolveThread(w http.ResponseWriter, rd *repoData, rest []string, op string) {
	prID, _ := strconv.Atoi(rest[1])
	id, _ := strconv.ParseInt(rest[3], 10, 64)
	var c *Comment
	for _, x := range rd.comments[prID] {
		if x.ID == id && !x.Deleted {
			c = x
		}
	}
	switch {
	case c == nil:
		writeError(w, http.StatusNotFound, "Comment not found")
	case c.Parent != nil || c.Path == "":
		writeError(w, http.StatusForbidden, "Only top-level comments on the diff can be resolved")
	case op == OpReopenComment:
		c.Resolved, c.ResolvedBy = false, ""
		w.WriteHeader(http.StatusNoContent)
	case c.Resolved:
		writeError(w, http.StatusConflict, "This comment thread is already resolved")
	default:
		c.Resolved, c.ResolvedBy = true, s.self
		writeJSON(w, http.StatusOK, resolutionJSON(c))
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
func (s *Server) isListing(ws, slug string, rest []string) bool {
	if len(rest) < 2 {
		return false
	}
	p := strings.Join(rest[2:], "/")
	if p == "" || strings.HasSuffix(p, "/") {
		s.mu.Lock()
		defer s.mu.Unlock()
		rd := s.repos[repoKey{ws, slug}]
		if rd == nil {
			return true
		}
		id, ok := s.resolve(rd, rest[1])
		if !ok {
			return true
		}
		_, isFile := rd.files[id][strings.Trim(p, "/")]
		return !isFile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repos[repoKey{ws, slug}]
	if rd == nil {
		return false
	}
	id, _ := s.resolve(rd, rest[1])
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

func (s *Server) src(w http.ResponseWriter, r *http.Request, ws, slug string, rd *repoData, rest []string) {
	if len(rest) < 2 {
		writeError(w, http.StatusNotFound, "Resource not found")
		return
	}
	id, ok := s.resolve(rd, rest[1])
	if !ok {
		writeError(w, http.StatusNotFound, "Commit not found")
		return
	}
	files := rd.files[id]
	p := strings.Join(rest[2:], "/")
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
