package scope

import "testing"

// TestCutText: a bound keeps whole lines when it can, and never splits a
// multi-byte rune.
func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"ééé", 3, "é", true},
		{"ab\ncd\nef", 7, "ab\ncd\n", true},
		{"abc", 0, "abc", false},
		{"abc", 3, "abc", false},
	} {
		if got, cut := cutText(tc.in, tc.n); got != tc.want || cut != tc.cut {
			t.Errorf("cutText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}
