package ctext

import (
	"bytes"
	"strings"
	"testing"
)

func TestFirstBranches(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no conditional", "#include \"a.h\"\n#define X 1\nint f(void);\n", ""},
		{"first branch kept",
			"#ifdef _WIN32\nint a;\n#elif defined(__APPLE__)\nint b;\n#else\nint c;\n#endif\nint d;\n",
			"\nint a;\n\n\n\n\n\nint d;\n"},
		{"after #if 0, the next branch",
			"#if 0 /* old */\nint a;\n#else\nint b;\n#endif\n",
			"\n\n\nint b;\n\n"},
		{"#if 0 with no other branch",
			"#if 0\nint a;\n#define A\n#endif\nint b;\n",
			"\n\n\n\nint b;\n"},
		{"nested groups in a dead branch stay dead",
			"#if X\nint a;\n#else\n#ifdef Y\nint b;\n#else\nint c;\n#endif\n#endif\n",
			"\nint a;\n\n\n\n\n\n\n\n"},
		{"nested groups in a live branch",
			"#ifndef H\n#define H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#endif\n",
			"\n#define H\n\nextern \"C\" {\n\nint f(void);\n\n"},
		{"a continued directive, an unmatched #endif",
			"  #  if A && \\\n  B\nint a;\n#endif\n#endif\nint b;\n",
			"\n\nint a;\n\n\nint b;\n"},
		{"unterminated", "#ifdef A\nint a;\n#else\nint b;", "\nint a;\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FirstBranches([]byte(c.src))
			if c.want == "" {
				if got != nil {
					t.Fatalf("got %q, want nil", got)
				}
				return
			}
			if len(got) != len(c.src) {
				t.Fatalf("%d bytes, want %d", len(got), len(c.src))
			}
			// The blanks are spaces: compare with them trimmed per line.
			var lines []string
			for _, l := range strings.Split(string(got), "\n") {
				lines = append(lines, strings.TrimLeft(l, " "))
			}
			if s := strings.Join(lines, "\n"); s != c.want {
				t.Errorf("got %q, want %q", s, c.want)
			}
		})
	}
}

// FuzzFirstBranches: the configuration keeps every byte's place (same
// length, the same newlines) and only blanks bytes.
func FuzzFirstBranches(f *testing.F) {
	f.Add([]byte("#ifdef A\nint a;\n#else\nint b;\n#endif\n"))
	f.Add([]byte("#if 0\n#if 1\\\n\n#elif\n#endif"))
	f.Add([]byte("#endif\n#else\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		got := FirstBranches(src)
		if got == nil {
			return
		}
		if len(got) != len(src) {
			t.Fatalf("%d bytes, want %d", len(got), len(src))
		}
		for i := range src {
			if got[i] != src[i] && (got[i] != ' ' || src[i] == '\n') {
				t.Fatalf("byte %d: %q became %q", i, src[i], got[i])
			}
		}
		if bytes.Count(got, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Fatal("newlines changed")
		}
	})
}
