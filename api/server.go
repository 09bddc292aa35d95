// Package api turns HTTP requests into pipeline stage calls and stage results
// into JSON. It knows the pipeline's ports, never the adapters behind them.
package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/scope"
)

// Version is set at build time with -ldflags "-X github.com/prscout/prscout/api.Version=...".
var Version = "dev"

const requestIDKey = "prscout.request_id"

// Options configure a Server. Ports left nil switch their features off: no
// PullRequests means no prId reviews, no CommentStore means comments render
// only (posted.summary "dry-run"), no IssueLookup means no Jira, no
// CommitReporter means no build status and no report.
type Options struct {
	Repo     pipeline.Repository
	Diffs    pipeline.DiffSource
	PRs      pipeline.PullRequests
	Comments pipeline.CommentStore
	Issues   pipeline.IssueLookup
	// Reporter puts the build status and the Code Insights report on the
	// reviewed commit; nil leaves both off. Surfaces switches them and
	// holds the severity threshold (its zero value switches both off:
	// start from insights.DefaultSettings()).
	Reporter pipeline.CommitReporter
	Surfaces insights.Settings
	// Budget is the rate-limit budget of the credentials Comments and
	// Reporter use; near the limit /v1/comments posts the comments and
	// defers the commit surfaces (publish.Ports.Budget). Nil never defers.
	// DeferBelow is PRSCOUT_DEFER_BELOW.
	Budget     pipeline.RateBudget
	DeferBelow int
	// Search finds context candidates; nil uses Repo when it implements
	// pipeline.CodeSearch. SearchOff says why there is none (a warning).
	Search    pipeline.CodeSearch
	SearchOff string
	// ParseWebhook reads a raw Bitbucket pull request webhook body sent to
	// /v1/context; nil refuses such bodies.
	ParseWebhook func(body []byte) (pipeline.Repo, int, error)
	// Webhook configures POST /v1/webhooks/bitbucket; nil leaves it off.
	Webhook *WebhookOptions
	// ResolveThreads lets /v1/comments resolve the inline thread of a
	// finding a later commit resolved (PRSCOUT_RESOLVE_THREADS).
	ResolveThreads bool
	// PostTimeout bounds how long /v1/comments goes on after its caller
	// disconnected: posting is not abandoned between the comments and the
	// build status (0: it stops with the request).
	PostTimeout time.Duration
	// Skips say which pull request reviews /v1/context skips: drafts, bot
	// accounts' pull requests, trivial changes, pushes (the zero value:
	// none of these).
	Skips collect.SkipPolicy
	// Tasks lets /v1/comments open a task on each critical finding's
	// inline comment and resolve it with the finding (PRSCOUT_TASKS).
	Tasks bool
	// CommentPolicy decides which findings of /v1/comments become inline
	// comments: review profile, comment budget, inline severity floor and
	// what becomes of unverified findings (PRSCOUT_REVIEW_PROFILE,
	// PRSCOUT_INLINE_MAX, PRSCOUT_INLINE_MIN_SEVERITY, PRSCOUT_UNVERIFIED).
	// Its zero value places every finding on a diff line inline. A
	// request's commentPolicy lies over it.
	CommentPolicy placement.Policy
	// ThreadMaxAnswers bounds prscout's replies per comment thread in a
	// rolling hour (PRSCOUT_THREAD_MAX_ANSWERS).
	ThreadMaxAnswers int

	// Limits are the stages' limits (pipeline.DefaultLimits() or the
	// configured ones); the zero value is refused.
	Limits pipeline.Limits
	// LinkHosts are the hosts links in posted comments may point at (the
	// pull requests' own web host); model-written links elsewhere lose their
	// target. Empty: only relative links.
	LinkHosts []string
	// Instructions say which instruction files /v1/context reads at the
	// destination commit (PRSCOUT_INSTRUCTION_FILES; zero: none).
	Instructions scope.InstructionSettings
	// Learnings is PRSCOUT_LEARNINGS for POST /v1/rules/propose: off,
	// dry-run ("" too) or on. Committer writes the review rules pull
	// request and RulesRepo reads the rule file it changes (nil: Repo);
	// without a Committer only a dry run answers.
	Learnings string
	Committer pipeline.BranchCommitter
	RulesRepo pipeline.Repository
	// ServiceRules is the service's rule file (PRSCOUT_RULES_FILE), the
	// third rule layer; ServiceRulesSource names it. nil: no such layer.
	ServiceRules       *scope.RuleFile
	ServiceRulesSource string
	// CacheBytes bounds the lookup cache; 0 keeps no cache.
	CacheBytes int64
	// ReadingsBytes bounds the context candidates' readings of files kept
	// across requests (candidates.NewCache); 0 keeps none.
	ReadingsBytes int64
	// MaxBodyBytes is the largest request body accepted; it must be set.
	MaxBodyBytes int64
	APIKeys      []string
	// KeepaliveInterval is the heartbeat period of keep-alive answers
	// (keepalive.go); 0 or less switches keep-alive off.
	KeepaliveInterval time.Duration
	// Ready reports whether the service can serve (for /readyz); nil is always ready.
	Ready func(ctx context.Context) error
	// RequestLimits bound each request's time, size and the heavy requests
	// running at once (bounds.go); every field must be set.
	RequestLimits RequestLimits
	// MetricsToken, when set, is the bearer token /metrics requires;
	// MetricsAuth makes /metrics require an API key (as a bearer token or
	// X-API-Key). With both, either is accepted.
	MetricsToken string
	MetricsAuth  bool

	Registry *prometheus.Registry
	Metrics  *Metrics
	Logger   *slog.Logger
}

