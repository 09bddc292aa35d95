package pipeline

import "time"

// Limits are the stage limits. The defaults are the figures of DESIGN.md's stage contract; every one
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
}

// WithDefaults returns l with every zero or negative field set to
// DefaultLimits' value (ContextLines only when negative: 0 lines of context
// is a valid choice). Stages call it so that a zero Limits works.
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
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.LookupTimeout <= 0 {
		l.LookupTimeout = d.LookupTimeout
	}
	return l
}

// DefaultLimits returns the limits of DESIGN.md's stage contract.
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
	}
}
