package bitbucket

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Webhook event keys ParseWebhook accepts.
const (
	EventPullRequestCreated = "pullrequest:created"
	EventPullRequestUpdated = "pullrequest:updated"
)

// Signature errors; VerifySignature's errors wrap exactly one of them.
var (
	ErrSignatureMissing   = errors.New("webhook signature missing")
	errSignatureMalformed = errors.New("webhook signature malformed")
	ErrSignatureMismatch  = errors.New("webhook signature mismatch")
	errNoSecret           = errors.New("webhook secret not configured")
	// errUnsupportedEvent is returned by ParseWebhook for event keys other
	// than pullrequest:created and pullrequest:updated.
	errUnsupportedEvent = errors.New("unsupported webhook event")
)

// VerifySignature checks a Bitbucket Cloud webhook signature: header is the
// X-Hub-Signature value "sha256=<hex>", the HMAC-SHA256 of the raw request
// body keyed with the webhook's secret. The comparison is constant time. An
// empty secret refuses everything (errNoSecret) so a missing configuration
// cannot accept unsigned calls.
func VerifySignature(secret, body []byte, header string) error {
	if len(secret) == 0 {
		return errNoSecret
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrSignatureMissing
	}
	algo, digest, ok := strings.Cut(header, "=")
	if !ok || !strings.EqualFold(algo, "sha256") {
		return fmt.Errorf("%w: want sha256=<hex>", errSignatureMalformed)
	}
	got, err := hex.DecodeString(digest)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: want 64 hex digits", errSignatureMalformed)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ErrSignatureMismatch
	}
	return nil
}

// Sign returns the X-Hub-Signature value Bitbucket would send for body: for
// tests and the fake server.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// WebhookEvent is a pull request event: Key is the X-Event-Key, Repo comes
// from repository.full_name, PR from the payload's pullrequest (commit ids
// are Bitbucket's 12-character abbreviations; Repository.ResolveCommit
// expands them).
type WebhookEvent struct {
	Key  string                   `json:"key"`
	Repo pipeline.Repo            `json:"repo"`
	PR   pipeline.PullRequestInfo `json:"pr"`
}

// ParseWebhook decodes a pullrequest:created or pullrequest:updated payload
// ({actor, pullrequest, repository}). Other event keys give
// errUnsupportedEvent; a payload without a repository full name or a pull
// request id is a *pipeline.InvalidError.
func ParseWebhook(eventKey string, body []byte) (WebhookEvent, error) {
	eventKey = strings.TrimSpace(eventKey)
	if eventKey != EventPullRequestCreated && eventKey != EventPullRequestUpdated {
		return WebhookEvent{}, fmt.Errorf("%w: %q", errUnsupportedEvent, eventKey)
	}
	var p struct {
		PullRequest *wirePR `json:"pullrequest"`
		Repository  struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return WebhookEvent{}, pipeline.Invalidf("body", "webhook payload is not valid JSON: %v", err)
	}
	ws, slug, ok := strings.Cut(p.Repository.FullName, "/")
	repo := pipeline.Repo{Workspace: ws, RepoSlug: slug}
	if !ok || checkRepo(repo) != nil {
		return WebhookEvent{}, pipeline.Invalidf("repository.full_name", "want workspace/repo_slug, got %q", p.Repository.FullName)
	}
	if p.PullRequest == nil || p.PullRequest.ID <= 0 {
		return WebhookEvent{}, pipeline.Invalidf("pullrequest.id", "missing pull request id")
	}
	return WebhookEvent{Key: eventKey, Repo: repo, PR: prInfo(*p.PullRequest)}, nil
}

// errEventMismatch is returned by CheckEventBody when a body cannot be the
// payload of the event its X-Event-Key names.
var errEventMismatch = errors.New("webhook event key does not match the body")

// CheckEventBody checks that body has the shape of the event named by
// eventKey. The X-Event-Key header is not covered by the signature, so a
// captured signed body of one event (a comment, an approval) could be
// replayed under another key (pullrequest:updated) to trigger a review; the
// shapes tell them apart (docs/bitbucket-jira.md, "Webhook payloads"):
//
//   - pullrequest:comment_* bodies hold pullrequest, repository and comment;
//   - pullrequest:approved/unapproved hold approval, changes_request_*
//     changes_request;
//   - the other pullrequest:* events (created, updated, fulfilled, ...) hold
//     pullrequest and repository and none of comment, approval or
//     changes_request;
//   - repo:push holds push and repository.
//
// Other keys only need a JSON object. A mismatch wraps errEventMismatch and
// says what is missing or out of place.
func CheckEventBody(eventKey string, body []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return fmt.Errorf("%w: the body is not a JSON object", errEventMismatch)
	}
	isObject := func(k string) bool {
		v := bytes.TrimSpace(top[k])
		return len(v) > 0 && v[0] == '{'
	}
	need := func(keys ...string) error {
		for _, k := range keys {
			if !isObject(k) {
				return fmt.Errorf("%w: a %s event has a %q object, this body has none", errEventMismatch, eventKey, k)
			}
		}
		return nil
	}
	refuse := func(keys ...string) error {
		for _, k := range keys {
			if _, ok := top[k]; ok {
				return fmt.Errorf("%w: a %s event has no %q, this body has one (another event's payload)", errEventMismatch, eventKey, k)
			}
		}
		return nil
	}
	key := strings.TrimSpace(eventKey)
	switch {
	case strings.HasPrefix(key, "pullrequest:comment_"):
		return need("pullrequest", "repository", "comment")
	case key == "pullrequest:approved" || key == "pullrequest:unapproved":
		if err := need("pullrequest", "repository", "approval"); err != nil {
			return err
		}
		return refuse("comment", "changes_request")
	case strings.HasPrefix(key, "pullrequest:changes_request_"):
		if err := need("pullrequest", "repository", "changes_request"); err != nil {
			return err
		}
		return refuse("comment", "approval")
	case strings.HasPrefix(key, "pullrequest:"):
		if err := need("pullrequest", "repository"); err != nil {
			return err
		}
		return refuse("comment", "approval", "changes_request")
	case key == "repo:push":
		if err := need("push", "repository"); err != nil {
			return err
		}
		return refuse("pullrequest")
	}
	return nil
}
