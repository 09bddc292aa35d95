package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/pipeline"
)

// TestUpstreamRetriesReachAdapters: PRSCOUT_UPSTREAM_RETRIES is the number of
// retries both adapters make after a 503, and 0 means none (the adapters'
// own Config reads 0 as "default").
func TestUpstreamRetriesReachAdapters(t *testing.T) {
	for _, retries := range []int{0, 1, 2} {
		t.Run(strconv.Itoa(retries), func(t *testing.T) {
			var mu sync.Mutex
			calls := map[string]int{}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				service := "bitbucket"
				if strings.HasPrefix(r.URL.Path, "/rest/api/") {
					service = "jira"
				}
				mu.Lock()
				calls[service]++
				mu.Unlock()
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
			}))
			defer ts.Close()
			cfg, err := load(t, map[string]string{
				"PRSCOUT_BITBUCKET_BASE_URL":     ts.URL + "/2.0",
				"PRSCOUT_BITBUCKET_ACCESS_TOKEN": "token",
				"PRSCOUT_JIRA_BASE_URL":          ts.URL,
				"PRSCOUT_JIRA_PAT":               "pat",
				// No field-list call: one issue read is the only Jira request.
				"PRSCOUT_JIRA_AC_FIELD":    "none",
				"PRSCOUT_UPSTREAM_RETRIES": strconv.Itoa(retries),
			})
			if err != nil {
				t.Fatal(err)
			}
			p, err := buildProviders(cfg, api.NewMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := p.prs.PullRequest(ctx, pipeline.Repo{Workspace: "acme", RepoSlug: "app"}, 1); err == nil {
				t.Error("bitbucket: no error from a 503")
			}
			if _, err := p.issues.LookupIssue(ctx, "PROJ-1"); err == nil {
				t.Error("jira: no error from a 503")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, service := range []string{"bitbucket", "jira"} {
				if calls[service] != retries+1 {
					t.Errorf("%s: %d calls with PRSCOUT_UPSTREAM_RETRIES=%d, want %d", service, calls[service], retries, retries+1)
				}
			}
		})
	}
}

func TestWebHost(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "bitbucket.org",
		"https://api.bitbucket.org/2.0": "bitbucket.org",
		"http://127.0.0.1:8080/2.0":     "127.0.0.1",
	} {
		if got := webHost(in); got != want {
			t.Errorf("webHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProvidersCommitReporter: the Bitbucket provider writes build statuses
// and reports, and their operations are known upstream series from the
// start; the local provider has no reporter (nothing posted, no warning).
func TestProvidersCommitReporter(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := prometheus.NewRegistry()
	cfg, err := load(t, map[string]string{"PRSCOUT_BITBUCKET_ACCESS_TOKEN": "token"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := buildProviders(cfg, api.NewMetrics(reg), quiet)
	if err != nil {
		t.Fatal(err)
	}
	if p.reporter == nil {
		t.Error("the Bitbucket provider has no commit reporter")
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, mf := range mfs {
		if mf.GetName() != "prscout_upstream_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" {
					known[l.GetValue()] = true
				}
			}
		}
	}
	for _, op := range []string{"set_status", "put_report", "list_annotations", "delete_annotation", "post_annotations"} {
		if !known[op] {
			t.Errorf("upstream operation %s is not pre-initialised", op)
		}
	}

	cfg, err = load(t, map[string]string{"PRSCOUT_LOCAL_ROOT": t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err = buildProviders(cfg, api.NewMetrics(prometheus.NewRegistry()), quiet)
	if err != nil {
		t.Fatal(err)
	}
	if p.reporter != nil {
		t.Error("the local provider has a commit reporter")
	}
	if s := cfg.Surfaces(); s.FailOn != "none" || !s.BuildStatus || !s.Report {
		t.Errorf("default surfaces = %+v, want none, status and report on", s)
	}
}
