package pipeline

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuneCount: the ASCII fast path counts as utf8.RuneCountInString does,
// invalid bytes and runes across the eight-byte steps included.
func TestRuneCount(t *testing.T) {
	parts := []string{"a", "abcdefgh", "é", "日本", "\xff", "\xe6\x97", "🙂", "\x80\x80", "\n\t", "0123456"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := RuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("case %d: RuneCount(%q) = %d, want %d", i, s, got, want)
		}
	}
}

func TestLooksBinary(t *testing.T) {
	pad := strings.Repeat("a", BinarySniff-1)
	for _, tt := range []struct {
		name string
		data string
		want bool
	}{
		{"empty", "", false},
		{"text", "package a\n", false},
		{"NUL first", "\x00abc", true},
		{"NUL last sniffed byte", pad + "\x00", true},
		{"NUL past the sniff", pad + "a\x00", false},
	} {
		if got := LooksBinary([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: LooksBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIsFullCommit(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef01234567": true,
		"0123456789ABCDEF0123456789abcdef01234567": true,
		"0123456789abcdef0123456789abcdef0123456":  false,
		"0123456789abcdef0123456789abcdef0123456g": false,
		"HEAD": false, "": false,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": true,
	} {
		if got := IsFullCommit(s); got != want {
			t.Errorf("IsFullCommit(%q) = %v, want %v", s, got, want)
		}
	}
}
