package bitbucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	bb "github.com/ktrysmt/go-bitbucket"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// This file is the thin client: one method per upstream call, returning the
// wire shapes below. go-bitbucket is used where it is correct (pull request
// get, general comment create, comment update and delete); the rest is plain
// net/http because the SDK is missing or wrong there (each method says why).
// Client (client.go) holds the logic and talks to this layer through the
// apiClient interface, so the logic can be tested without HTTP.

// apiClient is the narrow seam between the logic and HTTP. next is an
// absolute `next` URL from a previous page, or "" for the first page.
type apiClient interface {
	pullRequest(ctx context.Context, repo pipeline.Repo, id int) (wirePR, error)
	commit(ctx context.Context, repo pipeline.Repo, rev string) (wireCommit, error)
	mergeBase(ctx context.Context, repo pipeline.Repo, a, b string) (wireCommit, error)
	diff(ctx context.Context, repo pipeline.Repo, spec string, q url.Values) ([]byte, error)
	diffLink(ctx context.Context, href string, q url.Values) ([]byte, error)
	diffstatPage(ctx context.Context, repo pipeline.Repo, spec string, q url.Values, next string) (page[wireDiffstat], error)
	srcMeta(ctx context.Context, repo pipeline.Repo, commit, path string) (wireEntry, error)
	srcRaw(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error)
	srcPage(ctx context.Context, repo pipeline.Repo, commit, dir, next string) (page[wireEntry], error)
	commentsPage(ctx context.Context, repo pipeline.Repo, prID int, next string) (page[wireComment], error)
	prCommitsPage(ctx context.Context, repo pipeline.Repo, prID, pagelen int, next string) (page[wireCommit], error)
	createComment(ctx context.Context, repo pipeline.Repo, prID int, body string, inline *wireInline, parent int64) (wireComment, error)
	updateComment(ctx context.Context, repo pipeline.Repo, prID int, id int64, body string) (wireComment, error)
	deleteComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error
	resolveComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error
	tasksPage(ctx context.Context, repo pipeline.Repo, prID int, next string) (page[wireTask], error)
	createTask(ctx context.Context, repo pipeline.Repo, prID int, commentID int64, body string) (wireTask, error)
	resolveTask(ctx context.Context, repo pipeline.Repo, prID int, id int64) error
	currentUser(ctx context.Context) (wireAccount, error)
}

