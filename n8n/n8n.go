// Package n8n is the adapter for n8n: a Forwarder posts verified webhook
// deliveries to a workflow's Webhook URL (forward.go), and a Client calls
// n8n's public REST API, authenticated with
// the X-N8N-API-KEY header (docs/operations.md, "Deploying a workflow"). It reads and replaces one
// workflow, which is what `prscout deploy` needs:
//   - GET /api/v1/workflows/{id}
//   - PUT /api/v1/workflows/{id}
//
// and, for `prscout deploy --setup` (setup.go), lists and creates
// credentials and workflows and publishes them.
//
// Redirects are not followed: Go would send the API key (a custom header) to
// any host a redirect names, and would turn a PUT answered with 301 or 302
// into a GET that "succeeds" without changing anything. A 3xx is an APIError
// that names the Location to use instead.
package n8n

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// defaultTimeout bounds one call when Config.Timeout is zero.
const defaultTimeout = 30 * time.Second

// maxBody bounds what is read of an answer (a large workflow export is a few
// MiB).
const maxBody = 64 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the n8n instance, e.g. http://127.0.0.1:5678; a path
	// prefix is kept (http://127.0.0.1:8080/n8n behind a proxy).
	BaseURL string
	// APIKey is an n8n API key (Settings > n8n API).
	APIKey string
	// Timeout bounds one call, body read included (default 30s).
	Timeout time.Duration
}

// Client calls n8n's public API. It is safe for concurrent use.
type Client struct {
	base string // without a trailing slash
	key  string
	hc   *http.Client
}

// New validates cfg and builds a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	raw := strings.TrimSpace(cfg.BaseURL)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("n8n base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("n8n base URL %q must not hold a query, fragment or credentials", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("n8n API key is empty")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("n8n timeout %s is negative", cfg.Timeout)
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	return &Client{
		base: strings.TrimRight(u.String(), "/"),
		key:  cfg.APIKey,
		hc: &http.Client{
			Timeout:       timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// WorkflowURL is the API address of workflow id.
func (c *Client) WorkflowURL(id string) string {
	return c.base + "/api/v1/workflows/" + url.PathEscape(id)
}

// Workflow calls GET /api/v1/workflows/{id} and returns the answer's body
// as n8n sent it (the workflow object). A non-2xx answer is an *APIError.
func (c *Client) Workflow(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, id, nil)
}

// UpdateWorkflow calls PUT /api/v1/workflows/{id} with body, a workflow
// object n8n's schema accepts ({name, nodes, connections, settings}; n8n
// answers 400 to any other field). A non-2xx answer is an *APIError.
func (c *Client) UpdateWorkflow(ctx context.Context, id string, body []byte) error {
	_, err := c.do(ctx, http.MethodPut, id, body)
	return err
}

func (c *Client) do(ctx context.Context, method, id string, body []byte) ([]byte, error) {
	return c.call(ctx, method, c.WorkflowURL(id), "workflow", body)
}

// call sends one request to url (what names the object in errors) and
// returns the answer's body; a non-2xx answer is an *APIError.
func (c *Client) call(ctx context.Context, method, url, what string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("X-N8N-API-KEY", c.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", strings.ToLower(method), what, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, newAPIError(resp, out)
	}
	if len(out) > maxBody {
		return nil, fmt.Errorf("read answer: more than %d bytes", maxBody)
	}
	return out, nil
}

// APIError is a non-2xx answer of n8n's API.
type APIError struct {
	Status int
	// Message is the answer's JSON "message" (n8n's error bodies are
	// {"message": "..."}), when it has one.
	Message string
	// Body is the raw answer, as far as it was read.
	Body string
	// Location is where a 3xx answer points (redirects are not followed).
	Location string
}

// maxErrorText bounds how much of a non-JSON body an error message shows.
const maxErrorText = 512

func newAPIError(resp *http.Response, body []byte) *APIError {
	e := &APIError{Status: resp.StatusCode, Body: string(body), Location: resp.Header.Get("Location")}
	var msg struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &msg) == nil {
		e.Message = strings.TrimSpace(msg.Message)
	}
	return e
}

func (e *APIError) Error() string {
	text := e.Message
	if text == "" {
		text = strings.TrimSpace(e.Body)
		if len(text) > maxErrorText {
			text = strings.ToValidUTF8(text[:maxErrorText], "") + "…"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "n8n answered %d", e.Status)
	if text != "" {
		b.WriteString(": " + text)
	}
	if e.Status/100 == 3 {
		if e.Location != "" {
			fmt.Fprintf(&b, " (redirect to %s not followed: give that host as the n8n URL)", e.Location)
		} else {
			b.WriteString(" (redirect not followed)")
		}
	}
	return b.String()
}
