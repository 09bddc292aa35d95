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

// TestJiraSettingsReachTheAdapter: PRSCOUT_JIRA_MAX_ISSUES and
// PRSCOUT_JIRA_PROJECTS are what the context stage reads from the lookup.
func TestJiraSettingsReachTheAdapter(t *testing.T) {
	build := func(env map[string]string) (providers, error) {
		t.Helper()
		base := map[string]string{"PRSCOUT_JIRA_BASE_URL": "http://127.0.0.1:1", "PRSCOUT_JIRA_PAT": "pat", "PRSCOUT_JIRA_AC_FIELD": "none"}
		for k, v := range env {
			base[k] = v
		}
		cfg, err := load(t, base)
		if err != nil {
			return providers{}, err
		}
		return buildProviders(cfg, api.NewMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	p, err := build(map[string]string{"PRSCOUT_JIRA_MAX_ISSUES": "7", "PRSCOUT_JIRA_PROJECTS": " shop, OPS ,"})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := p.issues.(pipeline.IssueBound)
	if !ok || b.MaxIssues() != 7 {
		t.Errorf("issue lookup bound = %v (%v), want 7", b, ok)
	}
	pr, ok := p.issues.(pipeline.IssueProjects)
	if !ok || strings.Join(pr.Projects(), ",") != "SHOP,OPS" {
		t.Errorf("issue lookup projects = %v (%v), want SHOP,OPS", pr, ok)
	}
	p, err = build(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.issues.(pipeline.IssueBound).MaxIssues() != 5 || len(p.issues.(pipeline.IssueProjects).Projects()) != 0 {
		t.Errorf("defaults: bound %d, projects %v; want 5 and any", p.issues.(pipeline.IssueBound).MaxIssues(), p.issues.(pipeline.IssueProjects).Projects())
	}
	for env, want := range map[string]string{
		"PRSCOUT_JIRA_PROJECTS":   `PRSCOUT_JIRA_PROJECTS: "SHOP-1" is not a Jira project key`,
		"PRSCOUT_JIRA_MAX_ISSUES": "PRSCOUT_JIRA_MAX_ISSUES must be between 1 and 50, got 51",
	} {
		val := map[string]string{"PRSCOUT_JIRA_PROJECTS": "SHOP,SHOP-1", "PRSCOUT_JIRA_MAX_ISSUES": "51"}[env]
		if _, err := build(map[string]string{env: val}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: err = %v, want %q", env, val, err, want)
		}
	}
}
