package reviewanswer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
		{"object", json.RawMessage(obj), FormatJSON},
		{"text holding JSON", jsonString(obj), FormatJSON},
		{"double-encoded text", jsonString(string(jsonString(obj))), FormatJSON},
		{"json fence with prose", jsonString("Here you go:\n```json\n" + obj + "\n```\nThanks!"), FormatFenced},
		{"bare fence", jsonString("```\n" + obj + "\n```"), FormatFenced},
		{"embedded in prose", jsonString("My review is " + obj + " — done."), FormatEmbedded},
		{"prose with a stray brace first", jsonString("Note {not json} then " + obj), FormatEmbedded},
		{"chat completion object", json.RawMessage(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":` + string(jsonString(obj)) + `}}]}`), FormatChat},
		{"chat completion as text", jsonString(`{"choices":[{"message":{"content":` + string(jsonString("```json\n"+obj+"\n```")) + `}}]}`), FormatChat},
		{"n8n output wrapper", json.RawMessage(`{"output":` + string(jsonString(obj)) + `}`), FormatJSON},
		{"n8n text wrapper", json.RawMessage(`{"text":` + obj + `}`), FormatJSON},
		{"n8n item array", json.RawMessage(`[{"json":{"content":` + obj + `}}]`), FormatJSON},
		{"content parts", json.RawMessage(`{"content":[{"type":"text","text":` + string(jsonString(obj)) + `}]}`), FormatJSON},
		{"gemini response", json.RawMessage(`{"candidates":[{"content":{"parts":[{"text":` + string(jsonString(obj)) + `}]}}]}`), FormatJSON},
		{"openai responses api", json.RawMessage(`{"output":[{"type":"message","content":[{"type":"output_text","text":` + string(jsonString(obj)) + `}]}]}`), FormatJSON},
		{"BOM and space", jsonString("\ufeff  " + obj + "\n"), FormatJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
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
		got, err := Parse(raw)
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
	got, err := Parse(jsonString(text))
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != text || len(got.Findings) != 0 || got.Format != FormatProse {
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
		got, err := Parse(json.RawMessage(raw))
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got.Summary != "All good.\nShip it." || len(got.Findings) != 0 || got.Format != FormatProse {
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
	got, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Finding{
		{Path: "a.go", Line: 42, Severity: "high", Title: "t1", Body: "b"},
		{Path: "a.go", Line: 7, Severity: "low", Title: "first line", Body: "first line\nsecond"},
		{Path: "a.go", Line: 12, EndLine: 15, Severity: "medium", Title: "multi line title"}, // "12-15": a range
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
		_, err := Parse(json.RawMessage(raw))
		var ie *pipeline.InvalidError
		if !errors.As(err, &ie) || ie.Field != "review" {
			t.Errorf("Parse(%s) err = %v, want InvalidError on review", raw, err)
		}
	}
}

// FuzzParseReview: no answer panics; every finding has a path and a title,
// a normalized severity and no negative line; an answer that could not be
// read leaves the summary empty (the raw answer is never shown).
//
//	go test -run '^$' -fuzz FuzzParseReview -fuzztime 30s ./pipeline/review
func FuzzParseReview(f *testing.F) {
	inputs := []string{
		`{"summary":"S","findings":[{"path":"a.go","line":3,"severity":"high","title":"T","body":"B"}]}`,
		`"Here:\n` + "```json" + `\n{\"summary\":\"x\",\"findings\":[]}\n` + "```" + `"`,
		`{"choices":[{"message":{"content":"{\"findings\":[{\"path\":\"a\",\"line\":\"7\"}]}"}}]}`,
		`[{"json":{"output":"[{\"title\":\"t\"}]"}}]`,
		`"plain prose { [ with braces"`,
		`{"findings":[{"line":1e99,"severity":{},"title":[1]}]}`,
		`"{\"summary\":{\"a\":1},\"findings\":\"[1,2]\"}"`,
		`"{'summary': 'x', 'findings': [{'path': 'a.go', 'title': 'T', 'body': 'B', 'severity': 'low',},],}"`,
		`{"choices":[{"finish_reason":"length","message":{"content":"{\"findings\":[{\"path\":\"a.go\",\"title\":\"T\",\"severity\":\"high\",\"body\":\"cut"}}]}`,
		`"{\"findings\": [{\"title\": \"no path\", \"body\": \"b\"}]}"`,
	}
	for _, s := range inputs {
		f.Add([]byte(s))
	}
	// The reader's own testdata: real-looking review answers.
	files, _ := filepath.Glob(filepath.Join("..", "llmanswer", "testdata", "review-*"))
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(file, ".txt") {
			b, _ = json.Marshal(string(b))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := Parse(raw)
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
			if strings.TrimSpace(f.Path) == "" || strings.TrimSpace(f.Title) == "" {
				t.Fatalf("finding without a path or a title: %+v", f)
			}
			if f.Line < 0 {
				t.Fatalf("negative line %d", f.Line)
			}
			if SeverityRank(f.Severity) >= len(Severities) {
				t.Fatalf("severity %q not normalized", f.Severity)
			}
		}
		if got.Unreadable && (got.Summary != "" || len(got.Findings) > 0 || got.Format != FormatUnreadable) {
			t.Fatalf("unreadable answer with a summary %q or findings %v", got.Summary, got.Findings)
		}
		if got.CutOff && got.Quality != "salvaged" && got.Quality != "unreadable" {
			t.Fatalf("cut-off answer read as %s", got.Quality)
		}
	})
}

// TestParseReviewSalvage: a cut-off review keeps its complete findings,
// drops the one the cut fell inside, and says so.
func TestParseReviewSalvage(t *testing.T) {
	const f1 = `{"path": "a.go", "line": 3, "severity": "high", "title": "T1", "body": "B1"}`
	const f2 = `{"path": "b.go", "line": 7, "severity": "low", "title": "T2", "body": "B2"}`
	chat := func(finish, content string) json.RawMessage {
		return json.RawMessage(`{"choices":[{"index":0,"finish_reason":"` + finish + `","message":{"role":"assistant","content":` + string(jsonString(content)) + `}}]}`)
	}
	tests := []struct {
		name            string
		raw             json.RawMessage
		titles          []string
		kept, dropped   int
		summary         string
		wantWarningText string
	}{
		{"cut in the second finding's body", jsonString(`{"summary": "S", "findings": [` + f1 + `, {"path": "b.go", "line": 7, "severity": "low", "title": "T2", "body": "B`),
			[]string{"T1"}, 1, 1, "S", "the review answer was cut off: 1 complete finding kept, 1 incomplete dropped"},
		{"cut before the severity", jsonString(`{"summary": "S", "findings": [` + f1 + `, {"path": "b.go", "title": "T2", "body": "B2", "sev`),
			[]string{"T1"}, 1, 1, "S", "1 complete finding kept, 1 incomplete dropped"},
		{"cut after the body, before the brace", jsonString(`{"summary": "S", "findings": [` + f1 + `, {"path": "b.go", "severity": "low", "title": "T2", "body": "B2"`),
			[]string{"T1", "T2"}, 2, 0, "S", "2 complete findings kept, 0 incomplete dropped"},
		{"cut between findings", jsonString(`{"summary": "S", "findings": [` + f1 + `, ` + f2 + `, `),
			[]string{"T1", "T2"}, 2, 0, "S", "2 complete findings kept, 0 incomplete dropped"},
		{"cut in the summary, written last", jsonString(`{"findings": [` + f1 + `], "summary": "The handler is mostly fi`),
			[]string{"T1"}, 1, 0, "The handler is mostly fi …", "the summary was cut off"},
		{"bare findings array, cut", jsonString(`[` + f1 + `, {"path": "b.go", "title": "T2`),
			[]string{"T1"}, 1, 1, "", "1 complete finding kept, 1 incomplete dropped"},
		{"finish reason length, JSON closed", chat("length", `{"summary": "S", "findings": [`+f1+`, `+f2+`]}`),
			[]string{"T1", "T2"}, 2, 0, "S", "2 complete findings kept, 0 incomplete dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, f := range got.Findings {
				titles = append(titles, f.Title)
			}
			if !reflect.DeepEqual(titles, tt.titles) {
				t.Errorf("findings %q, want %q", titles, tt.titles)
			}
			if got.Kept != tt.kept || got.Incomplete != tt.dropped || !got.CutOff || got.Quality != "salvaged" {
				t.Errorf("kept %d incomplete %d cutOff %v quality %s", got.Kept, got.Incomplete, got.CutOff, got.Quality)
			}
			if got.Summary != tt.summary {
				t.Errorf("summary %q, want %q", got.Summary, tt.summary)
			}
			if !strings.Contains(strings.Join(got.Warnings, "\n"), tt.wantWarningText) {
				t.Errorf("warnings %q lack %q", got.Warnings, tt.wantWarningText)
			}
		})
	}
}

