package issues

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

func TestLookupAll(t *testing.T) {
	down := fmt.Errorf("unreachable: connection refused: %w", pipeline.ErrUpstream)
	// GONE-1 is not held: the Fake answers it not found.
	fake := pipelinetest.New()
	for _, key := range []string{"A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "A-7", "B-1", "OK-1"} {
		fake.AddIssue(pipeline.Issue{Key: key, Summary: "s " + key})
	}
	fake.Hook = func(_ context.Context, op, key string) error {
		if op == pipelinetest.OpIssue && key == "DOWN-1" {
			return down
		}
		return nil
	}
	tests := []struct {
		name         string
		l            pipeline.IssueLookup
		keys         []string
		wantKeys     []string
		wantWarnings []string
	}{
		{name: "no keys", l: fake},
		{name: "found in order", l: fake, keys: []string{"B-1", "A-1", "B-1"},
			wantKeys: []string{"B-1", "A-1"}},
		{name: "missing and down are warnings", l: fake, keys: []string{"GONE-1", "OK-1", "DOWN-1"},
			wantKeys:     []string{"OK-1"},
			wantWarnings: []string{"jira GONE-1: not found", "jira DOWN-1: unreachable: connection refused: upstream error"}},
		{name: "over the limit", l: fake, keys: []string{"A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "A-7"},
			wantKeys:     []string{"A-1", "A-2", "A-3", "A-4", "A-5"},
			wantWarnings: []string{"jira: 2 more keys not looked up (limit 5): A-6, A-7"}},
		{name: "not configured", l: nil, keys: []string{"A-1", "A-2"},
			wantWarnings: []string{"jira: not configured; keys not looked up: A-1, A-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			issues, warnings := LookupAll(context.Background(), tt.l, tt.keys)
			var gotKeys []string
			for _, is := range issues {
				gotKeys = append(gotKeys, is.Key)
			}
			if !slices.Equal(gotKeys, tt.wantKeys) {
				t.Errorf("issues = %q, want %q", gotKeys, tt.wantKeys)
			}
			if !slices.Equal(warnings, tt.wantWarnings) {
				t.Errorf("warnings = %q, want %q", warnings, tt.wantWarnings)
			}
		})
	}
}

// TestLookupAllBoundedConcurrency: lookups that wait upstream run
// issueLookupParallel at a time, the others waiting their turn.
func TestLookupAllBoundedConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		keys := []string{"A-1", "A-2", "A-3", "A-4", "A-5"}
		fake := pipelinetest.New()
		for _, key := range keys {
			fake.AddIssue(pipeline.Issue{Key: key})
		}
		release := make(chan struct{})
		fake.Hook = func(context.Context, string, string) error { <-release; return nil }
		var issues []pipeline.Issue
		var warnings []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			issues, warnings = LookupAll(context.Background(), fake, keys)
		}()
		synctest.Wait()
		if n := fake.InFlight(); n != issueLookupParallel {
			t.Errorf("%d lookups running while all wait, want issueLookupParallel = %d", n, issueLookupParallel)
		}
		close(release)
		<-done
		if len(issues) != len(keys) || len(warnings) != 0 {
			t.Fatalf("got %d issues, warnings %q", len(issues), warnings)
		}
		if m := fake.MaxInFlight(); m != issueLookupParallel {
			t.Errorf("max concurrent lookups = %d, want %d", m, issueLookupParallel)
		}
	})
}

func TestLookupAllPassesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fake := pipelinetest.New().AddIssue(pipeline.Issue{Key: "A-1"})
	// The lookup answers with the context it was given.
	fake.Hook = func(ctx context.Context, _, key string) error { return fmt.Errorf("lookup %s: %w", key, ctx.Err()) }
	_, warnings := LookupAll(ctx, fake, []string{"A-1"})
	if len(warnings) != 1 || !errors.Is(ctx.Err(), context.Canceled) || warnings[0] != "jira A-1: lookup A-1: context canceled" {
		t.Errorf("warnings = %q", warnings)
	}
}

// oneIssue is an IssueLookup answering every key with the same raw issue.
type oneIssue pipeline.Issue

func (o oneIssue) LookupIssue(_ context.Context, key string) (pipeline.Issue, error) {
	iss := pipeline.Issue(o)
	iss.Key = key
	if o.CriteriaText != nil {
		ct := *o.CriteriaText
		iss.CriteriaText = &ct
	}
	return iss, nil
}

// TestLookupAllSplitsCriteria: the adapter hands over the tracker's text
// (CriteriaText); this stage splits it into requirements.
func TestLookupAllSplitsCriteria(t *testing.T) {
	raw := oneIssue{Summary: "s", CriteriaText: &pipeline.CriteriaText{
		Field: "* carts hold at most 50 items\n* the 51st is refused", FieldID: "customfield_1", FieldName: "Acceptance Criteria",
		Description: "no criteria here",
	}}
	issues, warnings := LookupAll(context.Background(), raw, []string{"SHOP-12"})
	if len(warnings) != 0 || len(issues) != 1 {
		t.Fatalf("issues %v, warnings %q", issues, warnings)
	}
	is := issues[0]
	if len(is.Requirements) != 2 || is.Requirements[1].ID != "SHOP-12#2" || is.RequirementsSource == "" || is.CriteriaText != nil {
		t.Fatalf("issue after the stage: %+v", is)
	}
}
