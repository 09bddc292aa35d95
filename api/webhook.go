package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
)

// WebhookOptions configure the signed Bitbucket webhook relay
// (POST /v1/webhooks/bitbucket). The relay verifies Bitbucket's signature and
// forwards the body, its secrets redacted, to the n8n workflow's Webhook URL with a header
// that n8n's Webhook node checks (header auth), so the workflow never has to
// verify HMACs itself.
type WebhookOptions struct {
	// Verify checks the X-Hub-Signature header against the raw body
	// (constant time); a non-nil error refuses the event with 401.
	Verify func(body []byte, signature string) error
	// Events are the X-Event-Key values forwarded; others are refused with 400.
	Events []string
	// CheckEvent checks that the body is a payload of the event its
	// X-Event-Key names (the header is not signed); an error refuses the
	// event with 400 event_mismatch. nil skips the check.
	CheckEvent func(eventKey string, body []byte) error
	// DedupWindow is how long a delivery is remembered: a replay of it (same
	// X-Request-UUID, or same event and body) within the window is answered
	// 202 "duplicate" and not forwarded again, once its first forward
	// succeeded. 0 or less switches
	// deduplication off.
	DedupWindow time.Duration
	// MaxBodyBytes bounds an event's body (PRSCOUT_WEBHOOK_MAX_BODY_BYTES):
	// Bitbucket's events are at most 256 KB. 0 or less means the server's
	// own body limit, which it never exceeds.
	MaxBodyBytes int64
	// MaxInflight caps the deliveries read, verified or forwarded at once
	// (PRSCOUT_WEBHOOK_MAX_INFLIGHT); past it a delivery is answered 429
	// with Retry-After before its body is read; 0 or less switches the cap
	// off. With a cap, memory is
	// bounded by MaxInflight × MaxBodyBytes (and a few copies of each).
	MaxInflight int
	// ForwardURL is n8n's Webhook URL; empty means verify and acknowledge only.
	ForwardURL string
	// CommentEvents are the X-Event-Key values forwarded to
	// CommentForwardURL (the conversation workflow) instead of ForwardURL;
	// they are in Events too. CommentForwardURL empty: they are
	// acknowledged 202 with a reason, not forwarded
	// (PRSCOUT_COMMENT_FORWARD_URL).
	CommentEvents     []string
	CommentForwardURL string
	// Forwarder sends the forwards (n8n.Forwarder: the relay's header auth,
	// no redirects followed); required with ForwardURL or
	// CommentForwardURL.
	Forwarder WebhookForwarder
}

// WebhookForwarder posts a delivery to an n8n Webhook URL with the given
// headers: the status n8n answered, or an error (an error status, a
// redirect, n8n unreachable).
type WebhookForwarder interface {
	Forward(ctx context.Context, url string, header http.Header, body []byte) (int, error)
}

// forwardedHeaders are Bitbucket's headers passed on to n8n. Bitbucket's
// X-Hub-Signature is not: the relay has verified it, and the body it
// forwards may be redacted (n8n checks the relay's own header instead).
var forwardedHeaders = []string{"X-Event-Key", "X-Request-UUID", "X-Hook-UUID", "X-Attempt-Number"}

// Fixed bounds of the relay (its settings are WebhookOptions).
const (
	// webhookReadTimeout bounds the arrival of an event's body: 256 KB
	// arrive in well under a second from Bitbucket; a sender trickling
	// its body holds a delivery slot this long at most.
	webhookReadTimeout = 10 * time.Second
	// webhookWait is how long a copy of a delivery whose first forward is
	// still running waits for it before it is answered 409.
	webhookWait = 5 * time.Second
	// maxSignatureLen bounds X-Hub-Signature ("sha256=" and 64 hex digits).
	maxSignatureLen = 256
	// webhookRetryAfter is the Retry-After of the relay's 409 and 429.
	webhookRetryAfter = "10"
)

// webhookRelay is the relay's state beyond the replay guard: the limits in
// force and one slot per delivery being handled.
type webhookRelay struct {
	maxBody     int64
	slots       chan struct{}
	readTimeout time.Duration // webhookReadTimeout
	wait        time.Duration // webhookWait
}

func newWebhookRelay(wo *WebhookOptions, serverMaxBody int64) *webhookRelay {
	r := &webhookRelay{maxBody: wo.MaxBodyBytes, readTimeout: webhookReadTimeout, wait: webhookWait}
	if r.maxBody <= 0 || (serverMaxBody > 0 && r.maxBody > serverMaxBody) {
		r.maxBody = serverMaxBody
	}
	if wo.MaxInflight > 0 {
		r.slots = make(chan struct{}, wo.MaxInflight)
	}
	return r
}

