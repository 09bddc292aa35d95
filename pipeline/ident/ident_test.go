package ident

import (
	"slices"
	"strings"
	"testing"
)

func TestAll(t *testing.T) {
	for _, tt := range []struct {
		s    string
		c    Chars
		want []string
	}{
		{"func (r *T) Do(x int) error {", 0, []string{"func", "r", "T", "Do", "x", "int", "error"}},
		{"a1 9abc 0x1F _b2 x.y", 0, []string{"a1", "_b2", "x", "y"}},
		{"$el = jQuery$(a)", 0, []string{"el", "jQuery", "a"}},
		{"$el = jQuery$(a)", Dollar, []string{"$el", "jQuery$", "a"}},
		{"naïve café", 0, []string{"na", "ve", "caf"}},
		{"naïve café", Unicode, []string{"naïve", "café"}},
		{"", Dollar | Unicode, nil},
		{"123 456", Unicode, nil},
	} {
		if got := All(tt.s, tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("All(%q, %d) = %q, want %q", tt.s, tt.c, got, tt.want)
		}
	}
}

func TestNextOnBytes(t *testing.T) {
	src := []byte("  x1 := 2y")
	start, end, ok := Next(src, 0, 0)
	if !ok || string(src[start:end]) != "x1" {
		t.Fatalf("Next = %d, %d, %v", start, end, ok)
	}
	if _, _, ok := Next(src, end, 0); ok {
		t.Error("a digit-led run is no identifier")
	}
	if End(src, 2, 0) != 4 || End(src, 0, 0) != 0 {
		t.Error("End")
	}
}

func TestContains(t *testing.T) {
	src := []byte("x := helper(a) + helpers($helper) + é_helper")
	for _, tt := range []struct {
		w    string
		c    Chars
		want bool
	}{
		{"helper", 0, true},
		{"help", 0, false},
		{"helpers", 0, true},
		{"", 0, false},
		{"_helper", Unicode, false},
		{"_helper", 0, true},
	} {
		if got := Contains(src, tt.w, tt.c); got != tt.want {
			t.Errorf("Contains(%q, %d) = %v, want %v", tt.w, tt.c, got, tt.want)
		}
	}
	if !Contains([]byte("$helper"), "helper", 0) || Contains([]byte("$helper"), "helper", Dollar) {
		t.Error("'$' is an identifier byte only with Dollar")
	}
}

func FuzzNext(f *testing.F) {
	f.Add("a1 9abc $x é", uint8(3))
	f.Fuzz(func(t *testing.T, s string, c uint8) {
		for _, id := range All(s, Chars(c)) {
			if id == "" || id[0] >= '0' && id[0] <= '9' || End(id, 0, Chars(c)) != len(id) {
				t.Fatalf("bad identifier %q", id)
			}
		}
	})
}

// TestLensNeverTurnsAwayAName: every name added may be one, at any length;
// names of other first bytes or lengths are turned away.
func TestLensNeverTurnsAwayAName(t *testing.T) {
	var l Lens
	names := []string{"a", "Foo", "fooBar", strings.Repeat("x", 63), strings.Repeat("y", 200)}
	for _, n := range names {
		l.Add(n)
	}
	l.Add("")
	for _, n := range names {
		if !l.May(n) || !l.MayBytes(n[0], len(n)) {
			t.Errorf("May(%q) false for a name added", n)
		}
	}
	for _, n := range []string{"", "b", "Fo", "Fooo", "gooBar", strings.Repeat("x", 62)} {
		if l.May(n) {
			t.Errorf("May(%q) true for a name of another first byte or length", n)
		}
	}
	if !l.May(strings.Repeat("y", 64)) {
		t.Error("names of 63 bytes and more share one bit: May must say they may be")
	}
}

func TestSetAnswersWhatWasPut(t *testing.T) {
	var s Set[int]
	if _, ok := s.Get("a"); ok {
		t.Fatal("an empty Set answered a name")
	}
	long := strings.Repeat("y", 200)
	for i, n := range []string{"a", "Foo", long} {
		s.Put(n, i+1)
	}
	s.Put("Foo", 7)
	for n, want := range map[string]int{"a": 1, "Foo": 7, long: 3} {
		if v, ok := s.Get(n); !ok || v != want {
			t.Errorf("Get(%q) = %d, %v; want %d", n, v, ok, want)
		}
	}
	for _, n := range []string{"", "b", "Fo", "Fop", strings.Repeat("y", 199), strings.Repeat("y", 201)} {
		if v, ok := s.Get(n); ok {
			t.Errorf("Get(%q) = %d for a name never put", n, v)
		}
	}
}
