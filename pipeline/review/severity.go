package review

import (
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// severityCounts counts the rendered findings by severity (critical, high,
// medium, low; every key present) with each not-met acceptance criterion
// counted as one more high finding (insights.WithNotMet): the figures the
// build status and Code Insights threshold compare against.
func (r Rendered) severityCounts() map[string]int {
	out := make(map[string]int, len(reviewanswer.Severities))
	for _, s := range reviewanswer.Severities {
		out[s] = r.Stats.BySeverity[s]
	}
	return insights.WithNotMet(out, r.Requirements.NotMet)
}
