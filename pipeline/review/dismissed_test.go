package review

import (
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// TestDismissedCountedNotShown: a finding its thread dismissed is reported
// again by the model; it is not in the findings table, and the counts line
// says it was dismissed.
func TestDismissedCountedNotShown(t *testing.T) {
	in := verifyInput(t)
	_, sum, err := Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	// The first finding, as an earlier review remembered it, then dismissed.
	r := sum.rows[0]
	earlier := "earlier\n\n" + marker.ReviewMarker(strings.Repeat("b", 40)) + "\n\n" +
		marker.FindingDataLine(marker.FindingData{Fingerprint: r.fp, State: marker.StateDismissed, Reason: "validated upstream",
			Path: r.a.Path, Line: r.a.Line, Severity: r.f.Severity, TitleHash: marker.TitleHash(r.f.Title)})
	mem := sum.Remember([]pipeline.Comment{{ID: 1, Body: earlier}})
	if mem.States[StateDismissed] != 1 {
		t.Fatalf("states %v, want 1 dismissed", mem.States)
	}
	md := sum.Write(mem, nil, nil)
	if !strings.Contains(md, "1 dismissed in their thread") {
		t.Errorf("counts line without the dismissal:\n%s", md)
	}
	table := md[strings.Index(md, "### Findings"):]
	table = table[:strings.Index(table, "**Findings by state:**")]
	if strings.Contains(table, r.f.Title) {
		t.Errorf("the dismissed finding is in the table:\n%s", table)
	}
}
