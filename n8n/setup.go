package n8n

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Item is a credential or workflow as n8n's lists name it.
type Item struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is a credential's type (httpBearerAuth, openAiApi, ...).
	Type string `json:"type,omitempty"`
}

// maxPages bounds a listing (250 items a page).
const maxPages = 200

// list reads every page of GET /api/v1/{kind}.
func (c *Client) list(ctx context.Context, kind string) ([]Item, error) {
	var all []Item
	cursor := ""
	for range maxPages {
		q := url.Values{"limit": {"250"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		body, err := c.call(ctx, http.MethodGet, c.base+"/api/v1/"+kind+"?"+q.Encode(), kind, nil)
		if err != nil {
			return nil, err
		}
		var page struct {
			Data       []Item `json:"data"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("list %s: %w", kind, err)
		}
		all = append(all, page.Data...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("list %s: more than %d pages", kind, maxPages)
}

// Credentials lists the instance's credentials (GET /api/v1/credentials;
// the instance owner's or an admin's key): ids, names and types, never
// their data.
func (c *Client) Credentials(ctx context.Context) ([]Item, error) { return c.list(ctx, "credentials") }

// Workflows lists the instance's workflows (GET /api/v1/workflows).
func (c *Client) Workflows(ctx context.Context) ([]Item, error) { return c.list(ctx, "workflows") }

// CreateCredential calls POST /api/v1/credentials with {name, type, data}
// and returns the new credential.
func (c *Client) CreateCredential(ctx context.Context, name, typ string, data map[string]any) (Item, error) {
	body, err := json.Marshal(map[string]any{"name": name, "type": typ, "data": data})
	if err != nil {
		return Item{}, err
	}
	out, err := c.call(ctx, http.MethodPost, c.base+"/api/v1/credentials", "credential", body)
	if err != nil {
		return Item{}, err
	}
	var it Item
	if err := json.Unmarshal(out, &it); err != nil || it.ID == "" {
		return Item{}, fmt.Errorf("create credential %q: no id in the answer", name)
	}
	return it, nil
}

// CreateWorkflow calls POST /api/v1/workflows with body (the fields
// UpdateWorkflow takes) and returns the new workflow's id.
func (c *Client) CreateWorkflow(ctx context.Context, body []byte) (string, error) {
	out, err := c.call(ctx, http.MethodPost, c.base+"/api/v1/workflows", "workflow", body)
	if err != nil {
		return "", err
	}
	var it Item
	if err := json.Unmarshal(out, &it); err != nil || it.ID == "" {
		return "", fmt.Errorf("create workflow: no id in the answer")
	}
	return it.ID, nil
}

// ActivateWorkflow publishes workflow id (POST /api/v1/workflows/{id}/activate).
func (c *Client) ActivateWorkflow(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, c.WorkflowURL(id)+"/activate", "workflow", nil)
	return err
}