// Server is prscout's HTTP service.
type Server struct {
	opts    Options
	engine  *gin.Engine
	metrics *Metrics
	log     *slog.Logger
	keys    [][]byte
	stages  *stages
	// inflight holds a token per heavy request running (nil: no cap).
	inflight chan struct{}
	// replays deduplicates webhook deliveries (nil: off).
	replays *replayGuard
	// relay holds the webhook relay's limits and delivery slots (webhook.go).
	relay *webhookRelay
	// readings keeps the context candidates' readings of files across
	// requests (nil: none kept).
	readings *candidates.Cache
}

// NewServer builds the router. The API invents no setting: a bound that is
// not set (MaxBodyBytes, Limits, RequestLimits) is an error naming it.
// Registry, Metrics and Logger left nil get a fresh registry, its metrics
// and slog's default logger.
func NewServer(opts Options) (*Server, error) {
	switch {
	case opts.MaxBodyBytes <= 0:
		return nil, fmt.Errorf("api: Options.MaxBodyBytes is not set")
	case opts.Limits == (pipeline.Limits{}):
		return nil, fmt.Errorf("api: Options.Limits is not set")
	case opts.Webhook != nil && opts.Webhook.Forwarder == nil && (opts.Webhook.ForwardURL != "" || opts.Webhook.CommentForwardURL != ""):
		return nil, fmt.Errorf("api: Options.Webhook.Forwarder is not set, and a forward URL is")
	}
	if err := opts.RequestLimits.Check(); err != nil {
		return nil, fmt.Errorf("api: Options.%w", err)
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics(opts.Registry)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{opts: opts, metrics: opts.Metrics, log: opts.Logger, readings: candidates.NewCache(opts.ReadingsBytes)}
	if n := opts.RequestLimits.MaxInflight; n > 0 {
		s.inflight = make(chan struct{}, n)
	}
	for _, k := range opts.APIKeys {
		if k = strings.TrimSpace(k); k != "" {
			s.keys = append(s.keys, []byte(k))
		}
	}
	s.stages = newStages(s)

	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(s.recoverJSON, s.requestID, s.deadlines, s.observe)
	e.NoRoute(func(c *gin.Context) {
		c.AbortWithStatusJSON(http.StatusNotFound, ErrorBody{Error: "not_found", Message: "no such endpoint: " + c.Request.Method + " " + c.Request.URL.Path})
	})
	e.NoMethod(func(c *gin.Context) {
		c.AbortWithStatusJSON(http.StatusMethodNotAllowed, ErrorBody{Error: "method_not_allowed", Message: c.Request.Method + " is not allowed on " + c.Request.URL.Path})
	})

	e.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metricsAuth, gin.WrapH(promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{Registry: opts.Registry})))

	// The webhook is authenticated by Bitbucket's HMAC signature, not by an
	// API key: Bitbucket cannot send custom headers.
	if opts.Webhook != nil && opts.Webhook.Verify != nil {
		if w := opts.Webhook.DedupWindow; w > 0 {
			s.replays = newReplayGuard(w, 0)
		}
		s.relay = newWebhookRelay(opts.Webhook, opts.MaxBodyBytes)
		e.POST("/v1/webhooks/bitbucket", s.webhook)
	}
	v1 := e.Group("/v1", s.auth)
	s.stages.register(v1)
	s.engine = e
	return s, nil
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

