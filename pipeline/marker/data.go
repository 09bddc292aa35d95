package marker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// The summary's hidden data: one Markdown link reference definition per
// finding prscout remembers (docs/architecture.md, principle 6: it renders as nothing,
// no HTML). The label carries the fingerprint, so every definition is
// unique; the title holds space-separated key=value fields:
//
//	[prscout-f:0123456789abcdef]: # "v=1 s=open c=123 l=42 t=1a2b3c4d k=5e6f7a8b n=1 g=h f=0123456789ab h=0123456789ab p=pkg/api/new.go"
//
//	v  data version (1)
//	s  state: open, resolved or outdated
//	c  the inline comment's id (0: none posted)
//	l  the new-file line at the summary's head (0: unknown)
//	t  title hash (TitleHash)
//	k  code hash of the anchored lines (CodeHash; absent: unknown)
//	n  how many non-blank lines the code hash covers (absent: 1)
//	g  severity: c, h, m or l
//	f  the head (12 digits) at which the finding was first reported
//	h  the head (12 digits) at which the state was entered
//	p  the path, percent-escaped like a URL path ('/' kept)
//	r  why a dismissed finding was dismissed, percent-escaped (s=dismissed)
//	b  who dismissed it (an account id)
//
// Unknown keys are ignored, so later versions can add fields.
const dataVersion = 1

// Remembered finding states (FindingData.State).
const (
	StateOpen     = "open"
	StateResolved = "resolved"
	StateOutdated = "outdated"
	// StateDismissed: a participant dismissed the finding in its thread
	// (`prscout dismiss <reason>`); it is never posted again.
	StateDismissed = "dismissed"
)

// MaxReason bounds a dismissal's reason in the data (runes).
const MaxReason = 200

var findingDataRe = regexp.MustCompile(`^\s{0,3}\[prscout-f:([0-9a-f]{16})\]:\s*#\s+"([^"]*)"\s*$`)

// maxDataLine bounds one data line when parsing (a path is at most a few
// hundred bytes).
const maxDataLine = 4096

// FindingData is one remembered finding of the summary's hidden data.
type FindingData struct {
	Fingerprint string
	State       string // StateOpen, StateResolved or StateOutdated
	CommentID   int64  // the inline comment's id; 0 when none was posted
	Path        string
	Line        int    // new-file line at the summary's head; 0 when unknown
	TitleHash   string // TitleHash of the title
	CodeHash    string // CodeHash of the anchored lines; "" when unknown
	CodeLines   int    // non-blank lines CodeHash covers (1 when 0)
	Severity    string // critical, high, medium, low; "" when unknown
	Since       string // head (12 digits) of the review that first reported it
	Changed     string // head (12 digits) of the review that set State
	// Placement is where the finding was put when it was not an inline
	// comment: PlacementSummary (kept out of the diff by the comment
	// budget or the severity floor) or PlacementUnverified (its quoted code
	// was not found in what the review was shown); "" for an inline one
	// (and in data written before placements were recorded).
	Placement string
	// Reason is why a dismissed finding was dismissed, DismissedBy who did
	// ("" for other states).
	Reason      string
	DismissedBy string
}

// FindingData.Placement values (key w).
const (
	PlacementSummary    = "s"
	PlacementUnverified = "u"
)

var severityCode = map[string]string{"critical": "c", "high": "h", "medium": "m", "low": "l"}

// FindingDataLine renders d as one hidden data line.
func FindingDataLine(d FindingData) string {
	var b strings.Builder
	fmt.Fprintf(&b, `[prscout-f:%s]: # "v=%d s=%s c=%d l=%d`, d.Fingerprint, dataVersion, d.State, d.CommentID, max(d.Line, 0))
	if d.TitleHash != "" {
		b.WriteString(" t=" + d.TitleHash)
	}
	if d.CodeHash != "" {
		b.WriteString(" k=" + d.CodeHash)
		if d.CodeLines > 1 {
			fmt.Fprintf(&b, " n=%d", d.CodeLines)
		}
	}
	if g := severityCode[d.Severity]; g != "" {
		b.WriteString(" g=" + g)
	}
	if d.Since != "" {
		b.WriteString(" f=" + d.Since)
	}
	if d.Changed != "" {
		b.WriteString(" h=" + d.Changed)
	}
	if d.Placement == PlacementSummary || d.Placement == PlacementUnverified {
		b.WriteString(" w=" + d.Placement)
	}
	if d.State == StateDismissed {
		if r := strings.TrimSpace(pipeline.ClipRunes(d.Reason, MaxReason)); r != "" {
			b.WriteString(" r=" + url.PathEscape(r))
		}
		if accountRe.MatchString(d.DismissedBy) {
			b.WriteString(" b=" + d.DismissedBy)
		}
	}
	b.WriteString(" p=" + escapeDataPath(d.Path) + `"`)
	return b.String()
}

