package jira

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/wiki/*.golden.md")

// TestWikiToMarkdownGolden converts every testdata/wiki/*.wiki and compares
// with its .golden.md; go test ./jira -run Golden -update rewrites them.
func TestWikiToMarkdownGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/wiki/*.wiki")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := wikiToMarkdown(string(src)) + "\n"
			golden := strings.TrimSuffix(in, ".wiki") + ".golden.md"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s:\n--- got\n%s--- want\n%s", in, got, want)
			}
		})
	}
}

func TestFieldText(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, ""},
		{"wiki string", "* a\n* b", "- a\n- b"},
		{"number", 3.5, "3.5"},
		{"big number", 1e21, "1000000000000000000000"},
		{"bool", true, "true"},
		{"select option", map[string]any{"self": "x", "value": "Must have", "id": "10001"}, "Must have"},
		{"user", map[string]any{"displayName": "Kim"}, "Kim"},
		{"unknown object keeps strings", map[string]any{"self": "s", "b": "2", "a": "1", "n": 3.0}, "a: 1; b: 2"},
		{"array of strings", []any{"one", "", "two\nlines"}, "- one\n- two\n  lines"},
		{"array of options", []any{map[string]any{"value": "x"}, map[string]any{"value": "y"}}, "- x\n- y"},
		{"adf task list", map[string]any{"type": "doc", "content": []any{
			map[string]any{"type": "taskList", "content": []any{
				map[string]any{"type": "taskItem", "attrs": map[string]any{"state": "DONE"}, "content": []any{map[string]any{"type": "text", "text": "done"}}},
				map[string]any{"type": "taskItem", "attrs": map[string]any{"state": "TODO"}, "content": []any{map[string]any{"type": "text", "text": "todo"}}},
			}},
		}}, "- [x] done\n- [ ] todo"},
		{"adf code and break", map[string]any{"type": "doc", "content": []any{
			map[string]any{"type": "paragraph", "content": []any{
				map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "hardBreak"}, map[string]any{"type": "text", "text": "b"}}},
			map[string]any{"type": "codeBlock", "attrs": map[string]any{"language": "go"}, "content": []any{map[string]any{"type": "text", "text": "x := 1"}}},
			map[string]any{"type": "rule"},
			map[string]any{"type": "unknownNode", "content": []any{map[string]any{"type": "text", "text": "kept"}}},
		}}, "a\nb\n```go\nx := 1\n```\n---\nkept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldText(tt.v); got != tt.want {
				t.Errorf("fieldText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"hello world", 6, "hello\n… (truncated, 5 more characters)"},
		{"한국어 텍스트입니다", 3, "한국어\n… (truncated, 7 more characters)"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.max); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func FuzzDescription(f *testing.F) {
	for _, p := range []string{"headings-lists.wiki", "code-blocks.wiki", "crlf.wiki"} {
		b, err := os.ReadFile(filepath.Join("testdata/wiki", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), 50)
	}
	f.Add("{code}\n{code}{noformat}", 1)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		md := wikiToMarkdown(s)
		out := truncate(md, max)
		n := utf8.RuneCountInString(md)
		if n <= max && out != md {
			t.Fatalf("changed text within the limit")
		}
		if n > max && !strings.Contains(out, "(truncated, ") {
			t.Fatalf("cut without a note")
		}
		if utf8.ValidString(md) && !utf8.ValidString(out) {
			t.Fatalf("truncate broke UTF-8")
		}
	})
}

// BenchmarkDescription converts and truncates a 64 KiB wiki description.
func BenchmarkDescription(b *testing.B) {
	src, err := os.ReadFile("testdata/wiki/headings-lists.wiki")
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Repeat(string(src), 64<<10/len(src))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		truncate(wikiToMarkdown(s), maxDescriptionChars)
	}
}