// admitDelivery makes the checks that cost nothing before a body is read:
// the event key, that a signature is there at all, the declared length, and
// a free delivery slot (release frees it). A refused delivery is answered.
func (s *Server) admitDelivery(c *gin.Context, event string) (release func(), ok bool) {
	wo, relay := s.opts.Webhook, s.relay
	if !contains(wo.Events, event) {
		s.metrics.WebhooksReceived.WithLabelValues("ignored").Inc()
		refuseEarly(c, http.StatusBadRequest, ErrorBody{Error: "unsupported_event",
			Message: fmt.Sprintf("event %q is not reviewed; subscribe the webhook to %v only", pipeline.ClipRunes(event, 80), wo.Events), Field: "X-Event-Key"})
		return nil, false
	}
	if sig := strings.TrimSpace(c.GetHeader("X-Hub-Signature")); sig == "" || len(sig) > maxSignatureLen {
		s.metrics.WebhooksReceived.WithLabelValues("bad_signature").Inc()
		refuseEarly(c, http.StatusUnauthorized, ErrorBody{Error: "bad_signature",
			Message: fmt.Sprintf("webhook signature rejected: X-Hub-Signature is missing or longer than %d bytes", maxSignatureLen), Field: "X-Hub-Signature"})
		return nil, false
	}
	if n := c.Request.ContentLength; n > relay.maxBody {
		s.metrics.WebhooksReceived.WithLabelValues("too_large").Inc()
		refuseEarly(c, http.StatusRequestEntityTooLarge, ErrorBody{Error: "too_large",
			Message: fmt.Sprintf("the event's body is %d bytes, over the %d-byte limit (PRSCOUT_WEBHOOK_MAX_BODY_BYTES)", n, relay.maxBody)})
		return nil, false
	}
	if relay.slots != nil {
		select {
		case relay.slots <- struct{}{}:
			return func() { <-relay.slots }, true
		default:
			s.metrics.WebhooksReceived.WithLabelValues("busy").Inc()
			c.Header("Retry-After", webhookRetryAfter)
			refuseEarly(c, http.StatusTooManyRequests, ErrorBody{Error: "busy",
				Message: fmt.Sprintf("%d webhook deliveries are already being handled (PRSCOUT_WEBHOOK_MAX_INFLIGHT); retry after %s seconds", cap(relay.slots), webhookRetryAfter)})
			return nil, false
		}
	}
	return func() {}, true
}

// webhook answers fast: it verifies, forwards synchronously with a short
// timeout and returns 202. A failed forward is a 502, so Bitbucket retries
// the delivery (it tries twice more); the stages downstream are idempotent,
// so a retried event never duplicates a comment.
//
// What costs nothing is checked before the body is read: the event key,
// that a signature is there at all, the declared length, and a free
// delivery slot. Only then is the body read, under the relay's own small
// limit and read timeout. Operations: docs/operations-webhook.md.
func (s *Server) webhook(c *gin.Context) {
	wo := s.opts.Webhook
	relay := s.relay
	event := c.GetHeader("X-Event-Key")
	release, ok := s.admitDelivery(c, event)
	if !ok {
		return
	}
	defer release()
	if v, ok := c.Get(readDeadlineKey); ok {
		if rc, ok := v.(*http.ResponseController); ok {
			_ = rc.SetReadDeadline(time.Now().Add(min(relay.readTimeout, s.opts.RequestLimits.ReadTimeout)))
		}
	}
	body, err := s.readBodyLimit(c, relay.maxBody, "PRSCOUT_WEBHOOK_MAX_BODY_BYTES")
	if err != nil {
		s.writeError(c, err)
		return
	}
	if err := wo.Verify(body, c.GetHeader("X-Hub-Signature")); err != nil {
		s.metrics.WebhooksReceived.WithLabelValues("bad_signature").Inc()
		c.AbortWithStatusJSON(http.StatusUnauthorized, ErrorBody{Error: "bad_signature", Message: "webhook signature rejected: " + err.Error(), Field: "X-Hub-Signature"})
		return
	}
	if hasTopKey(body, "prscout") {
		// Only prscout's own forwards carry a prscout key (a thread
		// command's review); a delivery with one is not Bitbucket's.
		s.metrics.WebhooksReceived.WithLabelValues("event_mismatch").Inc()
		c.AbortWithStatusJSON(http.StatusBadRequest, ErrorBody{Error: "event_mismatch", Message: "a Bitbucket event has no top-level \"prscout\" key", Field: "prscout"})
		return
	}
	if wo.CheckEvent != nil {
		if err := wo.CheckEvent(event, body); err != nil {
			s.metrics.WebhooksReceived.WithLabelValues("event_mismatch").Inc()
			c.AbortWithStatusJSON(http.StatusBadRequest, ErrorBody{Error: "event_mismatch", Message: err.Error(), Field: "X-Event-Key"})
			return
		}
	}
	var keys []string
	var d *delivery
	forwarded := false
	if s.replays != nil {
		digest := sha256.Sum256(body)
		keys = []string{event + " " + hex.EncodeToString(digest[:])}
		if id := strings.TrimSpace(c.GetHeader("X-Request-UUID")); id != "" && len(id) <= 128 {
			keys = append(keys, "uuid "+id)
		}
		switch d = s.awaitDelivery(c, keys); {
		case d == nil && c.IsAborted():
			return
		case d == nil:
			s.metrics.WebhooksReceived.WithLabelValues("duplicate").Inc()
			c.JSON(http.StatusAccepted, gin.H{"status": "duplicate", "event": event, "forwarded": false})
			return
		}
		// Whatever happens next (a panic included), copies waiting on this
		// delivery wake up, and a failed one is forgotten.
		defer func() { s.replays.finish(d, forwarded, keys...) }()
	}
	target, outcome := wo.ForwardURL, "forwarded"
	if contains(wo.CommentEvents, event) {
		target, outcome = wo.CommentForwardURL, "comment_forwarded"
		if target == "" {
			forwarded = true
			s.metrics.WebhooksReceived.WithLabelValues("comment_not_forwarded").Inc()
			c.JSON(http.StatusAccepted, gin.H{"status": "verified", "event": event, "forwarded": false,
				"reason": "comment events are not forwarded: PRSCOUT_COMMENT_FORWARD_URL is not set"})
			return
		}
	}
	if target == "" {
		forwarded = true
		s.metrics.WebhooksReceived.WithLabelValues("forwarded").Inc()
		c.JSON(http.StatusAccepted, gin.H{"status": "verified", "event": event, "forwarded": false})
		return
	}
	// The event lands in n8n's execution data: its text (the pull request's
	// title and description, a comment) is redacted like everything else
	// that leaves prscout toward an n8n item.
	redactions := map[string]int{}
	out := redactJSONStrings(body, redactions)
	s.countRedactions(redactions)
	status, err := s.forwardTo(c.Request.Context(), target, c.Request.Header, out)
	if err != nil {
		// Bitbucket retries a failed delivery: finish forgets it, so the
		// retry goes through.
		s.metrics.WebhooksReceived.WithLabelValues("forward_failed").Inc()
		s.log.WarnContext(c.Request.Context(), "webhook forward failed", "err", err, "request_id", requestID(c))
		c.AbortWithStatusJSON(http.StatusBadGateway, ErrorBody{Error: "forward_failed", Message: "could not forward the event to n8n: " + err.Error()})
		return
	}
	forwarded = true
	s.metrics.WebhooksReceived.WithLabelValues(outcome).Inc()
	c.JSON(http.StatusAccepted, gin.H{"status": "forwarded", "event": event, "forwarded": true, "n8nStatus": status})
}

