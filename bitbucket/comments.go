package bitbucket

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/internal/bbql"
	"github.com/prscout/prscout/pipeline"
)

// ListComments returns every comment of the pull request, deleted ones
// included (Deleted set), following `next` links: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments?pagelen=100.
//
// Each comment another account wrote is marked Foreign, so its markers are
// not trusted. prscout's own account is learnt once from GET /user (op
// get_user) and cached; if that fails, Config.AccountID is used; if neither
// is known, every comment is marked Unverified (its markers decide nothing
// and it is never edited) until prscout creates a comment, whose author is
// then its own account. A /user failure never fails the listing.
func (c *Client) ListComments(ctx context.Context, repo pipeline.Repo, prID int) ([]pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	self := c.selfIDs(ctx)
	var out []pipeline.Comment
	err := walk(func(next string) (string, error) {
		p, err := c.api.commentsPage(ctx, repo, prID, next)
		for _, v := range p.Values {
			out = append(out, marked(v, self))
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("list comments of pull request %d: %w", prID, err)
	}
	return out, nil
}

var _ pipeline.CommentGetter = (*Client)(nil)

// Comment returns one comment, marked as ListComments marks them: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}.
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/#api-repositories-workspace-repo-slug-pullrequests-pull-request-id-comments-comment-id-get
func (c *Client) Comment(ctx context.Context, repo pipeline.Repo, prID int, id int64) (pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Comment{}, err
	}
	a, ok := c.api.(*httpAPI)
	if !ok || id <= 0 {
		return pipeline.Comment{}, pipeline.Invalidf("commentId", "comment %d cannot be read alone", id)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	self := c.selfIDs(ctx)
	var v wireComment
	if err := a.getJSON(ctx, "get_comment", a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments", strconv.FormatInt(id, 10)), &v); err != nil {
		return pipeline.Comment{}, fmt.Errorf("comment %d of pull request %d: %w", id, prID, err)
	}
	return marked(v, self), nil
}

var _ pipeline.OwnCommentFinder = (*Client)(nil)

// FindOwnComments implements pipeline.OwnCommentFinder with one request:
// GET .../pullrequests/{pull_request_id}/comments?q=...&sort=-created_on&pagelen=n
// (the operation "supports filtering and sorting"), q naming prscout's own
// account and the texts. Author and text are checked again in the answer.
func (c *Client) FindOwnComments(ctx context.Context, repo pipeline.Repo, prID int, q pipeline.OwnCommentQuery) ([]pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	a, ok := c.api.(*httpAPI)
	if !ok || q.Limit < 1 || q.Limit > 100 || len(q.AnyOf)+len(q.AllOf) == 0 {
		return nil, pipeline.Invalidf("query", "own comments cannot be found by this filter (limit %d)", q.Limit)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	self := c.selfIDs(ctx)
	if self == nil {
		return nil, fmt.Errorf("find prscout's comments: its own account is unknown: %w", pipeline.ErrUpstream)
	}
	v := url.Values{"q": {bbql.CommentsBy(self, q.AnyOf, q.AllOf)}, "sort": {"-created_on"}, "pagelen": {strconv.Itoa(q.Limit)}}
	var p page[wireComment]
	if err := a.getJSON(ctx, "list_comments", a.repoURL(repo, "pullrequests", strconv.Itoa(prID), "comments")+"?"+v.Encode(), &p); err != nil {
		return nil, fmt.Errorf("find prscout's comments on pull request %d: %w", prID, err)
	}
	var out []pipeline.Comment
	for _, w := range p.Values {
		if cm := marked(w, self); !cm.Foreign && q.Match(cm.Body) && len(out) < q.Limit {
			out = append(out, cm)
		}
	}
	return out, nil
}

// marked is v with Foreign and Unverified set from prscout's account ids.
func marked(v wireComment, self []string) pipeline.Comment {
	cm := comment(v)
	cm.Foreign, cm.Unverified = self != nil && !isSelf(self, v.User), self == nil
	return cm
}

// selfIDs returns prscout's own account ids (normalised), or nil when
// unknown. GET /user is asked until it answers or refuses the credentials
// (401/403/404: then Config.AccountID, or unknown, for good); after another
// failure Config.AccountID is used for good, or, without it, /user is asked
// again on the next listing.
func (c *Client) selfIDs(ctx context.Context) []string {
	s := &c.self
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settled {
		return s.ids
	}
	log := s.log
	if log == nil {
		log = slog.Default()
	}
	u, err := c.api.currentUser(ctx)
	if err == nil {
		for _, id := range []string{u.AccountID, u.UUID} {
			if id = normID(id); id != "" {
				s.ids = append(s.ids, id)
			}
		}
		if s.ids != nil {
			s.settled = true
			log.Info("bitbucket: prscout's own account, from GET /user (PRSCOUT_BITBUCKET_ACCOUNT_ID is not needed)", "account_id", u.AccountID, "uuid", u.UUID)
			return s.ids
		}
		err = fmt.Errorf("bitbucket get_user: answer has neither account_id nor uuid: %w", pipeline.ErrUpstream)
	}
	if s.configured != "" {
		s.settled, s.ids = true, []string{normID(s.configured)}
		log.Info("bitbucket: GET /user failed; using PRSCOUT_BITBUCKET_ACCOUNT_ID as prscout's own account", "error", err.Error())
		return s.ids
	}
	switch statusOf(err) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		s.settled = true
	}
	if !s.warned {
		s.warned = true
		log.Warn("bitbucket: prscout's own account is unknown (GET /user failed and PRSCOUT_BITBUCKET_ACCOUNT_ID is not set): earlier markers are not trusted and no comment is edited until prscout has posted one", "error", err.Error())
	}
	return nil
}

// SelfAccountIDs implements pipeline.SelfIdentity: prscout's own account
// ids (account_id, uuid; lower case, no braces), nil when unknown.
func (c *Client) SelfAccountIDs(ctx context.Context) []string {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return append([]string(nil), c.selfIDs(ctx)...)
}

// isSelf reports whether the account is one of ids (account_id or uuid).
func isSelf(ids []string, u wireAccount) bool {
	for _, id := range []string{u.AccountID, u.UUID} {
		if id = normID(id); id != "" && slices.Contains(ids, id) {
			return true
		}
	}
	return false
}

// normID compares account ids and uuids with or without braces, any case.
func normID(id string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(id), "{}"))
}

