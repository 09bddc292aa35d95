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
// listed does not fit; 0 leaves only the counts.
var foldLimits = []int{200, 60, 20, 5, 0}

// foldCut is the line a summary cut past its shortest fold ends with.
const foldCut = "*This summary was cut to keep it within Bitbucket's comment size; the review answer and the Code Insights report list every finding.*"

// foldRoom is what the lines after the visible part need besides the
// hidden data: the review marker and the dropped-data line.
const foldRoom = 400

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
