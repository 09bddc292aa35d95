package marker

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// Conversation markers (docs/review.md, "Conversations"):
//
//	[prscout-reply]: # "to=<comment id> v=1"                      (each reply prscout posts in a thread)
//	[prscout-thread]: # "root=<comment id> v=1"                   (the same replies: the thread's top-level comment)
//	[prscout-state]: # "v=1 paused=1 by=<account> at=<RFC 3339>"  (the summary's review state)
//
// Only prscout's own comments' markers count (pipeline.Comment.Foreign).
var (
	replyMarkerRe  = regexp.MustCompile(`^\s{0,3}\[prscout-reply\]:\s*#\s+"to=([0-9]{1,19})(?:\s+v=\d+)?"\s*$`)
	threadMarkerRe = regexp.MustCompile(`^\s{0,3}\[prscout-thread\]:\s*#\s+"root=([0-9]{1,19})(?:\s+v=\d+)?"\s*$`)
	stateMarkerRe  = regexp.MustCompile(`^\s{0,3}\[prscout-state\]:\s*#\s+"([^"]{0,400})"\s*$`)
	// stateLineRe finds the state line of a body to replace it.
	stateLineRe = regexp.MustCompile(`(?m)^\s{0,3}\[prscout-state\]:[^\n]*\n?`)
	// accountRe is what an account name in the state may hold: Bitbucket's
	// account ids ("557058:..."), uuids and nicknames.
	accountRe = regexp.MustCompile(`^[0-9A-Za-z:{}._-]{1,128}$`)
)

// ReplyMarker is the hidden line of a reply prscout posts to comment id.
func ReplyMarker(id int64) string {
	return fmt.Sprintf(`[prscout-reply]: # "to=%d v=%d"`, id, markerVersion)
}

// ThreadMarker is the hidden line of a reply prscout posts in the thread
// whose top-level comment is root: it lets a later event find the thread's
// root, and prscout's replies in it, without reading every comment.
func ThreadMarker(root int64) string {
	return fmt.Sprintf(`[prscout-thread]: # "root=%d v=%d"`, root, markerVersion)
}

// ParseThreadMarker returns the thread root a reply's thread marker names.
func ParseThreadMarker(body string) (int64, bool) {
	if !strings.Contains(body, "[prscout-thread]") {
		return 0, false
	}
	for _, line := range strings.Split(body, "\n") {
		if m := threadMarkerRe.FindStringSubmatch(strings.TrimSuffix(line, "\r")); m != nil {
			if id, err := strconv.ParseInt(m[1], 10, 64); err == nil && id > 0 {
				return id, true
			}
		}
	}
	return 0, false
}

// Texts a provider's server-side filter finds prscout's markers by
// (pipeline.OwnCommentQuery); what it finds is parsed again.
const (
	ReviewMarkerText       = "[prscout]: #"
	LegacyReviewMarkerText = "prscout review head="
	StateMarkerText        = "[prscout-state]:"
)

// ReplyMarkerText finds prscout's replies to comment id.
func ReplyMarkerText(id int64) string { return fmt.Sprintf("to=%d v=", id) }

// ThreadMarkerText finds prscout's replies in the thread of root.
func ThreadMarkerText(root int64) string { return fmt.Sprintf("root=%d v=", root) }

// ParseReplyMarker returns the comment id a reply's marker names.
func ParseReplyMarker(body string) (int64, bool) {
	if !strings.Contains(body, "[prscout-reply]") {
		return 0, false
	}
	for _, line := range strings.Split(body, "\n") {
		if m := replyMarkerRe.FindStringSubmatch(strings.TrimSuffix(line, "\r")); m != nil {
			if id, err := strconv.ParseInt(m[1], 10, 64); err == nil && id > 0 {
				return id, true
			}
		}
	}
	return 0, false
}

// State is the review state kept in the summary's hidden data: paused by
// whom and when (Paused false: resumed, or never paused).
type State struct {
	Paused bool
	By     string
	At     time.Time
}

// StateLine renders s as its hidden line. An account name with characters
// an account id never has is left out.
func StateLine(s State) string {
	p := 0
	if s.Paused {
		p = 1
	}
	line := fmt.Sprintf(`[prscout-state]: # "v=%d paused=%d`, markerVersion, p)
	if accountRe.MatchString(s.By) {
		line += " by=" + s.By
	}
	if !s.At.IsZero() {
		line += " at=" + s.At.UTC().Format(time.RFC3339)
	}
	return line + `"`
}

// ParseState reads the state line of body.
func ParseState(body string) (State, bool) {
	if !strings.Contains(body, "[prscout-state]") {
		return State{}, false
	}
	for _, line := range strings.Split(body, "\n") {
		m := stateMarkerRe.FindStringSubmatch(strings.TrimSuffix(line, "\r"))
		if m == nil {
			continue
		}
		var s State
		for _, kv := range strings.Fields(m[1]) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "paused":
				s.Paused = v == "1"
			case "by":
				if accountRe.MatchString(v) {
					s.By = v
				}
			case "at":
				if t, err := time.Parse(time.RFC3339, v); err == nil {
					s.At = t
				}
			}
		}
		return s, true
	}
	return State{}, false
}

// WithState returns body with its state line set to line: replaced where
// it is, else appended after a blank line ("" removes it).
func WithState(body, line string) string {
	out := strings.TrimRight(stateLineRe.ReplaceAllString(body, ""), "\n")
	if line == "" {
		return out
	}
	if out == "" {
		return line
	}
	return out + "\n\n" + line
}

// StateHolders are prscout's own live general comments carrying a state
// line, highest id first: the first holds the state in force.
func StateHolders(comments []pipeline.Comment) []pipeline.Comment {
	var out []pipeline.Comment
	for _, c := range comments {
		if c.Deleted || c.Inline != nil || c.ParentID != 0 || c.Foreign || c.Unverified {
			continue
		}
		if _, ok := ParseState(c.Body); ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

// CurrentState is the review state in force: the state line of the
// highest-id own comment holding one (zero: not paused).
func CurrentState(comments []pipeline.Comment) (State, pipeline.Comment, bool) {
	h := StateHolders(comments)
	if len(h) == 0 {
		return State{}, pipeline.Comment{}, false
	}
	s, _ := ParseState(h[0].Body)
	return s, h[0], true
}
