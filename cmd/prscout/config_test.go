package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return loadConfig(args, func(k string) string { return env[k] }, fs)
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:8080" || cfg.Limits.NeedsTotal != 12 || cfg.Limits.NeedsPerFile != 5 ||
		cfg.Limits.ContextLines != 30 || cfg.Limits.FullSourceLines != 900 || cfg.BitbucketEnabled() {
		t.Errorf("defaults = %+v", cfg)
	}
}

func TestConfigEnvAndFlags(t *testing.T) {
	cfg, err := load(t, map[string]string{
		"PRSCOUT_ADDR": "127.0.0.1:9000", "PRSCOUT_API_KEYS": "a, b,,c", "PRSCOUT_MAX_BODY_BYTES": "2MiB",
		"PRSCOUT_LOOKUP_TIMEOUT": "3s", "PRSCOUT_NEEDS_TOTAL": "20",
	}, "--addr", "127.0.0.1:9001", "--needs-per-file", "7")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9001" {
		t.Errorf("flag must win over env: addr %q", cfg.Addr)
	}
	if strings.Join(cfg.APIKeys, "|") != "a|b|c" || cfg.MaxBodyBytes != 2<<20 || cfg.Limits.LookupTimeout != 3*time.Second ||
		cfg.Limits.NeedsTotal != 20 || cfg.Limits.NeedsPerFile != 7 {
		t.Errorf("cfg = %+v", cfg)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"open listen without keys", map[string]string{"PRSCOUT_ADDR": "0.0.0.0:8080"}, nil,
			`PRSCOUT_ADDR: "0.0.0.0:8080" is not a loopback address and PRSCOUT_API_KEYS is empty; set API keys, or PRSCOUT_ALLOW_INSECURE_LISTEN=true to serve without them`},
		{"all interfaces without keys", nil, []string{"--addr", ":8080"}, `PRSCOUT_ADDR: ":8080" is not a loopback address`},
		{"bad address", map[string]string{"PRSCOUT_ADDR": "nope"}, nil, `PRSCOUT_ADDR: not host:port: "nope"`},
		{"not an integer", map[string]string{"PRSCOUT_NEEDS_TOTAL": "twelve"}, nil, `PRSCOUT_NEEDS_TOTAL: not an integer: "twelve"`},
		{"not a duration", map[string]string{"PRSCOUT_LOOKUP_TIMEOUT": "10"}, nil, `PRSCOUT_LOOKUP_TIMEOUT: not a duration (e.g. 10s): "10"`},
		{"not a size", map[string]string{"PRSCOUT_MAX_BODY_BYTES": "lots"}, nil, `PRSCOUT_MAX_BODY_BYTES: not a byte size (e.g. 1048576 or 1MiB): "lots"`},
		{"per file over total", map[string]string{"PRSCOUT_NEEDS_PER_FILE": "13"}, nil, `PRSCOUT_NEEDS_PER_FILE: (13) cannot exceed PRSCOUT_NEEDS_TOTAL (12)`},
		{"zero budget", map[string]string{"PRSCOUT_MAX_PROMPT_CHARS": "0"}, nil, `PRSCOUT_MAX_PROMPT_CHARS: must be positive, got 0`},
		{"context lines", map[string]string{"PRSCOUT_CONTEXT_LINES": "5000"}, nil, `PRSCOUT_CONTEXT_LINES: must be between 0 and 1000, got 5000`},
		{"token without email", map[string]string{"PRSCOUT_BITBUCKET_TOKEN": "t"}, nil, `PRSCOUT_BITBUCKET_EMAIL: is empty but PRSCOUT_BITBUCKET_TOKEN is set`},
		{"both auth kinds", map[string]string{"PRSCOUT_BITBUCKET_TOKEN": "t", "PRSCOUT_BITBUCKET_EMAIL": "e@x", "PRSCOUT_BITBUCKET_ACCESS_TOKEN": "a"}, nil,
			`PRSCOUT_BITBUCKET_ACCESS_TOKEN: set either an access token or PRSCOUT_BITBUCKET_EMAIL + PRSCOUT_BITBUCKET_TOKEN, not both`},
		{"forward without secret", map[string]string{"PRSCOUT_FORWARD_URL": "http://127.0.0.1:5678/webhook/x"}, nil,
			`PRSCOUT_WEBHOOK_SECRET: is required when PRSCOUT_FORWARD_URL is set: unsigned events are never forwarded`},
		{"log level", map[string]string{"PRSCOUT_LOG_LEVEL": "loud"}, nil, `PRSCOUT_LOG_LEVEL: must be debug, info, warn or error, got "loud"`},
		{"stray argument", nil, []string{"extra"}, `unexpected arguments: [extra]`},
		{"fail on", map[string]string{"PRSCOUT_FAIL_ON": "low"}, nil, `PRSCOUT_FAIL_ON: must be none, critical, high or medium, got "low"`},
		{"build status", map[string]string{"PRSCOUT_BUILD_STATUS": "maybe"}, nil, `PRSCOUT_BUILD_STATUS: not a boolean: "maybe"`},
		{"short key off loopback", map[string]string{"PRSCOUT_ADDR": "0.0.0.0:8080", "PRSCOUT_API_KEYS": "0123456789abcdef,short"}, nil,
			`PRSCOUT_API_KEYS: key 2 is 5 characters; keys must have at least 16 when listening beyond loopback ("0.0.0.0:8080")`},
		{"metrics auth without keys", map[string]string{"PRSCOUT_METRICS_AUTH": "true"}, nil, `PRSCOUT_METRICS_AUTH: needs PRSCOUT_API_KEYS`},
		{"gate depth", map[string]string{"PRSCOUT_VALIDATE_MAX_DEPTH": "1000000"}, nil, `PRSCOUT_VALIDATE_MAX_DEPTH: must be between 10 and 10000, got 1000000`},
		{"negative inflight", map[string]string{"PRSCOUT_MAX_INFLIGHT": "-1"}, nil, `PRSCOUT_MAX_INFLIGHT: must not be negative`},
		{"zero needs", map[string]string{"PRSCOUT_MAX_NEEDS": "0"}, nil, `PRSCOUT_MAX_NEEDS: must be positive, got 0`},
		{"candidates auto over the cap", map[string]string{"PRSCOUT_CANDIDATES_AUTO": "13"}, nil, `PRSCOUT_CANDIDATES_AUTO: must be between 0 and PRSCOUT_NEEDS_TOTAL (12), got 13`},
		{"negative candidates", map[string]string{"PRSCOUT_CANDIDATES_MAX": "-1"}, nil, `PRSCOUT_CANDIDATES_MAX: must be between 0 and 100, got -1`},
		{"defer below", map[string]string{"PRSCOUT_DEFER_BELOW": "-2"}, nil, `PRSCOUT_DEFER_BELOW: must be -1 (never defer) or a count of calls, got -2`},
		{"candidates budget", map[string]string{"PRSCOUT_CANDIDATES_BUDGET": "0s"}, nil, `PRSCOUT_CANDIDATES_BUDGET: must be positive`},
		{"git url with credentials", map[string]string{"PRSCOUT_MIRROR_GIT_URL": "https://x-token-auth:secret@bitbucket.org"}, nil,
			`PRSCOUT_MIRROR_GIT_URL: must be an absolute http(s) URL without credentials`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.env, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := load(t, map[string]string{"PRSCOUT_ADDR": "0.0.0.0:8080", "PRSCOUT_API_KEYS": "0123456789abcdef"}); err != nil {
		t.Errorf("open listen with keys: %v", err)
	}
	if _, err := load(t, map[string]string{"PRSCOUT_ADDR": "127.0.0.1:8080", "PRSCOUT_API_KEYS": "k"}); err != nil {
		t.Errorf("a short key on loopback is fine: %v", err)
	}
	if _, err := load(t, map[string]string{"PRSCOUT_ADDR": "0.0.0.0:8080", "PRSCOUT_ALLOW_INSECURE_LISTEN": "true"}); err != nil {
		t.Errorf("open listen explicitly allowed: %v", err)
	}
}

