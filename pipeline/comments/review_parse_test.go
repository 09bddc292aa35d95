package comments

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func jsonString(s string) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestParseReviewShapes(t *testing.T) {
	const obj = `{"summary":"S","findings":[{"path":"a.go","line":3,"severity":"high","title":"T","body":"B"}]}`
	want := pipeline.Review{Summary: "S", Findings: []pipeline.Finding{{Path: "a.go", Line: 3, Severity: "high", Title: "T", Body: "B"}}}
	tests := []struct {
		name       string
		raw        json.RawMessage
		wantFormat string
	}{
		{"object", json.RawMessage(obj), reviewFormatJSON},
		{"text holding JSON", jsonString(obj), reviewFormatJSON},
		{"double-encoded text", jsonString(string(jsonString(obj))), reviewFormatJSON},
		{"json fence with prose", jsonString("Here you go:\n```json\n" + obj + "\n```\nThanks!"), reviewFormatFenced},
		{"bare fence", jsonString("```\n" + obj + "\n```"), reviewFormatFenced},
		{"embedded in prose", jsonString("My review is " + obj + " — done."), reviewFormatEmbedded},
		{"prose with a stray brace first", jsonString("Note {not json} then " + obj), reviewFormatEmbedded},
		{"chat completion object", json.RawMessage(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":` + string(jsonString(obj)) + `}}]}`), reviewFormatChat},
		{"chat completion as text", jsonString(`{"choices":[{"message":{"content":` + string(jsonString("```json\n"+obj+"\n```")) + `}}]}`), reviewFormatChat},
		{"n8n output wrapper", json.RawMessage(`{"output":` + string(jsonString(obj)) + `}`), reviewFormatJSON},
		{"n8n text wrapper", json.RawMessage(`{"text":` + obj + `}`), reviewFormatJSON},
		{"n8n item array", json.RawMessage(`[{"json":{"content":` + obj + `}}]`), reviewFormatJSON},
		{"content parts", json.RawMessage(`{"content":[{"type":"text","text":` + string(jsonString(obj)) + `}]}`), reviewFormatJSON},
		{"gemini response", json.RawMessage(`{"candidates":[{"content":{"parts":[{"text":` + string(jsonString(obj)) + `}]}}]}`), reviewFormatJSON},
		{"openai responses api", json.RawMessage(`{"output":[{"type":"message","content":[{"type":"output_text","text":` + string(jsonString(obj)) + `}]}]}`), reviewFormatJSON},
		{"BOM and space", jsonString("\ufeff  " + obj + "\n"), reviewFormatJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReview(tt.raw)
			if err != nil {
				t.Fatalf("ParseReview: %v", err)
			}
			if !reflect.DeepEqual(got.Review, want) {
				t.Errorf("review = %+v, want %+v", got.Review, want)
			}
			if got.Format != tt.wantFormat {
				t.Errorf("format = %q, want %q", got.Format, tt.wantFormat)
			}
		})
	}
}

func TestParseReviewFindingsArray(t *testing.T) {
	for _, raw := range []json.RawMessage{
		json.RawMessage(`[{"path":"a.go","title":"T","severity":"low"}]`),
		jsonString("```json\n[{\"path\":\"a.go\",\"title\":\"T\",\"severity\":\"low\"}]\n```"),
		json.RawMessage(`{"summary":"","findings":"[{\"path\":\"a.go\",\"title\":\"T\",\"severity\":\"low\"}]"}`),
	} {
		got, err := ParseReview(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := []pipeline.Finding{{Path: "a.go", Severity: "low", Title: "T"}}
		if !reflect.DeepEqual(got.Findings, want) {
			t.Errorf("%s: findings = %+v, want %+v", raw, got.Findings, want)
		}
	}
}

func TestParseReviewProseBecomesSummary(t *testing.T) {
	text := "The change looks fine.\nNo blocking issues; one { brace and a [link]."
	got, err := ParseReview(jsonString(text))
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != text || len(got.Findings) != 0 || got.Format != reviewFormatProse {
		t.Errorf("got %+v", got)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "not JSON") {
		t.Errorf("warnings = %q", got.Warnings)
	}
	if got.Findings == nil {
		t.Error("findings must be an empty array, not null")
	}
}

func TestParseReviewProseInWrappers(t *testing.T) {
	for _, raw := range []string{
		`{"output":"All good.\nShip it."}`,
		`[{"json":{"output":"All good.\nShip it."}}]`,
		`{"choices":[{"message":{"role":"assistant","content":"All good.\nShip it."}}]}`,
		`{"content":[{"type":"text","text":"All good.\nShip it."}]}`,
	} {
		got, err := ParseReview(json.RawMessage(raw))
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got.Summary != "All good.\nShip it." || len(got.Findings) != 0 || got.Format != reviewFormatProse {
			t.Errorf("%s: got %+v", raw, got)
		}
	}
}

func TestParseReviewFindingRepair(t *testing.T) {
	raw := json.RawMessage(`{"findings":[
		{"file":"a.go","line":"42","severity":"Error","title":"t1","body":"b"},
		{"path":"a.go","line":"L7","severity":"nit","body":"first line\nsecond"},
		{"path":"a.go","line":"12-15","severity":"warning","title":"multi\nline  title"},
		{"path":"a.go","line":3.0,"severity":"blocker","title":"t4"},
		{"path":"a.go","line":"soon","severity":"","title":"t5"},
		{"path":"a.go","line":-4,"severity":"bogus","title":"t6"},
		{"path":"a.go","line":null,"existing_code":"x := 1","severity":"INFO","message":"m","title":"t7"},
		"not an object",
		{"path":"a.go","severity":"low"}
	]}`)
	got, err := ParseReview(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Finding{
		{Path: "a.go", Line: 42, Severity: "high", Title: "t1", Body: "b"},
		{Path: "a.go", Line: 7, Severity: "low", Title: "first line", Body: "first line\nsecond"},
		{Path: "a.go", Line: 12, Severity: "medium", Title: "multi line title"},
		{Path: "a.go", Line: 3, Severity: "critical", Title: "t4"},
		{Path: "a.go", Line: 0, Severity: "medium", Title: "t5"},
		{Path: "a.go", Line: 0, Severity: "medium", Title: "t6"},
		{Path: "a.go", ExistingCode: "x := 1", Severity: "low", Title: "t7", Body: "m"},
	}
	if !reflect.DeepEqual(got.Findings, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got.Findings, want)
	}
	if got.DroppedFindings != 2 {
		t.Errorf("dropped = %d, want 2", got.DroppedFindings)
	}
	// Error, nit, warning, blocker, "", bogus, INFO are not exact.
	if got.SeverityNormalized != 7 {
		t.Errorf("severityNormalized = %d, want 7", got.SeverityNormalized)
	}
	wantWarnings := []string{
		`findings[4].line "soon" is not a line number: ignored`,
		`findings[4] has no severity: medium`,
		`findings[5].line -4 is not a line number: ignored`,
		`findings[5] severity "bogus" is unknown: medium`,
		`findings[7] is a string, not an object: dropped`,
		`findings[8] has neither title nor body: dropped`,
	}
	if !reflect.DeepEqual(got.Warnings, wantWarnings) {
		t.Errorf("warnings:\n got %q\nwant %q", got.Warnings, wantWarnings)
	}
}

func TestNormalizeSeverity(t *testing.T) {
	tests := []struct {
		in    string
		want  string
		exact bool
	}{
		{"critical", "critical", true}, {"high", "high", true}, {"medium", "medium", true}, {"low", "low", true},
		{" HIGH ", "high", true}, {"error", "high", false}, {"warning", "medium", false}, {"info", "low", false},
		{"nit", "low", false}, {"blocker", "critical", false}, {"", "medium", false}, {"???", "medium", false},
	}
	for _, tt := range tests {
		got, exact := normalizeSeverity(tt.in)
		if got != tt.want || exact != tt.exact {
			t.Errorf("NormalizeSeverity(%q) = %q, %v; want %q, %v", tt.in, got, exact, tt.want, tt.exact)
		}
	}
}

func TestParseReviewInvalid(t *testing.T) {
	for _, raw := range []string{``, `null`, `""`, `{}`, `[]`, `[1,2]`, `true`, `{"choices":[]}`, `{bad`} {
		_, err := ParseReview(json.RawMessage(raw))
		var ie *pipeline.InvalidError
		if !errors.As(err, &ie) || ie.Field != "review" {
			t.Errorf("ParseReview(%s) err = %v, want InvalidError on review", raw, err)
		}
	}
}

func FuzzParseReview(f *testing.F) {
	seeds := []string{
		`{"summary":"S","findings":[{"path":"a.go","line":3,"severity":"high","title":"T","body":"B"}]}`,
		`"Here:\n` + "```json" + `\n{\"summary\":\"x\",\"findings\":[]}\n` + "```" + `"`,
		`{"choices":[{"message":{"content":"{\"findings\":[{\"path\":\"a\",\"line\":\"7\"}]}"}}]}`,
		`[{"json":{"output":"[{\"title\":\"t\"}]"}}]`,
		`"plain prose { [ with braces"`,
		`{"findings":[{"line":1e99,"severity":{},"title":[1]}]}`,
		`"{\"summary\":{\"a\":1},\"findings\":\"[1,2]\"}"`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ParseReview(raw)
		if err != nil {
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) || ie.Field != "review" {
				t.Fatalf("error is not an InvalidError on review: %v", err)
			}
			return
		}
		if got.Findings == nil {
			t.Fatal("nil findings")
		}
		for _, f := range got.Findings {
			if f.Line < 0 {
				t.Fatalf("negative line %d", f.Line)
			}
			if severityRank(f.Severity) >= len(severityOrder) {
				t.Fatalf("severity %q not normalized", f.Severity)
			}
			if f.Title == "" && f.Body == "" {
				t.Fatal("finding with neither title nor body")
			}
		}
	})
}
