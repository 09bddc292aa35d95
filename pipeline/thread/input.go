package thread

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Comment events a thread stage reads (X-Event-Key).
const (
	EventCreated  = "pullrequest:comment_created"
	EventResolved = "pullrequest:comment_resolved"
	EventReopened = "pullrequest:comment_reopened"
	EventUpdated  = "pullrequest:comment_updated"
)

// Input is the /v1/thread request: the comment an event is about. It is
// read from the flat fields, from a Bitbucket comment event body
// ({actor, repository, pullrequest, comment}), or from an n8n Webhook
// item ({body: <event>, headers: {"x-event-key": ...}}); see ParseInput.
type Input struct {
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
	PRID      int    `json:"prId"`
	CommentID int64  `json:"commentId"`
	// Event is the X-Event-Key; "" is read as pullrequest:comment_created.
	Event string `json:"event,omitempty"`
	// Actor is who caused the event (its account id, else uuid, else
	// nickname): for a resolved thread, who resolved it.
	Actor string `json:"actor,omitempty"`
}

// AnswerInput is the /v1/thread/answer request: the comment answered and
// the model's answer as it came (text, JSON, an LLM envelope).
type AnswerInput struct {
	Workspace string          `json:"workspace"`
	RepoSlug  string          `json:"repoSlug"`
	PRID      int             `json:"prId"`
	CommentID int64           `json:"commentId"`
	Answer    json.RawMessage `json:"answer"`
}

// wireEvent is the part of a Bitbucket comment event the stage reads. The
// comment itself is read again from the provider: the event names it only.
type wireEvent struct {
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	PullRequest struct {
		ID int `json:"id"`
	} `json:"pullrequest"`
	Comment struct {
		ID int64 `json:"id"`
	} `json:"comment"`
	Actor struct {
		AccountID string `json:"account_id"`
		UUID      string `json:"uuid"`
		Nickname  string `json:"nickname"`
	} `json:"actor"`
}

// ParseInput reads a /v1/thread body. Errors are *pipeline.InvalidError
// naming the field.
func ParseInput(data []byte) (Input, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return Input{}, pipeline.Invalidf("body", "want a JSON object: {workspace, repoSlug, prId, commentId} or a Bitbucket comment event")
	}
	event := ""
	if raw, ok := top["event"]; ok {
		if err := json.Unmarshal(raw, &event); err != nil {
			return Input{}, pipeline.Invalidf("event", "must be a string")
		}
	}
	body := data
	if b, ok := top["body"]; ok && isObject(b) {
		var h struct {
			Headers map[string]any `json:"headers"`
		}
		_ = json.Unmarshal(data, &h)
		for k, v := range h.Headers {
			if s, ok := v.(string); ok && strings.EqualFold(k, "x-event-key") && event == "" {
				event = s
			}
		}
		body = b
		top = nil
		_ = json.Unmarshal(b, &top)
	}
	if c, ok := top["comment"]; ok && isObject(c) {
		var ev wireEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			return Input{}, pipeline.Invalidf("comment", "not a Bitbucket comment event: %v", err)
		}
		ws, slug, ok := strings.Cut(ev.Repository.FullName, "/")
		if !ok {
			return Input{}, pipeline.Invalidf("repository.full_name", "want workspace/repo_slug, got %q", pipeline.ClipRunes(ev.Repository.FullName, 80))
		}
		in := Input{Workspace: ws, RepoSlug: slug, PRID: ev.PullRequest.ID, CommentID: ev.Comment.ID, Event: event,
			Actor: firstOf(ev.Actor.AccountID, ev.Actor.UUID, ev.Actor.Nickname)}
		return in, in.check("pullrequest.id", "comment.id")
	}
	var in Input
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Input{}, pipeline.Invalidf("body", "%v", err)
	}
	return in, in.check("prId", "commentId")
}

func (in Input) check(prField, commentField string) error {
	if strings.TrimSpace(in.Workspace) == "" {
		return pipeline.Invalidf("workspace", "required")
	}
	if strings.TrimSpace(in.RepoSlug) == "" {
		return pipeline.Invalidf("repoSlug", "required")
	}
	if in.PRID <= 0 {
		return pipeline.Invalidf(prField, "must be a positive pull request id")
	}
	if in.CommentID <= 0 {
		return pipeline.Invalidf(commentField, "must be a positive comment id")
	}
	switch in.Event {
	case "", EventCreated, EventResolved, EventReopened, EventUpdated:
	default:
		return pipeline.Invalidf("event", "want %s, %s or %s, got %q", EventCreated, EventResolved, EventReopened, pipeline.ClipRunes(in.Event, 80))
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// firstOf returns the first non-blank of vs, trimmed.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