func TestMirrorGitBase(t *testing.T) {
	for _, tc := range []struct{ api, git, want string }{
		{"https://api.bitbucket.org/2.0", "", "https://bitbucket.org"},
		{"http://127.0.0.1:4000/2.0", "", "http://127.0.0.1:4000"},
		{"https://api.bitbucket.org/2.0", "https://git.example.invalid/", "https://git.example.invalid"},
	} {
		cfg := DefaultConfig()
		cfg.BitbucketBaseURL, cfg.MirrorGitURL = tc.api, tc.git
		if got := cfg.MirrorGitBase(); got != tc.want {
			t.Errorf("MirrorGitBase(%q, %q) = %q, want %q", tc.api, tc.git, got, tc.want)
		}
	}
	cfg, err := load(t, nil)
	if err != nil || cfg.Limits.CandidatesMax != 12 || cfg.Limits.CandidatesAuto != 3 || cfg.Limits.CandidatesBudget != 5*time.Second {
		t.Errorf("candidate defaults = %+v, %v", cfg.Limits, err)
	}
}

// TestConfigurationDocIsCurrent keeps docs/configuration.md what
// `prscout docs-config` generates from the settings table, so every
// variable, flag and default there is the code's.
func TestConfigurationDocIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("../../" + configDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := configDoc(); !bytes.Equal(committed, want) {
		t.Errorf("%s is stale: run `go run ./cmd/prscout docs-config -w` from the repository root", configDocPath)
	}
	for _, st := range settings() {
		if !bytes.Contains(committed, []byte("| `"+st.env+"` | `--"+st.flag+"` |")) {
			t.Errorf("%s does not document %s (--%s)", configDocPath, st.env, st.flag)
		}
	}
}

