package api

import (
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/gate"
)

// withTestBounds fills the bounds opts leaves unset with the values every
// test server of this package runs with, so each test states only the bound
// it is about. The service's own values come from cmd/prscout's settings;
// the API has none (NewServer refuses an unset bound).
func withTestBounds(opts Options) Options {
	set := func(v *int, n int) {
		if *v == 0 {
			*v = n
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = 32 << 20
	}
	if opts.Limits == (pipeline.Limits{}) {
		opts.Limits = pipeline.DefaultLimits()
	}
	setD(&opts.KeepaliveInterval, 10*time.Second)
	l := &opts.RequestLimits
	setD(&l.ReadTimeout, 30*time.Second)
	setD(&l.WriteTimeout, 60*time.Second)
	set(&l.MaxInflight, 8)
	set(&l.MaxNeeds, 1000)
	set(&l.MaxScoutBytes, 1<<20)
	set(&l.MaxFiles, 3000)
	set(&l.MaxBatchRequests, 1000)
	setD(&l.GateTimeout, 20*time.Second)
	if l.Gate == (gate.Limits{}) {
		l.Gate = gate.DefaultLimits()
	}
	if opts.Webhook != nil {
		w := *opts.Webhook
		setD(&w.DedupWindow, time.Hour)
		opts.Webhook = &w
	}
	return opts
}

// TestNewServerRefusesUnsetBounds: the API invents no bound; each one left
// unset is an error naming it.
func TestNewServerRefusesUnsetBounds(t *testing.T) {
	for field, clear := range map[string]func(*Options){
		"MaxBodyBytes":     func(o *Options) { o.MaxBodyBytes = 0 },
		"Limits":           func(o *Options) { o.Limits = pipeline.Limits{} },
		"ReadTimeout":      func(o *Options) { o.RequestLimits.ReadTimeout = 0 },
		"WriteTimeout":     func(o *Options) { o.RequestLimits.WriteTimeout = 0 },
		"MaxNeeds":         func(o *Options) { o.RequestLimits.MaxNeeds = 0 },
		"MaxScoutBytes":    func(o *Options) { o.RequestLimits.MaxScoutBytes = 0 },
		"MaxFiles":         func(o *Options) { o.RequestLimits.MaxFiles = 0 },
		"MaxBatchRequests": func(o *Options) { o.RequestLimits.MaxBatchRequests = 0 },
		"GateTimeout":      func(o *Options) { o.RequestLimits.GateTimeout = 0 },
		"Gate":             func(o *Options) { o.RequestLimits.Gate = gate.Limits{} },
	} {
		opts := withTestBounds(Options{Logger: discardLogger()})
		clear(&opts)
		if _, err := NewServer(opts); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s unset: NewServer error %v, want one naming it", field, err)
		}
	}
	if _, err := NewServer(withTestBounds(Options{Logger: discardLogger()})); err != nil {
		t.Errorf("every bound set: %v", err)
	}
}

// mustServer is NewServer with the test bounds (withTestBounds).
func mustServer(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := NewServer(withTestBounds(opts))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
