package jira

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// Jira call logs carry the prscout request id, like Bitbucket's.
func TestUpstreamLogsCarryRequestID(t *testing.T) {
	fj := newFakeJira(t, "", basicAuth)
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, _, _ := newTestClient(t, Config{BaseURL: fj.URL() + "/", Logger: log, AcceptanceField: AcceptanceFieldNone})
	ctx := pipeline.WithRequestID(context.Background(), "n8n-exec-7")
	if _, err := lookupSplit(ctx, c, "PROJ-123"); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) == 0 || len(buf.Bytes()) == 0 {
		t.Fatal("no upstream call logged")
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] != "upstream call" || m["service"] != "jira" || m["operation"] != "get_issue" ||
			m["status"] != float64(200) || m["request_id"] != "n8n-exec-7" || m["level"] != "DEBUG" {
			t.Errorf("log line %v", m)
		}
	}
}
