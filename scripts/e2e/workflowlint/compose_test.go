package workflowlint

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// composeFile is the part of deploy/compose.yaml these rules read.
type composeFile struct {
	Services map[string]struct {
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Profiles    []string          `yaml:"profiles"`
	} `yaml:"services"`
}

// envRef matches a whole compose value ${VAR}, ${VAR:-default} or
// ${VAR:?message}: the variable, and the default.
var envRef = regexp.MustCompile(`^\$\{([A-Z0-9_]+)(?::-(.*)|:\?.*)?\}$`)

func readCompose(t *testing.T) (composeFile, map[string]string) {
	t.Helper()
	b, err := os.ReadFile("../../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("../../../deploy/.env.example")
	if err != nil {
		t.Fatal(err)
	}
	example := map[string]string{}
	for _, line := range strings.Split(string(ex), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			example[k] = v
		}
	}
	return c, example
}

// resolve is a compose value as the example .env makes it.
func resolve(v string, example map[string]string) string {
	m := envRef.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	if x, ok := example[m[1]]; ok {
		return x
	}
	return m[2]
}

// TestComposeWiring: the compose quick start gives prscout every setting
// the two workflows need, forwards each kind of event to the Webhook node
// of the workflow that handles it, and every required secret is in
// .env.example (as a change-me value prscout refuses).
func TestComposeWiring(t *testing.T) {
	c, example := readCompose(t)
	p, ok := c.Services["prscout"]
	if !ok {
		t.Fatal("no prscout service")
	}
	for _, k := range []string{"PRSCOUT_API_KEYS", "PRSCOUT_WEBHOOK_SECRET", "PRSCOUT_FORWARD_TOKEN", "PRSCOUT_FORWARD_URL",
		"PRSCOUT_COMMENT_FORWARD_URL", "PRSCOUT_LEARNINGS", "PRSCOUT_BITBUCKET_ACCOUNT_ID"} {
		if _, ok := p.Environment[k]; !ok {
			t.Errorf("compose prscout: %s is not wired", k)
		}
	}
	paths := map[string]string{}
	for f, e := range readExports(t) {
		for _, n := range e.Nodes {
			if n.Type == "n8n-nodes-base.webhook" {
				paths[f] = fmt.Sprint(n.Parameters["path"])
			}
		}
	}
	for k, f := range map[string]string{"PRSCOUT_FORWARD_URL": "pr-review.json", "PRSCOUT_COMMENT_FORWARD_URL": "pr-comments.json"} {
		if got := resolve(p.Environment[k], example); !strings.HasSuffix(got, "/webhook/"+paths[f]) || !strings.HasPrefix(got, "http://n8n:5678/") {
			t.Errorf("compose prscout: %s = %q, want http://n8n:5678/webhook/%s (%s's Webhook node)", k, got, paths[f], f)
		}
	}
	for name, s := range c.Services {
		for k, v := range s.Environment {
			m := envRef.FindStringSubmatch(v)
			if m == nil || !strings.Contains(v, ":?") {
				continue
			}
			if x := example[m[1]]; x == "" {
				t.Errorf("compose %s: %s needs %s, which .env.example leaves empty or lacks", name, k, m[1])
			}
		}
	}
}

// TestComposePortsLocal: every published port binds to loopback unless
// .env says otherwise; only the proxy is meant to face the network.
func TestComposePortsLocal(t *testing.T) {
	c, example := readCompose(t)
	bind := regexp.MustCompile(`^\$\{(BIND_ADDRESS|PROXY_BIND_ADDRESS):-127\.0\.0\.1\}:`)
	for name, s := range c.Services {
		for _, port := range s.Ports {
			m := bind.FindStringSubmatch(port)
			if m == nil {
				t.Errorf("compose %s: port %q does not bind ${BIND_ADDRESS:-127.0.0.1}", name, port)
				continue
			}
			if m[1] == "PROXY_BIND_ADDRESS" && name != "proxy" {
				t.Errorf("compose %s: only the proxy may use PROXY_BIND_ADDRESS", name)
			}
			if example[m[1]] != "127.0.0.1" {
				t.Errorf(".env.example: %s=%q, want 127.0.0.1", m[1], example[m[1]])
			}
		}
	}
	gi, err := os.ReadFile("../../../.gitignore")
	if err != nil || !regexp.MustCompile(`(?m)^/deploy/\.env$`).Match(gi) {
		t.Errorf(".gitignore must ignore /deploy/.env (filled-in secrets)")
	}
}

// TestProxyExposesOnlyTheWebhook: the proxy's site serves prscout's
// webhook route and answers 404 to anything else.
func TestProxyExposesOnlyTheWebhook(t *testing.T) {
	b, err := os.ReadFile("../../../deploy/proxy/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	var handles []string
	for _, m := range regexp.MustCompile(`(?m)^\s*handle\s*([^\s{]*)\s*\{`).FindAllStringSubmatch(string(b), -1) {
		handles = append(handles, m[1])
	}
	if strings.Join(handles, ",") != "/v1/webhooks/bitbucket," || !strings.Contains(string(b), "respond \"not found\" 404") ||
		strings.Count(string(b), "reverse_proxy") != 1 {
		t.Errorf("deploy/proxy/Caddyfile: handles %q; want only /v1/webhooks/bitbucket proxied and a 404 for the rest", handles)
	}
}
