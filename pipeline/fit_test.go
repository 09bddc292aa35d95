package pipeline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutAtWord(t *testing.T) {
	tests := []struct {
		s          string
		n          int
		head, rest string
	}{
		{"short enough", 20, "short enough", ""},
		{"the quick brown fox jumps", 12, "the quick…", "brown fox jumps"},
		{"abcdefghijklmnop", 6, "abcde…", "fghijklmnop"},
		{"éé éé éé éé", 6, "éé éé…", "éé éé"},
	}
	for _, tt := range tests {
		head, rest := CutAtWord(tt.s, tt.n)
		if head != tt.head || rest != tt.rest {
			t.Errorf("CutAtWord(%q, %d) = %q, %q; want %q, %q", tt.s, tt.n, head, rest, tt.head, tt.rest)
		}
		if utf8.RuneCountInString(head) > tt.n {
			t.Errorf("CutAtWord(%q, %d): head of %d runes", tt.s, tt.n, utf8.RuneCountInString(head))
		}
	}
}

func TestAnnotationFitKeepsEveryWord(t *testing.T) {
	words := make([]string, 0, 400)
	for i := 0; len(strings.Join(words, " ")) < 2000; i++ {
		words = append(words, "word"+strings.Repeat("x", i%7))
	}
	title := strings.Join(words, " ")
	a := Annotation{ExternalID: "prscout-1", Summary: title, Details: "the body", AnnotationType: AnnotationBug}.Fit()
	if n := utf8.RuneCountInString(a.Summary); n > MaxAnnotationSummary || !strings.HasSuffix(a.Summary, "…") {
		t.Fatalf("summary of %d runes, ending %q", n, a.Summary[len(a.Summary)-5:])
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	kept := strings.TrimSuffix(a.Summary, "…")
	if !strings.HasPrefix(title, kept) || title[len(kept)] != ' ' {
		t.Fatalf("summary not cut at a word: %q", kept[len(kept)-20:])
	}
	moved := strings.TrimPrefix(a.Details, "…")
	if got := kept + " " + strings.TrimSuffix(moved, "\n\nthe body"); got != title {
		t.Fatalf("summary and details lose text:\n%q\nvs\n%q", got, title)
	}
	if !strings.HasSuffix(a.Details, "\n\nthe body") {
		t.Fatalf("details lost the body: %q", a.Details)
	}
	long := Annotation{ExternalID: "x", Summary: title, AnnotationType: AnnotationBug}
	if err := long.Validate(); err == nil {
		t.Fatal("Validate accepted a 2,000-character summary")
	}
	short := Annotation{ExternalID: "x", Summary: "fine", AnnotationType: AnnotationBug}
	if short.Fit() != short {
		t.Fatal("Fit changed a short annotation")
	}
}
