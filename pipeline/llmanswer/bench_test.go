package llmanswer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// BenchmarkRead times Read on the /v1/needs benchmark's answer (2,000
// changed files × 20 needs, about 3.5 MB) in the forms a scout answer comes
// in, and on small review answers:
//
//	go test -run '^$' -bench BenchmarkRead -benchmem ./pipeline/llmanswer
func BenchmarkRead(b *testing.B) {
	needs := needsAnswer(2000, 20)
	small, err := os.ReadFile("testdata/review-fenced-prose.txt")
	if err != nil {
		b.Fatal(err)
	}
	quoted, err := os.ReadFile("testdata/review-single-quotes.txt")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name  string
		raw   []byte
		shape Shape
		want  Quality
	}{
		// Parsed JSON, as n8n sends it after a JSON parser node: the
		// fast path, one decode.
		{"needs-3.5MB-json", []byte(needs), scoutShape, Clean},
		// The model's raw text: a ```json block in prose, in a JSON string.
		{"needs-3.5MB-fenced-text", jsonText(b, "Here is what I need:\n```json\n"+needs+"\n```\n"), scoutShape, Clean},
		// The same text cut off 1 KB before its end: the lexer's path.
		{"needs-3.5MB-cut-text", jsonText(b, "```json\n"+needs[:len(needs)-1000]), scoutShape, Salvaged},
		// Python-style quotes throughout: the lexer's path, whole.
		{"needs-3.5MB-single-quotes", jsonText(b, strings.ReplaceAll(needs, `"`, `'`)), scoutShape, Repaired},
		{"review-2KB-fenced-text", jsonText(b, string(small)), reviewShape, Clean},
		{"review-400B-single-quotes", jsonText(b, string(quoted)), reviewShape, Repaired},
	}
	// The floor: encoding/json decoding the same 3.5 MB into any, which any
	// reader of a JSON answer pays.
	b.Run("baseline-encoding-json-3.5MB", func(b *testing.B) {
		b.SetBytes(int64(len(needs)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal([]byte(needs), &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if a := Read(c.raw, c.shape); a.Quality != c.want {
				b.Fatalf("quality %s, want %s: %q", a.Quality, c.want, a.Warnings)
			}
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			for b.Loop() {
				Read(c.raw, c.shape)
			}
		})
	}
}
