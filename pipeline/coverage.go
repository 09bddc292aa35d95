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
	// GateMaxGroups: the change needed more review groups than
	// Limits.MaxGroups allows; the file's group was dropped.
	GateMaxGroups = "max_groups"
	// GateTooLarge is the reason older answers gave a file whose diff alone
	// filled half the budget. No gate gives it any more (such a file is
	// reviewed alone with its hunks windowed); coverage still counts it as
	// dropped for budget when it is read back.
	GateTooLarge = "too_large"
)

// GateOrder is every gate reason in the order the gates run. An include glob
// match skips GateUnsupportedExt and GateDefaultPath only: it is not an
// allow-list, and it never beats binary, secret or an exclude glob.
var GateOrder = []string{
	GateBinary, GateSecret, GateSubmodule, GateUserExclude, GateUnsupportedExt,
	GateDefaultPath, GateDeleted, GateMaxGroups,
}

// Coverage says how much of a change the review saw, so a "no issues"
// answer never hides a partial review. Changed = Reviewed + Excluded +
// DroppedForBudget + NotReviewed.
type Coverage struct {
	// Changed is the number of changed files in the diff.
	Changed int `json:"changed"`
	// Reviewed is the number of changed files shown to the model.
	Reviewed int `json:"reviewed"`
	// Excluded counts files left out by a gate other than too_large;
	// ExcludedByReason splits it by reason (GateOrder codes).
	Excluded         int            `json:"excluded"`
	ExcludedByReason map[string]int `json:"excludedByReason"`
	// DroppedForBudget counts changed files left out for the budget: their
	// review group was past Limits.MaxGroups (max_groups), or, in older
	// answers, their diff alone was too large (too_large).
	DroppedForBudget int `json:"droppedForBudget"`
	// DroppedByReason splits DroppedForBudget by reason (max_groups,
	// too_large) when known.
	DroppedByReason map[string]int `json:"droppedByReason,omitempty"`
	// ContextDropped is the additional context files /v1/merge dropped to
	// meet the budget (0 in the context answer).
	ContextDropped int `json:"contextDropped"`
	// Groups is the number of review groups the change was split into (0 or
	// 1: one review); DroppedGroups those left out past Limits.MaxGroups;
	// FailedGroups those whose review is missing or failed (their files are
	// NotReviewed).
	Groups        int `json:"groups,omitempty"`
	DroppedGroups int `json:"droppedGroups,omitempty"`
	FailedGroups  int `json:"failedGroups,omitempty"`
	NotReviewed   int `json:"notReviewed,omitempty"`
	// Windowed counts reviewed files shown only in part: alone over the
	// budget, their diff was windowed and the omitted lines are named.
	Windowed int `json:"windowed,omitempty"`
}

// CoverageOf computes the coverage of reviewed files and exclusions.
func CoverageOf(reviewed int, excluded []Excluded) Coverage {
	c := Coverage{Reviewed: reviewed, ExcludedByReason: map[string]int{}}
	for _, e := range excluded {
		if e.Reason == GateTooLarge || e.Reason == GateMaxGroups {
			c.DroppedForBudget++
			if c.DroppedByReason == nil {
				c.DroppedByReason = map[string]int{}
			}
			c.DroppedByReason[e.Reason]++
			continue
		}
		c.Excluded++
		c.ExcludedByReason[e.Reason]++
	}
	c.Changed = c.Reviewed + c.Excluded + c.DroppedForBudget
	return c
}

// Add sums two coverages field by field (the reviews of several groups).
func (c Coverage) Add(o Coverage) Coverage {
	out := c
	out.ExcludedByReason = sumCounts(c.ExcludedByReason, o.ExcludedByReason)
	out.DroppedByReason = nil
	if len(c.DroppedByReason)+len(o.DroppedByReason) > 0 {
		out.DroppedByReason = sumCounts(c.DroppedByReason, o.DroppedByReason)
	}
	out.Changed += o.Changed
	out.Reviewed += o.Reviewed
	out.Excluded += o.Excluded
	out.DroppedForBudget += o.DroppedForBudget
	out.ContextDropped += o.ContextDropped
	out.Groups += o.Groups
	out.DroppedGroups += o.DroppedGroups
	out.FailedGroups += o.FailedGroups
	out.NotReviewed += o.NotReviewed
	out.Windowed += o.Windowed
	return out
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
		switch {
		case c.DroppedGroups > 0:
			fmt.Fprintf(&b, "; %d dropped for budget (%s past the group limit)", c.DroppedForBudget, CountNoun(c.DroppedGroups, "review group"))
		case c.DroppedByReason[GateMaxGroups] > 0:
			fmt.Fprintf(&b, "; %d dropped for budget (past the group limit)", c.DroppedForBudget)
		default:
			fmt.Fprintf(&b, "; %d dropped for budget (too_large)", c.DroppedForBudget)
		}
	}
	if c.NotReviewed > 0 {
		fmt.Fprintf(&b, "; %d not reviewed (the review of %s failed)", c.NotReviewed, CountNoun(c.FailedGroups, "group"))
	}
	if c.Groups > 1 {
		fmt.Fprintf(&b, "; reviewed in %d groups", c.Groups)
	}
	if c.Windowed > 0 {
		fmt.Fprintf(&b, "; %s shown in part (hunks windowed, omitted lines named)", CountNoun(c.Windowed, "file"))
	}
	if c.ContextDropped > 0 {
		fmt.Fprintf(&b, "; %s of additional context dropped for budget", CountNoun(c.ContextDropped, "file"))
	}
	return b.String()
}

func sumCounts(ms ...map[string]int) map[string]int {
	out := map[string]int{}
	for _, m := range ms {
		for k, n := range m {
			out[k] += n
		}
	}
	return out
}

func isGateReason(r string) bool {
	for _, g := range GateOrder {
		if g == r {
			return true
		}
	}
	return false
}
