package lexed

import (
	"slices"
	"testing"
)

// TestLangOf: readers are chosen from the one table of languages.
func TestLangOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		lang Lang
		code bool // read by the identifier search
	}{
		{"a/b.go", LangGo, false},
		{"src/App.TSX", LangJS, false},
		{"lib/x.mjs", LangJS, false},
		{"pkg/types.pyi", LangPython, false},
		{"src/main/java/A.java", LangJava, false},
		{"src/lib.rs", LangOther, true},
		{"app/models/user.rb", LangOther, true},
		{"include/x.hxx", LangOther, true},
		{"deploy/values.yaml", LangOther, false},
		{"README.md", LangOther, false},
		{"Dockerfile", LangOther, false},
		{"notes.txt", LangOther, false},
	} {
		if got := LangOf(tc.path); got != tc.lang {
			t.Errorf("LangOf(%q) = %v, want %v", tc.path, got, tc.lang)
		}
		if got := IsCode(tc.path); got != tc.code {
			t.Errorf("IsCode(%q) = %v, want %v", tc.path, got, tc.code)
		}
	}
}

// TestFamilyGlobs: each family's pathspecs are its languages' extensions.
func TestFamilyGlobs(t *testing.T) {
	for l, want := range map[Lang][]string{
		LangJS:     {"*.cjs", "*.cts", "*.js", "*.jsx", "*.mjs", "*.mts", "*.ts", "*.tsx"},
		LangPython: {"*.py", "*.pyi"},
		LangJava:   {"*.java"},
		LangGo:     {"*.go"},
		LangOther:  nil,
	} {
		if got := FamilyGlobs(l); !slices.Equal(got, want) {
			t.Errorf("FamilyGlobs(%v) = %v, want %v", l, got, want)
		}
	}
}