// escapeDataPath percent-escapes a path so it holds no quote, space or
// control character; '/' stays readable.
func escapeDataPath(p string) string {
	return strings.ReplaceAll(url.PathEscape(p), "%2F", "/")
}

var (
	hex8Re   = regexp.MustCompile(`^[0-9a-f]{8}$`)
	headRe   = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
	codeSevs = map[string]string{"c": "critical", "h": "high", "m": "medium", "l": "low"}
)

// ParseFindingData reads the hidden data lines of body, in order. A line
// that does not parse (bad state, bad path, a number out of range) is
// skipped; of two lines with one fingerprint the first counts.
func ParseFindingData(body string) []FindingData {
	if !strings.Contains(body, "[prscout-f:") {
		return nil
	}
	var out []FindingData
	seen := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if len(line) > maxDataLine {
			continue
		}
		m := findingDataRe.FindStringSubmatch(line)
		if m == nil || seen[m[1]] {
			continue
		}
		d, ok := parseDataFields(m[1], m[2])
		if !ok {
			continue
		}
		seen[m[1]] = true
		out = append(out, d)
	}
	return out
}

func parseDataFields(fp, title string) (FindingData, bool) {
	d := FindingData{Fingerprint: fp}
	hasPath := false
	for _, kv := range strings.Fields(title) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "s":
			d.State = v
		case "c":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return d, false
			}
			d.CommentID = n
		case "l":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 1<<30 {
				return d, false
			}
			d.Line = n
		case "t":
			if hex8Re.MatchString(v) {
				d.TitleHash = v
			}
		case "k":
			if hex8Re.MatchString(v) {
				d.CodeHash = v
			}
		case "n":
			if n, err := strconv.Atoi(v); err == nil && n > 0 && n <= 1000 {
				d.CodeLines = n
			}
		case "g":
			d.Severity = codeSevs[v]
		case "w":
			if v == PlacementSummary || v == PlacementUnverified {
				d.Placement = v
			}
		case "f":
			if headRe.MatchString(v) {
				d.Since = v
			}
		case "h":
			if headRe.MatchString(v) {
				d.Changed = v
			}
		case "r":
			if r, err := url.PathUnescape(v); err == nil {
				d.Reason = pipeline.ClipRunes(r, MaxReason)
			}
		case "b":
			if accountRe.MatchString(v) {
				d.DismissedBy = v
			}
		case "p":
			p, err := url.PathUnescape(v)
			if err != nil || p == "" {
				return d, false
			}
			d.Path, hasPath = p, true
		}
	}
	switch d.State {
	case StateOpen, StateResolved, StateOutdated, StateDismissed:
	default:
		return d, false
	}
	if d.CodeHash == "" {
		d.CodeLines = 0
	} else if d.CodeLines == 0 {
		d.CodeLines = 1
	}
	return d, hasPath
}

// TitleHash identifies a finding's title across runs: SHA-256 of the title
// normalized as Fingerprint does (lowercased, whitespace collapsed,
// trailing punctuation cut), first 4 bytes as 8 hex digits.
func TitleHash(title string) string {
	h := sha256.Sum256([]byte(normalizeTitle(title)))
	return hex.EncodeToString(h[:4])
}

// CodeHash identifies the code a finding is anchored on: SHA-256 of its
// non-blank lines with all whitespace removed (pipeline.StripSpace), joined
// by newlines, first 4 bytes as 8 hex digits. lines may already be
// stripped; blank ones are skipped. No non-blank line gives "".
func CodeHash(lines []string) string {
	var kept []string
	for _, l := range lines {
		if n := pipeline.StripSpace(l); n != "" {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	h := sha256.Sum256([]byte(strings.Join(kept, "\n")))
	return hex.EncodeToString(h[:4])
}

// DefuseData escapes the lines of s that read as hidden review data
// (ParseFindingData), so that only the data block written after it can. A
// summary puts every caller- or model-supplied string on one line inside a
// code span, a table row or the sanitizer's output; this is the guard
// should one slip through.
func DefuseData(s string) string {
	if !strings.Contains(s, "[prscout-f:") || len(ParseFindingData(s)) == 0 {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, line := range lines {
		if len(ParseFindingData(line)) > 0 {
			lines[i] = strings.Replace(line, "[prscout-f:", `\[prscout-f:`, 1)
		}
	}
	return strings.Join(lines, "")
}
