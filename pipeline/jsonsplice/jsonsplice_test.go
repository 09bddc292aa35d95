package jsonsplice

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAppendString: the escaper appends what encoding/json writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\u2028", "\xff", "\x00\x1f\"\\", "é\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppendString writes the collect package's sources as JSON
// strings, as a context answer's diffs and sources are written.
func BenchmarkAppendString(b *testing.B) {
	paths, _ := filepath.Glob("../collect/*.go")
	var srcs []string
	n := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, string(src))
		n += len(src)
	}
	var buf []byte
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range srcs {
			buf = AppendString(buf[:0], s)
		}
	}
}

// doc is a value with large and small strings, some repeated.
type doc struct {
	Title string
	Parts []string
}

// TestWriteAsMarshal: whatever the window and the room kept, and when a
// small field imitates a placeholder, Write gives json.Marshal's bytes.
func TestWriteAsMarshal(t *testing.T) {
	big := func(i int) string { return strings.Repeat(fmt.Sprintf("<%d> \"é\" \u2028\n", i), 30+i) }
	whole := doc{Title: "t", Parts: []string{big(1), "small", big(2), big(1), big(3)}}
	for _, tc := range []struct {
		name         string
		window, keep int
		title        string
	}{
		{"one window", 1 << 20, 1 << 20, "t"},
		{"a string a window, nothing kept", 1, 0, "t"},
		{"imitated placeholder", 1 << 20, 1 << 20, "\x00prscout:n:0\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := whole
			w.Title = tc.title
			s := New("n")
			s.Window, s.Keep = tc.window, tc.keep
			skel := doc{Title: w.Title, Parts: append([]string(nil), w.Parts...)}
			for i := range skel.Parts {
				s.Hold(&skel.Parts[i])
			}
			if len(s.big) != 4 {
				t.Fatalf("held %d strings, want the 4 of %d bytes or more", len(s.big), MinLen)
			}
			var got bytes.Buffer
			if err := s.Write(&got, skel, w); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(w)
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("got %s\nwant %s", got.Bytes(), want)
			}
		})
	}
}
