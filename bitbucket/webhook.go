package bitbucket

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Webhook request headers Bitbucket Cloud sends.
const (
	HeaderEventKey    = "X-Event-Key"     // e.g. "pullrequest:created"
	HeaderSignature   = "X-Hub-Signature" // "sha256=<hex HMAC-SHA256(secret, raw body)>"
	HeaderRequestUUID = "X-Request-UUID"  // the same on redeliveries of one event
	HeaderAttempt     = "X-Attempt-Number"
)

// Webhook event keys ParseWebhook accepts.
const (
	EventPullRequestCreated = "pullrequest:created"
	EventPullRequestUpdated = "pullrequest:updated"
)

// Signature errors; VerifySignature's errors wrap exactly one of them.
var (
	ErrSignatureMissing   = errors.New("webhook signature missing")
	ErrSignatureMalformed = errors.New("webhook signature malformed")
	ErrSignatureMismatch  = errors.New("webhook signature mismatch")
	ErrNoSecret           = errors.New("webhook secret not configured")
	// ErrUnsupportedEvent is returned by ParseWebhook for event keys other
	// than pullrequest:created and pullrequest:updated.
	ErrUnsupportedEvent = errors.New("unsupported webhook event")
)

// VerifySignature checks a Bitbucket Cloud webhook signature: header is the
// X-Hub-Signature value "sha256=<hex>", the HMAC-SHA256 of the raw request
// body keyed with the webhook's secret. The comparison is constant time. An
// empty secret refuses everything (ErrNoSecret) so a missing configuration
// cannot accept unsigned calls.
func VerifySignature(secret, body []byte, header string) error {
	if len(secret) == 0 {
		return ErrNoSecret
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrSignatureMissing
	}
	algo, digest, ok := strings.Cut(header, "=")
	if !ok || !strings.EqualFold(algo, "sha256") {
		return fmt.Errorf("%w: want sha256=<hex>", ErrSignatureMalformed)
	}
	got, err := hex.DecodeString(digest)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: want 64 hex digits", ErrSignatureMalformed)
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
// ErrUnsupportedEvent; a payload without a repository full name or a pull
// request id is a *pipeline.InvalidError.
func ParseWebhook(eventKey string, body []byte) (WebhookEvent, error) {
	eventKey = strings.TrimSpace(eventKey)
	if eventKey != EventPullRequestCreated && eventKey != EventPullRequestUpdated {
		return WebhookEvent{}, fmt.Errorf("%w: %q", ErrUnsupportedEvent, eventKey)
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
