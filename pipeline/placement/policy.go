// Package placement is the /v1/comments placement policy's settings: the
// review profiles (quiet, balanced, thorough), the inline comment budget,
// the severity floor and what becomes of findings whose evidence does not
// hold, with their checks and how a request's policy lays over the
// service's. Applying it to the findings is the review package's place.
package placement

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// Review profiles (Policy.Profile): a comment budget and a severity floor
// for inline comments at once.
const (
	ProfileQuiet    = "quiet"
	ProfileBalanced = "balanced"
	ProfileThorough = "thorough"
)

// What becomes of a finding whose evidence does not hold (Policy.Unverified).
const (
	// UnverifiedFold: not inline, not counted in the build status or the
	// Code Insights report; listed in the summary's "Unverified findings".
	UnverifiedFold = "fold"
	// UnverifiedDrop: as fold, and left out of the summary too (the answer's
	// unverified[] and the review memory still have it).
	UnverifiedDrop = "drop"
	// UnverifiedKeep: the verdict is reported, the finding placed as if
	// verified.
	UnverifiedKeep = "keep"
)

// Where a finding went (the answer's placement, a metrics label).
const (
	// Inline: an inline comment on its diff line.
	Inline = "inline"
	// Summary: in the summary only (not on a diff line, below the severity
	// floor or past the comment budget).
	Summary = "summary"
	// Unverified: its evidence did not hold and the policy keeps such
	// findings off the diff.
	Unverified = "unverified"
)

// All lists the placements in report order.
var All = []string{Inline, Summary, Unverified}

// profile is what a review profile sets.
type profile struct {
	maxInline   int
	minSeverity string
}

var profiles = map[string]profile{
	ProfileQuiet:    {maxInline: 5, minSeverity: "high"},
	ProfileBalanced: {maxInline: 10, minSeverity: "medium"},
	// No budget: only MaxInlinePerPost defers the rest to the next run.
	ProfileThorough: {maxInline: 0, minSeverity: "low"},
}

// Policy decides which findings become inline comments. The zero Policy
// places every finding on a diff line inline (within MaxInlinePerPost) and
// only reports the evidence verdicts.
type Policy struct {
	// Profile is quiet, balanced or thorough ("": none); it sets MaxInline
	// and MinSeverity where those are not set.
	Profile string `json:"profile,omitempty"`
	// MaxInline is the most inline comments of one review, most severe
	// first (ties: higher confidence first); the rest go to the summary.
	// 0: the profile's (no budget without one, nor with thorough: then only
	// MaxInlinePerPost defers the rest to the next run).
	MaxInline int `json:"maxInline,omitempty"`
	// MinSeverity is the lowest severity posted inline (critical, high,
	// medium, low); less severe findings go to the summary. "": the
	// profile's (low without one).
	MinSeverity string `json:"minSeverity,omitempty"`
	// Unverified is fold, drop or keep ("": keep).
	Unverified string `json:"unverified,omitempty"`
}

// ParseProfile checks a profile name ("" is none).
func ParseProfile(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if _, ok := profiles[s]; ok || s == "" {
		return s, nil
	}
	return "", fmt.Errorf("%q is not a review profile: quiet, balanced or thorough", pipeline.ClipRunes(s, 40))
}

// ParseUnverified checks an unverified mode ("" is keep).
func ParseUnverified(s string) (string, error) {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "", UnverifiedFold, UnverifiedDrop, UnverifiedKeep:
		return s, nil
	}
	return "", fmt.Errorf("%q is not fold, drop or keep", pipeline.ClipRunes(s, 40))
}

// ParseMinSeverity checks an inline severity floor ("" is none).
func ParseMinSeverity(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || reviewanswer.SeverityRank(s) < len(reviewanswer.Severities) {
		return s, nil
	}
	return "", fmt.Errorf("%q is not a severity: critical, high, medium or low", pipeline.ClipRunes(s, 40))
}

// Check validates the policy; field prefixes the error's field names.
func (p Policy) Check(field string) error {
	if _, err := ParseProfile(p.Profile); err != nil {
		return pipeline.Invalidf(field+".profile", "%v", err)
	}
	if p.MaxInline < 0 {
		return pipeline.Invalidf(field+".maxInline", "must not be negative")
	}
	if _, err := ParseMinSeverity(p.MinSeverity); err != nil {
		return pipeline.Invalidf(field+".minSeverity", "%v", err)
	}
	if _, err := ParseUnverified(p.Unverified); err != nil {
		return pipeline.Invalidf(field+".unverified", "%v", err)
	}
	return nil
}

// Over lays a request's policy over the service's: a profile given by the
// request sets the budget and floor again (the service's own individual
// settings then no longer apply), and the request's individual fields win
// over both.
func (p Policy) Over(base Policy) Policy {
	out := base
	if p.Profile != "" {
		out.Profile, out.MaxInline, out.MinSeverity = p.Profile, 0, ""
	}
	if p.MaxInline > 0 {
		out.MaxInline = p.MaxInline
	}
	if p.MinSeverity != "" {
		out.MinSeverity = p.MinSeverity
	}
	if p.Unverified != "" {
		out.Unverified = p.Unverified
	}
	return out
}

// Effective is the policy with the profile applied and names normalized:
// MinSeverity and Unverified set; MaxInline 0 is no budget.
func (p Policy) Effective() Policy {
	out := Policy{Unverified: UnverifiedKeep, MinSeverity: "low"}
	prof, _ := ParseProfile(p.Profile)
	out.Profile = prof
	if pr, ok := profiles[prof]; ok {
		out.MaxInline, out.MinSeverity = pr.maxInline, pr.minSeverity
	}
	if p.MaxInline > 0 {
		out.MaxInline = p.MaxInline
	}
	if s, _ := ParseMinSeverity(p.MinSeverity); s != "" {
		out.MinSeverity = s
	}
	if u, _ := ParseUnverified(p.Unverified); u != "" {
		out.Unverified = u
	}
	return out
}

// UnverifiedOut reports whether findings without evidence stay off the
// diff (fold or drop).
func (p Policy) UnverifiedOut() bool {
	return p.Unverified == UnverifiedFold || p.Unverified == UnverifiedDrop
}
