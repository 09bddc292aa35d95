package marker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Hidden markers (docs/architecture.md, principle 6). Bitbucket Cloud shows HTML comments
// as literal text, so a marker is a Markdown link reference definition on its
// own line after a blank line, which renders as nothing:
//
//	[prscout]: # "review head=<sha> v=1"           (the summary comment)
//	[prscout-finding]: # "fp=<16 hex> v=1"         (each inline comment)
//	[prscout-f:<16 hex>]: # "v=1 s=open ..."        (the summary's data, data.go)
//
// Parsers also read the legacy HTML comment forms
// <!-- prscout review head=<sha> --> and <!-- prscout finding fp=<hex> -->.
const markerVersion = 1

var (
	reviewMarkerRe       = regexp.MustCompile(`^\s{0,3}\[prscout\]:\s*#\s+"review head=([0-9A-Za-z._/-]{1,200})(?:\s+v=\d+)?"\s*$`)
	reviewMarkerLegacyRe = regexp.MustCompile(`<!--\s*prscout\s+review\s+head=([0-9A-Za-z._/-]{1,200})(?:\s+v=\d+)?\s*-->`)
	findingMarkerRe      = regexp.MustCompile(`^\s{0,3}\[prscout-finding\]:\s*#\s+"fp=([0-9a-f]{16})(?:\s+v=\d+)?"\s*$`)
	findingMarkerLegacy  = regexp.MustCompile(`<!--\s*prscout\s+finding\s+fp=([0-9a-f]{16})(?:\s+v=\d+)?\s*-->`)
	// anyMarkerLineRe matches any line that could be read as one of our
	// markers; such lines are removed from model-written text (see
	// stripMarkers) so a diff cannot steer incremental review or dedupe.
	anyMarkerLineRe = regexp.MustCompile(`(?i)^\s*\[prscout[^\]\n]*\]:|<!--\s*prscout`)
)

// ReviewMarker returns the summary's hidden marker line for head.
func ReviewMarker(head string) string {
	return fmt.Sprintf(`[prscout]: # "review head=%s v=%d"`, head, markerVersion)
}

// FindingMarker returns an inline comment's hidden fingerprint marker line.
func FindingMarker(fp string) string {
	return fmt.Sprintf(`[prscout-finding]: # "fp=%s v=%d"`, fp, markerVersion)
}

// ParseReviewMarker returns the head sha of the last review marker in body,
// in either form.
func ParseReviewMarker(body string) (head string, ok bool) {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if m := reviewMarkerRe.FindStringSubmatch(line); m != nil {
			head, ok = m[1], true
			continue
		}
		if ms := reviewMarkerLegacyRe.FindAllStringSubmatch(line, -1); ms != nil {
			head, ok = ms[len(ms)-1][1], true
		}
	}
	return head, ok
}

// ParseFindingMarker returns the fingerprint of an inline comment's marker,
// in either form.
func ParseFindingMarker(body string) (fp string, ok bool) {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if m := findingMarkerRe.FindStringSubmatch(line); m != nil {
			fp, ok = m[1], true
			continue
		}
		if ms := findingMarkerLegacy.FindAllStringSubmatch(line, -1); ms != nil {
			fp, ok = ms[len(ms)-1][1], true
		}
	}
	return fp, ok
}

// isSummaryComment reports whether c is a live prscout summary: a general
// (not inline), not deleted comment of prscout's own (not Foreign) carrying
// a review marker.
func IsSummaryComment(c pipeline.Comment) bool {
	if c.Deleted || c.Inline != nil || c.Foreign || c.Unverified {
		return false
	}
	_, ok := ParseReviewMarker(c.Body)
	return ok
}

// UnverifiedSummaries counts the comments that carry a review marker but
// could not be checked as prscout's own (pipeline.Comment.Unverified): they
// are ignored, and the answer should say why.
func UnverifiedSummaries(comments []pipeline.Comment) int {
	n := 0
	for _, c := range comments {
		if c.Unverified && !c.Deleted && c.Inline == nil {
			if _, ok := ParseReviewMarker(c.Body); ok {
				n++
			}
		}
	}
	return n
}

// LastReviewedCommit finds prscout's latest summary among a pull request's
// comments and returns the head it reviewed. Comments are sorted by id
// first: list order is not a documented guarantee. Deleted, inline and
// Foreign and Unverified comments are ignored (a marker another account
// pasted must not skip a review or move the delta base); of several
// summaries the highest id wins.
func LastReviewedCommit(comments []pipeline.Comment) (sha string, commentID int64, ok bool) {
	sorted := append([]pipeline.Comment(nil), comments...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for i := len(sorted) - 1; i >= 0; i-- {
		c := sorted[i]
		if !IsSummaryComment(c) {
			continue
		}
		head, _ := ParseReviewMarker(c.Body)
		return head, c.ID, true
	}
	return "", 0, false
}

// FindingFingerprints returns the fingerprints carried by the comments.
// Deleted comments count too: a finding whose comment someone deleted is
// not posted again. Foreign comments do not: a fingerprint another account
// wrote must not suppress a finding.
func FindingFingerprints(comments []pipeline.Comment) map[string]bool {
	out := map[string]bool{}
	for _, c := range comments {
		if c.Foreign {
			continue
		}
		if fp, ok := ParseFindingMarker(c.Body); ok {
			out[fp] = true
		}
	}
	return out
}

// Fingerprint identifies a finding across runs, so a finding already posted
// is not posted again when new commits shift its line. It hashes (SHA-256,
// first 8 bytes as 16 hex digits):
//
//   - the changed file's path;
//   - the title, lowercased, whitespace collapsed, trailing punctuation cut;
//   - the code it is about, whitespace removed: existingCode when given,
//     else the anchored line's text, else nothing (a file-level finding).
//
// Line numbers and severity are left out on purpose: they move between runs
// while the finding stays the same. Two findings with the same path, title
// and code are the same finding.
func Fingerprint(path, title, code string) string {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(normalizeTitle(title)))
	h.Write([]byte{0})
	h.Write([]byte(pipeline.StripSpace(code)))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func normalizeTitle(t string) string {
	return strings.TrimRight(strings.ToLower(pipeline.OneLine(t)), ".!:;, ")
}

// stripMarkers removes every line of model-written text that could be read
// as a prscout marker, and reports how many it removed.
func StripMarkers(s string) (string, int) {
	if !strings.Contains(strings.ToLower(s), "prscout") {
		return s, 0
	}
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	n := 0
	for _, l := range lines {
		if anyMarkerLineRe.MatchString(l) {
			n++
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n"), n
}
