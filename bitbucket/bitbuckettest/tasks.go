package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Task is a pull request task held by the fake. CommentID is the comment it
// is attached to (0: none).
type Task struct {
	ID        int64
	Body      string
	CommentID int64
	Resolved  bool
	// CreatorID is the account that created it (the authenticated one for
	// tasks created through the API).
	CreatorID string
}

// Tasks returns the pull request's tasks in creation order.
func (s *Server) Tasks(ws, slug string, prID int) []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Task
	for _, t := range s.repo(ws, slug).tasks[prID] {
		out = append(out, *t)
	}
	return out
}

// AddTask stores a task as another participant (or, with the
// authenticated account's id, prscout) created it, and returns its id.
func (s *Server) AddTask(ws, slug string, prID int, t Task) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	t.ID = s.nextID
	if t.CreatorID == "" {
		t.CreatorID = "user-reviewer"
	}
	r := s.repo(ws, slug)
	r.tasks[prID] = append(r.tasks[prID], &t)
	return t.ID
}

// taskJSON is a pullrequest_comment_task.
func (s *Server) taskJSON(ws, slug string, prID int, t *Task) map[string]any {
	state := "UNRESOLVED"
	if t.Resolved {
		state = "RESOLVED"
	}
	m := map[string]any{
		"id": t.ID, "state": state, "pending": false,
		"content":    map[string]any{"raw": t.Body, "markup": "markdown", "html": "<p>" + t.Body + "</p>"},
		"creator":    account(t.CreatorID, t.CreatorID),
		"created_on": "2026-11-02T10:06:00.000000+00:00", "updated_on": "2026-11-02T10:06:00.000000+00:00",

		"links": map[string]any{"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d/tasks/%d", s.BaseURL, ws, slug, prID, t.ID)}},
	}
	if t.Resolved {
		m["resolved_on"] = "2026-11-02T11:00:00.000000+00:00"
		m["resolved_by"] = account(botName, s.self)
	}
	if t.CommentID != 0 {
		m["comment"] = map[string]any{"type": "pullrequest_comment", "id": t.CommentID,
			"links": map[string]any{"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d/comments/%d", s.BaseURL, ws, slug, prID, t.CommentID)}}}
	}
	return m
}

func (s *Server) listTasks(c *call) {
	prID, ok := s.prID(c)
	if !ok {
		return
	}
	vals := []any{}
	for _, t := range c.rd.tasks[prID] {
		vals = append(vals, s.taskJSON(c.ws, c.slug, prID, t))
	}
	s.writePage(c.w, c.r, vals, 10)
}

// createTask answers POST .../tasks {content{raw}, comment{id}?, pending?}:
// 400 without content.raw, 404 for a comment the pull request does not have
// (or a deleted one); 201 with the task and a Location header.
func (s *Server) createTask(c *call) {
	prID, ok := s.prID(c)
	if !ok {
		return
	}
	var in struct {
		Content struct {
			Raw string `json:"raw"`
		} `json:"content"`
		Comment *struct {
			ID int64 `json:"id"`
		} `json:"comment"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil || strings.TrimSpace(in.Content.Raw) == "" {
		writeError(c.w, http.StatusBadRequest, "content.raw: required")
		return
	}
	t := &Task{Body: in.Content.Raw, CreatorID: s.self}
	if in.Comment != nil {
		found := false
		for _, cm := range c.rd.comments[prID] {
			found = found || cm.ID == in.Comment.ID && !cm.Deleted
		}
		if !found {
			writeError(c.w, http.StatusNotFound, "Comment not found")
			return
		}
		t.CommentID = in.Comment.ID
	}
	s.nextID++
	t.ID = s.nextID
	c.rd.tasks[prID] = append(c.rd.tasks[prID], t)
	m := s.taskJSON(c.ws, c.slug, prID, t)
	c.w.Header().Set("Location", m["links"].(map[string]any)["self"].(map[string]any)["href"].(string))
	writeJSON(c.w, http.StatusCreated, m)
}

// task answers GET and PUT .../tasks/{task}: PUT takes {state: RESOLVED |
// UNRESOLVED} and/or {content{raw}}; another state is a 400.
func (s *Server) task(c *call) {
	prID, _ := strconv.Atoi(c.r.PathValue("id"))
	id, _ := strconv.ParseInt(c.r.PathValue("task"), 10, 64)
	var t *Task
	for _, x := range c.rd.tasks[prID] {
		if x.ID == id {
			t = x
		}
	}
	if t == nil {
		writeError(c.w, http.StatusNotFound, "Task not found")
		return
	}
	if c.op == OpUpdateTask {
		var in struct {
			State   *string `json:"state"`
			Content *struct {
				Raw string `json:"raw"`
			} `json:"content"`
		}
		if err := json.Unmarshal(c.body, &in); err != nil || in.State == nil && in.Content == nil {
			writeError(c.w, http.StatusBadRequest, "state or content: required")
			return
		}
		if in.State != nil {
			switch *in.State {
			case "RESOLVED":
				t.Resolved = true
			case "UNRESOLVED":
				t.Resolved = false
			default:
				writeErrorDetail(c.w, http.StatusBadRequest, "Bad request", "state: must be RESOLVED or UNRESOLVED")
				return
			}
		}
		if in.Content != nil {
			t.Body = in.Content.Raw
		}
	}
	writeJSON(c.w, http.StatusOK, s.taskJSON(c.ws, c.slug, prID, t))
}
