package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/scope"
)

// Config is all of prscout serve's configuration. Every field has a default
// (DefaultConfig), can be set by an environment variable and by a flag (the
// flag wins), and is checked by Validate.
type Config struct {
	Addr                string
	APIKeys             []string
	AllowInsecureListen bool
	MaxBodyBytes        int64
	ShutdownTimeout     time.Duration
	KeepaliveInterval   time.Duration
	LogLevel            string
	LogFormat           string

	// HTTP server bounds (api.RequestLimits and http.Server).
	ReadHeaderTimeout    time.Duration
	ReadTimeout          time.Duration
	WriteTimeout         time.Duration
	IdleTimeout          time.Duration
	MaxInflight          int
	MaxNeeds             int
	MaxScoutBytes        int64
	MaxFiles             int
	MaxBatchRequests     int
	ValidateTimeout      time.Duration
	ValidateMaxDepth     int
	ValidateMaxCodeBytes int64
	MetricsToken         string
	MetricsAuth          bool

	LocalRoot  string
	Limits     pipeline.Limits
	CacheBytes int64
	// ReadingsBytes bounds the candidates readers' readings kept across
	// requests.
	ReadingsBytes int64
	// RulesFile is the service's rule file (the third rule layer).
	RulesFile string

	BitbucketBaseURL     string
	BitbucketEmail       string
	BitbucketToken       string
	BitbucketAccessToken string
	BitbucketAccountID   string
	UpstreamTimeout      time.Duration
	UpstreamRetries      int
	// DeferBelow is the remaining Bitbucket calls under which /v1/comments
	// defers the Code Insights report (as on X-RateLimit-NearLimit); -1:
	// never.
	DeferBelow int
	// FailOn, BuildStatus and InsightsReport drive the commit surfaces
	// (insights.Settings).
	FailOn         string
	BuildStatus    bool
	InsightsReport bool

	JiraBaseURL   string
	JiraEmail     string
	JiraToken     string
	JiraPAT       string
	JiraACField   string
	JiraMaxIssues int
	JiraProjects  string
	WebhookSecret string
	ForwardURL    string
	// CommentForwardURL is the conversation workflow's n8n Webhook URL
	// that comment events are forwarded to; empty: acknowledged only.
	CommentForwardURL string
	// ThreadMaxAnswers bounds prscout's replies per thread per hour.
	ThreadMaxAnswers int
	ForwardHeader    string
	ForwardToken     string
	ForwardTimeout   time.Duration
	// PostTimeout bounds how long /v1/comments goes on posting once its
	// caller is gone (PRSCOUT_POST_TIMEOUT).
	PostTimeout time.Duration
	// ResolveThreads lets /v1/comments resolve the inline thread of a
	// finding that a later commit resolved.
	ResolveThreads bool
	// SkipDrafts, SkipBots with BotAuthors, SkipTrivial and PushReviews
	// say which pull request reviews /v1/context skips (collect.SkipPolicy).
	SkipDrafts  bool
	SkipBots    bool
	BotAuthors  []string
	SkipTrivial bool
	PushReviews string
	// Tasks lets /v1/comments open a pull request task on each critical
	// finding's inline comment and resolve it with the finding.
	Tasks bool
	// InstructionFiles are the instruction files /v1/context reads at the
	// destination commit (empty: none), each shown up to
	// InstructionFileBytes, all together up to InstructionTotalBytes.
	InstructionFiles      []string
	InstructionFileBytes  int64
	InstructionTotalBytes int64
	// Learnings is how POST /v1/rules/propose treats a proposed rule: off,
	// dry-run (the rule text only) or on (the review rules pull request).
	Learnings string
	// ReviewProfile, InlineMax, InlineMinSeverity and Unverified are the
	// /v1/comments placement policy (placement.Policy): which findings become
	// inline comments.
	ReviewProfile     string
	InlineMax         int
	InlineMinSeverity string
	Unverified        string
	// WebhookDedupWindow is how long a webhook delivery is remembered to
	// drop its replays.
	WebhookDedupWindow time.Duration
	// WebhookMaxBodyBytes and WebhookMaxInflight bound the relay: an
	// event's body and the deliveries handled at once (0: the relay's
	// defaults, 256 KiB and 16).
	WebhookMaxBodyBytes int64
	WebhookMaxInflight  int

	// MirrorDir holds the Bitbucket repository mirrors ("": no mirror);
	// MirrorGitURL is the root of the clone URLs ("": derived from
	// BitbucketBaseURL, see MirrorGitBase); MirrorFetchTimeout bounds a fetch.
	MirrorDir          string
	MirrorGitURL       string
	MirrorFetchTimeout time.Duration
	// MirrorMaxBytes is the mirror directory's quota (0: none).
	MirrorMaxBytes int64
}