// ProbeRoutes are the routes probes and scrapers ask every few seconds
// (health, readiness, metrics): they are not logged, and serve does not
// count them as work (gcpolicy.IdleRelease.Quiet).
var ProbeRoutes = []string{"/healthz", "/readyz", "/metrics"}

// IsProbe reports whether route is one of ProbeRoutes.
func IsProbe(route string) bool { return slices.Contains(ProbeRoutes, route) }

func (s *Server) readyz(c *gin.Context) {
	if s.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 5*time.Second)
		defer cancel()
		if err := s.opts.Ready(ctx); err != nil {
			c.JSON(http.StatusServiceUnavailable, ErrorBody{Error: "not_ready", Message: err.Error()})
			return
		}
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}

// auth checks the API key, from X-API-Key or else an Authorization: Bearer
// header (what n8n's Bearer Auth credential sends), against the configured
// keys in constant time. With no keys configured every request passes (cmd
// refuses to listen beyond loopback then, unless told to).
func (s *Server) auth(c *gin.Context) {
	if len(s.keys) == 0 {
		return
	}
	got := []byte(c.GetHeader("X-API-Key"))
	if len(got) == 0 {
		got = []byte(bearerToken(c))
	}
	ok := 0
	for _, k := range s.keys {
		// Compare against every key so timing does not tell which one matched.
		ok |= subtle.ConstantTimeCompare(got, k)
	}
	if ok != 1 {
		msg := "missing API key (X-API-Key or Authorization: Bearer header)"
		if len(got) > 0 {
			msg = "invalid API key"
		}
		c.AbortWithStatusJSON(http.StatusUnauthorized, ErrorBody{Error: "unauthorized", Message: msg})
	}
}

// recoverJSON turns a panic into a logged, counted JSON 500 instead of a
// dropped connection. A panic is a bug: tests and fuzzers hunt for them.
func (s *Server) recoverJSON(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.log.ErrorContext(c.Request.Context(), "panic", "route", c.FullPath(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()), "request_id", requestID(c))
			s.metrics.InternalErrors.Inc()
			if !c.Writer.Written() {
				c.AbortWithStatusJSON(http.StatusInternalServerError, ErrorBody{Error: "internal", Message: "internal error; see the server log for the request id"})
			}
		}
	}()
	c.Next()
}

// requestID takes the caller's X-Request-Id (n8n can pass its execution id)
// or makes one, echoes it and puts it on the request's logger context.
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if id == "" || len(id) > 128 || strings.ContainsAny(id, "\r\n") {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(requestIDKey, id)
	c.Header("X-Request-Id", id)
	c.Request = c.Request.WithContext(pipeline.WithRequestID(c.Request.Context(), id))
	c.Next()
}

// observe counts and times every request by route template and logs it.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	s.metrics.InFlight.Inc()
	defer s.metrics.InFlight.Dec()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	d := time.Since(start)
	code := c.Writer.Status()
	s.metrics.HTTPRequests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	s.metrics.HTTPDuration.WithLabelValues(route).Observe(d.Seconds())
	if !IsProbe(route) {
		s.log.InfoContext(c.Request.Context(), "request", "method", c.Request.Method, "route", route,
			"status", code, "duration_ms", d.Milliseconds(), "bytes", c.Writer.Size(), "request_id", requestID(c))
	}
}