// awaitDelivery reserves keys for this copy of a delivery and returns it.
// When a copy of the same delivery is being forwarded, it waits for that
// one up to the relay's wait (webhookWait): forwarded, this copy is a duplicate (nil); failed,
// this copy takes over. Still running, this copy is answered 409 with
// Retry-After (nil, and c aborted): Bitbucket retries it later, when the
// first one's outcome is known, so a retry is never acknowledged for an
// event that then failed to reach n8n.
func (s *Server) awaitDelivery(c *gin.Context, keys []string) *delivery {
	timer := time.NewTimer(s.relay.wait)
	defer timer.Stop()
	for {
		d, prior := s.replays.reserve(keys...)
		if prior == nil {
			return d
		}
		select {
		case <-prior.done:
			if prior.ok {
				return nil
			}
			// The first copy failed and was forgotten: reserve again.
		case <-timer.C:
			s.metrics.WebhooksReceived.WithLabelValues("in_flight").Inc()
			c.Header("Retry-After", webhookRetryAfter)
			c.AbortWithStatusJSON(http.StatusConflict, ErrorBody{Error: "in_flight",
				Message: "this delivery is still being forwarded to n8n; retry after " + webhookRetryAfter + " seconds"})
			return nil
		case <-c.Request.Context().Done():
			c.Abort()
			return nil
		}
	}
}

// refuseEarly answers before the body was read, and makes the server drop
// the connection rather than drain a body nobody will look at.
func refuseEarly(c *gin.Context, status int, body ErrorBody) {
	bodyRead(c, false)
	c.Header("Connection", "close")
	c.AbortWithStatusJSON(status, body)
}

// forwardTo posts body to url (an n8n Webhook URL) through the
// Forwarder, with Bitbucket's forwarded headers from in and the request id.
func (s *Server) forwardTo(ctx context.Context, url string, in http.Header, body []byte) (int, error) {
	fw := s.opts.Webhook.Forwarder
	if fw == nil {
		return 0, errors.New("no webhook forwarder configured")
	}
	h := http.Header{}
	for _, name := range forwardedHeaders {
		if v := in.Get(name); v != "" {
			h.Set(name, v)
		}
	}
	if id := requestIDFrom(ctx); id != "" {
		h.Set("X-Request-Id", id)
	}
	return fw.Forward(ctx, url, h, body)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func requestIDFrom(ctx context.Context) string { return pipeline.RequestID(ctx) }

// redactJSONStrings redacts secrets in every string value of a JSON body,
// counting them by kind. A body without secrets (or not JSON) is returned
// as it is, byte for byte; one with secrets is re-encoded, its structure
// and keys unchanged.
func redactJSONStrings(body []byte, counts map[string]int) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return body
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			if r := redact.Secrets(x, counts); r != x {
				changed = true
				return r
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// hasTopKey reports whether body is a JSON object with key at its top level.
func hasTopKey(body []byte, key string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	_, ok := top[key]
	return ok
}
