package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// issueLookupFunc is a func-field fake of IssueLookup.
type issueLookupFunc func(ctx context.Context, key string) (pipeline.Issue, error)

func (f issueLookupFunc) LookupIssue(ctx context.Context, key string) (pipeline.Issue, error) {
	return f(ctx, key)
}

var _ pipeline.IssueLookup = issueLookupFunc(nil)

func TestLookupAll(t *testing.T) {
	down := fmt.Errorf("unreachable: connection refused: %w", pipeline.ErrUpstream)
	fake := issueLookupFunc(func(_ context.Context, key string) (pipeline.Issue, error) {
		switch key {
		case "GONE-1":
			return pipeline.Issue{}, fmt.Errorf("issue %s: %w", key, pipeline.ErrNotFound)
		case "DOWN-1":
			return pipeline.Issue{}, down
		}
		return pipeline.Issue{Key: key, Summary: "s " + key}, nil
	})
	tests := []struct {
		name         string
		l            pipeline.IssueLookup
		keys         []string
		wantKeys     []string
		wantWarnings []string
		wantStats    IssueStats
	}{
		{name: "no keys", l: fake, wantStats: IssueStats{}},
		{name: "found in order", l: fake, keys: []string{"B-1", "A-1", "B-1"},
			wantKeys: []string{"B-1", "A-1"}, wantStats: IssueStats{Keys: 2, Looked: 2, Found: 2}},
		{name: "missing and down are warnings", l: fake, keys: []string{"GONE-1", "OK-1", "DOWN-1"},
			wantKeys:     []string{"OK-1"},
			wantWarnings: []string{"jira GONE-1: not found", "jira DOWN-1: unreachable: connection refused: upstream error"},
			wantStats:    IssueStats{Keys: 3, Looked: 3, Found: 1, NotFound: 1, Failed: 1}},
		{name: "over the limit", l: fake, keys: []string{"A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "A-7"},
			wantKeys:     []string{"A-1", "A-2", "A-3", "A-4", "A-5"},
			wantWarnings: []string{"jira: 2 more keys not looked up (limit 5): A-6, A-7"},
			wantStats:    IssueStats{Keys: 7, Looked: 5, Found: 5, Skipped: 2}},
		{name: "not configured", l: nil, keys: []string{"A-1", "A-2"},
			wantWarnings: []string{"jira: not configured; keys not looked up: A-1, A-2"},
			wantStats:    IssueStats{Keys: 2, Skipped: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			issues, warnings, st := lookupAllStats(context.Background(), tt.l, tt.keys)
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
			if st != tt.wantStats {
				t.Errorf("stats = %+v, want %+v", st, tt.wantStats)
			}
		})
	}
}

func TestLookupAllBoundedConcurrency(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	fake := issueLookupFunc(func(_ context.Context, key string) (pipeline.Issue, error) {
		n := running.Add(1)
		mu.Lock()
		if n > peak.Load() {
			peak.Store(n)
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return pipeline.Issue{Key: key}, nil
	})
	issues, warnings := LookupAll(context.Background(), fake, []string{"A-1", "A-2", "A-3", "A-4", "A-5"})
	if len(issues) != 5 || len(warnings) != 0 {
		t.Fatalf("got %d issues, warnings %q", len(issues), warnings)
	}
	if p := peak.Load(); p > issueLookupParallel || p < 2 {
		t.Errorf("peak concurrency %d, want 2..%d", p, issueLookupParallel)
	}
}

func TestLookupAllPassesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fake := issueLookupFunc(func(ctx context.Context, key string) (pipeline.Issue, error) {
		return pipeline.Issue{}, fmt.Errorf("lookup %s: %w", key, ctx.Err())
	})
	_, warnings := LookupAll(ctx, fake, []string{"A-1"})
	if len(warnings) != 1 || !errors.Is(ctx.Err(), context.Canceled) || warnings[0] != "jira A-1: lookup A-1: context canceled" {
		t.Errorf("warnings = %q", warnings)
	}
}
