package pipeline

import (
	"fmt"
	"sort"
	"strings"
)

// File gate reason codes: the Reason of an Excluded entry, the keys of
// Coverage.ExcludedByReason and the decision label of the context metrics.
// GateOrder lists them in the order the gates run; the first gate a file
// fails gives its reason.
const (
	GateBinary         = "binary"          // the diff or the source says binary
	GateSecret         = "secret"          // IsSecretPath on the new or old path; never overridable
	GateSubmodule      = "submodule"       // a submodule pointer, not a file
	GateUserExclude    = "user_exclude"    // matches an exclude glob (request or rule file)
	GateUnsupportedExt = "unsupported_ext" // not a source or configuration type prscout knows
	GateDefaultPath    = "default_path"    // generated, vendored, dependency, build output, lock file, fixture
	GateDeleted        = "deleted"         // nothing left to review
	GateTooLarge       = "too_large"       // the diff alone takes more than TooLargeShare of the prompt budget
)

// GateOrder is every gate reason in the order the gates run. An include glob
// match skips GateUnsupportedExt and GateDefaultPath only: it is not an
// allow-list, and it never beats binary, secret or an exclude glob.
var GateOrder = []string{
	GateBinary, GateSecret, GateSubmodule, GateUserExclude, GateUnsupportedExt,
	GateDefaultPath, GateDeleted, GateTooLarge,
}

// Coverage says how much of a change the review saw, so a "no issues"
// answer never hides a partial review. Changed = Reviewed + Excluded +
// DroppedForBudget.
type Coverage struct {
	// Changed is the number of changed files in the diff.
	Changed int `json:"changed"`
	// Reviewed is the number of changed files shown to the model.
	Reviewed int `json:"reviewed"`
	// Excluded counts files left out by a gate other than too_large;
	// ExcludedByReason splits it by reason (GateOrder codes).
	Excluded         int            `json:"excluded"`
	ExcludedByReason map[string]int `json:"excludedByReason"`
	// DroppedForBudget counts changed files left out because their diff
	// alone exceeds the prompt budget's share (too_large).
	DroppedForBudget int `json:"droppedForBudget"`
	// ContextDropped is the additional context files /v1/merge dropped to
	// meet the budget (0 in the context answer).
	ContextDropped int `json:"contextDropped"`
}

// CoverageOf computes the coverage of reviewed files and exclusions.
func CoverageOf(reviewed int, excluded []Excluded) Coverage {
	c := Coverage{Reviewed: reviewed, ExcludedByReason: map[string]int{}}
	for _, e := range excluded {
		if e.Reason == GateTooLarge {
			c.DroppedForBudget++
			continue
		}
		c.Excluded++
		c.ExcludedByReason[e.Reason]++
	}
	c.Changed = c.Reviewed + c.Excluded + c.DroppedForBudget
	return c
}

// Sentence renders the coverage as one line for people, e.g. "12 of 15
// changed files reviewed; 2 excluded (1 default_path, 1 secret); 1 dropped
// for budget (too_large)".
func (c Coverage) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %s reviewed", c.Reviewed, CountNoun(c.Changed, "changed file"))
	if c.Excluded > 0 {
		var parts []string
		for _, r := range GateOrder {
			if n := c.ExcludedByReason[r]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, r))
			}
		}
		var other []string // reasons outside GateOrder, if any
		for r, n := range c.ExcludedByReason {
			if !isGateReason(r) && n > 0 {
				other = append(other, fmt.Sprintf("%d %s", n, r))
			}
		}
		sort.Strings(other)
		parts = append(parts, other...)
		fmt.Fprintf(&b, "; %d excluded (%s)", c.Excluded, strings.Join(parts, ", "))
	}
	if c.DroppedForBudget > 0 {
		fmt.Fprintf(&b, "; %d dropped for budget (too_large)", c.DroppedForBudget)
	}
	if c.ContextDropped > 0 {
		fmt.Fprintf(&b, "; %s of additional context dropped for budget", CountNoun(c.ContextDropped, "file"))
	}
	return b.String()
}

func isGateReason(r string) bool {
	for _, g := range GateOrder {
		if g == r {
			return true
		}
	}
	return false
}
