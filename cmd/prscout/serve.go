package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/prscout/prscout/api"
	"github.com/prscout/prscout/internal/gcpolicy"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/pipeline/scope"
)

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: prscout serve [flags]\n\nRuns the HTTP service. Every flag can also be set by its environment variable;\na flag wins over the environment.\n\nflags:")
		fs.PrintDefaults()
	}
	cfg, err := loadConfig(args, os.Getenv, fs)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "prscout serve: invalid configuration:\n%v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, stderr, nil); err != nil {
		fmt.Fprintf(stderr, "prscout serve: %v\n", err)
		return 1
	}
	return 0
}

// requestLimits maps the configuration onto the API's request bounds.
func requestLimits(cfg Config) api.RequestLimits {
	gl := gate.DefaultLimits()
	gl.MaxDepth = cfg.ValidateMaxDepth
	gl.MaxCodeBytes = int(cfg.ValidateMaxCodeBytes)
	return api.RequestLimits{
		ReadTimeout:      cfg.ReadTimeout,
		WriteTimeout:     cfg.WriteTimeout,
		MaxInflight:      cfg.MaxInflight,
		MaxNeeds:         cfg.MaxNeeds,
		MaxScoutBytes:    int(cfg.MaxScoutBytes),
		MaxFiles:         cfg.MaxFiles,
		MaxBatchRequests: cfg.MaxBatchRequests,
		GateTimeout:      cfg.ValidateTimeout,
		Gate:             gl,
	}
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// serve runs the service until ctx ends, then shuts down gracefully: it
// stops accepting connections and lets in-flight requests finish within
// cfg.ShutdownTimeout. listening, when not nil, receives the bound address.
func serve(ctx context.Context, cfg Config, logw io.Writer, listening chan<- string) error {
	log := newLogger(cfg, logw)
	gc := gcpolicy.Decide(os.Getenv, func() (int64, bool) { return gcpolicy.ReadCgroupLimit(gcpolicy.CgroupMemoryFiles) })
	gc.Apply()
	log.Info("garbage collector", "settings", gc.Says)
	if off := candidates.SyntaxReaderOff(); off != "" {
		log.Warn("candidates", "readers", off)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := api.NewMetrics(reg)

	p, err := buildProviders(cfg, metrics, log)
	if err != nil {
		return fmt.Errorf("set up providers: %w", err)
	}
	var serviceRules *scope.RuleFile
	if cfg.RulesFile != "" {
		if serviceRules, err = loadRulesFile(cfg.RulesFile); err != nil {
			return fmt.Errorf("PRSCOUT_RULES_FILE: %w", err)
		}
	}
	srv, err := api.NewServer(api.Options{
		Repo: p.repo, Diffs: p.diffs, PRs: p.prs, Comments: p.comments, Issues: p.issues, LinkHosts: p.linkHosts,
		Reporter: p.reporter,
		Surfaces: cfg.Surfaces(),
		Budget:   p.budget, DeferBelow: cfg.DeferBelow,
		Search: p.search, SearchOff: p.searchOff,
		Webhook:            p.webhook,
		ParseWebhook:       p.parseWebhook,
		ResolveThreads:     cfg.ResolveThreads,
		PostTimeout:        cfg.PostTimeout,
		ThreadMaxAnswers:   cfg.ThreadMaxAnswers,
		Skips:              cfg.Skips(),
		Instructions:       cfg.Instructions(),
		Learnings:          cfg.Learnings,
		Committer:          p.committer,
		RulesRepo:          p.rulesRepo,
		Tasks:              cfg.Tasks,
		CommentPolicy:      cfg.CommentPolicy(),
		Limits:             cfg.Limits,
		ServiceRules:       serviceRules,
		ServiceRulesSource: cfg.RulesFile,
		CacheBytes:         cfg.CacheBytes,
		ReadingsBytes:      cfg.ReadingsBytes,
		MaxBodyBytes:       cfg.MaxBodyBytes,
		APIKeys:            cfg.APIKeys,
		KeepaliveInterval:  cfg.KeepaliveInterval,
		RequestLimits:      requestLimits(cfg),
		MetricsToken:       cfg.MetricsToken,
		MetricsAuth:        cfg.MetricsAuth,
		Ready:              p.ready,
		Registry:           reg,
		Metrics:            metrics,
		Logger:             log,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// ReadTimeout and WriteTimeout stay unset here: when http.Server's
	// ReadTimeout passes, net/http cancels the request's context, which
	// would stop long stages; the API sets both deadlines per request
	// instead (api.RequestLimits), lifting the read deadline once the body
	// is in and pushing the write deadline at every write.
	idle := &gcpolicy.IdleRelease{After: gcpolicy.IdleReleaseAfter, Free: debug.FreeOSMemory, Quiet: api.IsProbe}
	ticker := time.NewTicker(gcpolicy.IdleReleaseAfter / 3)
	defer ticker.Stop()
	go idle.Run(ctx, ticker.C)
	hs := &http.Server{
		Handler:           idle.Wrap(srv),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	log.Info("prscout listening", "addr", ln.Addr().String(), "provider", p.name, "auth", len(cfg.APIKeys) > 0, "version", api.Version)
	if listening != nil {
		listening <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	defer readAhead(ctx, p.warm, log)() // stopped with ctx, waited for on return
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// readAhead starts warm (nil: nothing) beside the first requests; it runs
// until it is done or ctx ends, and the function returned waits for that.
func readAhead(ctx context.Context, warm func(context.Context) error, log *slog.Logger) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if warm == nil {
			return
		}
		if err := warm(ctx); err != nil && ctx.Err() == nil {
			log.Info("read ahead stopped", "error", err)
		}
	}()
	return func() { <-done }
}
