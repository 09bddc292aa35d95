package pipeline

import "time"

// Limits are the stage limits. The defaults are the figures of the stage contract (docs/architecture.md); every one
// is configurable (see cmd/prscout's Config).
type Limits struct {
	NeedsTotal      int           // requests kept in all (default 12)
	NeedsPerFile    int           // requests kept per changed file (default 5)
	ContextLines    int           // diff context lines (default 30)
	FullSourceLines int           // new sources up to this many lines are shown whole (default 900)
	MaxPathLen      int           // longest accepted repository path, in bytes
	MaxFileBytes    int64         // files larger than this are refused by lookups
	MaxListEntries  int           // entries per list_dir answer
	BatchMax        int           // lookups processed per batch (default 12)
	BatchParallel   int           // lookups running at once
	LookupTimeout   time.Duration // per lookup
	MaxPromptChars  int           // budget of each prompt (scout, and review with its context)
	// MaxGroups is how many review groups one change may be split into when
	// its files do not fit one review (default 8); the files of further
	// groups are dropped and named (reason max_groups).
	MaxGroups int
	// CandidatesMax is how many context candidates /v1/context lists at
	// most (default 12; 0 lists none). CandidatesAuto is how many of the top
	// candidates /v1/needs adds to the scout's requests when the scout did
	// not ask for them (default 3; 0 adds none). CandidatesBudget bounds the
	// time one context spends finding candidates (default 5s).
	CandidatesMax    int
	CandidatesAuto   int
	CandidatesBudget time.Duration
}

// WithDefaults returns l with every zero or negative field set to
// DefaultLimits' value (ContextLines, CandidatesMax and CandidatesAuto only
// when negative: 0 is a valid choice). Stages call it so that a zero Limits works.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.NeedsTotal, d.NeedsTotal)
	set(&l.NeedsPerFile, d.NeedsPerFile)
	set(&l.FullSourceLines, d.FullSourceLines)
	set(&l.MaxPathLen, d.MaxPathLen)
	set(&l.MaxListEntries, d.MaxListEntries)
	set(&l.BatchMax, d.BatchMax)
	set(&l.BatchParallel, d.BatchParallel)
	set(&l.MaxPromptChars, d.MaxPromptChars)
	set(&l.MaxGroups, d.MaxGroups)
	if l.ContextLines < 0 {
		l.ContextLines = d.ContextLines
	}
	// Zero candidates is a choice (the feature off), as zero context lines is.
	if l.CandidatesMax < 0 {
		l.CandidatesMax = d.CandidatesMax
	}
	if l.CandidatesAuto < 0 {
		l.CandidatesAuto = d.CandidatesAuto
	}
	if l.CandidatesBudget <= 0 {
		l.CandidatesBudget = d.CandidatesBudget
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.LookupTimeout <= 0 {
		l.LookupTimeout = d.LookupTimeout
	}
	return l
}

// DefaultLimits returns the limits of the stage contract (docs/architecture.md).
func DefaultLimits() Limits {
	return Limits{
		NeedsTotal:      12,
		NeedsPerFile:    5,
		ContextLines:    30,
		FullSourceLines: 900,
		MaxPathLen:      1024,
		MaxFileBytes:    512 << 10,
		MaxListEntries:  500,
		BatchMax:        12,
		BatchParallel:   12,
		LookupTimeout:   10 * time.Second,
		MaxPromptChars:  120_000,
		MaxGroups:       8,
		// The contract's 12 requests in all: never more candidates than the
		// scout may ask for.
		CandidatesMax:    12,
		CandidatesAuto:   3,
		CandidatesBudget: 5 * time.Second,
	}
}
