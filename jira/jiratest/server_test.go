package jiratest_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/prscout/prscout/jira"
	"github.com/prscout/prscout/jira/jiratest"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/criteria"
)

// TestFakeWithTheAdapter: the adapter reads an issue, finds the acceptance
// criteria field by name and splits it into criteria; a missing issue is
// not found; the fake records what was asked.
func TestFakeWithTheAdapter(t *testing.T) {
	fake := jiratest.NewServer()
	defer fake.Close()
	fake.RequireBearer("pat")
	fake.AddField(jiratest.Field{ID: "customfield_10042", Name: "Acceptance Criteria", Custom: true})
	fake.AddIssue(jiratest.Issue{Key: "SHOP-12", Summary: "Limit cart size", Status: "In Progress",
		Description: "Carts must not grow forever.",
		Fields:      map[string]any{"customfield_10042": "* At most 50 items\n* The 51st item is refused with a message"}})
	fake.AddIssue(jiratest.Issue{Key: "SHOP-13", Summary: "Gherkin", Status: "To Do",
		Description: "h2. Acceptance criteria\n* Given a cart\n When it is full\n Then adding fails"})

	c, err := jira.New(jira.Config{BaseURL: fake.URL, PAT: "pat", HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	is, err := c.LookupIssue(context.Background(), "shop-12")
	if err != nil {
		t.Fatal(err)
	}
	criteria.Fill(&is) // the context stage's split
	want := []pipeline.Requirement{
		{ID: "SHOP-12#1", Issue: "SHOP-12", Text: "At most 50 items"},
		{ID: "SHOP-12#2", Issue: "SHOP-12", Text: "The 51st item is refused with a message"},
	}
	if is.Summary != "Limit cart size" || is.Status != "In Progress" || !slices.Equal(is.Requirements, want) {
		t.Errorf("issue = %+v, want the summary, status and two criteria %v", is, want)
	}
	is13, err := c.LookupIssue(context.Background(), "SHOP-13")
	criteria.Fill(&is13)
	if err != nil || len(is13.Requirements) != 1 {
		t.Errorf("SHOP-13: %+v, %v; want one criterion from the description", is13, err)
	}
	if _, err := c.LookupIssue(context.Background(), "SHOP-99"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("missing issue: err = %v, want not found", err)
	}
	if got := fake.Asked(); !slices.Equal(got, []string{"SHOP-12", "SHOP-13", "SHOP-99"}) {
		t.Errorf("asked = %v", got)
	}
	if n := fake.Calls(jiratest.OpListFields); n != 1 {
		t.Errorf("field list asked %d times, want once per process", n)
	}

	bad, err := jira.New(jira.Config{BaseURL: fake.URL, PAT: "wrong", HTTPClient: fake.Client(), AcceptanceField: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.LookupIssue(context.Background(), "SHOP-12"); err == nil {
		t.Error("a wrong token was accepted")
	}
}
