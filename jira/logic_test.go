package jira

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	issuelookup "github.com/prscout/prscout/pipeline/issues"
)

// fakeAPI is a func-field fake of apiClient: the logic without HTTP.
type fakeAPI struct {
	getIssueFn   func(ctx context.Context, key string, fields []string) (rawIssue, error)
	listFieldsFn func(ctx context.Context) ([]rawField, error)
}

var _ apiClient = (*fakeAPI)(nil)

func (f *fakeAPI) getIssue(ctx context.Context, key string, fields []string) (rawIssue, error) {
	return f.getIssueFn(ctx, key, fields)
}

func (f *fakeAPI) listFields(ctx context.Context) ([]rawField, error) { return f.listFieldsFn(ctx) }

// TestConcurrentLookupsResolveFieldOnce: lookups that start while the field
// list is being fetched share that fetch. In a bubble, synctest.Wait holds
// the fetch until every lookup has started and waits for it.
func TestConcurrentLookupsResolveFieldOnce(t *testing.T) {
	synctest.Test(t, testConcurrentLookupsResolveFieldOnce)
}

func testConcurrentLookupsResolveFieldOnce(t *testing.T) {
	var lists atomic.Int32
	var mu sync.Mutex
	seenFields := map[string][]string{}
	release := make(chan struct{})
	api := &fakeAPI{
		listFieldsFn: func(context.Context) ([]rawField, error) {
			lists.Add(1)
			<-release
			return []rawField{{ID: "customfield_1", Name: "Other"}, {ID: "customfield_7", Name: "Acceptance criteria", Custom: true}}, nil
		},
		getIssueFn: func(_ context.Context, key string, fields []string) (rawIssue, error) {
			mu.Lock()
			seenFields[key] = fields
			mu.Unlock()
			return rawIssue{Key: key, Summary: " s ", Status: "Open", Description: "h1. T",
				Other: map[string]any{"customfield_7": []any{"a", "b"}}}, nil
		},
	}
	c := &Client{api: api, browseURL: "https://j.example/browse/", acField: "ACCEPTANCE CRITERIA"}
	keys := []string{"AB-1", "AB-2", "AB-3", "AB-4", "AB-5"}
	var issues []pipeline.Issue
	var warnings []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		issues, warnings = issuelookup.LookupAll(context.Background(), c, keys)
	}()
	synctest.Wait() // every lookup waits for the one field list fetch
	close(release)
	<-done
	if len(warnings) != 0 || len(issues) != 5 {
		t.Fatalf("issues %d warnings %q", len(issues), warnings)
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("listFields called %d times", n)
	}
	for _, k := range keys {
		if d := cmp.Diff([]string{"summary", "status", "description", "customfield_7"}, seenFields[k]); d != "" {
			t.Errorf("%s fields (-want +got):\n%s", k, d)
		}
	}
	want := pipeline.Issue{Key: "AB-1", Summary: "s", Status: "Open", Description: "# T", AcceptanceCriteria: "- a\n- b", URL: "https://j.example/browse/AB-1",
		Requirements:       []pipeline.Requirement{{ID: "AB-1#1", Issue: "AB-1", Text: "a"}, {ID: "AB-1#2", Issue: "AB-1", Text: "b"}},
		RequirementsSource: `field "Acceptance criteria" (customfield_7)`}
	if d := cmp.Diff(want, issues[0]); d != "" {
		t.Errorf("issue (-want +got):\n%s", d)
	}
}
