package pipeline

import "testing"

func TestLimitsWithDefaults(t *testing.T) {
	d := DefaultLimits()
	want := d
	want.ContextLines = 0                          // zero lines of context is a choice, not a missing value
	want.CandidatesMax, want.CandidatesAuto = 0, 0 // as is zero candidates
	if got := (Limits{}).WithDefaults(); got != want {
		t.Errorf("zero Limits = %+v, want %+v", got, want)
	}
	if got := (Limits{ContextLines: -1}).WithDefaults().ContextLines; got != d.ContextLines {
		t.Errorf("negative ContextLines = %d, want the default %d", got, d.ContextLines)
	}
	custom := Limits{NeedsTotal: 3, ContextLines: 0, MaxFileBytes: 7, BatchParallel: -1}
	got := custom.WithDefaults()
	if got.NeedsTotal != 3 || got.MaxFileBytes != 7 || got.BatchParallel != d.BatchParallel {
		t.Errorf("WithDefaults = %+v: set fields kept, non-positive ones defaulted", got)
	}
	if got.ContextLines != 0 {
		t.Errorf("ContextLines 0 is a valid choice, got %d", got.ContextLines)
	}
}
