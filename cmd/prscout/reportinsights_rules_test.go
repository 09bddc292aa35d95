package main

import (
	"fmt"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/sarif"
)

// TestReportInsightsRuleLevelsIndexed: a result without a level takes its
// rule's default level, found by ruleIndex or else by ruleId (the first
// rule with that id that has a level), SARIF's warning otherwise; and a
// log of 50,000 rules and 50,000 such results is turned into a report in
// well under a second of work (an index by id, not a scan of every rule
// per result).
func TestReportInsightsRuleLevelsIndexed(t *testing.T) {
	idx := func(i int) *int { return &i }
	small := sarif.Run{Tool: sarif.Tool{Driver: sarif.ToolComponent{Name: "t", Rules: []sarif.ReportingDescriptor{
		{ID: "a"},
		{ID: "a", DefaultConfiguration: &sarif.ReportingConfiguration{Level: sarif.LevelError}},
		{ID: "a", DefaultConfiguration: &sarif.ReportingConfiguration{Level: sarif.LevelNote}},
		{ID: "b", DefaultConfiguration: &sarif.ReportingConfiguration{Level: sarif.LevelNote}},
	}}}, Results: []sarif.Result{
		{RuleID: "a", Message: sarif.Message{Text: "by id"}},
		{RuleID: "a", RuleIndex: idx(2), Message: sarif.Message{Text: "by index"}},
		{RuleID: "zz", Message: sarif.Message{Text: "unknown rule"}},
		{RuleID: "b", Level: sarif.LevelError, Message: sarif.Message{Text: "own level"}},
	}}
	_, anns := insightsFromSARIF(sarif.Log{Runs: []sarif.Run{small}}, "", "")
	want := []string{pipeline.AnnotationHigh, pipeline.AnnotationLow, pipeline.AnnotationMedium, pipeline.AnnotationHigh}
	if len(anns) != len(want) {
		t.Fatalf("%d annotations, want %d", len(anns), len(want))
	}
	for i, a := range anns {
		if a.Severity != want[i] {
			t.Errorf("%s: severity %s, want %s", a.Summary, a.Severity, want[i])
		}
	}

	const n = 50_000
	big := sarif.Run{Tool: sarif.Tool{Driver: sarif.ToolComponent{Name: "big"}}}
	for i := range n {
		level := sarif.LevelNote
		if i == n-1 {
			level = sarif.LevelError
		}
		big.Tool.Driver.Rules = append(big.Tool.Driver.Rules, sarif.ReportingDescriptor{ID: fmt.Sprint("rule-", i), DefaultConfiguration: &sarif.ReportingConfiguration{Level: level}})
		// Every result names the last rules by id only: a scan per result
		// walks all 50,000 rules each time.
		big.Results = append(big.Results, sarif.Result{RuleID: fmt.Sprint("rule-", n-1-i%10), Message: sarif.Message{Text: "m"}})
	}
	// Its time is measured by scripts/abuse.sh (sarif-rules-per-result),
	// on a real server: a clock here would fail on a loaded machine.
	rep, anns := insightsFromSARIF(sarif.Log{Runs: []sarif.Run{big}}, "", "")
	if len(anns) != n || rep.Result != pipeline.ReportFailed || rep.Data[0].Value != n/10 {
		t.Errorf("report %s with %v errors, %d annotations; want FAILED, %d errors, %d annotations", rep.Result, rep.Data[0].Value, len(anns), n/10, n)
	}
}
