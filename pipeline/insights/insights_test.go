package insights

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

func TestThresholdFails(t *testing.T) {
	none := map[string]int{}
	low := map[string]int{"low": 3}
	medium := map[string]int{"medium": 1, "low": 3}
	high := map[string]int{"high": 2}
	critical := map[string]int{"critical": 1}
	tests := []struct {
		failOn string
		counts map[string]int
		want   bool
	}{
		{"none", critical, false},
		{"", critical, false},
		{"critical", high, false},
		{"critical", critical, true},
		{"high", medium, false},
		{"high", high, true},
		{"HIGH", critical, true},
		{"medium", low, false},
		{"medium", medium, true},
		{"medium", critical, true},
		{"medium", none, false},
		{"bogus", high, true}, // fails closed like "high"
		{"bogus", medium, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.failOn, tt.counts), func(t *testing.T) {
			if got := ThresholdFails(tt.failOn, tt.counts); got != tt.want {
				t.Errorf("ThresholdFails(%q, %v) = %v, want %v", tt.failOn, tt.counts, got, tt.want)
			}
		})
	}
}

func TestParseFailOn(t *testing.T) {
	for in, want := range map[string]string{"": "none", " High ": "high", "critical": "critical", "MEDIUM": "medium", "none": "none"} {
		got, err := ParseFailOn(in)
		if err != nil || got != want {
			t.Errorf("ParseFailOn(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFailOn("low"); err == nil || err.Error() != `PRSCOUT_FAIL_ON must be none, critical, high or medium, got "low"` {
		t.Errorf("ParseFailOn(low) error = %v", err)
	}
}

func TestDescription(t *testing.T) {
	cov := pipeline.Coverage{Changed: 15, Reviewed: 14}
	tests := []struct {
		counts map[string]int
		cov    pipeline.Coverage
		want   string
	}{
		{map[string]int{"high": 2, "medium": 1, "low": 0}, cov, "2 high, 1 medium · 14 of 15 files reviewed"},
		{map[string]int{"low": 4, "critical": 1}, cov, "1 critical, 4 low · 14 of 15 files reviewed"},
		{map[string]int{}, pipeline.Coverage{Changed: 3, Reviewed: 3}, "no findings · 3 of 3 files reviewed"},
		{map[string]int{"medium": 1}, pipeline.Coverage{}, "1 medium"},
	}
	for _, tt := range tests {
		if got := Description(tt.counts, tt.cov); got != tt.want {
			t.Errorf("Description(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}

var findings = []pipeline.ReportFinding{
	{Path: "a.go", Line: 3, Severity: "high", Title: "Nil map write", Body: "m is nil", Fingerprint: "00000000000000a1"},
	{Path: "a.go", Line: 9, Severity: "HIGH", Title: "Race", Fingerprint: "00000000000000a2"},
	{Path: "b.go", Severity: "medium", Title: "Off-diff", Body: "file level", Fingerprint: "00000000000000b1"},
	{Severity: "weird", Title: " ", Fingerprint: "00000000000000c1"},
}

func TestFinishedAndReport(t *testing.T) {
	cov := pipeline.Coverage{Changed: 15, Reviewed: 14}
	counts := Count(findings)
	if d := cmp.Diff(map[string]int{"critical": 0, "high": 2, "medium": 2, "low": 0}, counts); d != "" {
		t.Fatalf("Count (-want +got):\n%s", d)
	}
	st := Finished("https://bitbucket.example/c/1", "high", counts, 0, cov)
	want := pipeline.BuildStatus{Key: "prscout", State: "FAILED", Name: "prscout review", Description: "2 high, 2 medium · 14 of 15 files reviewed", URL: "https://bitbucket.example/c/1"}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("Finished (-want +got):\n%s", d)
	}
	if err := st.Validate(); err != nil {
		t.Error(err)
	}
	if got := Finished("https://x.example/", "none", counts, 0, cov).State; got != pipeline.StatusSuccessful {
		t.Errorf("fail-on none: state %s", got)
	}

	r := Report(findings, ReportOptions{FailOn: "critical", Coverage: cov, Mode: "delta", Models: []string{"scout-m", " ", "review-m"}})
	if r.Result != pipeline.ReportPassed {
		t.Errorf("result %s, want PASSED under fail-on critical", r.Result)
	}
	wantData := []pipeline.ReportDatum{
		{Title: "Critical", Type: "NUMBER", Value: 0}, {Title: "High", Type: "NUMBER", Value: 2},
		{Title: "Medium", Type: "NUMBER", Value: 2}, {Title: "Low", Type: "NUMBER", Value: 0},
		{Title: "Files reviewed", Type: "TEXT", Value: "14 of 15"}, {Title: "Mode", Type: "TEXT", Value: "delta"},
		{Title: "Models", Type: "TEXT", Value: "scout-m, review-m"},
	}
	if d := cmp.Diff(wantData, r.Data); d != "" {
		t.Errorf("data (-want +got):\n%s", d)
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
	if Report(findings, ReportOptions{FailOn: "medium"}).Result != pipeline.ReportFailed {
		t.Error("fail-on medium with medium findings: want FAILED")
	}
}

func TestAnnotations(t *testing.T) {
	got := Annotations(findings)
	want := []pipeline.Annotation{
		{ExternalID: "prscout-00000000000000a1", Path: "a.go", Line: 3, Summary: "Nil map write", Details: "m is nil", Severity: "HIGH", AnnotationType: "BUG", Result: "FAILED"},
		{ExternalID: "prscout-00000000000000a2", Path: "a.go", Line: 9, Summary: "Race", Severity: "HIGH", AnnotationType: "BUG", Result: "FAILED"},
		{ExternalID: "prscout-00000000000000b1", Path: "b.go", Summary: "Off-diff", Details: "file level", Severity: "MEDIUM", AnnotationType: "BUG", Result: "FAILED"},
		{ExternalID: "prscout-00000000000000c1", Summary: "(untitled)", Severity: "MEDIUM", AnnotationType: "BUG", Result: "FAILED"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Annotations (-want +got):\n%s", d)
	}
	for i, a := range got {
		if err := a.Validate(); err != nil {
			t.Errorf("annotation %d: %v", i, err)
		}
	}
}

func TestStopped(t *testing.T) {
	s := stopped("https://x.example/", "model call failed")
	if s.State != pipeline.StatusStopped || s.Description != "review stopped: model call failed" {
		t.Errorf("Stopped = %+v", s)
	}
	if err := InProgress("https://x.example/").Validate(); err != nil {
		t.Error(err)
	}
}

// TestNotMetCountsAsHigh: a criterion judged not met fails a "high"
// threshold like a high finding and is named in the description.
func TestNotMetCountsAsHigh(t *testing.T) {
	counts := map[string]int{"low": 1}
	cov := pipeline.Coverage{Changed: 2, Reviewed: 2}
	if st := Finished("https://x.example/", "high", counts, 0, cov); st.State != pipeline.StatusSuccessful {
		t.Errorf("no criteria not met: state %s, want SUCCESSFUL", st.State)
	}
	st := Finished("https://x.example/", "high", counts, 1, cov)
	if st.State != pipeline.StatusFailed || st.Description != "1 low · 2 of 2 files reviewed · 1 criterion not met" {
		t.Errorf("one criterion not met: %s %q", st.State, st.Description)
	}
	if r := Report(nil, ReportOptions{FailOn: "high", NotMet: 2}); r.Result != pipeline.ReportFailed {
		t.Errorf("report with 2 criteria not met at fail-on high: %s, want FAILED", r.Result)
	}
}
