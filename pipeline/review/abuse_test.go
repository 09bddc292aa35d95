package review

import (
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

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

// TestAbuseSanitizerNesting: a hostile summary of 64 KiB is sanitized in
// well under 100ms, its output stays within the stated bound, and no image
// or foreign link survives.
func TestAbuseSanitizerNesting(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	for name, in := range nestedMarkdown(64 << 10) {
		start := time.Now()
		got := sanitize.Markdown(in, hosts)
		d := time.Since(start)
		if d > timeScale*100*time.Millisecond {
			t.Errorf("%s: %d bytes took %s", name, len(in), d)
		}
		if len(got) > sanitizeBound(in) {
			t.Errorf("%s: %d bytes grew to %d (bound %d)", name, len(in), len(got), sanitizeBound(in))
		}
		if imageRe.MatchString(got) || strings.Contains(got, "](javascript:") || strings.Contains(got, "](https://evil.example") {
			t.Errorf("%s: active markup survived: %.200q", name, got)
		}
	}
}

// TestAbuseSanitizerLinear: doubling a hostile input at most a little more
// than doubles the time it takes (a quadratic sanitizer quadruples it).
func TestAbuseSanitizerLinear(t *testing.T) {
	hosts := []string{"bitbucket.org"}
	once := func(in string) time.Duration {
		runtime.GC() // a collection left over from the last run is not this run's cost
		start := time.Now()
		sanitize.Markdown(in, hosts)
		return time.Since(start)
	}
	// The two sizes are timed in turns, best of seven each, so a busy
	// machine slows both alike.
	timesOf := func(small, large string) (ts, tl time.Duration) {
		ts, tl = time.Hour, time.Hour
		for range 7 {
			ts, tl = min(ts, once(small)), min(tl, once(large))
		}
		return ts, tl
	}
	// 8x the input: linear is ~8x, quadratic ~64x; the bound leaves room
	// for a loaded machine (under the race detector the 4x pair's ratio
	// reached 11x while linear).
	small, large := nestedMarkdown(16<<10), nestedMarkdown(128<<10)
	for name := range small {
		ts, tl := timesOf(small[name], large[name])
		if tl > 24*ts+2*time.Millisecond {
			t.Errorf("%s: 16 KiB in %s, 128 KiB in %s: not linear", name, ts, tl)
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

// FuzzSanitizerNesting: any input of at most 64 KiB is sanitized within
// 100ms and within the stated output bound.
func FuzzSanitizerNesting(f *testing.F) {
	for _, s := range nestedMarkdown(2 << 10) {
		f.Add(s)
	}
	f.Add("[[![a](b)](c)](d)")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64<<10 {
			return
		}
		start := time.Now()
		got := sanitize.Markdown(s, []string{"bitbucket.org"})
		if d := time.Since(start); d > timeScale*100*time.Millisecond {
			t.Fatalf("%d bytes took %s", len(s), d)
		}
		if len(got) > sanitizeBound(s) {
			t.Fatalf("%d bytes grew to %d (bound %d): %q", len(s), len(got), sanitizeBound(s), s)
		}
	})
}
