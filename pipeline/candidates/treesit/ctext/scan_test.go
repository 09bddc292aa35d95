package ctext

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	src := "#include \"a/b.h\"\n  #  include <sys/x.h>\n#import \"m.h\"\n#define X 1\n" +
		"// lib_step in a comment\n/* lib_step\n lib_step */ int f(void) {\n" +
		"  const char *s = \"lib_step \\\" lib_step\";\n  char c = '\\'';\n  auto r = R\"x(lib_step)\" )x\";\n" +
		"  long n = 1'000'000; double e = 1e+5;\n  return lib_step(n) + other(c);\n}\n"
	sc := Scan([]byte(src), map[string]bool{"lib_step": true, "other": true, "missing": true})
	if want := []string{"a/b.h", "sys/x.h", "m.h"}; !slices.Equal(sc.Includes, want) {
		t.Errorf("includes %q, want %q", sc.Includes, want)
	}
	if want := []string{"lib_step", "other"}; !slices.Equal(sc.Words, want) {
		t.Errorf("words %q, want %q", sc.Words, want)
	}
	if sc := Scan([]byte("int g(void) { /* lib_step */ return \"lib_step\"[0]; }\n"), map[string]bool{"lib_step": true}); len(sc.Words) != 0 {
		t.Errorf("a name in a comment and a string only: %q", sc.Words)
	}
}

// TestScanUnterminated: raw string prefixes with no delimiter,
// unterminated quotes, comments and includes end where C says they do
// (their line, the raw string's delimiter), and the names after them are
// still found.
func TestScanUnterminated(t *testing.T) {
	for _, unit := range []string{`R"x`, `"a`, "'", "#include <", "1'", `R"(unclosed`} {
		src := []byte(strings.Repeat(unit+"\n", 1000) + "int lib_step;\n")
		want := []string{"lib_step"}
		if unit == `R"(unclosed` {
			want = nil // the raw string runs to the end
		}
		if sc := Scan(src, map[string]bool{"lib_step": true, "x": true, "a": true}); !slices.Equal(sc.Words, want) {
			t.Errorf("%q: words %q, want %q", unit, sc.Words, want)
		}
	}
	if sc := Scan([]byte("/* open\nint lib_step;\n"), map[string]bool{"lib_step": true}); len(sc.Words) != 0 {
		t.Errorf("an open comment: words %q", sc.Words)
	}
}

// FuzzScan: any source scans to words it holds as identifiers and
// includes it names, without a panic.
func FuzzScan(f *testing.F) {
	f.Add([]byte("#include \"a.h\"\nint lib_step(void) { return R\"x(lib_step)x\"[0] + 1'0; }\n"))
	f.Add([]byte("/* lib_step"))
	f.Add([]byte("u8R\"(("))
	f.Fuzz(func(t *testing.T, src []byte) {
		sc := Scan(src, map[string]bool{"lib_step": true, "a": true, "x": true})
		for _, w := range sc.Words {
			if !bytes.Contains(src, []byte(w)) {
				t.Errorf("word %q not in the source", w)
			}
		}
		for _, inc := range sc.Includes {
			if !bytes.Contains(src, []byte(inc)) || strings.Contains(inc, "\n") {
				t.Errorf("include %q not a line of the source", inc)
			}
		}
	})
}
