// Package workflowlint holds the static rules the shipped n8n workflows
// keep, checked without n8n (scripts/e2e-n8n.sh proves them in a real one).
package workflowlint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type node struct {
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	TypeVersion float64        `json:"typeVersion"`
	Parameters  map[string]any `json:"parameters"`
	Credentials map[string]struct {
		// ID is nil for JSON null: the editor's Import from File keeps
		// such a reference and links it by name.
		ID   *string `json:"id"`
		Name string  `json:"name"`
	} `json:"credentials"`
	RetryOnFail bool `json:"retryOnFail"`
	MaxTries    int  `json:"maxTries"`
	// WaitBetweenTries is in milliseconds; 0 when absent (n8n then waits
	// 1000).
	WaitBetweenTries int    `json:"waitBetweenTries"`
	OnError          string `json:"onError"`
}

// The retry settings of a node calling prscout. They must ride over a
// replica restart (a rolling deploy, a crashed container coming back):
// the process stops listening on SIGTERM and a new one listens within a few
// seconds, so the node retries 3 to 5 times (n8n's maximum is 5), 2 to 5
// seconds apart (n8n's maximum is 5), at least minRetryWaitMs in all. A
// retried request is safe: every stage is idempotent, /v1/comments by its
// fingerprints and summary marker (cmd/prscout
// TestBitbucketCommentsIdempotent: the same body to two replicas at once
// leaves one summary and no duplicate inline comment).
const (
	minPrscoutTries, maxPrscoutTries = 3, 5
	minWaitMs, maxWaitMs             = 2000, 5000
	minRetryWaitMs                   = 6000
)

// checkPrscoutRetry says what is wrong with a prscout node's retry
// settings, or "".
func checkPrscoutRetry(n node) string {
	switch {
	case !n.RetryOnFail:
		return "retryOnFail must be on"
	case n.MaxTries < minPrscoutTries || n.MaxTries > maxPrscoutTries:
		return fmt.Sprintf("maxTries %d, want %d to %d", n.MaxTries, minPrscoutTries, maxPrscoutTries)
	case n.WaitBetweenTries < minWaitMs || n.WaitBetweenTries > maxWaitMs:
		return fmt.Sprintf("waitBetweenTries %d ms, want %d to %d", n.WaitBetweenTries, minWaitMs, maxWaitMs)
	case (n.MaxTries-1)*n.WaitBetweenTries < minRetryWaitMs:
		return fmt.Sprintf("%d retries %d ms apart wait %d ms in all, want at least %d to ride over a replica restart",
			n.MaxTries-1, n.WaitBetweenTries, (n.MaxTries-1)*n.WaitBetweenTries, minRetryWaitMs)
	}
	return ""
}

// TestPrscoutRetryRule: the rule refuses what would not ride over a restart.
func TestPrscoutRetryRule(t *testing.T) {
	cases := []struct {
		n  node
		ok bool
	}{
		{node{RetryOnFail: true, MaxTries: 4, WaitBetweenTries: 3000}, true},
		{node{RetryOnFail: true, MaxTries: 3, WaitBetweenTries: 3000}, true},
		{node{RetryOnFail: false, MaxTries: 4, WaitBetweenTries: 3000}, false},
		{node{RetryOnFail: true, MaxTries: 2, WaitBetweenTries: 5000}, false},
		{node{RetryOnFail: true, MaxTries: 6, WaitBetweenTries: 3000}, false},
		{node{RetryOnFail: true, MaxTries: 4}, false},                         // n8n's default 1 s
		{node{RetryOnFail: true, MaxTries: 3, WaitBetweenTries: 2000}, false}, // 4 s in all
		{node{RetryOnFail: true, MaxTries: 4, WaitBetweenTries: 6000}, false},
	}
	for _, tc := range cases {
		if got := checkPrscoutRetry(tc.n); (got == "") != tc.ok {
			t.Errorf("%+v: %q, want ok=%v", tc.n, got, tc.ok)
		}
	}
}

// secretish matches values that look like keys or tokens.
var secretish = regexp.MustCompile(`(?i)(sk-[a-z0-9]{8,}|bearer\s+[a-z0-9._-]{8,}|ATATT[a-z0-9_-]{8,}|[a-f0-9]{32,}|eyJ[a-zA-Z0-9_-]{10,}\.)`)

