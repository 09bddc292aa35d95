// Package webhook delivers pull request webhooks to prscout the way
// Bitbucket Cloud does, for the e2e fakes: the headers Bitbucket sends and
// the body signed with bitbucket.Sign.
package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prscout/prscout/bitbucket"
)

// Answer is what the webhook's receiver answered.
type Answer struct {
	Status     int
	Body       string
	RetryAfter string // the Retry-After header, "" when absent
}

// Deliver posts body as event to url, signed with secret.
func Deliver(ctx context.Context, url, event string, secret, body []byte) (Answer, error) {
	var u [16]byte
	_, _ = rand.Read(u[:])
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Bitbucket-Webhooks/2.0")
	req.Header.Set("X-Event-Key", event)
	req.Header.Set("X-Hub-Signature", bitbucket.Sign(secret, body))
	req.Header.Set("X-Request-UUID", fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]))
	req.Header.Set("X-Attempt-Number", "1")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("deliver webhook: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return Answer{Status: resp.StatusCode, Body: string(b), RetryAfter: resp.Header.Get("Retry-After")}, nil
}