// TestConfigGivesTheAPIEveryBound: the settings table is the only source of
// the API's bounds, so the configuration at its defaults, and with the
// settings whose 0 switches a feature off, sets every bound the API checks,
// and a setting reaches the API as given.
func TestConfigGivesTheAPIEveryBound(t *testing.T) {
	for _, env := range []map[string]string{nil, {"PRSCOUT_MAX_INFLIGHT": "0", "PRSCOUT_WEBHOOK_DEDUP_WINDOW": "0"}} {
		cfg, err := load(t, env)
		if err != nil {
			t.Fatal(err)
		}
		if err := requestLimits(cfg).Check(); err != nil {
			t.Errorf("env %v: %v", env, err)
		}
	}
	cfg, err := load(t, map[string]string{"PRSCOUT_MAX_NEEDS": "7", "PRSCOUT_MAX_INFLIGHT": "0", "PRSCOUT_VALIDATE_MAX_DEPTH": "40"})
	if err != nil {
		t.Fatal(err)
	}
	if l := requestLimits(cfg); l.MaxNeeds != 7 || l.MaxInflight != 0 || l.Gate.MaxDepth != 40 {
		t.Errorf("requestLimits = %+v; want MaxNeeds 7, MaxInflight 0 (no cap), Gate.MaxDepth 40", l)
	}
}

// TestSkipSettings: the skip policy follows its settings, a bot list is
// dropped with PRSCOUT_SKIP_BOTS=false, and a push mode other than delta or
// off names its variable.
func TestSkipSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cfg, err := loadConfig(nil, env(nil), flag.NewFlagSet("t", flag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Skips()
	if !p.Drafts || !p.Trivial || p.Push != "delta" || !slices.Contains(p.BotAuthors, "renovate[bot]") || !slices.Contains(p.BotAuthors, "dependabot") {
		t.Errorf("default skip policy %+v", p)
	}
	cfg, err = loadConfig(nil, env(map[string]string{
		"PRSCOUT_SKIP_DRAFTS": "false", "PRSCOUT_SKIP_TRIVIAL": "false", "PRSCOUT_PUSH_REVIEWS": " OFF ", "PRSCOUT_BOT_AUTHORS": "ci-bot, {uuid}",
	}), flag.NewFlagSet("t", flag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	if p = cfg.Skips(); p.Drafts || p.Trivial || p.Push != "off" || !slices.Equal(p.BotAuthors, []string{"ci-bot", "{uuid}"}) {
		t.Errorf("configured skip policy %+v", p)
	}
	cfg, err = loadConfig([]string{"--skip-bots=false"}, env(nil), flag.NewFlagSet("t", flag.ContinueOnError))
	if err != nil || cfg.Skips().BotAuthors != nil {
		t.Errorf("--skip-bots=false: bots %v, err %v; want none", cfg.Skips().BotAuthors, err)
	}
	_, err = loadConfig(nil, env(map[string]string{"PRSCOUT_PUSH_REVIEWS": "sometimes"}), flag.NewFlagSet("t", flag.ContinueOnError))
	if err == nil || !strings.Contains(err.Error(), "PRSCOUT_PUSH_REVIEWS") {
		t.Errorf("a bad push mode: err %v, want one naming PRSCOUT_PUSH_REVIEWS", err)
	}
}

// TestConfigRefusesExampleSecrets: every change-me value of
// deploy/.env.example is refused at start, naming its variable; the same
// settings with real values start.
func TestConfigRefusesExampleSecrets(t *testing.T) {
	data, err := os.ReadFile("../../deploy/.env.example")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PRSCOUT_ADDR": "0.0.0.0:8080"}
	var refused []string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") || !strings.HasPrefix(k, "PRSCOUT_") {
			continue
		}
		env[k] = v
		if strings.HasPrefix(v, "change-me") {
			refused = append(refused, k)
		}
	}
	if len(refused) < 4 {
		t.Fatalf("deploy/.env.example has %d change-me values of prscout's (%v); the test reads the wrong file", len(refused), refused)
	}
	_, err = load(t, env)
	for _, k := range refused {
		if err == nil || !strings.Contains(err.Error(), k+": ") || !strings.Contains(err.Error(), "example value") {
			t.Errorf("%s=%s was not refused: %v", k, env[k], err)
		}
	}
	for _, k := range refused {
		env[k] = "0123456789abcdef-" + strings.ToLower(k)
	}
	if _, err := load(t, env); err != nil && strings.Contains(err.Error(), "example value") {
		t.Errorf("real values refused: %v", err)
	}
}
