package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// MaxInlinePerPost caps the inline comments one call creates (Bitbucket has
// no batch endpoint: each is one request against the hourly rate limit).
// The most severe findings go first; the rest are listed in the summary and
// posted by the next run, since they carry no fingerprint on the PR yet.
const MaxInlinePerPost = 50

// BySeverity returns the inline comments most severe first (stable).
func BySeverity(in []InlineComment) []InlineComment {
	out := append([]InlineComment(nil), in...)
	sort.SliceStable(out, func(i, j int) bool {
		return reviewanswer.SeverityRank(out[i].Severity) < reviewanswer.SeverityRank(out[j].Severity)
	})
	return out
}

// WithUnposted adds, before the summary's marker, the findings whose inline
// comment could not be created, and those deferred by MaxInlinePerPost, in
// full, so none is lost.
func WithUnposted(markdown string, failed, deferred []InlineComment) string {
	text := unpostedText(failed, deferred)
	if text == "" {
		return markdown
	}
	i := strings.LastIndex(markdown, "[prscout]: #")
	if i < 0 {
		return strings.TrimRight(markdown, "\n") + "\n\n" + text
	}
	return markdown[:i] + text + markdown[i:]
}

// unpostedText lists the findings whose inline comment could not be
// created, and those deferred by MaxInlinePerPost, in full ("" for none).
func unpostedText(failed, deferred []InlineComment) string {
	if len(failed) == 0 && len(deferred) == 0 {
		return ""
	}
	var b strings.Builder
	list := func(ics []InlineComment) {
		for _, ic := range ics {
			text, _ := marker.StripMarkers(ic.Body)
			fmt.Fprintf(&b, "%s\n\n%s\n\n", sanitize.CodeSpan(fmt.Sprintf("%s:%d", ic.Path, ic.Line)), strings.TrimSpace(text))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "### Could not be posted on the diff (%d)\n\n", len(failed))
		list(failed)
	}
	if len(deferred) > 0 {
		fmt.Fprintf(&b, "### Not yet posted on the diff (%d)\n\nOne run posts at most %d inline comments; these follow on the next run.\n\n", len(deferred), MaxInlinePerPost)
		list(deferred)
	}
	return b.String()
}