// DefaultConfig returns the defaults: loopback, the local git provider on the
// working directory, pipeline.DefaultLimits().
func DefaultConfig() Config {
	wd, _ := os.Getwd()
	return Config{
		Addr:            "127.0.0.1:8080",
		MaxBodyBytes:    32 << 20,
		ShutdownTimeout: 30 * time.Second,
		// Well under the 60s idle timeout of nginx and most load balancers.
		KeepaliveInterval:    10 * time.Second,
		LogLevel:             "info",
		LogFormat:            "json",
		ReadHeaderTimeout:    10 * time.Second,
		ReadTimeout:          30 * time.Second,
		WriteTimeout:         60 * time.Second,
		IdleTimeout:          120 * time.Second,
		MaxInflight:          8,
		MaxNeeds:             1000,
		MaxScoutBytes:        1 << 20,
		MaxFiles:             3000,
		MaxBatchRequests:     1000,
		ValidateTimeout:      20 * time.Second,
		ValidateMaxDepth:     500,
		ValidateMaxCodeBytes: 1 << 20,
		WebhookDedupWindow:   time.Hour,
		WebhookMaxBodyBytes:  256 << 10,
		WebhookMaxInflight:   16,
		MirrorMaxBytes:       20 << 30,
		LocalRoot:            wd,
		Limits:               pipeline.DefaultLimits(),
		CacheBytes:           64 << 20,
		ReadingsBytes:        128 << 20,
		BitbucketBaseURL:     "https://api.bitbucket.org/2.0",
		UpstreamTimeout:      15 * time.Second,
		UpstreamRetries:      3,
		DeferBelow:           100,
		FailOn:               insights.FailOnNone,
		BuildStatus:          true,
		InsightsReport:       true,
		JiraMaxIssues:        5,
		ForwardHeader:        "X-Prscout-Token",
		ForwardTimeout:       10 * time.Second,
		PostTimeout:          2 * time.Minute,
		ThreadMaxAnswers:     3,
		ResolveThreads:       true,
		SkipDrafts:           true,
		SkipBots:             true,
		// Renovate's and Dependabot's usual account names: the GitHub-style
		// app names and the nicknames self-hosted bot accounts are given.
		BotAuthors:  []string{"renovate[bot]", "renovate-bot", "renovate", "dependabot[bot]", "dependabot"},
		SkipTrivial: true,
		PushReviews: scope.PushDelta,
		// The files teams write for reviewers and agents; 8 KiB each, 24 KiB
		// in all keep them a small part of the review prompt.
		InstructionFiles:      []string{"AGENTS.md", "CLAUDE.md", "REVIEW.md", ".github/copilot-instructions.md", ".rovodev/.review-agent.md"},
		InstructionFileBytes:  8 << 10,
		InstructionTotalBytes: 24 << 10,
		// A proposal answers with the rule it would add and writes nothing
		// until an operator turns learnings on (it needs write access).
		Learnings:     learn.ModeDryRun,
		ReviewProfile: placement.ProfileBalanced,
		Unverified:    placement.UnverifiedFold,
		// A first clone of a large repository takes minutes; it runs in the
		// background and reviews meanwhile read through REST.
		MirrorFetchTimeout: 10 * time.Minute,
	}
}

// setting is one configuration entry: its environment variable, its flag
// and how to read it into the Config. The table drives env loading, flags,
// `serve -h` and docs/configuration.md (prscout docs-config).
type setting struct {
	env, flag, help string
	secret          bool
	get             func(c *Config) string
	set             func(c *Config, v string) error
}