func comment(v wireComment) pipeline.Comment {
	c := pipeline.Comment{ID: v.ID, Body: v.Content.Raw, Deleted: v.Deleted, Author: v.User.DisplayName, URL: v.Links.HTML.Href,
		AuthorAccount: pipeline.Account{DisplayName: v.User.DisplayName, Nickname: v.User.Nickname, AccountID: v.User.AccountID, UUID: v.User.UUID, Type: v.User.Type}}
	if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.CreatedOn)); err == nil {
		c.CreatedOn = t
	}
	if v.Parent != nil {
		c.ParentID = v.Parent.ID
	}
	if r := strings.TrimSpace(string(v.Resolution)); r != "" && r != "null" {
		c.Resolved = true
	}
	if c.Author == "" {
		c.Author = v.User.Nickname
	}
	if v.Inline != nil {
		a := &pipeline.InlineAnchor{Path: v.Inline.Path}
		switch {
		case v.Inline.To != nil && v.Inline.StartTo != nil && *v.Inline.StartTo < *v.Inline.To:
			// A multi-line comment: start_to..to.
			a.Line, a.EndLine = *v.Inline.StartTo, *v.Inline.To
		case v.Inline.To != nil:
			a.Line = *v.Inline.To
		case v.Inline.From != nil:
			// Anchored on a removed line (old version only); 0 marks "no new line".
			a.Line = 0
		}
		c.Inline = a
	}
	return c
}

// CreateComment posts a general comment, or an inline one on line
// Inline.Line of the new version of Inline.Path (inline {path, to}), or on
// its lines Inline.Line..Inline.EndLine (inline {path, start_to, to}: the
// first and the last line): POST
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments.
// When Bitbucket refuses a multi-line anchor with a 400 (no documentation
// says which ranges it refuses; one it cannot place on its own diff may
// be), the comment is posted on its last line alone (where Bitbucket shows
// a multi-line comment), and the answer's Inline.EndLine is 0. It is retried only after 429, never after a timeout
// or 5xx, so a comment is not posted twice.
func (c *Client) CreateComment(ctx context.Context, repo pipeline.Repo, prID int, nc pipeline.NewComment) (pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Comment{}, err
	}
	if strings.TrimSpace(nc.Body) == "" {
		return pipeline.Comment{}, pipeline.Invalidf("body", "comment body is empty")
	}
	var inline *wireInline
	if nc.Inline != nil {
		p := cleanPath(nc.Inline.Path)
		if p == "" {
			return pipeline.Comment{}, pipeline.Invalidf("inline.path", "inline comment needs a path")
		}
		if nc.Inline.Line < 1 {
			return pipeline.Comment{}, pipeline.Invalidf("inline.line", "must be >= 1, got %d", nc.Inline.Line)
		}
		line := nc.Inline.Line
		inline = &wireInline{Path: p, To: &line}
		if end := nc.Inline.EndLine; end != 0 {
			if end < line {
				return pipeline.Comment{}, pipeline.Invalidf("inline.endLine", "must be >= line %d, got %d", line, end)
			}
			if end > line {
				inline = &wireInline{Path: p, StartTo: &line, To: &end}
			}
		}
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if nc.ParentID < 0 {
		return pipeline.Comment{}, pipeline.Invalidf("parentId", "must be a comment id, got %d", nc.ParentID)
	}
	if nc.ParentID > 0 {
		inline = nil // a reply sits in its parent's thread
	}
	v, err := c.api.createComment(ctx, repo, prID, nc.Body, inline, nc.ParentID)
	if err != nil && inline != nil && inline.StartTo != nil && statusOf(err) == http.StatusBadRequest {
		line := *inline.To
		v, err = c.api.createComment(ctx, repo, prID, nc.Body, &wireInline{Path: inline.Path, To: &line}, 0)
	}
	if err != nil {
		return pipeline.Comment{}, fmt.Errorf("create comment on pull request %d: %w", prID, err)
	}
	c.learnSelf(v.User)
	return comment(v), nil
}

