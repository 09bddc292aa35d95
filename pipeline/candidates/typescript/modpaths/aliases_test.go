package modpaths

import (
	"slices"
	"testing"
)

func TestParseAliases(t *testing.T) {
	cfg := `{
  // the package imports itself by name
  "compilerOptions": {
    "strict": true, /* a comment with "quotes" */
    "baseUrl": ".",
    "paths": {
      "app": ["./src/index.ts"],
      "app/*": ["./src/*.ts",],
      "@/*": ["src/*"],
      "bad/*/*": ["src/*/*"],
      "up/*": ["../elsewhere/*"],
    },
  },
  "include": ["src/**/*", "http://not-a-comment"]
}`
	a := Parse([]byte(cfg))
	if a == nil {
		t.Fatal("Parse returned nil")
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"app", []string{"src/index.ts"}},
		{"app/middleware", []string{"src/middleware.ts"}},
		{"@/lib/x", []string{"src/lib/x"}},
		{"apple", nil},
		{"bad/a/b", nil},
		{"up/x", nil},
		{"react", nil},
	} {
		got := a.Resolve(tc.spec)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("resolve(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	for _, bad := range []string{"", "not json", `{"compilerOptions": {}}`, `{"compilerOptions": {"baseUrl": "/abs", "paths": {"a": ["b"]}}}`, "/* open"} {
		if a := Parse([]byte(bad)); a != nil {
			t.Errorf("Parse(%q) = %+v, want nil", bad, a)
		}
	}
	var none *Aliases
	if got := none.Resolve("app"); got != nil {
		t.Errorf("nil aliases resolve to %v", got)
	}
}
