package redact_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/redact/corpus"
)

// Kept answers as Secrets, with the same counts, the first time a text is
// seen and every time after: the corpus's samples joined into texts long
// enough to be kept, each redacted three times.
func TestKeptAnswersAsSecrets(t *testing.T) {
	samples, err := corpus.Samples(loadCorpus(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var b strings.Builder
	for _, s := range samples {
		b.WriteString(s.Text)
		b.WriteByte('\n')
		if b.Len() > 4<<10 {
			texts = append(texts, b.String())
			b.Reset()
		}
	}
	texts = append(texts, b.String(), strings.Repeat("no secret here\n", 400))
	redacted := 0
	for range 3 {
		for _, s := range texts {
			want, got := map[string]int{}, map[string]int{"other": 1}
			out := redact.Kept(s, got)
			if exp := redact.Secrets(s, want); out != exp {
				t.Fatalf("Kept differs from Secrets on %q", s[:80])
			}
			want["other"] = 1
			if !maps.Equal(got, want) {
				t.Fatalf("counts %v, want %v", got, want)
			}
			if len(want) > 1 {
				redacted++
			}
		}
	}
	if redacted == 0 {
		t.Fatal("no text had a secret")
	}
}
