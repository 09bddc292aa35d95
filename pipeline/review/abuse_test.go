package review

import (
	"regexp"
	"strings"
	"testing"

	"github.com/prscout/prscout/internal/testalloc"

	"github.com/prscout/prscout/pipeline/sanitize"
)

// imageRe matches a Markdown image with a target.
var imageRe = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)

// sanitizeBound is the output bound sanitize.go states.
func sanitizeBound(in string) int {
	return sanitize.Bound(len(in))
}

// nestedMarkdown returns hostile model summaries of about n bytes each: deep
// and wide image and link nesting, unclosed openers, backtick runs of every
// length, tag openers and mentions.
func nestedMarkdown(n int) map[string]string {
	rep := func(s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	var ticks strings.Builder
	for k := 1; ticks.Len() < n; k++ {
		ticks.WriteString(strings.Repeat("`", k) + " x ")
	}
	depth := n / 16
	return map[string]string{
		"nested-images":    strings.Repeat("![", depth) + "a" + strings.Repeat("](https://evil.example/p)", depth),
		"nested-links":     strings.Repeat("[", depth) + "a" + strings.Repeat("](javascript:alert(1))", depth),
		"nested-mixed":     strings.Repeat("[![", depth/2) + "a" + strings.Repeat("](x:y)](javascript:z)", depth/2),
		"unclosed-openers": rep("[!["),
		"unclosed-targets": rep("[a]("),
		"removed-links":    rep("[](x:y)"),
		"tags":             rep("<a"),
		"mentions":         rep("@a "),
		"backtick-runs":    ticks.String(),
		"parens":           "[a](" + rep("(") + ")",
	}
}

// sanitizeAllocBound bounds the bytes sanitizing n bytes may allocate: a
// copy or a rescan per nesting level allocates far more.
func sanitizeAllocBound(n int) uint64 { return 64*uint64(n) + 256<<10 }

// TestAbuseSanitizerNesting: a hostile summary of 64 KiB is sanitized with
// work bounded by its size (bytes allocated; TestAbuseSanitizerLinear
// compares times), its output stays within the stated bound, and no image
// or foreign link survives.
func TestAbuseSanitizerNesting(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	for name, in := range nestedMarkdown(64 << 10) {
		var got string
		if a := testalloc.Bytes(func() { got = sanitize.Markdown(in, hosts) }); a > sanitizeAllocBound(len(in)) {
			t.Errorf("%s: %d bytes allocated %d KiB", name, len(in), a>>10)
		}
		if len(got) > sanitizeBound(in) {
			t.Errorf("%s: %d bytes grew to %d (bound %d)", name, len(in), len(got), sanitizeBound(in))
		}
		if imageRe.MatchString(got) || strings.Contains(got, "](javascript:") || strings.Contains(got, "](https://evil.example") {
			t.Errorf("%s: active markup survived: %.200q", name, got)
		}
	}
}

// TestAbuseSanitizerLinear: eight times a hostile input allocates at most
// about eight times the bytes (a copy per nesting level allocates 64
// times). The work is counted: times on a loaded machine varied 30x
// between runs of a linear sanitizer.
func TestAbuseSanitizerLinear(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	small, large := nestedMarkdown(16<<10), nestedMarkdown(128<<10)
	for name := range small {
		as := testalloc.Bytes(func() { sanitize.Markdown(small[name], hosts) })
		al := testalloc.Bytes(func() { sanitize.Markdown(large[name], hosts) })
		if al > 10*as+64<<10 {
			t.Errorf("%s: 16 KiB allocated %d KiB, 128 KiB allocated %d KiB: not linear", name, as>>10, al>>10)
		}
	}
}

// TestAbuseSanitizerEscapesOnce: text inside nested images is escaped once
// (no backslashes piling up per level), and an image followed by "(" cannot
// become a link.
func TestAbuseSanitizerEscapesOnce(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	got := sanitize.Markdown("![![![a](x)](y)](z)", hosts)
	if strings.Contains(got, `\\`) || got != `[image: !\[!\[a\](x)\](y)]` {
		t.Errorf("nested images: %q", got)
	}
	got = sanitize.Markdown("![a](x)(javascript:alert(1))", hosts)
	if strings.Contains(strings.ReplaceAll(got, `\]`, ""), "](") {
		t.Errorf("image then target became a link: %q", got)
	}
	deep := strings.Repeat("[", 20) + "a" + strings.Repeat("](https://bitbucket.org/x)", 20)
	got = sanitize.Markdown(deep, hosts)
	if n := strings.Count(got, "[") - strings.Count(got, `\[`); n > sanitize.MaxLinkNesting {
		t.Errorf("%d links nested in each other kept, cap %d: %q", n, sanitize.MaxLinkNesting, got)
	}
}

// FuzzSanitizerNesting: any input of at most 64 KiB is sanitized with
// bounded work (bytes allocated) and within the stated output bound.
func FuzzSanitizerNesting(f *testing.F) {
	for _, s := range nestedMarkdown(2 << 10) {
		f.Add(s)
	}
	f.Add("[[![a](b)](c)](d)")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64<<10 {
			return
		}
		var got string
		if a := testalloc.Bytes(func() { got = sanitize.Markdown(s, []string{"bitbucket.org"}) }); a > sanitizeAllocBound(len(s)) {
			t.Fatalf("%d bytes allocated %d KiB: %q", len(s), a>>10, s)
		}
		if len(got) > sanitizeBound(s) {
			t.Fatalf("%d bytes grew to %d (bound %d): %q", len(s), len(got), sanitizeBound(s), s)
		}
	})
}