func TestShippedWorkflows(t *testing.T) {
	files, _ := filepath.Glob("../../../workflows/*.json")
	if len(files) == 0 {
		t.Fatal("no workflows/*.json found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var wf struct {
				Nodes       []node                    `json:"nodes"`
				Connections map[string]map[string]any `json:"connections"`
			}
			if err := json.Unmarshal(b, &wf); err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			byName := map[string]node{}
			for _, n := range wf.Nodes {
				names[n.Name] = true
				byName[n.Name] = n
			}
			// into[dst] lists the nodes connected to dst.
			into := map[string][]string{}
			for src, outs := range wf.Connections {
				if !names[src] {
					t.Errorf("connection from unknown node %q", src)
				}
				for _, out := range outs["main"].([]any) {
					for _, c := range out.([]any) {
						dst := c.(map[string]any)["node"].(string)
						if !names[dst] {
							t.Errorf("connection %q -> unknown node %q", src, dst)
						}
						into[dst] = append(into[dst], src)
					}
				}
			}
			for _, n := range wf.Nodes {
				switch n.Type {
				case "n8n-nodes-base.code", "n8n-nodes-base.function", "n8n-nodes-base.functionItem":
					t.Errorf("%s: a Code node; the shipped workflow needs none", n.Name)
				case "n8n-nodes-base.httpRequest":
					p := n.Parameters
					if why := checkCredential(n); why != "" {
						t.Errorf("%s: %s", n.Name, why)
					}
					body, _ := p["jsonBody"].(string)
					if p["sendBody"] == true && (!strings.HasPrefix(body, "={{") || !strings.HasSuffix(body, "}}") || strings.Count(body, "{{") != 1 || strings.Count(body, "}}") != 1) {
						t.Errorf("%s: jsonBody must be one expression giving an object, not a string template: %q", n.Name, body)
					}
					opts, _ := p["options"].(map[string]any)
					if to, _ := opts["timeout"].(float64); to <= 0 {
						t.Errorf("%s: no timeout", n.Name)
					}
					if !n.RetryOnFail || n.MaxTries < 2 {
						t.Errorf("%s: retry on fail must be on", n.Name)
					}
					url, _ := p["url"].(string)
					if strings.Contains(url, "prscoutUrl") || strings.Contains(url, "/v1/") {
						if why := checkPrscoutRetry(n); why != "" {
							t.Errorf("%s: calls prscout: %s", n.Name, why)
						}
					}
					// A review group whose LLM call fails must not lose the
					// others: the call's error goes on as the group's item.
					if strings.HasSuffix(url, "/chat/completions") && n.OnError != "continueRegularOutput" {
						t.Errorf("%s: an LLM call runs once per review group and must continue on fail (onError: continueRegularOutput), got %q", n.Name, n.OnError)
					}
					// One summary per pull request: the comments stage gets
					// every group's review at once: every path into it
					// passes an Aggregate (the verify pass sits between).
					if strings.HasSuffix(url, "/v1/comments") {
						var gathered func(name string, seen map[string]bool) bool
						gathered = func(name string, seen map[string]bool) bool {
							if byName[name].Type == "n8n-nodes-base.aggregate" {
								return true
							}
							if seen[name] || len(into[name]) == 0 {
								return false
							}
							seen[name] = true
							for _, src := range into[name] {
								if !gathered(src, seen) {
									return false
								}
							}
							return true
						}
						for _, src := range into[n.Name] {
							if !gathered(src, map[string]bool{}) {
								t.Errorf("%s: fed by %q (%s) on a path without an Aggregate; the groups' reviews must be gathered first", n.Name, src, byName[src].Type)
							}
						}
					}
				case "n8n-nodes-base.splitOut":
					if n.Parameters["fieldToSplitOut"] != "groups" || n.Parameters["include"] != "noOtherFields" {
						t.Errorf("%s: must split out the context answer's groups, each group item whole (include: noOtherFields)", n.Name)
					}
				case "n8n-nodes-base.webhook":
					if n.Parameters["authentication"] != "headerAuth" {
						t.Errorf("%s: the webhook must check prscout's forward token (headerAuth)", n.Name)
					}
					if why := checkCredential(n); why != "" {
						t.Errorf("%s: %s", n.Name, why)
					}
				}
				var walk func(v any)
				walk = func(v any) {
					switch x := v.(type) {
					case string:
						if secretish.MatchString(x) {
							t.Errorf("%s: parameter looks like a secret: %q", n.Name, x)
						}
					case map[string]any:
						for _, y := range x {
							walk(y)
						}
					case []any:
						for _, y := range x {
							walk(y)
						}
					}
				}
				walk(n.Parameters)
			}
		})
	}
}
