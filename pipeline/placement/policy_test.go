package placement

import (
	"errors"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

func TestPolicyCheck(t *testing.T) {
	for _, tc := range []struct {
		p     Policy
		field string
	}{
		{Policy{Profile: "loud"}, "commentPolicy.profile"},
		{Policy{MaxInline: -1}, "commentPolicy.maxInline"},
		{Policy{MinSeverity: "urgent"}, "commentPolicy.minSeverity"},
		{Policy{Unverified: "hide"}, "commentPolicy.unverified"},
	} {
		err := tc.p.Check("commentPolicy")
		var inv *pipeline.InvalidError
		if !errors.As(err, &inv) || inv.Field != tc.field {
			t.Errorf("%+v: error %v, want one naming %s", tc.p, err, tc.field)
		}
	}
	if err := (Policy{Profile: "Quiet", MinSeverity: "HIGH", Unverified: "Drop"}).Check("x"); err != nil {
		t.Errorf("case is forgiven: %v", err)
	}
	// A request's profile sets budget and floor again; its fields win.
	base := Policy{Profile: ProfileQuiet, MaxInline: 3, MinSeverity: "critical", Unverified: UnverifiedFold}
	got := Policy{Profile: ProfileThorough}.Over(base).Effective()
	if got.MaxInline != 0 || got.MinSeverity != "low" || got.Unverified != UnverifiedFold {
		t.Errorf("thorough over quiet = %+v", got)
	}
	got = Policy{MaxInline: 7}.Over(base).Effective()
	if got.MaxInline != 7 || got.MinSeverity != "critical" {
		t.Errorf("maxInline over quiet = %+v", got)
	}
}

// TestParse: names are forgiven case and space; anything else is an error
// naming the value.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		parse    func(string) (string, error)
		in, want string
	}{
		{ParseProfile, " Balanced ", ProfileBalanced}, {ParseProfile, "", ""},
		{ParseUnverified, "DROP", UnverifiedDrop}, {ParseUnverified, "", ""},
		{ParseMinSeverity, "Medium", "medium"}, {ParseMinSeverity, "", ""},
	} {
		if got, err := tc.parse(tc.in); err != nil || got != tc.want {
			t.Errorf("parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, parse := range []func(string) (string, error){ParseProfile, ParseUnverified, ParseMinSeverity} {
		if got, err := parse("loud"); err == nil || got != "" {
			t.Errorf("parse(loud) = %q, %v; want an error", got, err)
		}
	}
}

// TestOverAndUnverifiedOut: each field the request sets wins; only fold and
// drop keep unverified findings off the diff.
func TestOverAndUnverifiedOut(t *testing.T) {
	base := Policy{MaxInline: 3, MinSeverity: "high", Unverified: UnverifiedKeep}
	got := Policy{MinSeverity: "low", Unverified: UnverifiedDrop}.Over(base)
	if want := (Policy{MaxInline: 3, MinSeverity: "low", Unverified: UnverifiedDrop}); got != want {
		t.Errorf("Over = %+v, want %+v", got, want)
	}
	if got := (Policy{}).Over(base); got != base {
		t.Errorf("an empty request policy changed %+v to %+v", base, got)
	}
	for mode, out := range map[string]bool{UnverifiedFold: true, UnverifiedDrop: true, UnverifiedKeep: false, "": false} {
		if got := (Policy{Unverified: mode}).Effective().UnverifiedOut(); got != out {
			t.Errorf("Unverified %q: UnverifiedOut() = %v, want %v", mode, got, out)
		}
	}
}
