package thread

import (
	"regexp"
	"strings"
)

// Commands (docs/review.md, "Conversations").
const (
	CmdReview     = "review"
	CmdFullReview = "full review"
	CmdPause      = "pause"
	CmdResume     = "resume"
	CmdDismiss    = "dismiss"
	CmdHelp       = "help"
	// CmdUnknown is text addressed to prscout that is no command: answered
	// with the help outside a finding's thread.
	CmdUnknown = "unknown"
)

// Commands lists every command, to pre-initialise metric labels.
var Commands = []string{CmdReview, CmdFullReview, CmdPause, CmdResume, CmdDismiss, CmdHelp, CmdUnknown}

var (
	// prefixRe is a leading "prscout", "@prscout" or "/prscout" word.
	prefixRe = regexp.MustCompile(`(?i)^[@/]?prscout(?:[\s:,.!]+|$)`)
	// mentionRe is a leading Bitbucket mention: @{account id or uuid}.
	mentionRe = regexp.MustCompile(`^@\{([^}\s]{1,128})\}[\s:,.!]*`)
	spaceRe   = regexp.MustCompile(`\s+`)
)

// parsed is a comment read as a command.
type parsed struct {
	// addressed: the comment starts with prscout's prefix or a mention of
	// its account.
	addressed bool
	// command is one of the Cmd constants, "" when the text is no command.
	command string
	// arg is the dismiss reason.
	arg string
	// rest is the text after the address.
	rest string
}

// parseCommand reads a comment's text: an address (prefix or mention of
// one of selfIDs), then a command on the first line, compared
// case-insensitively with spaces collapsed and trailing punctuation cut.
func parseCommand(body string, selfIDs []string) parsed {
	text := strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	var p parsed
	for range 2 { // "@{me} /prscout review" is addressed once
		if m := prefixRe.FindString(text); m != "" {
			p.addressed, text = true, strings.TrimSpace(text[len(m):])
			continue
		}
		if m := mentionRe.FindStringSubmatch(text); m != nil && isSelf(m[1], selfIDs) {
			p.addressed, text = true, strings.TrimSpace(text[len(m[0]):])
			continue
		}
		break
	}
	p.rest = text
	first, more, _ := strings.Cut(text, "\n")
	line := strings.ToLower(strings.TrimRight(spaceRe.ReplaceAllString(strings.TrimSpace(first), " "), ".!"))
	switch line {
	case CmdReview, CmdFullReview, CmdPause, CmdResume, CmdHelp:
		p.command = line
		return p
	}
	if line == CmdDismiss || strings.HasPrefix(line, CmdDismiss+" ") || strings.HasPrefix(line, CmdDismiss+":") {
		p.command = CmdDismiss
		reason := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(first)[len(CmdDismiss):], ": "))
		if more = strings.TrimSpace(more); more != "" {
			reason = strings.TrimSpace(reason + " " + more)
		}
		p.arg = spaceRe.ReplaceAllString(reason, " ")
	}
	return p
}

// isSelf reports whether id (a mention's account id or uuid) is one of
// prscout's own ids.
func isSelf(id string, self []string) bool {
	id = normID(id)
	for _, s := range self {
		if s = normID(s); s != "" && s == id {
			return true
		}
	}
	return false
}

func normID(id string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(id), "{}"))
}

// helpText is the answer to `prscout help`.
const helpText = "prscout commands (start a comment with `prscout`, `@prscout` or `/prscout`, or mention prscout; in a thread of one of prscout's findings no prefix is needed):\n\n" +
	"| command | what it does |\n| --- | --- |\n" +
	"| `review` | reviews the head now (incremental since the last review), also when pushes are not reviewed or reviews are paused |\n" +
	"| `full review` | reviews the whole pull request again, ignoring earlier reviews |\n" +
	"| `pause` | stops reviews of pushes to this pull request |\n" +
	"| `resume` | reviews pushes again |\n" +
	"| `dismiss <reason>` | in a finding's thread: resolves it; prscout does not raise it again on this pull request |\n" +
	"| `help` | this table |\n\n" +
	"A reply to one of prscout's findings that is no command is a question: prscout answers it in the thread. " +
	"`prscout ignore` on a line of the pull request's description means prscout never reviews it."