// TestParseReviewRepaired: the shapes that used to end as raw text in the
// summary are read as findings.
func TestParseReviewRepaired(t *testing.T) {
	for name, text := range map[string]string{
		"single quotes":   `{'summary': 'S', 'findings': [{'path': 'a.go', 'line': 3, 'severity': 'high', 'title': 'T', 'body': 'B'}]}`,
		"trailing commas": `{"summary": "S", "findings": [{"path": "a.go", "line": 3, "severity": "high", "title": "T", "body": "B",},],}`,
		"python literals": `{"summary": "S", "findings": [{"path": "a.go", "line": 3, "severity": "high", "title": "T", "body": "B", "existingCode": None}]}`,
		"think block":     "<think>\nthe user wants JSON {maybe}\n</think>\n" + `{"summary": "S", "findings": [{"path": "a.go", "line": 3, "severity": "high", "title": "T", "body": "B"}]}`,
	} {
		got, err := Parse(jsonString(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []pipeline.Finding{{Path: "a.go", Line: 3, Severity: "high", Title: "T", Body: "B"}}
		if got.Summary != "S" || !reflect.DeepEqual(got.Findings, want) {
			t.Errorf("%s: got %q %+v", name, got.Summary, got.Findings)
		}
	}
}

// TestParseReviewUnreadable: JSON that cannot be read is never shown.
func TestParseReviewUnreadable(t *testing.T) {
	text := `Review: {"summary": "SQL" "findings": [} {{ "path": a.go ]] done`
	got, err := Parse(jsonString(text))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Unreadable || got.Summary != "" || len(got.Findings) != 0 || got.Format != FormatUnreadable || got.Quality != "unreadable" {
		t.Fatalf("got %+v", got)
	}
	if got.AnswerChars != len([]rune(text)) {
		t.Errorf("answer chars %d, want %d", got.AnswerChars, len([]rune(text)))
	}
}

// TestParseReviewFindingWithoutPath: a finding that names no file is moved
// into the summary, not lost and not posted without a path.
func TestParseReviewFindingWithoutPath(t *testing.T) {
	got, err := Parse(json.RawMessage(`{"summary":"S","findings":[{"path":"a.go","title":"T","severity":"low"},{"title":"General","body":"Add tests.","severity":"high"},{"path":"  ","body":"Blank path."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != 1 || got.Findings[0].Path != "a.go" {
		t.Fatalf("findings %+v", got.Findings)
	}
	want := "S\n\n**Findings not tied to a file**\n\n- **High** · General: Add tests.\n- **Medium** · Blank path."
	if got.Summary != want {
		t.Errorf("summary %q, want %q", got.Summary, want)
	}
}