func settings() []setting {
	str := func(p func(*Config) *string) (func(*Config) string, func(*Config, string) error) {
		return func(c *Config) string { return *p(c) }, func(c *Config, v string) error { *p(c) = v; return nil }
	}
	integer := func(p func(*Config) *int) (func(*Config) string, func(*Config, string) error) {
		return func(c *Config) string { return strconv.Itoa(*p(c)) }, func(c *Config, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			*p(c) = n
			return nil
		}
	}
	bytesize := func(p func(*Config) *int64) (func(*Config) string, func(*Config, string) error) {
		return func(c *Config) string { return strconv.FormatInt(*p(c), 10) }, func(c *Config, v string) error {
			n, err := parseBytes(v)
			if err != nil {
				return err
			}
			*p(c) = n
			return nil
		}
	}
	duration := func(p func(*Config) *time.Duration) (func(*Config) string, func(*Config, string) error) {
		return func(c *Config) string { return p(c).String() }, func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not a duration (e.g. 10s): %q", v)
			}
			*p(c) = d
			return nil
		}
	}
	boolean := func(p func(*Config) *bool) (func(*Config) string, func(*Config, string) error) {
		return func(c *Config) string { return strconv.FormatBool(*p(c)) }, func(c *Config, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not a boolean: %q", v)
			}
			*p(c) = b
			return nil
		}
	}
	mk := func(env, fl, help string, g func(*Config) string, s func(*Config, string) error) setting {
		return setting{env: env, flag: fl, help: help, get: g, set: s}
	}
	secret := func(st setting) setting { st.secret = true; return st }
	var out []setting
	add := func(st setting) { out = append(out, st) }

	g, s := str(func(c *Config) *string { return &c.Addr })
	add(mk("PRSCOUT_ADDR", "addr", "listen address (host:port)", g, s))
	add(secret(mk("PRSCOUT_API_KEYS", "api-keys", "comma-separated API keys checked against X-API-Key on /v1 routes",
		func(c *Config) string { return strings.Join(c.APIKeys, ",") },
		func(c *Config, v string) error { c.APIKeys = splitList(v); return nil })))
	gb, sb := boolean(func(c *Config) *bool { return &c.AllowInsecureListen })
	add(mk("PRSCOUT_ALLOW_INSECURE_LISTEN", "allow-insecure-listen", "allow a non-loopback address without API keys", gb, sb))
	gy, sy := bytesize(func(c *Config) *int64 { return &c.MaxBodyBytes })
	add(mk("PRSCOUT_MAX_BODY_BYTES", "max-body-bytes", "largest accepted request body (bytes; KiB/MiB suffixes allowed); larger ones get 413", gy, sy))
	gd, sd := duration(func(c *Config) *time.Duration { return &c.ShutdownTimeout })
	add(mk("PRSCOUT_SHUTDOWN_TIMEOUT", "shutdown-timeout", "how long a graceful shutdown waits for in-flight requests", gd, sd))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.KeepaliveInterval })
	add(mk("PRSCOUT_KEEPALIVE_INTERVAL", "keepalive-interval", "heartbeat period of keep-alive answers (Accept: application/x-ndjson, or X-Prscout-Keepalive: 1 for n8n); keep it below the proxy's read timeout", gd, sd))
	g, s = str(func(c *Config) *string { return &c.LogLevel })
	add(mk("PRSCOUT_LOG_LEVEL", "log-level", "debug, info, warn or error", g, s))
	g, s = str(func(c *Config) *string { return &c.LogFormat })
	add(mk("PRSCOUT_LOG_FORMAT", "log-format", "json or text", g, s))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.ReadHeaderTimeout })
	add(mk("PRSCOUT_READ_HEADER_TIMEOUT", "read-header-timeout", "time a client has to send the request headers", gd, sd))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.ReadTimeout })
	add(mk("PRSCOUT_READ_TIMEOUT", "read-timeout", "time a client has to send a whole request, body included; a slower body gets 408", gd, sd))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.WriteTimeout })
	add(mk("PRSCOUT_WRITE_TIMEOUT", "write-timeout", "how long one write of an answer may block on a client that does not read; every write (keep-alive heartbeats too) starts a new period, so long stages are not cut", gd, sd))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.IdleTimeout })
	add(mk("PRSCOUT_IDLE_TIMEOUT", "idle-timeout", "how long an idle keep-alive connection stays open", gd, sd))
	gi, si := integer(func(c *Config) *int { return &c.MaxInflight })
	add(mk("PRSCOUT_MAX_INFLIGHT", "max-inflight", "heavy stage requests (context, preview, needs, batch, merge, comments, validate) running at once; more get 429 with Retry-After; 0 switches the cap off", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.MaxNeeds })
	add(mk("PRSCOUT_MAX_NEEDS", "max-needs", "needs one /v1/needs request may propose (files[].needs and the scout answer's); more get 422", gi, si))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.MaxScoutBytes })
	add(mk("PRSCOUT_MAX_SCOUT_BYTES", "max-scout-bytes", "largest scout answer /v1/needs reads; larger ones get 413", gy, sy))
	gi, si = integer(func(c *Config) *int { return &c.MaxFiles })
	add(mk("PRSCOUT_MAX_FILES", "max-files", "files[] entries one needs, merge or comments request may hold; more get 422", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.MaxBatchRequests })
	add(mk("PRSCOUT_MAX_BATCH_REQUESTS", "max-batch-requests", "requests[] of one batch (and results[] of one merge) accepted; more get 422 (PRSCOUT_BATCH_MAX is how many are processed)", gi, si))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.ValidateTimeout })
	add(mk("PRSCOUT_VALIDATE_TIMEOUT", "validate-timeout", "time budget of one /v1/workflows/validate request; nodes not reached are reported not checked", gd, sd))
	gi, si = integer(func(c *Config) *int { return &c.ValidateMaxDepth })
	add(mk("PRSCOUT_VALIDATE_MAX_DEPTH", "validate-max-depth", "nesting depth of a Code node or expression the workflow gate parses (brackets, template substitutions, chained operators); deeper ones are too_deep", gi, si))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.ValidateMaxCodeBytes })
	add(mk("PRSCOUT_VALIDATE_MAX_CODE_BYTES", "validate-max-code-bytes", "largest Code node or expression the workflow gate parses; larger ones are too_large", gy, sy))
	g, s = str(func(c *Config) *string { return &c.MetricsToken })
	add(secret(mk("PRSCOUT_METRICS_TOKEN", "metrics-token", "bearer token /metrics then requires (Prometheus: authorization.credentials_file)", g, s)))
	gb, sb = boolean(func(c *Config) *bool { return &c.MetricsAuth })
	add(mk("PRSCOUT_METRICS_AUTH", "metrics-auth", "require an API key on /metrics (as a bearer token or X-API-Key)", gb, sb))
	g, s = str(func(c *Config) *string { return &c.LocalRoot })
	add(mk("PRSCOUT_LOCAL_ROOT", "local-root", "local git provider root: a repository, or a folder of <workspace>/<repoSlug> repositories (default: the working directory)", g, s))

	gi, si = integer(func(c *Config) *int { return &c.Limits.NeedsTotal })
	add(mk("PRSCOUT_NEEDS_TOTAL", "needs-total", "scout requests kept in all", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.NeedsPerFile })
	add(mk("PRSCOUT_NEEDS_PER_FILE", "needs-per-file", "scout requests kept per changed file", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.ContextLines })
	add(mk("PRSCOUT_CONTEXT_LINES", "context-lines", "default diff context lines", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.FullSourceLines })
	add(mk("PRSCOUT_FULL_SOURCE_LINES", "full-source-lines", "changed sources up to this many lines are shown whole; longer ones as labelled windows", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.MaxPathLen })
	add(mk("PRSCOUT_MAX_PATH_LEN", "max-path-len", "longest accepted repository path (bytes)", gi, si))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.Limits.MaxFileBytes })
	add(mk("PRSCOUT_MAX_FILE_BYTES", "max-file-bytes", "largest file a lookup returns; larger ones are ok:false, never truncated", gy, sy))
	gi, si = integer(func(c *Config) *int { return &c.Limits.MaxListEntries })
	add(mk("PRSCOUT_MAX_LIST_ENTRIES", "max-list-entries", "entries per list_dir answer", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.BatchMax })
	add(mk("PRSCOUT_BATCH_MAX", "batch-max", "lookups processed per batch; the rest are ok:false", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.BatchParallel })
	add(mk("PRSCOUT_BATCH_PARALLEL", "batch-parallel", "lookups running at once", gi, si))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.Limits.LookupTimeout })
	add(mk("PRSCOUT_LOOKUP_TIMEOUT", "lookup-timeout", "timeout of one lookup", gd, sd))
	gi, si = integer(func(c *Config) *int { return &c.Limits.MaxPromptChars })
	add(mk("PRSCOUT_MAX_PROMPT_CHARS", "max-prompt-chars", "budget of each prompt in characters: the scout prompt, and the review prompt with its context (met by dropping whole context files); a change whose files do not fit is split into review groups", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.MaxGroups })
	add(mk("PRSCOUT_MAX_GROUPS", "max-groups", "review groups a change too large for one review may be split into; the files of further groups (fewest changed lines first) are dropped and named in coverage (max_groups)", gi, si))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.CacheBytes })
	add(mk("PRSCOUT_CACHE_BYTES", "cache-bytes", "size of the per-replica (repository, commit, path) lookup cache", gy, sy))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.ReadingsBytes })
	add(mk("PRSCOUT_READINGS_BYTES", "readings-bytes", "size of the per-replica cache of the context candidates' file readings (parses, tokens, identifier indexes by path and content), which the next pull request of a repository reuses; 0 keeps none", gy, sy))
	g, s = str(func(c *Config) *string { return &c.RulesFile })
	add(mk("PRSCOUT_RULES_FILE", "rules-file", "the service's review rule file (JSON: exclude, include, rules[{path, rule, merge_system_rule}]); below request and repository rules", g, s))

	g, s = str(func(c *Config) *string { return &c.BitbucketBaseURL })
	add(mk("PRSCOUT_BITBUCKET_BASE_URL", "bitbucket-base-url", "Bitbucket Cloud REST API base URL", g, s))
	g, s = str(func(c *Config) *string { return &c.BitbucketEmail })
	add(mk("PRSCOUT_BITBUCKET_EMAIL", "bitbucket-email", "Atlassian account email for an API token (basic auth)", g, s))
	g, s = str(func(c *Config) *string { return &c.BitbucketToken })
	add(secret(mk("PRSCOUT_BITBUCKET_TOKEN", "bitbucket-token", "Atlassian API token (with PRSCOUT_BITBUCKET_EMAIL)", g, s)))
	g, s = str(func(c *Config) *string { return &c.BitbucketAccessToken })
	add(secret(mk("PRSCOUT_BITBUCKET_ACCESS_TOKEN", "bitbucket-access-token", "Bitbucket repository/project/workspace access token (bearer)", g, s)))
	g, s = str(func(c *Config) *string { return &c.BitbucketAccountID })
	add(mk("PRSCOUT_BITBUCKET_ACCOUNT_ID", "bitbucket-account-id", "prscout's own Bitbucket account_id or {uuid}, used when GET /user cannot tell; markers in other accounts' comments are ignored", g, s))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.UpstreamTimeout })
	add(mk("PRSCOUT_UPSTREAM_TIMEOUT", "upstream-timeout", "timeout of one Bitbucket or Jira HTTP attempt", gd, sd))
	gi, si = integer(func(c *Config) *int { return &c.UpstreamRetries })
	add(mk("PRSCOUT_UPSTREAM_RETRIES", "upstream-retries", "retries of a Bitbucket or Jira call after 429 or 5xx", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.DeferBelow })
	add(mk("PRSCOUT_DEFER_BELOW", "defer-below", "remaining Bitbucket calls (X-RateLimit-Remaining, where sent) under which /v1/comments posts the comments and defers the Code Insights annotations and report, as it does on X-RateLimit-NearLimit (the build status too once the budget is spent); -1 never defers", gi, si))
	g, s = str(func(c *Config) *string { return &c.FailOn })
	add(mk("PRSCOUT_FAIL_ON", "fail-on", "severity at which a review's build status and report are FAILED: none, critical, high or medium", g, s))
	gb, sb = boolean(func(c *Config) *bool { return &c.BuildStatus })
	add(mk("PRSCOUT_BUILD_STATUS", "build-status", "set the build status \"prscout\" on the reviewed commit (INPROGRESS, then SUCCESSFUL or FAILED)", gb, sb))
	gb, sb = boolean(func(c *Config) *bool { return &c.InsightsReport })
	add(mk("PRSCOUT_INSIGHTS_REPORT", "insights-report", "put the Code Insights report \"prscout\" with one annotation per finding on the reviewed commit", gb, sb))

	g, s = str(func(c *Config) *string { return &c.JiraBaseURL })
	add(mk("PRSCOUT_JIRA_BASE_URL", "jira-base-url", "Jira base URL (Cloud or Data Center); empty disables Jira", g, s))
	g, s = str(func(c *Config) *string { return &c.JiraEmail })
	add(mk("PRSCOUT_JIRA_EMAIL", "jira-email", "Jira Cloud account email (with PRSCOUT_JIRA_TOKEN)", g, s))
	g, s = str(func(c *Config) *string { return &c.JiraToken })
	add(secret(mk("PRSCOUT_JIRA_TOKEN", "jira-token", "Jira Cloud API token", g, s)))
	g, s = str(func(c *Config) *string { return &c.JiraPAT })
	add(secret(mk("PRSCOUT_JIRA_PAT", "jira-pat", "Jira Data Center personal access token (bearer)", g, s)))
	g, s = str(func(c *Config) *string { return &c.JiraACField })
	add(mk("PRSCOUT_JIRA_AC_FIELD", "jira-ac-field", "name or id of the acceptance-criteria field (e.g. customfield_10042); empty: a field named like \"Acceptance criteria\" is looked for once; none: no field, criteria from the description only", g, s))
	gi, si = integer(func(c *Config) *int { return &c.JiraMaxIssues })
	add(mk("PRSCOUT_JIRA_MAX_ISSUES", "jira-max-issues", "Jira issues looked up per review", gi, si))
	g, s = str(func(c *Config) *string { return &c.JiraProjects })
	add(mk("PRSCOUT_JIRA_PROJECTS", "jira-projects", "comma-separated Jira project keys whose issues link to a pull request (empty: any)", g, s))

	g, s = str(func(c *Config) *string { return &c.WebhookSecret })
	add(secret(mk("PRSCOUT_WEBHOOK_SECRET", "webhook-secret", "secret of the Bitbucket webhook (X-Hub-Signature: sha256=...)", g, s)))
	g, s = str(func(c *Config) *string { return &c.ForwardURL })
	add(mk("PRSCOUT_FORWARD_URL", "forward-url", "n8n Webhook URL that verified Bitbucket events are forwarded to", g, s))
	g, s = str(func(c *Config) *string { return &c.CommentForwardURL })
	add(mk("PRSCOUT_COMMENT_FORWARD_URL", "comment-forward-url", "n8n Webhook URL of the conversation workflow that verified comment events (pullrequest:comment_created, comment_resolved, comment_reopened) are forwarded to; empty: they are acknowledged, not forwarded", g, s))
	gi, si = integer(func(c *Config) *int { return &c.ThreadMaxAnswers })
	add(mk("PRSCOUT_THREAD_MAX_ANSWERS", "thread-max-answers", "most replies prscout posts in one comment thread in a rolling hour (counted from its own replies' times); 0 answers nothing", gi, si))
	g, s = str(func(c *Config) *string { return &c.ForwardHeader })
	add(mk("PRSCOUT_FORWARD_HEADER", "forward-header", "header carrying PRSCOUT_FORWARD_TOKEN to n8n's Webhook node (header auth)", g, s))
	g, s = str(func(c *Config) *string { return &c.ForwardToken })
	add(secret(mk("PRSCOUT_FORWARD_TOKEN", "forward-token", "value of the forward header that n8n's header-auth credential checks", g, s)))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.ForwardTimeout })
	add(mk("PRSCOUT_FORWARD_TIMEOUT", "forward-timeout", "timeout of forwarding one webhook to n8n", gd, sd))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.PostTimeout })
	add(mk("PRSCOUT_POST_TIMEOUT", "post-timeout", "how long /v1/comments goes on posting after its caller disconnected (an n8n worker killed, a timeout), so the comments, the summary and the build status are written together; 0 stops with the request", gd, sd))
	gb, sb = boolean(func(c *Config) *bool { return &c.ResolveThreads })
	add(mk("PRSCOUT_RESOLVE_THREADS", "resolve-threads", "resolve the inline thread of a finding a later commit resolved (never a thread someone replied in, never another account's comment)", gb, sb))
	gb, sb = boolean(func(c *Config) *bool { return &c.SkipDrafts })
	add(mk("PRSCOUT_SKIP_DRAFTS", "skip-drafts", "skip draft pull requests (skipCode draft) until they are marked ready; Bitbucket then sends pullrequest:updated and the next run reviews", gb, sb))
	gb, sb = boolean(func(c *Config) *bool { return &c.SkipBots })
	add(mk("PRSCOUT_SKIP_BOTS", "skip-bots", "skip pull requests by the accounts in PRSCOUT_BOT_AUTHORS (skipCode bot_author)", gb, sb))
	add(mk("PRSCOUT_BOT_AUTHORS", "bot-authors", "comma-separated bot accounts whose pull requests are skipped: each is compared, case-insensitively, with the author's nickname, display name, account_id and uuid", func(c *Config) string { return strings.Join(c.BotAuthors, ",") },
		func(c *Config, v string) error { c.BotAuthors = splitList(v); return nil }))
	gb, sb = boolean(func(c *Config) *bool { return &c.SkipTrivial })
	add(mk("PRSCOUT_SKIP_TRIVIAL", "skip-trivial", "skip a change whose every file is a lock file, generated code or docs (skipCode trivial); a file an include glob names counts as code", gb, sb))
	g, s = str(func(c *Config) *string { return &c.PushReviews })
	add(mk("PRSCOUT_PUSH_REVIEWS", "push-reviews", "how a push to a reviewed pull request is reviewed: delta (the change since the reviewed commit) or off (skipped, skipCode push_off; the first review still runs); a rule file's reviews.push overrides it", g, s))
	add(mk("PRSCOUT_INSTRUCTION_FILES", "instruction-files", "comma-separated instruction files read at the destination commit and shown in the review prompt as repository guidance (the summary's coverage line names them); off (or an empty --instruction-files) reads none: an empty variable is unset and keeps the default", func(c *Config) string { return strings.Join(c.InstructionFiles, ",") },
		func(c *Config, v string) error {
			if l := strings.ToLower(strings.TrimSpace(v)); l == "off" || l == "none" {
				v = ""
			}
			c.InstructionFiles = splitList(v)
			return nil
		}))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.InstructionFileBytes })
	add(mk("PRSCOUT_INSTRUCTION_FILE_BYTES", "instruction-file-bytes", "most bytes of one instruction file the review prompt shows (KiB suffix allowed); the rest is cut with a note", gy, sy))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.InstructionTotalBytes })
	add(mk("PRSCOUT_INSTRUCTION_TOTAL_BYTES", "instruction-total-bytes", "most bytes of all instruction files together (KiB suffix allowed); later files are cut or left out with a note", gy, sy))
	g, s = str(func(c *Config) *string { return &c.Learnings })
	add(mk("PRSCOUT_LEARNINGS", "learnings", "POST /v1/rules/propose: off (refused), dry-run (answers the rule it would add, changes nothing) or on (adds it to .prscout/rules.json on the review rules pull request, branch prscout/review-rules; Bitbucket only, needs repository and pull request write access)", g, s))
	gb, sb = boolean(func(c *Config) *bool { return &c.Tasks })
	add(mk("PRSCOUT_TASKS", "tasks", "open a pull request task on the inline comment of each critical finding (a merge check on open tasks then holds the merge) and resolve it when a later commit resolves the finding; Bitbucket only", gb, sb))
	g, s = str(func(c *Config) *string { return &c.ReviewProfile })
	add(mk("PRSCOUT_REVIEW_PROFILE", "review-profile", "review profile of /v1/comments: quiet (at most 5 inline comments, high and critical only), balanced (10, medium and up) or thorough (no budget, every severity); PRSCOUT_INLINE_MAX and PRSCOUT_INLINE_MIN_SEVERITY override its parts; what is not inline is in the summary", g, s))
	gi, si = integer(func(c *Config) *int { return &c.InlineMax })
	add(mk("PRSCOUT_INLINE_MAX", "inline-max", "most inline comments of one review, most severe first (ties: the model's confidence); the rest are in the summary; 0 means the profile's", gi, si))
	g, s = str(func(c *Config) *string { return &c.InlineMinSeverity })
	add(mk("PRSCOUT_INLINE_MIN_SEVERITY", "inline-min-severity", "lowest severity posted inline (critical, high, medium, low); less severe findings are in the summary only; empty means the profile's", g, s))
	g, s = str(func(c *Config) *string { return &c.Unverified })
	add(mk("PRSCOUT_UNVERIFIED", "unverified", "findings whose quoted code is not in the file they name as the review was shown: fold (listed in the summary, not inline, not counted in the build status or report), drop (also left out of the summary) or keep (placed as verified)", g, s))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.WebhookDedupWindow })
	add(mk("PRSCOUT_WEBHOOK_DEDUP_WINDOW", "webhook-dedup-window", "how long a webhook delivery is remembered: a replay (same X-Request-UUID, or same event and body) is acknowledged, not forwarded again; 0 switches it off", gd, sd))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.WebhookMaxBodyBytes })
	add(mk("PRSCOUT_WEBHOOK_MAX_BODY_BYTES", "webhook-max-body-bytes", "largest webhook event body (bytes; KiB/MiB suffixes allowed; Bitbucket's are at most 256 KB); larger ones get 413, a declared larger length before the body is read; 0 means PRSCOUT_MAX_BODY_BYTES", gy, sy))
	gi, si = integer(func(c *Config) *int { return &c.WebhookMaxInflight })
	add(mk("PRSCOUT_WEBHOOK_MAX_INFLIGHT", "webhook-max-inflight", "webhook deliveries read, verified or forwarded at once; the next gets 429 with Retry-After before its body is read; 0 switches the cap off", gi, si))

	gi, si = integer(func(c *Config) *int { return &c.Limits.CandidatesMax })
	add(mk("PRSCOUT_CANDIDATES_MAX", "candidates-max", "context candidates /v1/context lists at most (files outside the change the code ties to it); 0 lists none", gi, si))
	gi, si = integer(func(c *Config) *int { return &c.Limits.CandidatesAuto })
	add(mk("PRSCOUT_CANDIDATES_AUTO", "candidates-auto", "top candidates /v1/needs adds to the requests when the scout did not ask for them; 0 adds none", gi, si))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.Limits.CandidatesBudget })
	add(mk("PRSCOUT_CANDIDATES_BUDGET", "candidates-budget", "time one /v1/context may spend finding candidates; past it, what was found is listed with a warning", gd, sd))
	g, s = str(func(c *Config) *string { return &c.MirrorDir })
	add(mk("PRSCOUT_MIRROR_DIR", "mirror-dir", "directory of the Bitbucket repository mirrors (bare blob-less clones, one per repository) for code search and reads; empty: no mirror, no candidates with Bitbucket", g, s))
	g, s = str(func(c *Config) *string { return &c.MirrorGitURL })
	add(mk("PRSCOUT_MIRROR_GIT_URL", "mirror-git-url", "root of the HTTPS clone URLs (<url>/<workspace>/<repoSlug>.git); empty: https://bitbucket.org for Bitbucket Cloud, else PRSCOUT_BITBUCKET_BASE_URL without /2.0", g, s))
	gd, sd = duration(func(c *Config) *time.Duration { return &c.MirrorFetchTimeout })
	add(mk("PRSCOUT_MIRROR_FETCH_TIMEOUT", "mirror-fetch-timeout", "timeout of one fetch into a mirror, a first clone included (it runs in the background)", gd, sd))
	gy, sy = bytesize(func(c *Config) *int64 { return &c.MirrorMaxBytes })
	add(mk("PRSCOUT_MIRROR_MAX_BYTES", "mirror-max-bytes", "quota of the mirror directory (bytes; KiB/MiB/GiB suffixes allowed): past it, the least recently used repositories are removed after a fetch (cloned again when next reviewed); 0 switches the quota off. Blobs over PRSCOUT_MAX_FILE_BYTES are never fetched", gy, sy))
	return out
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a byte size (e.g. 1048576 or 1MiB): %q", v)
	}
	return n * mult, nil
}