// Wire shapes: only the fields prscout reads.
type (
	wireCommit struct {
		Hash    string `json:"hash"`
		Message string `json:"message"`
	}
	wireText struct {
		Raw string `json:"raw"`
	}
	wireAccount struct {
		DisplayName string `json:"display_name"`
		Nickname    string `json:"nickname"`
		AccountID   string `json:"account_id"`
		UUID        string `json:"uuid"`
		Type        string `json:"type"`
	}
	wireEndpoint struct {
		Branch struct {
			Name string `json:"name"`
		} `json:"branch"`
		Commit     wireCommit `json:"commit"`
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	wireLink struct {
		Href string `json:"href"`
	}
	wirePR struct {
		ID          int          `json:"id"`
		Title       string       `json:"title"`
		Description string       `json:"description"`
		Summary     wireText     `json:"summary"`
		State       string       `json:"state"`
		Draft       bool         `json:"draft"`
		Author      wireAccount  `json:"author"`
		Source      wireEndpoint `json:"source"`
		Destination wireEndpoint `json:"destination"`
		Links       struct {
			Diff     wireLink `json:"diff"`
			Diffstat wireLink `json:"diffstat"`
			HTML     wireLink `json:"html"`
		} `json:"links"`
	}
	// wireInline is a comment's anchor: to (new side) or from (old side)
	// is its line, or the last line of a multi-line comment whose first
	// line is start_to (start_from).
	wireInline struct {
		Path      string `json:"path"`
		From      *int   `json:"from,omitempty"`
		To        *int   `json:"to,omitempty"`
		StartFrom *int   `json:"start_from,omitempty"`
		StartTo   *int   `json:"start_to,omitempty"`
	}
	// wireTask is a pullrequest_comment_task: state RESOLVED or
	// UNRESOLVED, the comment it is attached to, when any.
	wireTask struct {
		ID      int64       `json:"id"`
		Content wireText    `json:"content"`
		State   string      `json:"state"`
		Creator wireAccount `json:"creator"`
		Comment *struct {
			ID int64 `json:"id"`
		} `json:"comment,omitempty"`
	}
	wireComment struct {
		ID      int64       `json:"id"`
		Content wireText    `json:"content"`
		Inline  *wireInline `json:"inline,omitempty"`
		Deleted bool        `json:"deleted"`
		User    wireAccount `json:"user"`
		// CreatedOn is an ISO 8601 time ("2026-11-02T10:05:00.123456+00:00").
		CreatedOn string `json:"created_on"`
		Parent    *struct {
			ID int64 `json:"id"`
		} `json:"parent,omitempty"`
		// Resolution is the thread's comment_resolution object; null or
		// absent when the thread is open.
		Resolution json.RawMessage `json:"resolution,omitempty"`
		Links      struct {
			HTML wireLink `json:"html"`
		} `json:"links"`
	}
	wireEntry struct {
		Type       string     `json:"type"` // commit_file or commit_directory
		Path       string     `json:"path"`
		Size       *int64     `json:"size"`
		Attributes []string   `json:"attributes"`
		Commit     wireCommit `json:"commit"`
	}
	wireDiffstat struct {
		Status       string `json:"status"`
		LinesAdded   int    `json:"lines_added"`
		LinesRemoved int    `json:"lines_removed"`
		Old          *struct {
			Path string `json:"path"`
		} `json:"old"`
		New *struct {
			Path string `json:"path"`
		} `json:"new"`
	}
	// page is Bitbucket's paginated envelope; size and page are optional and
	// not read: only `next` drives paging.
	page[T any] struct {
		Next   string `json:"next"`
		Values []T    `json:"values"`
	}
)

// httpAPI implements apiClient over net/http and go-bitbucket.
type httpAPI struct {
	base    *url.URL
	baseStr string // without trailing slash
	hc      *http.Client
	email   string
	token   string
	bearer  string
	maxDiff int64
	maxJSON int64
	pagelen int
}

// sdk returns a go-bitbucket client whose requests carry ctx (the SDK drops
// contexts itself, see ctxTransport) and go through the shared transport.
func (a *httpAPI) sdk(ctx context.Context, op string) (*bb.Client, error) {
	var (
		c   *bb.Client
		err error
	)
	if a.bearer != "" {
		c, err = bb.NewOAuthbearerTokenWithBaseUrlStr(a.bearer, a.baseStr)
	} else {
		c, err = bb.NewAPITokenAuthWithBaseUrlStr(a.email, a.token, a.baseStr)
	}
	if err != nil {
		return nil, fmt.Errorf("build bitbucket sdk client: %w", err)
	}
	c.HttpClient = &http.Client{
		Transport:     ctxTransport{ctx: withOp(ctx, op), next: a.hc.Transport},
		CheckRedirect: a.hc.CheckRedirect,
		Timeout:       a.hc.Timeout,
	}
	return c, nil
}

// fromSDK converts go-bitbucket's result (an untyped map) into v and its
// errors into ours.
func fromSDK(op string, res any, err error, v any) error {
	if err != nil {
		var ue *bb.UnexpectedResponseStatusError
		if errors.As(err, &ue) {
			return &UnexpectedResponseError{Op: op, Status: ue.StatusCode, Body: truncate(string(ue.Body))}
		}
		return fmt.Errorf("bitbucket %s: %w: %w", op, pipeline.ErrUpstream, err)
	}
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("bitbucket %s: re-encode sdk result: %w", op, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bitbucket %s: decode: %w: %w", op, pipeline.ErrUpstream, err)
	}
	return nil
}

// repoURL builds base/repositories/{ws}/{slug}/segments..., escaping every
// segment (go-bitbucket pastes paths in unescaped: "dir/a b#c.go" became a
// request for "dir/a b" with a fragment, and a 200 for the wrong file).
func (a *httpAPI) repoURL(repo pipeline.Repo, segments ...string) string {
	var b strings.Builder
	b.WriteString(a.baseStr)
	b.WriteString("/repositories/")
	b.WriteString(url.PathEscape(repo.Workspace))
	b.WriteByte('/')
	b.WriteString(url.PathEscape(repo.RepoSlug))
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

// escapePath escapes each '/'-separated segment of a repository path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// do sends one request and returns the body of a 2xx answer, read up to
// limit bytes (more is pipeline.ErrTooLarge). Other answers become
// *UnexpectedResponseError.
func (a *httpAPI) do(ctx context.Context, op, method, rawURL string, body any, limit int64) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("bitbucket %s: encode body: %w", op, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(withOp(ctx, op), method, rawURL, rd)
	if err != nil {
		return nil, fmt.Errorf("bitbucket %s: %w", op, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bitbucket %s: %w: %w", op, pipeline.ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := &UnexpectedResponseError{Op: op, Status: resp.StatusCode, Body: string(b)}
		e.RetryAfter = retry.After(resp.Header, time.Now())
		return nil, e
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("bitbucket %s: read body: %w: %w", op, pipeline.ErrUpstream, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("bitbucket %s: body exceeds %d bytes: %w", op, limit, pipeline.ErrTooLarge)
	}
	return b, nil
}

func (a *httpAPI) getJSON(ctx context.Context, op, rawURL string, v any) error {
	return a.doJSON(ctx, op, http.MethodGet, rawURL, nil, v)
}

// doJSON sends body (nil: none) with method and decodes the JSON answer
// into v.
func (a *httpAPI) doJSON(ctx context.Context, op, method, rawURL string, body, v any) error {
	b, err := a.do(ctx, op, method, rawURL, body, a.maxJSON)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("bitbucket %s: decode: %w: %w", op, pipeline.ErrUpstream, err)
	}
	return nil
}

// pullRequest calls GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}
// through go-bitbucket (PullRequests.Get).
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-get
func (a *httpAPI) pullRequest(ctx context.Context, repo pipeline.Repo, id int) (wirePR, error) {
	const op = "get_pullrequest"
	var pr wirePR
	c, err := a.sdk(ctx, op)
	if err != nil {
		return pr, err
	}
	res, err := c.Repositories.PullRequests.Get(&bb.PullRequestsOptions{
		Owner: repo.Workspace, RepoSlug: repo.RepoSlug, ID: strconv.Itoa(id),
	})
	return pr, fromSDK(op, res, err, &pr)
}

// commit calls GET /repositories/{workspace}/{repo_slug}/commit/{commit}.
// Own request: go-bitbucket's Commits.GetCommit takes no context.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commits/#api-repositories-workspace-repo-slug-commit-commit-get
func (a *httpAPI) commit(ctx context.Context, repo pipeline.Repo, rev string) (wireCommit, error) {
	var c wireCommit
	err := a.getJSON(ctx, "get_commit", a.repoURL(repo, "commit", escapePath(rev)), &c)
	return c, err
}

// mergeBase calls GET /repositories/{workspace}/{repo_slug}/merge-base/{revspec}
// with revspec "a..b"; the answer is a commit object. Missing in go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commits/#api-repositories-workspace-repo-slug-merge-base-revspec-get
func (a *httpAPI) mergeBase(ctx context.Context, repo pipeline.Repo, x, y string) (wireCommit, error) {
	var c wireCommit
	err := a.getJSON(ctx, "merge_base", a.repoURL(repo, "merge-base", escapePath(x)+".."+escapePath(y)), &c)
	return c, err
}

// diff calls GET /repositories/{workspace}/{repo_slug}/diff/{spec} and returns
// the raw bytes (not decoded: the API returns files in their own encoding).
// Own request: go-bitbucket's Diff.GetDiff sends binary=false&renames=false
// for its zero-valued options (rename detection off) and cannot send
// topic=false.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commits/#api-repositories-workspace-repo-slug-diff-spec-get
func (a *httpAPI) diff(ctx context.Context, repo pipeline.Repo, spec string, q url.Values) ([]byte, error) {
	return a.do(ctx, "get_diff", http.MethodGet, a.repoURL(repo, "diff", spec)+"?"+q.Encode(), nil, a.maxDiff)
}

// errForeignLink says a link points away from the configured API host.
var errForeignLink = errors.New("link is not on the API host")

// diffLink fetches a pull request's links.diff.href (a /diff/{spec} URL with
// the fork-qualified %0D spec) with q added to its own query. Own request:
// go-bitbucket's PullRequests.Diff calls /pullrequests/{id}/diff, whose 302
// is not documented to carry query parameters such as context.
func (a *httpAPI) diffLink(ctx context.Context, href string, q url.Values) ([]byte, error) {
	u, err := url.Parse(href)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("bitbucket get_diff: bad diff link %q: %w", href, pipeline.ErrUpstream)
	}
	if u.Host != a.base.Host {
		// Behind a proxy base URL the link names the public host; the caller
		// falls back to building the diff URL itself.
		return nil, errForeignLink
	}
	have := u.Query()
	for k, vs := range q {
		have[k] = vs
	}
	u.RawQuery = have.Encode()
	return a.do(ctx, "get_diff", http.MethodGet, u.String(), nil, a.maxDiff)
}

// diffstatPage calls GET /repositories/{workspace}/{repo_slug}/diffstat/{spec}
// or its `next` link. Own request: go-bitbucket's GetDiffStat returns one page
// only and sends merge=false&renames=false for zero-valued options.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commits/#api-repositories-workspace-repo-slug-diffstat-spec-get
func (a *httpAPI) diffstatPage(ctx context.Context, repo pipeline.Repo, spec string, q url.Values, next string) (page[wireDiffstat], error) {
	var p page[wireDiffstat]
	u := next
	if u == "" {
		u = a.repoURL(repo, "diffstat", spec) + "?" + q.Encode()
	}
	err := a.getJSON(ctx, "diffstat", u, &p)
	return p, err
}

// srcMeta calls GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}?format=meta.
// Missing in go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-source/#api-repositories-workspace-repo-slug-src-commit-path-get
func (a *httpAPI) srcMeta(ctx context.Context, repo pipeline.Repo, commit, path string) (wireEntry, error) {
	var e wireEntry
	err := a.getJSON(ctx, "get_src", a.repoURL(repo, "src", escapePath(commit), escapePath(path))+"?format=meta", &e)
	return e, err
}

// srcRaw calls GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}
// for the raw bytes. Own request: go-bitbucket's GetFileContent does not
// escape the path. An LFS file answers 301 to another host; that redirect
// is not followed (checkRedirect) and comes back as an error.
func (a *httpAPI) srcRaw(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	return a.do(ctx, "get_src", http.MethodGet, a.repoURL(repo, "src", escapePath(commit), escapePath(path)), nil, maxBytes)
}

// srcPage lists a directory: GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}/
// (the trailing slash is required for the root) or its `next` link. Own
// request: go-bitbucket's ListFiles does not escape the path and never closes
// the bodies of the pages after the first.
func (a *httpAPI) srcPage(ctx context.Context, repo pipeline.Repo, commit, dir, next string) (page[wireEntry], error) {
	var p page[wireEntry]
	u := next
	if u == "" {
		u = a.repoURL(repo, "src", escapePath(commit))
		if dir != "" {
			u += "/" + escapePath(dir)
		}
		u += "/?pagelen=" + strconv.Itoa(a.pagelen)
	}
	err := a.getJSON(ctx, "list_dir", u, &p)
	return p, err
}

// commentsPage calls GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments
// or its `next` link. Own request: go-bitbucket's GetComments auto-pages
// without closing the follow-up bodies and takes no context.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-comments-get
func (a *httpAPI) commentsPage(ctx context.Context, repo pipeline.Repo, prID int, next string) (page[wireComment], error) {
	var p page[wireComment]
	u := next
	if u == "" {
		u = a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments") + "?pagelen=" + strconv.Itoa(a.pagelen)
	}
	err := a.getJSON(ctx, "list_comments", u, &p)
	return p, err
}

// prCommitsPage calls GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits
// or its `next` link. Own request: go-bitbucket's PullRequests.Commits takes
// no context and does not page.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-commits-get
func (a *httpAPI) prCommitsPage(ctx context.Context, repo pipeline.Repo, prID, pagelen int, next string) (page[wireCommit], error) {
	var p page[wireCommit]
	u := next
	if u == "" {
		u = a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "commits") + "?pagelen=" + strconv.Itoa(pagelen)
	}
	err := a.getJSON(ctx, "list_pr_commits", u, &p)
	return p, err
}

// commentType is the `type` of a pull request comment: the API description's
// base object requires it of every comment a body sends (itself, its parent,
// a task's comment).
const commentType = "pullrequest_comment"

// wireCommentRef names a comment in a body: a reply's parent, a task's comment.
type wireCommentRef struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

// createComment calls POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments
// (201). Own request: go-bitbucket's AddComment sends neither `type` nor
// `inline` (nor its multi-line start_to / start_from) nor `parent`.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-comments-post
func (a *httpAPI) createComment(ctx context.Context, repo pipeline.Repo, prID int, body string, inline *wireInline, parent int64) (wireComment, error) {
	const op = "create_comment"
	var c wireComment
	payload := struct {
		Type    string          `json:"type"`
		Content wireText        `json:"content"`
		Inline  *wireInline     `json:"inline,omitempty"`
		Parent  *wireCommentRef `json:"parent,omitempty"`
	}{Type: commentType, Content: wireText{Raw: body}, Inline: inline}
	if parent > 0 {
		payload.Inline, payload.Parent = nil, &wireCommentRef{Type: commentType, ID: parent}
	}
	err := a.doJSON(ctx, op, http.MethodPost, a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments"), payload, &c)
	return c, err
}

// updateComment calls PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}
// with {"type": "pullrequest_comment", "content": {"raw": ...}} (200). Own
// request: go-bitbucket's UpdateComment sends no `type`.
func (a *httpAPI) updateComment(ctx context.Context, repo pipeline.Repo, prID int, id int64, body string) (wireComment, error) {
	const op = "update_comment"
	var c wireComment
	payload := struct {
		Type    string   `json:"type"`
		Content wireText `json:"content"`
	}{commentType, wireText{Raw: body}}
	err := a.doJSON(ctx, op, http.MethodPut, a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments", strconv.FormatInt(id, 10)), payload, &c)
	return c, err
}

// deleteComment calls DELETE /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}
// (204) through go-bitbucket (DeleteComment).
func (a *httpAPI) deleteComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	const op = "delete_comment"
	sdk, err := a.sdk(ctx, op)
	if err != nil {
		return err
	}
	res, err := sdk.Repositories.PullRequests.DeleteComment(&bb.PullRequestCommentOptions{
		Owner: repo.Workspace, RepoSlug: repo.RepoSlug, PullRequestID: strconv.Itoa(prID),
		CommentId: strconv.FormatInt(id, 10),
	})
	return fromSDK(op, res, err, nil)
}

// resolveComment calls POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}/resolve
// (200 comment_resolution; 409 when the thread is already resolved; 403 for
// a comment that is not top-level or not on the diff). Missing in
// go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-comments-comment-id-resolve-post
func (a *httpAPI) resolveComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	_, err := a.do(ctx, "resolve_comment", http.MethodPost,
		a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments", strconv.FormatInt(id, 10), "resolve"), nil, a.maxJSON)
	return err
}

// tasksPage calls GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks
// or its `next` link. Missing in go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-tasks-get
func (a *httpAPI) tasksPage(ctx context.Context, repo pipeline.Repo, prID int, next string) (page[wireTask], error) {
	var p page[wireTask]
	u := next
	if u == "" {
		u = a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "tasks") + "?pagelen=" + strconv.Itoa(a.pagelen)
	}
	err := a.getJSON(ctx, "list_tasks", u, &p)
	return p, err
}

// createTask calls POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks
// with {"content": {"raw": body}, "comment": {"type": "pullrequest_comment", "id": commentID}} (201, a
// pullrequest_comment_task). Missing in go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-tasks-post
func (a *httpAPI) createTask(ctx context.Context, repo pipeline.Repo, prID int, commentID int64, body string) (wireTask, error) {
	const op = "create_task"
	payload := struct {
		Content wireText        `json:"content"`
		Comment *wireCommentRef `json:"comment,omitempty"`
	}{Content: wireText{Raw: body}}
	if commentID > 0 {
		payload.Comment = &wireCommentRef{Type: commentType, ID: commentID}
	}
	var t wireTask
	err := a.doJSON(ctx, op, http.MethodPost, a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "tasks"), payload, &t)
	return t, err
}

// resolveTask calls PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks/{task_id}
// with {"state": "RESOLVED"} (200). Missing in go-bitbucket.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-tasks-task-id-put
func (a *httpAPI) resolveTask(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	payload := struct {
		State string `json:"state"`
	}{"RESOLVED"}
	_, err := a.do(ctx, "update_task", http.MethodPut,
		a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "tasks", strconv.FormatInt(id, 10)), payload, a.maxJSON)
	return err
}

// currentUser calls GET /user: the account the credentials act as
// ({account_id, uuid, display_name, ...}). An API token needs the scope
// read:user:bitbucket; repository/workspace access tokens act as a bot user
// and may be refused (401/403; not verified against Bitbucket). Own request:
// go-bitbucket's User.Profile takes no context and type-asserts the answer
// to an object unchecked (a non-object body panics).
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-users/#api-user-get
func (a *httpAPI) currentUser(ctx context.Context) (wireAccount, error) {
	var u wireAccount
	err := a.getJSON(ctx, "get_user", a.baseStr+"/user", &u)
	return u, err
}

func truncate(s string) string {
	if len(s) > maxErrorBody {
		return s[:maxErrorBody]
	}
	return s
}
