package bitbucket

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

// Upstream call logs carry the request id of the prscout request (n8n's
// X-Request-Id), so one review can be followed from n8n to Bitbucket.
func TestUpstreamLogsCarryRequestID(t *testing.T) {
	s := newFake(t)
	s.SetFile("acme", "uploader", headFull, "main.go", []byte("package main\n"))
	s.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Status: 429, RetryAfter: "0"})
	var buf bytes.Buffer
	c, _ := newClient(t, s, func(cfg *Config) {
		cfg.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := pipeline.WithRequestID(context.Background(), "n8n-exec-42")
	if _, err := c.ReadFile(ctx, acme, headFull, "main.go", 1<<20); err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) < 2 {
		t.Fatalf("want the 429 attempt and its retry logged, got %d lines:\n%s", len(lines), buf.String())
	}
	first := lines[0]
	if first["level"] != "WARN" || first["status"] != float64(429) || first["retry_in_ms"] == nil || first["operation"] != "get_src" {
		t.Errorf("first attempt logged as %v, want a WARN 429 get_src with retry_in_ms", first)
	}
	for _, l := range lines {
		if l["msg"] != "upstream call" || l["request_id"] != "n8n-exec-42" || l["service"] != "bitbucket" {
			t.Errorf("log line %v lacks msg, service or request_id", l)
		}
	}
}
