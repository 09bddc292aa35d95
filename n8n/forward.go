package n8n

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// defaultForwardTimeout bounds one forward when the Forwarder's client has
// no Timeout.
const defaultForwardTimeout = 10 * time.Second

// Forwarder posts a verified webhook delivery to an n8n workflow's Webhook
// URL (its Webhook node), with the relay's header auth (Header: Token, the
// Webhook node's "Header Auth" credential). Redirects are never followed,
// whatever HTTPClient's CheckRedirect says: the token and the body would go
// to another host. It is safe for concurrent use.
type Forwarder struct {
	Header, Token string
	// HTTPClient sends the forward; its Timeout bounds it (default 10s).
	HTTPClient *http.Client
}

// Forward posts body (JSON) to url with the header values given and the
// auth header. It returns the status n8n answered; a 3xx or an error status
// is also an error, as is a failure to reach n8n (status 0). The request
// outlives ctx's cancellation, keeping its values: a delivery n8n took must
// not be cut off because Bitbucket stopped waiting.
func (f *Forwarder) Forward(ctx context.Context, url string, header http.Header, body []byte) (int, error) {
	client := &http.Client{Timeout: defaultForwardTimeout}
	if f.HTTPClient != nil {
		c := *f.HTTPClient
		client = &c
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("build forward request: %w", err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	if f.Header != "" && f.Token != "" {
		req.Header.Set(f.Header, f.Token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post to n8n: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return resp.StatusCode, fmt.Errorf("n8n answered %s to %s; redirects are not followed (the token and the body would go to another host): set PRSCOUT_FORWARD_URL to the final URL", resp.Status, resp.Header.Get("Location"))
	}
	if resp.StatusCode >= 400 {
		return resp.StatusCode, fmt.Errorf("n8n answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}