// loadConfig reads the environment, then the flags, into a validated Config.
func loadConfig(args []string, getenv func(string) string, fs *flag.FlagSet) (Config, error) {
	cfg := DefaultConfig()
	sts := settings()
	for _, st := range sts {
		if v := getenv(st.env); v != "" {
			if err := st.set(&cfg, v); err != nil {
				return cfg, fmt.Errorf("%s: %w", st.env, err)
			}
		}
	}
	for _, st := range sts {
		st := st
		def := st.get(&cfg)
		if st.secret && def != "" {
			def = "(set)"
		}
		fs.Func(st.flag, fmt.Sprintf("%s (env %s, default %q)", st.help, st.env, def), func(v string) error { return st.set(&cfg, v) })
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return cfg, cfg.Validate()
}

// Surfaces are the commit surface settings (PRSCOUT_FAIL_ON,
// PRSCOUT_BUILD_STATUS, PRSCOUT_INSIGHTS_REPORT).
func (c Config) Surfaces() insights.Settings {
	failOn, _ := insights.ParseFailOn(c.FailOn) // Validate refused a bad one
	return insights.Settings{FailOn: failOn, BuildStatus: c.BuildStatus, Report: c.InsightsReport}
}

// Instructions are the instruction files /v1/context reads
// (PRSCOUT_INSTRUCTION_FILES, PRSCOUT_INSTRUCTION_FILE_BYTES,
// PRSCOUT_INSTRUCTION_TOTAL_BYTES).
func (c Config) Instructions() scope.InstructionSettings {
	return scope.InstructionSettings{
		Paths:        append([]string(nil), c.InstructionFiles...),
		MaxFileBytes: int(c.InstructionFileBytes), MaxTotalBytes: int(c.InstructionTotalBytes),
	}
}

// Skips is the skip policy of /v1/context (PRSCOUT_SKIP_DRAFTS,
// PRSCOUT_SKIP_BOTS, PRSCOUT_BOT_AUTHORS, PRSCOUT_SKIP_TRIVIAL,
// PRSCOUT_PUSH_REVIEWS).
func (c Config) Skips() collect.SkipPolicy {
	push, _ := scope.ParsePushMode(c.PushReviews) // Validate refused a bad one
	p := collect.SkipPolicy{Drafts: c.SkipDrafts, Trivial: c.SkipTrivial, Push: push}
	if c.SkipBots {
		p.BotAuthors = append([]string(nil), c.BotAuthors...)
	}
	return p
}

// CommentPolicy is the /v1/comments placement policy (PRSCOUT_REVIEW_PROFILE,
// PRSCOUT_INLINE_MAX, PRSCOUT_INLINE_MIN_SEVERITY, PRSCOUT_UNVERIFIED).
func (c Config) CommentPolicy() placement.Policy {
	return placement.Policy{Profile: c.ReviewProfile, MaxInline: c.InlineMax, MinSeverity: c.InlineMinSeverity, Unverified: c.Unverified}
}

// MirrorGitBase is the root of the mirror's clone URLs: PRSCOUT_MIRROR_GIT_URL,
// else https://bitbucket.org for Bitbucket Cloud's API, else the API base URL
// without its /2.0 (a server that serves both, as the fake Bitbucket does).
func (c Config) MirrorGitBase() string {
	if c.MirrorGitURL != "" {
		return strings.TrimRight(c.MirrorGitURL, "/")
	}
	u, err := url.Parse(c.BitbucketBaseURL)
	if err == nil && u.Host == "api.bitbucket.org" {
		return "https://bitbucket.org"
	}
	return strings.TrimSuffix(strings.TrimRight(c.BitbucketBaseURL, "/"), "/2.0")
}

// BitbucketEnabled reports whether Bitbucket credentials are configured:
// then Bitbucket is the provider; without them the local git provider is.
func (c Config) BitbucketEnabled() bool {
	return c.BitbucketAccessToken != "" || c.BitbucketEmail != "" || c.BitbucketToken != ""
}

// minAPIKeyLen is the shortest API key accepted off loopback: 16 random
// characters resist online guessing; shorter ones are typos or placeholders.
const minAPIKeyLen = 16

// maxGateDepth is the highest PRSCOUT_VALIDATE_MAX_DEPTH: goja's parser
// takes about 2.6 KB of stack per nesting level and Go's stack is 1 GB.
const maxGateDepth = 10_000

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loadRulesFile reads and checks a rule file (PRSCOUT_RULES_FILE, or the
// CLI's --rules).
func loadRulesFile(path string) (*scope.RuleFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read rule file: %w", err)
	}
	if len(data) > scope.MaxRulesBytes {
		return nil, fmt.Errorf("rule file %s is over %d bytes", path, scope.MaxRulesBytes)
	}
	rf, err := scope.ParseRuleFile(data, path)
	if err != nil {
		return nil, err
	}
	return rf, nil
}
