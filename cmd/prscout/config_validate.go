package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/scope"
)

// Validate checks the configuration and names the variable at fault; every
// problem is reported, in the order of the steps below.
func (c Config) Validate() error {
	var p problems
	c.validateServing(&p)
	c.validateSecrets(&p)
	c.validateLimits(&p)
	c.validateFeatures(&p)
	c.validateUpstreams(&p)
	return errors.Join(p...)
}

// problems collects configuration errors, each prefixed with its variable.
type problems []error

func (p *problems) bad(env, format string, args ...any) {
	*p = append(*p, fmt.Errorf(env+": "+format, args...))
}

// validateServing checks the listener, its keys, the server's own bounds and
// the logs.
func (c Config) validateServing(p *problems) {
	bad := p.bad
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		bad("PRSCOUT_ADDR", "not host:port: %q", c.Addr)
	} else if len(c.APIKeys) == 0 && !c.AllowInsecureListen && !isLoopback(host) {
		bad("PRSCOUT_ADDR", "%q is not a loopback address and PRSCOUT_API_KEYS is empty; set API keys, or PRSCOUT_ALLOW_INSECURE_LISTEN=true to serve without them", c.Addr)
	} else if !isLoopback(host) {
		for i, k := range c.APIKeys {
			if len(k) < minAPIKeyLen {
				bad("PRSCOUT_API_KEYS", "key %d is %d characters; keys must have at least %d when listening beyond loopback (%q)", i+1, len(k), minAPIKeyLen, c.Addr)
			}
		}
	}
	if c.MetricsAuth && len(c.APIKeys) == 0 {
		bad("PRSCOUT_METRICS_AUTH", "needs PRSCOUT_API_KEYS (the keys /metrics then accepts), or use PRSCOUT_METRICS_TOKEN")
	}
	if c.MaxBodyBytes < 1024 {
		bad("PRSCOUT_MAX_BODY_BYTES", "must be at least 1024, got %d", c.MaxBodyBytes)
	}
	if c.ShutdownTimeout <= 0 {
		bad("PRSCOUT_SHUTDOWN_TIMEOUT", "must be positive")
	}
	if c.KeepaliveInterval <= 0 {
		bad("PRSCOUT_KEEPALIVE_INTERVAL", "must be positive")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("PRSCOUT_LOG_LEVEL", "must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		bad("PRSCOUT_LOG_FORMAT", "must be json or text, got %q", c.LogFormat)
	}
}

// examplePrefix starts every placeholder secret of deploy/.env.example:
// a service started with one would trust a value published with prscout.
const examplePrefix = "change-me"

// validateSecrets refuses the example file's placeholder values
// (examplePrefix, any case) in every key, token and secret setting.
func (c Config) validateSecrets(p *problems) {
	placeholder := func(v string) bool {
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), examplePrefix)
	}
	for i, k := range c.APIKeys {
		if placeholder(k) {
			p.bad("PRSCOUT_API_KEYS", "key %d is the example value %q: replace every change-me value of deploy/.env.example (openssl rand -hex 24)", i+1, k)
		}
	}
	for _, s := range []struct{ env, v string }{
		{"PRSCOUT_METRICS_TOKEN", c.MetricsToken}, {"PRSCOUT_WEBHOOK_SECRET", c.WebhookSecret},
		{"PRSCOUT_FORWARD_TOKEN", c.ForwardToken}, {"PRSCOUT_BITBUCKET_TOKEN", c.BitbucketToken},
		{"PRSCOUT_BITBUCKET_ACCESS_TOKEN", c.BitbucketAccessToken}, {"PRSCOUT_JIRA_TOKEN", c.JiraToken},
		{"PRSCOUT_JIRA_PAT", c.JiraPAT},
	} {
		if placeholder(s.v) {
			p.bad(s.env, "is the example value %q: replace every change-me value of deploy/.env.example (openssl rand -hex 24)", s.v)
		}
	}
}

