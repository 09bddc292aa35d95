package reviewanswer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func TestParseSpansAndFixes(t *testing.T) {
	answer := map[string]any{"summary": "s", "findings": []any{
		map[string]any{"path": "a.go", "line": 10, "endLine": 12, "severity": "high", "title": "range", "body": "b"},
		map[string]any{"path": "a.go", "lines": "20-24", "severity": "low", "title": "lines field", "body": "b"},
		map[string]any{"path": "a.go", "line": 30, "end_line": 29, "severity": "low", "title": "backwards", "body": "b"},
		map[string]any{"path": "a.go", "line": 5, "existingCode": "x := 1", "severity": "low", "title": "fix object", "body": "b",
			"fix": map[string]any{"before": "x := 1", "after": "x := 2"}},
		map[string]any{"path": "a.go", "line": 6, "existingCode": "y := 1\n", "severity": "low", "title": "suggested code", "body": "b",
			"suggestedCode": "```go\ny := 2\n```"},
		map[string]any{"path": "a.go", "line": 7, "severity": "low", "title": "prose suggestion", "body": "b", "suggestion": "use a constant"},
		map[string]any{"path": "a.go", "line": 8, "severity": "low", "title": "huge fix", "body": "b",
			"fix": map[string]any{"before": "a", "after": strings.Repeat("line\n", 60)}},
	}}
	raw, _ := json.Marshal(answer)
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line, end int
		fix       *pipeline.Fix
	}{
		{10, 12, nil},
		{20, 24, nil},
		{30, 0, nil},
		{5, 0, &pipeline.Fix{Before: "x := 1", After: "x := 2"}},
		{6, 0, &pipeline.Fix{Before: "y := 1", After: "y := 2"}},
		{7, 0, nil},
		{8, 0, nil},
	}
	if len(p.Findings) != len(want) {
		t.Fatalf("got %d findings, want %d", len(p.Findings), len(want))
	}
	for i, w := range want {
		f := p.Findings[i]
		if f.Line != w.line || f.EndLine != w.end {
			t.Errorf("findings[%d] (%s): lines %d-%d, want %d-%d", i, f.Title, f.Line, f.EndLine, w.line, w.end)
		}
		switch {
		case w.fix == nil && f.Fix != nil:
			t.Errorf("findings[%d] (%s): fix %+v, want none", i, f.Title, *f.Fix)
		case w.fix != nil && (f.Fix == nil || *f.Fix != *w.fix):
			t.Errorf("findings[%d] (%s): fix %+v, want %+v", i, f.Title, f.Fix, *w.fix)
		}
	}
	warned := strings.Join(p.Warnings, "\n")
	for _, w := range []string{"findings[2]: line range 30-29 ignored", "findings[6].fix is longer than"} {
		if !strings.Contains(warned, w) {
			t.Errorf("warnings lack %q:\n%s", w, warned)
		}
	}
}
