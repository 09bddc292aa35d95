package llmanswer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// update rewrites the golden files: go test ./pipeline/llmanswer -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// reviewShape is the review stage's test: {summary, findings[]} or a bare
// array of findings.
func reviewShape(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["summary"].(string); ok {
			return true
		}
		_, ok := x["findings"].([]any)
		return ok
	case []any:
		if len(x) == 0 {
			return false
		}
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return false
			}
			_, p := m["path"]
			_, t := m["title"]
			if !p && !t {
				return false
			}
		}
		return true
	}
	return false
}

// scoutShape is the scout stage's test: {needs|files|requests: [...]}, an
// array of file or need objects, or a map of changed file to its needs.
func scoutShape(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"needs", "files", "requests"} {
			if _, ok := x[k].([]any); ok {
				return true
			}
		}
		if len(x) == 0 {
			return false
		}
		for k, e := range x {
			if _, ok := e.([]any); !ok || !strings.ContainsAny(k, "/.") {
				return false
			}
		}
		return true
	case []any:
		if len(x) == 0 {
			return false
		}
		for _, e := range x {
			switch m := e.(type) {
			case string:
			case map[string]any:
				_, n := m["needs"]
				_, o := m["op"]
				_, p := m["path"]
				if !n && !o && !p {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

func shapeFor(name string) Shape {
	if strings.HasPrefix(name, "scout-") {
		return scoutShape
	}
	return reviewShape
}

// golden is what a golden file holds: the Answer without its text.
type golden struct {
	Quality      Quality  `json:"quality"`
	CutOff       bool     `json:"cutOff"`
	FinishReason string   `json:"finishReason,omitempty"`
	Envelope     string   `json:"envelope,omitempty"`
	Block        string   `json:"block,omitempty"`
	TextBytes    int      `json:"textBytes"`
	Unfinished   []string `json:"unfinished,omitempty"`
	ProseBytes   int      `json:"proseBytes,omitempty"`
	Empty        bool     `json:"empty,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	Value        any      `json:"value"`
}

func toGolden(a Answer) golden {
	return golden{Quality: a.Quality, CutOff: a.CutOff, FinishReason: a.FinishReason, Envelope: a.Envelope,
		Block: a.Block, TextBytes: len(a.Text), Unfinished: a.Unfinished, ProseBytes: len(a.Prose), Empty: a.Empty, Warnings: a.Warnings, Value: a.Value}
}

// readCase reads a testdata answer as the API hands it over: a .txt file is
// the model's text, passed as a JSON string (the request's scout or review
// field); a .json file is a JSON value passed as is.
func readCase(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".txt") {
		s, err := json.Marshal(string(b))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return b
}

func TestReadGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") || !(strings.HasSuffix(file, ".txt") || strings.HasSuffix(file, ".json")) {
			continue
		}
		n++
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".txt"), ".json")
		t.Run(name, func(t *testing.T) {
			raw := readCase(t, file)
			a := Read(raw, shapeFor(name))
			checkAnswer(t, a, shapeFor(name))
			got, err := json.MarshalIndent(toGolden(a), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			gf := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(gf, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gf)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("answer differs from %s:\n got: %s\nwant: %s", gf, got, want)
			}
			if strings.HasSuffix(file, ".txt") {
				// The same text as raw bytes reads the same way.
				b, _ := os.ReadFile(file)
				if len(bytes.TrimSpace(b)) == 0 {
					return
				}
				ra := Read(b, shapeFor(name))
				if ra.Quality != a.Quality || ra.Block != a.Block || !reflect.DeepEqual(ra.Value, a.Value) {
					t.Errorf("raw text read as %s %q, JSON string as %s %q", ra.Quality, ra.Block, a.Quality, a.Block)
				}
			}
		})
	}
	if n < 40 {
		t.Errorf("testdata holds %d answers, want at least 40", n)
	}
}

// checkAnswer asserts what holds for every answer.
func checkAnswer(t *testing.T, a Answer, shape Shape) {
	t.Helper()
	switch a.Quality {
	case Clean, Repaired, Salvaged:
		if a.Value == nil || !shape(a.Value) {
			t.Fatalf("quality %s with a value the shape rejects: %v", a.Quality, a.Value)
		}
		if a.Block == "" {
			t.Error("a value without the block it came from")
		}
	case Unreadable:
		if a.Value != nil {
			t.Fatalf("unreadable answer with a value: %v", a.Value)
		}
		if len(a.Warnings) == 0 {
			t.Error("unreadable answer without a warning saying why")
		}
	default:
		t.Fatalf("unknown quality %q", a.Quality)
	}
	if a.CutOff && a.Value != nil && a.Quality != Salvaged {
		t.Errorf("cut-off answer read as %s, want salvaged", a.Quality)
	}
	if a.Quality == Salvaged && !a.CutOff {
		t.Error("salvaged answer that is not cut off")
	}
	if a.Empty && (a.Quality != Unreadable || a.Prose != "") {
		t.Errorf("empty answer read as %s with prose %q", a.Quality, a.Prose)
	}
	if a.Prose != "" && (a.Quality != Unreadable || strings.TrimSpace(a.Prose) != a.Prose) {
		t.Errorf("prose %q on a %s answer, or not trimmed", a.Prose, a.Quality)
	}
	if len(a.Unfinished) > 0 {
		if a.Unfinished[0] != "" {
			t.Errorf("unfinished %q does not start at the root", a.Unfinished)
		}
		for _, p := range a.Unfinished {
			if _, ok := lookup(a.Value, p); !ok {
				t.Errorf("unfinished pointer %q is not in the value", p)
			}
		}
	}
}

// lookup resolves a JSON pointer in v.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i := -1
			if err := json.Unmarshal([]byte(tok), &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// TestReadProse: Prose carries the text only when it holds no attempt at
// JSON, so a caller can show prose but never a broken JSON answer.
func TestReadProse(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"prose", "Looks good to me.", "Looks good to me."},
		{"citations and braces", "Fine, see [1] and [2, 3]; the {placeholder} stays.", "Fine, see [1] and [2, 3]; the {placeholder} stays."},
		{"think block left out", "<think>\nhmm\n</think>\nNo findings.", "No findings."},
		{"code fence in another language", "Consider:\n```go\nif err != nil { return err }\n```", "Consider:\n```go\nif err != nil { return err }\n```"},
		{"broken JSON", "Here: {\"summary\": \"x\" \"y\": [} ]} end", ""},
		{"JSON repaired into another shape", "{\"summary\": , , , }}} more text here", ""},
		{"JSON of another shape", `Here: {"verdict": "ok"}`, ""},
		{"fenced block of another shape", "```json\n[\"a\", \"b\"]\n```", ""},
		{"empty", "   ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Read([]byte(tt.text), reviewShape)
			if a.Quality != Unreadable {
				t.Fatalf("quality %s, want unreadable", a.Quality)
			}
			if a.Prose != tt.want {
				t.Errorf("prose = %q, want %q", a.Prose, tt.want)
			}
		})
	}
}
