package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Comment is a pull request comment held by the fake.
type Comment struct {
	ID   int64
	Body string
	Path string // inline path; "" for a general comment
	From *int
	To   *int
	// StartTo is the first new-side line of a multi-line comment (To its
	// last); StartFrom the same on the old side.
	StartTo   *int
	StartFrom *int
	Parent    *int64
	Deleted   bool
	Author    string // display name
	// AccountID is the author's account id; AddComment derives one from
	// Author when empty. Comments created through the API carry the
	// authenticated account's.
	AccountID string
	// Resolved is set by POST .../comments/{id}/resolve (and cleared by
	// DELETE on it); ResolvedBy is the account that resolved the thread.
	Resolved   bool
	ResolvedBy string
	// CreatedOn is the comment's created_on; zero gives the fake's fixed
	// time (2026-11-02T10:05:00Z). Comments created through the API get
	// the server's clock (Server.Now, else the wall clock).
	CreatedOn time.Time
	// AccountType is the author's account type ("user" when empty;
	// "app_user" is an access token's bot account).
	AccountType string
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

// resolutionJSON is a comment_resolution object.
func resolutionJSON(c *Comment) map[string]any {
	return map[string]any{"type": "comment_resolution", "user": account(c.ResolvedBy, c.ResolvedBy), "created_on": "2026-11-02T11:00:00.000000+00:00"}
}

// typedAccount is account with the account type t ("user" when empty).
func typedAccount(name, id, t string) map[string]any {
	a := account(name, id)
	if t != "" {
		a["type"] = t
	}
	return a
}

func commentJSON(s *Server, ws, slug string, prID int, c *Comment) map[string]any {
	created := "2026-11-02T10:05:00.000000+00:00"
	if !c.CreatedOn.IsZero() {
		created = c.CreatedOn.UTC().Format("2006-01-02T15:04:05.000000+00:00")
	}
	m := map[string]any{
		"type": "pullrequest_comment", "id": c.ID, "deleted": c.Deleted, "pending": false,
		"content":    map[string]any{"raw": c.Body, "markup": "markdown", "html": "<p>" + c.Body + "</p>"},
		"user":       typedAccount(c.Author, c.AccountID, c.AccountType),
		"created_on": created, "updated_on": created,
		"links": map[string]any{
			"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d/comments/%d", s.BaseURL, ws, slug, prID, c.ID)},
			"html": map[string]any{"href": fmt.Sprintf("https://bitbucket.example/%s/%s/pull-requests/%d/_/diff#comment-%d", ws, slug, prID, c.ID)},
		},
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
		if c.StartTo != nil {
			in["start_to"] = *c.StartTo
		}
		if c.StartFrom != nil {
			in["start_from"] = *c.StartFrom
		}
		m["inline"] = in
	}
	if c.Parent != nil {
		m["parent"] = map[string]any{"type": "pullrequest_comment", "id": *c.Parent}
	}
	return m
}

func (s *Server) listComments(c *call) {
	prID, ok := s.prID(c)
	if !ok {
		return
	}
	var objs []map[string]any
	for _, cm := range c.rd.comments[prID] {
		objs = append(objs, commentJSON(s, c.ws, c.slug, prID, cm))
	}
	vals, ok := queryObjects(c.w, c.r, objs, commentQuery)
	if !ok {
		return
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
			Path      string `json:"path"`
			From      *int   `json:"from"`
			To        *int   `json:"to"`
			StartFrom *int   `json:"start_from"`
			StartTo   *int   `json:"start_to"`
		} `json:"inline"`
		Parent *struct {
			ID int64 `json:"id"`
		} `json:"parent"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil || in.Content.Raw == "" {
		writeError(c.w, http.StatusBadRequest, "content.raw: required")
		return
	}
	cm := &Comment{Body: in.Content.Raw, Author: botName, AccountID: s.self, CreatedOn: time.Now()}
	if in.Inline != nil { // its shape is the description's (checkSpec)
		cm.Path, cm.From, cm.To = in.Inline.Path, in.Inline.From, in.Inline.To
		cm.StartTo, cm.StartFrom = in.Inline.StartTo, in.Inline.StartFrom
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
