package jira

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/prscout/prscout/jira/jiratest"
	"github.com/prscout/prscout/pipeline"
)

// TestAdapterFollowsJiraSpec sends every operation the adapter calls (an
// issue with its fields and expansions, a missing issue, the field list)
// to the fake, which validates each request against Jira's published API
// description and each of its answers against the operation's responses:
// any violation fails the test.
func TestAdapterFollowsJiraSpec(t *testing.T) {
	if _, err := jiratest.Spec(); err != nil {
		t.Fatal(err)
	}
	s := jiratest.NewServer()
	defer s.Close()
	s.AddField(jiratest.Field{ID: "customfield_10042", Name: "Acceptance Criteria", Custom: true})
	s.AddIssue(jiratest.Issue{Key: "PROJ-7", Summary: "Retry uploads", Status: "In Progress", Description: "h1. Goal",
		Fields: map[string]any{"customfield_10042": "* retries are bounded"}})
	c, err := New(Config{BaseURL: s.URL, Email: "bot@example.invalid", Token: "t", AcceptanceField: "Acceptance Criteria"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.ResolveAcceptanceField(ctx); err != nil {
		t.Fatal(err)
	}
	if is, err := lookupSplit(ctx, c, "PROJ-7"); err != nil || is.Summary != "Retry uploads" {
		t.Fatalf("issue %+v, %v", is, err)
	}
	if _, err := lookupSplit(ctx, c, "PROJ-404"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("missing issue: %v", err)
	}
	for _, v := range s.Violations() {
		t.Errorf("violation: %s", v)
	}
	if s.Calls(jiratest.OpGetIssue) < 2 || s.Calls(jiratest.OpListFields) < 1 {
		t.Fatalf("calls: %d issues, %d field lists", s.Calls(jiratest.OpGetIssue), s.Calls(jiratest.OpListFields))
	}
	// A request outside the description is refused and kept.
	resp, err := http.Get(s.URL + "/rest/api/2/issue/PROJ-7?updateHistory=sometimes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if v := s.Violations(); resp.StatusCode != http.StatusBadRequest || len(v) != 1 || !strings.Contains(v[0], "updateHistory") {
		t.Fatalf("a request outside the description: %d, violations %q", resp.StatusCode, v)
	}
}