// validateLimits checks the review limits and the request bounds: each must
// be positive, some within a range.
func (c Config) validateLimits(p *problems) {
	bad := p.bad
	l := c.Limits
	positive := []struct {
		env string
		v   int64
	}{
		{"PRSCOUT_NEEDS_TOTAL", int64(l.NeedsTotal)}, {"PRSCOUT_NEEDS_PER_FILE", int64(l.NeedsPerFile)},
		{"PRSCOUT_FULL_SOURCE_LINES", int64(l.FullSourceLines)}, {"PRSCOUT_MAX_PATH_LEN", int64(l.MaxPathLen)},
		{"PRSCOUT_MAX_FILE_BYTES", l.MaxFileBytes}, {"PRSCOUT_MAX_LIST_ENTRIES", int64(l.MaxListEntries)},
		{"PRSCOUT_BATCH_MAX", int64(l.BatchMax)}, {"PRSCOUT_BATCH_PARALLEL", int64(l.BatchParallel)},
		{"PRSCOUT_LOOKUP_TIMEOUT", int64(l.LookupTimeout)}, {"PRSCOUT_MAX_PROMPT_CHARS", int64(l.MaxPromptChars)},
		{"PRSCOUT_MAX_GROUPS", int64(l.MaxGroups)},
		{"PRSCOUT_UPSTREAM_TIMEOUT", int64(c.UpstreamTimeout)}, {"PRSCOUT_JIRA_MAX_ISSUES", int64(c.JiraMaxIssues)},
		{"PRSCOUT_READ_HEADER_TIMEOUT", int64(c.ReadHeaderTimeout)}, {"PRSCOUT_READ_TIMEOUT", int64(c.ReadTimeout)},
		{"PRSCOUT_WRITE_TIMEOUT", int64(c.WriteTimeout)}, {"PRSCOUT_IDLE_TIMEOUT", int64(c.IdleTimeout)},
		{"PRSCOUT_MAX_NEEDS", int64(c.MaxNeeds)}, {"PRSCOUT_MAX_SCOUT_BYTES", c.MaxScoutBytes},
		{"PRSCOUT_MAX_FILES", int64(c.MaxFiles)}, {"PRSCOUT_MAX_BATCH_REQUESTS", int64(c.MaxBatchRequests)},
		{"PRSCOUT_VALIDATE_TIMEOUT", int64(c.ValidateTimeout)},
	}
	for _, p := range positive {
		if p.v <= 0 {
			bad(p.env, "must be positive, got %d", p.v)
		}
	}
	if l.ContextLines < 0 || l.ContextLines > 1000 {
		bad("PRSCOUT_CONTEXT_LINES", "must be between 0 and 1000, got %d", l.ContextLines)
	}
	if l.CandidatesMax < 0 || l.CandidatesMax > 100 {
		bad("PRSCOUT_CANDIDATES_MAX", "must be between 0 and 100, got %d", l.CandidatesMax)
	}
	if l.CandidatesAuto < 0 || l.CandidatesAuto > l.NeedsTotal {
		bad("PRSCOUT_CANDIDATES_AUTO", "must be between 0 and PRSCOUT_NEEDS_TOTAL (%d), got %d", l.NeedsTotal, l.CandidatesAuto)
	}
	if l.CandidatesBudget <= 0 {
		bad("PRSCOUT_CANDIDATES_BUDGET", "must be positive")
	}
}

// validateFeatures checks the mirror, the cache, the in-flight cap, the gate,
// the webhook relay, rules and the commit surfaces.
func (c Config) validateFeatures(p *problems) {
	bad := p.bad
	if c.MirrorFetchTimeout <= 0 {
		bad("PRSCOUT_MIRROR_FETCH_TIMEOUT", "must be positive")
	}
	if c.MirrorGitURL != "" {
		if u, err := url.Parse(c.MirrorGitURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			bad("PRSCOUT_MIRROR_GIT_URL", "must be an absolute http(s) URL without credentials, got %q", c.MirrorGitURL)
		}
	}
	if l := c.Limits; l.NeedsPerFile > l.NeedsTotal {
		bad("PRSCOUT_NEEDS_PER_FILE", "(%d) cannot exceed PRSCOUT_NEEDS_TOTAL (%d)", l.NeedsPerFile, l.NeedsTotal)
	}
	if c.CacheBytes < 0 {
		bad("PRSCOUT_CACHE_BYTES", "must not be negative")
	}
	if c.ReadingsBytes < 0 {
		bad("PRSCOUT_READINGS_BYTES", "must not be negative")
	}
	if c.MaxInflight < 0 {
		bad("PRSCOUT_MAX_INFLIGHT", "must not be negative (0 switches the cap off), got %d", c.MaxInflight)
	}
	if c.ValidateMaxDepth < 10 || c.ValidateMaxDepth > maxGateDepth {
		// Deeper than this, goja's recursive parser may exhaust the stack,
		// which no recover() catches.
		bad("PRSCOUT_VALIDATE_MAX_DEPTH", "must be between 10 and %d, got %d", maxGateDepth, c.ValidateMaxDepth)
	}
	if c.ValidateMaxCodeBytes < 1024 || c.ValidateMaxCodeBytes > 64<<20 {
		bad("PRSCOUT_VALIDATE_MAX_CODE_BYTES", "must be between 1024 and 67108864, got %d", c.ValidateMaxCodeBytes)
	}
	if c.MirrorMaxBytes < 0 {
		bad("PRSCOUT_MIRROR_MAX_BYTES", "must not be negative (0 switches the quota off), got %d", c.MirrorMaxBytes)
	}
	if c.WebhookMaxBodyBytes < 0 {
		bad("PRSCOUT_WEBHOOK_MAX_BODY_BYTES", "must not be negative (0 means PRSCOUT_MAX_BODY_BYTES), got %d", c.WebhookMaxBodyBytes)
	}
	if c.WebhookMaxInflight < 0 {
		bad("PRSCOUT_WEBHOOK_MAX_INFLIGHT", "must not be negative (0 switches the cap off), got %d", c.WebhookMaxInflight)
	}
	if _, ok := scope.ParsePushMode(c.PushReviews); !ok {
		bad("PRSCOUT_PUSH_REVIEWS", "must be delta or off, got %q", c.PushReviews)
	}
	if c.WebhookDedupWindow < 0 {
		bad("PRSCOUT_WEBHOOK_DEDUP_WINDOW", "must not be negative (0 switches deduplication off)")
	}
	if c.RulesFile != "" {
		if _, err := loadRulesFile(c.RulesFile); err != nil {
			bad("PRSCOUT_RULES_FILE", "%v", err)
		}
	}
	if _, err := learn.ParseMode(c.Learnings); err != nil {
		bad("PRSCOUT_LEARNINGS", "%v", err)
	}
	if c.InstructionFileBytes < 0 {
		bad("PRSCOUT_INSTRUCTION_FILE_BYTES", "must not be negative, got %d", c.InstructionFileBytes)
	}
	if c.InstructionTotalBytes < 0 {
		bad("PRSCOUT_INSTRUCTION_TOTAL_BYTES", "must not be negative, got %d", c.InstructionTotalBytes)
	}
	if _, err := insights.ParseFailOn(c.FailOn); err != nil {
		bad("PRSCOUT_FAIL_ON", "must be none, critical, high or medium, got %q", c.FailOn)
	}
	if _, err := placement.ParseProfile(c.ReviewProfile); err != nil {
		bad("PRSCOUT_REVIEW_PROFILE", "%v", err)
	}
	if c.InlineMax < 0 {
		bad("PRSCOUT_INLINE_MAX", "must not be negative, got %d", c.InlineMax)
	}
	if _, err := placement.ParseMinSeverity(c.InlineMinSeverity); err != nil {
		bad("PRSCOUT_INLINE_MIN_SEVERITY", "%v", err)
	}
	if _, err := placement.ParseUnverified(c.Unverified); err != nil {
		bad("PRSCOUT_UNVERIFIED", "%v", err)
	}
	if c.DeferBelow < -1 {
		bad("PRSCOUT_DEFER_BELOW", "must be -1 (never defer) or a count of calls, got %d", c.DeferBelow)
	}
	if c.UpstreamRetries < 0 || c.UpstreamRetries > 10 {
		bad("PRSCOUT_UPSTREAM_RETRIES", "must be between 0 and 10, got %d", c.UpstreamRetries)
	}
}

