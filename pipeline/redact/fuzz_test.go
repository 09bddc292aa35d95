package redact_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/redact/corpus"
)

// FuzzSecrets checks the redactor's promises on any input: no panic, the
// same number of lines, no line grown by more than MaxLineGrowth, nothing
// changed without a count, and a second pass adds nothing. Its first inputs: the
// corpus, expanded.
func FuzzSecrets(f *testing.F) {
	classes, err := corpus.Load(corpusPath)
	if err != nil {
		f.Fatal(err)
	}
	samples, err := corpus.Samples(classes, 3)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range samples {
		f.Add(s.Text)
	}
	f.Add("-----BEGIN EC " + "PRIVATE KEY-----\nabc\n-----END EC " + "PRIVATE KEY-----")
	f.Add(`password="` + strings.Repeat(`a="b" `, 40))
	f.Fuzz(func(t *testing.T, s string) {
		counts := map[string]int{}
		done := make(chan string, 1)
		go func() { done <- redact.Secrets(s, counts) }()
		var out string
		select {
		case out = <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("hang on %q", s)
		}
		n := 0
		for k, v := range counts {
			if v <= 0 {
				t.Fatalf("count %s = %d", k, v)
			}
			n += v
		}
		if n == 0 && out != s {
			t.Fatalf("changed without counting: %q -> %q", s, out)
		}
		in, got := strings.Split(s, "\n"), strings.Split(out, "\n")
		if len(in) != len(got) {
			t.Fatalf("%d lines became %d: %q -> %q", len(in), len(got), s, out)
		}
		for i := range in {
			if len(got[i]) > len(in[i])+redact.MaxLineGrowth {
				t.Fatalf("line %d grew from %d to %d bytes: %q -> %q", i+1, len(in[i]), len(got[i]), in[i], got[i])
			}
		}
		if again := redact.Secrets(out, nil); again != out {
			t.Fatalf("a second pass changed more: %q -> %q -> %q", s, out, again)
		}
	})
}