// learnSelf takes prscout's own account from a comment it has just created,
// when neither GET /user nor Config.AccountID told it: the author of that
// comment is, by construction, the account prscout posts as.
func (c *Client) learnSelf(u wireAccount) {
	s := &c.self
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids != nil || !(s.settled || s.warned) {
		return // known, or GET /user not asked yet: it is the first source
	}
	for _, id := range []string{u.AccountID, u.UUID} {
		if id = normID(id); id != "" {
			s.ids = append(s.ids, id)
		}
	}
	if s.ids != nil {
		s.settled = true
	}
}

// UpdateComment replaces a comment's body: PUT
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}.
func (c *Client) UpdateComment(ctx context.Context, repo pipeline.Repo, prID int, id int64, body string) (pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Comment{}, err
	}
	if strings.TrimSpace(body) == "" {
		return pipeline.Comment{}, pipeline.Invalidf("body", "comment body is empty")
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	v, err := c.api.updateComment(ctx, repo, prID, id, body)
	if err != nil {
		return pipeline.Comment{}, fmt.Errorf("update comment %d on pull request %d: %w", id, prID, err)
	}
	return comment(v), nil
}

// ResolveThread resolves the thread of top-level comment id: POST
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}/resolve.
// Bitbucket's 409 (the thread is already resolved) is not an error. Like
// every POST it is retried only after 429.
func (c *Client) ResolveThread(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.api.resolveComment(ctx, repo, prID, id); err != nil && statusOf(err) != http.StatusConflict {
		return fmt.Errorf("resolve thread of comment %d on pull request %d: %w", id, prID, err)
	}
	return nil
}

// DeleteComment deletes a comment: DELETE
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id} (204).
func (c *Client) DeleteComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.api.deleteComment(ctx, repo, prID, id); err != nil {
		return fmt.Errorf("delete comment %d on pull request %d: %w", id, prID, err)
	}
	return nil
}

// ListTasks returns every task of the pull request, following `next` links:
// GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks.
// A task another account created is marked Foreign (as comments are).
func (c *Client) ListTasks(ctx context.Context, repo pipeline.Repo, prID int) ([]pipeline.Task, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	self := c.selfIDs(ctx)
	var out []pipeline.Task
	err := walk(func(next string) (string, error) {
		p, err := c.api.tasksPage(ctx, repo, prID, next)
		for _, v := range p.Values {
			t := task(v)
			t.Foreign = self == nil || !isSelf(self, v.Creator)
			out = append(out, t)
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tasks of pull request %d: %w", prID, err)
	}
	return out, nil
}

func task(v wireTask) pipeline.Task {
	t := pipeline.Task{ID: v.ID, Body: v.Content.Raw, Resolved: strings.EqualFold(v.State, "RESOLVED")}
	if v.Comment != nil {
		t.CommentID = v.Comment.ID
	}
	return t
}

// CreateTask opens a task attached to comment commentID: POST
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks
// with {"content": {"raw": body}, "comment": {"id": commentID}}. Like every
// POST it is retried only after 429.
func (c *Client) CreateTask(ctx context.Context, repo pipeline.Repo, prID int, commentID int64, body string) (pipeline.Task, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Task{}, err
	}
	if strings.TrimSpace(body) == "" {
		return pipeline.Task{}, pipeline.Invalidf("body", "task body is empty")
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	v, err := c.api.createTask(ctx, repo, prID, commentID, body)
	if err != nil {
		return pipeline.Task{}, fmt.Errorf("create task on pull request %d: %w", prID, err)
	}
	return task(v), nil
}

// ResolveTask resolves task id: PUT
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks/{task_id}
// with {"state": "RESOLVED"}.
func (c *Client) ResolveTask(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.api.resolveTask(ctx, repo, prID, id); err != nil {
		return fmt.Errorf("resolve task %d on pull request %d: %w", id, prID, err)
	}
	return nil
}
