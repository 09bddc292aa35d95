package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestExtractKeys(t *testing.T) {
	tests := []struct {
		name                       string
		explicit                   []string
		title, branch, description string
		want                       []string
	}{
		{name: "nothing", want: nil},
		{name: "title prefix", title: "PROJ-123: fix login", want: []string{"PROJ-123"}},
		{name: "branch upper", branch: "feature/PROJ-123-login", want: []string{"PROJ-123"}},
		{name: "branch lower", branch: "feature/proj-123-login", want: []string{"PROJ-123"}},
		{name: "branch mixed case", branch: "bugfix/Proj-9", want: []string{"PROJ-9"}},
		{name: "branch underscore separates words", branch: "bugfix_proj-7_retry", want: []string{"PROJ-7"}},
		{name: "upper underscore project key kept", title: "MY_PROJ-4 tidy", want: []string{"MY_PROJ-4"}},
		{name: "lower keys ignored in title", title: "proj-123 fix", want: nil},
		{name: "lower keys ignored in description", description: "see proj-1", want: nil},
		{name: "priority and dedupe",
			explicit: []string{" abc-1 ", "ABC-1"}, title: "DEF-2 and ABC-1", branch: "ghi-3", description: "DEF-2, JKL-4",
			want: []string{"ABC-1", "DEF-2", "GHI-3", "JKL-4"}},
		{name: "explicit malformed dropped", explicit: []string{"PROJ", "123", "P-1", "PROJ-0", "proj-12"}, want: []string{"PROJ-12"}},
		{name: "explicit deny-listed prefix kept", explicit: []string{"SHA-1"}, want: []string{"SHA-1"}},
		{name: "encodings and standards are not keys", title: "Use UTF-8 and SHA-256", description: "ISO-8601 dates per RFC-3339; CVE-2024-12345",
			want: nil},
		{name: "time zones are not keys", description: "runs at UTC-5 and GMT-8", want: nil},
		{name: "single letter project refused", title: "A-1 B-22", want: nil},
		{name: "project longer than 10 refused", title: "ABCDEFGHIJK-1", want: nil},
		{name: "project of 10 accepted", title: "ABCDEFGHIJ-1", want: []string{"ABCDEFGHIJ-1"}},
		{name: "digit in first two refused", title: "X86-64 build, A1-2", want: nil},
		{name: "digits later accepted", title: "AB1-2 fix", want: []string{"AB1-2"}},
		{name: "version tail not a key", branch: "renovate/lodash-4.17.21", want: nil},
		{name: "branch words not keys", branch: "release-2024", want: nil},
		{name: "branch word upper is a key", branch: "FIX-12", want: []string{"FIX-12"}},
		{name: "node version branch", branch: "renovate/node-18", want: nil},
		{name: "glued to word not a key", title: "xPROJ-1 PROJ-2x PROJ-3", want: []string{"PROJ-3"}},
		{name: "leading zero refused", title: "PROJ-007", want: nil},
		{name: "too many digits refused", title: "PROJ-1234567890", want: nil},
		{name: "browse url", description: "https://acme.atlassian.net/browse/OPS-77?focus=1", want: []string{"OPS-77"}},
		{name: "markdown and punctuation", description: "Fixes [PROJ-5](x), (PROJ-6). \"PROJ-7\"", want: []string{"PROJ-5", "PROJ-6", "PROJ-7"}},
		{name: "glued to non-ascii letter", description: "éPROJ-1 ·PROJ-2", want: nil},
		{name: "several in branch", branch: "proj-1-proj-2", want: []string{"PROJ-1", "PROJ-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExtractKeys(tt.explicit, tt.title, tt.branch, tt.description)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ExtractKeys = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsIssueKey(t *testing.T) {
	for s, want := range map[string]bool{
		"PROJ-1": true, "AB-123456789": true, "MY_P-2": true,
		"proj-1": false, "P-1": false, "PROJ-": false, "-1": false, "PROJ-01": false,
		"PROJ-1/../x": false, "PROJ-1 ": false, "A_B-1": false, "AB-1234567890": false,
	} {
		if got := IsIssueKey(s); got != want {
			t.Errorf("IsIssueKey(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzExtractKeys(f *testing.F) {
	f.Add("PROJ-1 fix", "feature/proj-2_x", "see OPS-3, UTF-8")
	f.Add("", "bugfix_ab-1.2", "éPROJ-1")
	f.Fuzz(func(t *testing.T, title, branch, desc string) {
		keys := ExtractKeys([]string{title}, title, branch, desc)
		seen := map[string]bool{}
		for _, k := range keys {
			if !IsIssueKey(k) {
				t.Fatalf("malformed key %q", k)
			}
			if seen[k] {
				t.Fatalf("duplicate key %q", k)
			}
			seen[k] = true
			if !strings.Contains(strings.ToUpper(title+"\x00"+branch+"\x00"+desc), k[:strings.IndexByte(k, '-')]) {
				t.Fatalf("key %q not from the input", k)
			}
		}
	})
}

func ExampleExtractKeys() {
	keys := ExtractKeys([]string{"ops-7"}, "PROJ-123: use UTF-8 everywhere", "feature/proj-124-utf8", "Follows PROJ-100 (ISO-8601 dates).")
	fmt.Println(keys)
	// Output: [OPS-7 PROJ-123 PROJ-124 PROJ-100]
}

// BenchmarkExtractKeys scans a 64 KiB description dense with key-like words.
func BenchmarkExtractKeys(b *testing.B) {
	desc := strings.Repeat("Fixes PROJ-12, see UTF-8 and release-2024; OPS-7 (ISO-8601). ", 1024)
	b.SetBytes(int64(len(desc)))
	for b.Loop() {
		ExtractKeys([]string{"A-1"}, "PROJ-1: x", "feature/proj-2-y", desc)
	}
}

func TestExtractKeysFrom(t *testing.T) {
	many := make([]string, MaxCommitMessages+1)
	for i := range many {
		many[i] = "chore: tidy"
	}
	many[MaxCommitMessages] = "LATE-1 past the bound"
	tests := []struct {
		name string
		src  KeySources
		want []string
	}{
		{name: "branch and commit message link the same issue",
			src:  KeySources{Branch: "feature/SHOP-12-limit", Commits: []string{"Fixes SHOP-12"}},
			want: []string{"SHOP-12"}},
		{name: "commit messages after the description",
			src:  KeySources{Title: "Limit carts", Description: "Follows SHOP-10.", Commits: []string{"SHOP-12 #comment done", "Refs SHOP-11\n\nand SHOP-10"}},
			want: []string{"SHOP-10", "SHOP-12", "SHOP-11"}},
		{name: "lower-case keys in commit messages are not keys",
			src:  KeySources{Commits: []string{"fix shop-12 typo", "bump node-18"}},
			want: nil},
		{name: "other projects do not link",
			src:  KeySources{Title: "OPS-3: SHOP-12", Branch: "feature/ops-4-shop-13", Commits: []string{"CVE-2024-1 OPS-5 SHOP-14"}, Projects: []string{" shop ", ""}},
			want: []string{"SHOP-12", "SHOP-13", "SHOP-14"}},
		{name: "explicit keys are kept whatever the projects",
			src:  KeySources{Explicit: []string{"ops-9"}, Title: "OPS-3 SHOP-1", Projects: []string{"SHOP"}},
			want: []string{"OPS-9", "SHOP-1"}},
		{name: "empty projects accept any",
			src:  KeySources{Title: "OPS-3 SHOP-1", Projects: []string{"", " "}},
			want: []string{"OPS-3", "SHOP-1"}},
		{name: "project filter matches whole project keys",
			src:  KeySources{Title: "SHOPX-1 SHO-2 SHOP-3", Projects: []string{"SHOP"}},
			want: []string{"SHOP-3"}},
		{name: "only the first commits are read",
			src:  KeySources{Commits: many},
			want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExtractKeysFrom(tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("ExtractKeysFrom = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsProjectKey(t *testing.T) {
	for s, want := range map[string]bool{"SHOP": true, "MY_PROJ": true, "AB1": true, "shop": false, "S": false, "1AB": false, "SHOP-1": false, "": false} {
		if got := IsProjectKey(s); got != want {
			t.Errorf("IsProjectKey(%q) = %v, want %v", s, got, want)
		}
	}
}
