package review

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// The summary comment is bounded for real: Bitbucket refuses a longer
// comment (the limits in docs/bitbucket-jira.md). When the summary with
// every finding listed does not fit, its lists fold: each shows its most
// severe entries up to a shrinking limit, then one line of counts for the
// rest. Nothing is lost: the review answer's findings, the Code Insights
// report and the hidden review data keep every finding.

// foldLimits are the list lengths tried, longest first, once every entry
// listed (unlimited) does not fit; 0 leaves only the counts.
var foldLimits = []int{200, 60, 20, 5, 0}

// unlimited lists every entry.
const unlimited = -1

// foldRoom is what the lines after the visible part need besides the
// hidden data: the review marker and the dropped-data line.
const foldRoom = 400

// fitVisible renders the visible part of the summary with render, folding
// its lists until it takes at most budget bytes; past the shortest fold it
// is cut at a line (an open code block closed) with a line saying so.
func fitVisible(render func(limit int) string, budget int) string {
	s := render(unlimited)
	if len(s) <= budget {
		return s
	}
	for _, limit := range foldLimits {
		if s = render(limit); len(s) <= budget {
			return s
		}
	}
	const note = "\n\n*This summary was cut to keep it within Bitbucket's comment size; the review answer and the Code Insights report list every finding.*\n\n"
	cut := max(budget-len(note)-8, 0)
	if i := strings.LastIndexByte(s[:cut], '\n'); i > 0 {
		cut = i
	}
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	s = s[:cut]
	if strings.Count("\n"+s, "\n```")%2 == 1 {
		s += "\n```"
	}
	return s + note
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// limitOf is how many of n entries a list shows under limit.
func limitOf(n, limit int) int {
	if limit < 0 || limit > n {
		return n
	}
	return limit
}

// writeFolded writes the line standing for the entries a list left out:
// their count per severity, most severe first.
func writeFolded(b *strings.Builder, severities []string) {
	if len(severities) == 0 {
		return
	}
	counts := map[string]int{}
	for _, s := range severities {
		counts[strings.ToLower(strings.TrimSpace(s))]++
	}
	var parts []string
	for _, s := range reviewanswer.Severities {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	fmt.Fprintf(b, "…and %d more (%s), not listed here to keep this comment within Bitbucket's size limit: the review answer and the Code Insights report list every finding.\n\n",
		len(severities), strings.Join(parts, ", "))
}

// dataSize is how many bytes the hidden data of every remembered finding
// takes (dataBlock's lines with their line breaks), before any is dropped.
func (m *Memory) dataSize() int {
	n := 0
	for _, e := range m.entries {
		if e.tracked {
			n += len(marker.FindingDataLine(e.data)) + 1
		}
	}
	return n
}