// validateUpstreams checks Bitbucket's credentials and the Jira and n8n URLs.
func (c Config) validateUpstreams(p *problems) {
	bad := p.bad
	if c.BitbucketEnabled() {
		if _, err := url.ParseRequestURI(c.BitbucketBaseURL); err != nil {
			bad("PRSCOUT_BITBUCKET_BASE_URL", "not a URL: %q", c.BitbucketBaseURL)
		}
		if c.BitbucketAccessToken != "" && (c.BitbucketEmail != "" || c.BitbucketToken != "") {
			bad("PRSCOUT_BITBUCKET_ACCESS_TOKEN", "set either an access token or PRSCOUT_BITBUCKET_EMAIL + PRSCOUT_BITBUCKET_TOKEN, not both")
		}
		if c.BitbucketAccessToken == "" && (c.BitbucketEmail == "") != (c.BitbucketToken == "") {
			if c.BitbucketEmail == "" {
				bad("PRSCOUT_BITBUCKET_EMAIL", "is empty but PRSCOUT_BITBUCKET_TOKEN is set")
			} else {
				bad("PRSCOUT_BITBUCKET_TOKEN", "is empty but PRSCOUT_BITBUCKET_EMAIL is set")
			}
		}
	}
	if c.JiraBaseURL != "" {
		if _, err := url.ParseRequestURI(c.JiraBaseURL); err != nil {
			bad("PRSCOUT_JIRA_BASE_URL", "not a URL: %q", c.JiraBaseURL)
		}
	}
	if c.CommentForwardURL != "" {
		if _, err := url.ParseRequestURI(c.CommentForwardURL); err != nil {
			bad("PRSCOUT_COMMENT_FORWARD_URL", "not a URL: %q", c.CommentForwardURL)
		}
	}
	if c.ThreadMaxAnswers < 0 {
		bad("PRSCOUT_THREAD_MAX_ANSWERS", "must not be negative, got %d", c.ThreadMaxAnswers)
	}
	if c.ForwardURL != "" {
		if _, err := url.ParseRequestURI(c.ForwardURL); err != nil {
			bad("PRSCOUT_FORWARD_URL", "not a URL: %q", c.ForwardURL)
		}
		if c.WebhookSecret == "" {
			bad("PRSCOUT_WEBHOOK_SECRET", "is required when PRSCOUT_FORWARD_URL is set: unsigned events are never forwarded")
		}
	}
}
