package review

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// Review memory: what became of the findings of earlier reviews of a pull
// request, read from what is on the pull request (no database): the
// previous summary's hidden data (marker.FindingData, one line per finding)
// and prscout's own inline comments, each carrying its fingerprint.
//
// Each earlier finding gets one run state:
//
//   - still_open: this review reports it again (same fingerprint, or same
//     path, title and code), or its anchored code did not change;
//   - resolved: its anchored lines changed after the reviewed commit and
//     this review does not report it again (not even by its title on the
//     changed code);
//   - outdated: its file left the pull request, was deleted, or has no text
//     lines left to anchor to;
//   - unreviewed: its file is out of this review's scope (excluded), or
//     no usable review covered it (the answer could not be read or was cut
//     off, or the file's group's review failed); it stays open, its thread
//     too. Only a review that covered a finding's file resolves it.
//
// Each finding of this review is new or still_open. Only findings placed on
// a diff line are remembered: the others have no anchored code to compare.
//
// How "the anchored lines changed" is read depends on the diff: a delta
// review's diff runs from the reviewed commit (its old side is the version
// the earlier findings were anchored in), so a finding changed when its old
// lines are removed lines of the diff, and is untouched when they are
// context or outside every hunk. A full review's diff, and an interdiff's,
// run from the merge base: there a finding is still open when its anchored
// code (CodeHash) is still among the file's new-side lines, and changed when
// it is not. A finding whose code was never recorded (a comment posted by an
// older prscout) is only resolved on positive evidence.

// Run states (MemoryEntry.State).
const (
	StateNew        = "new"
	StateStillOpen  = "still_open"
	StateResolved   = "resolved"
	StateOutdated   = "outdated"
	StateUnreviewed = "unreviewed"
	// StateDismissed: dismissed by a participant in its thread; never
	// shown, posted or reopened again.
	StateDismissed = "dismissed"
)

// FindingCounts are the keys of Memory.Counted, the label values of
// prscout_findings_total{state}: findings first reported (posted), findings
// resolved or outdated by this review, and findings still open after it
// (once per reviewed head).
var FindingCounts = []string{"posted", "resolved", "outdated", "still_open"}

// Bounds of the summary. Bitbucket Cloud documents no maximum comment
// length; Bitbucket Server refuses comment text of 32,768 characters or
// more, and other tools keep Bitbucket comments near 31,000. The summary's
// hidden data therefore gets at most maxDataBytes, and never more than
// what keeps the whole summary under maxSummaryBytes.
const (
	maxSummaryBytes = 32000
	maxDataBytes    = 12000
)

// MemoryEntry is one finding the memory knows, with its state in this review.
type MemoryEntry struct {
	Fingerprint string `json:"fingerprint"`
	// State is new, still_open, resolved, outdated or unreviewed.
	State string `json:"state"`
	// Reason says why (e.g. "the anchored lines changed").
	Reason    string `json:"reason"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Severity  string `json:"severity,omitempty"`
	Title     string `json:"title,omitempty"`
	CommentID int64  `json:"commentId,omitempty"`
	URL       string `json:"url,omitempty"`
	// Since is the head (12 digits) of the review that first reported it.
	Since string `json:"since,omitempty"`
	// Thread says what became of a resolved finding's inline thread:
	// "resolved", "already resolved" or why it was left open.
	Thread string `json:"thread,omitempty"`
	// Placement is where this review put the finding (inline, summary,
	// unverified) and Evidence its evidence verdict (verified, elsewhere,
	// unverified); empty for findings this review did not report.
	Placement string `json:"placement,omitempty"`
	Evidence  string `json:"evidence,omitempty"`

	data    marker.FindingData
	tracked bool // kept in the hidden data (placed on a diff line)
	shown   bool // a row of this review's table
	row     *findingRow
	anchor  string // the row's anchor (line, snippet, file, unanchored)
}

// Data is what the summary's hidden data keeps of the finding.
func (e *MemoryEntry) Data() marker.FindingData { return e.data }

// Memory is the compare of one review with the earlier ones.
type Memory struct {
	// EarlierHead is the head the previous summary reviewed ("" when none).
	EarlierHead string `json:"earlierHead"`
	// Entries are the findings of this review's table, then the findings
	// remembered but not shown (resolved or outdated by earlier reviews).
	Entries []MemoryEntry `json:"entries"`
	// States counts the shown entries by state.
	States map[string]int `json:"states"`
	// Counted are this call's increments of prscout_findings_total by state
	// (FindingCounts): a retried request counts nothing twice.
	Counted map[string]int `json:"counted"`
	// DataDropped counts remembered findings left out of the summary's
	// hidden data by its size bound (resolved and outdated ones first).
	DataDropped int `json:"dataDropped"`

	entries  []*MemoryEntry // in data order: earlier ones, then new ones
	sameHead bool
	ref      string // the reviewed head, 12 digits
}

// memoryInput is what the compare needs: this review's findings and diff,
// and the pull request's comments as listed before posting.
type memoryInput struct {
	ref       string
	mode      string
	interdiff bool
	ix        *anchor.Index
	excluded  []pipeline.Excluded
	rows      []findingRow
	comments  []pipeline.Comment
	// cover is which files the review covered: a finding on a file it did
	// not cover is never resolved.
	cover reviewCover
}

var inlineTitleRe = regexp.MustCompile(`^\*\*([A-Za-z]+)\*\* · (.*)$`)

// remember compares this review's findings with the earlier ones. It is
// pure: posting, thread resolution and rendering use its answer.
func remember(in memoryInput) *Memory {
	ref := pipeline.ShortCommit(strings.ToLower(in.ref))
	mem := &Memory{States: map[string]int{}, Counted: map[string]int{}, ref: ref}
	for _, k := range FindingCounts {
		mem.Counted[k] = 0
	}
	byFP := mem.loadEarlier(in)
	rows := make([]*findingRow, len(in.rows))
	for i := range in.rows {
		rows[i] = &in.rows[i]
	}
	matched := mem.matchReported(in, rows, byFP)
	changed := mem.judgeEarlier(in)
	mem.keepReportedOnChange(in, rows, matched, changed)
	mem.addNew(rows, matched)
	for _, e := range mem.entries {
		if e.State == StateDismissed {
			// Not in the table, but counted: the summary says how many
			// findings its readers dismissed.
			mem.States[e.State]++
			continue
		}
		if e.shown {
			mem.States[e.State]++
			if !mem.sameHead && e.tracked && (e.State == StateStillOpen || e.State == StateUnreviewed) {
				mem.Counted["still_open"]++
			}
		}
	}
	mem.Sync()
	return mem
}

// ownComments are prscout's own inline comments by fingerprint (lowest id,
// live first) and by id, and the fingerprints in id order; comments not
// proven prscout's (Foreign, Unverified) are not remembered.
func ownComments(comments []pipeline.Comment) (byFP map[string]pipeline.Comment, byID map[int64]pipeline.Comment, order []string) {
	sorted := append([]pipeline.Comment(nil), comments...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	byFP = map[string]pipeline.Comment{}
	byID = map[int64]pipeline.Comment{}
	for _, c := range sorted {
		if c.Foreign || c.Unverified || c.Inline == nil {
			continue
		}
		fp, ok := marker.ParseFindingMarker(c.Body)
		if !ok {
			continue
		}
		byID[c.ID] = c
		if have, ok := byFP[fp]; !ok {
			byFP[fp] = c
			order = append(order, fp)
		} else if have.Deleted && !c.Deleted {
			byFP[fp] = c
		}
	}
	return byFP, byID, order
}

// loadEarlier reads the earlier findings into mem.entries: the previous
// summary's data (the summary publish.Post updates), then prscout's own inline
// comments the data does not name, each linked to its inline comment. It
// returns the entries by fingerprint.
func (mem *Memory) loadEarlier(in memoryInput) map[string]*MemoryEntry {
	ownByFP, ownByID, ownOrder := ownComments(in.comments)
	var data []marker.FindingData
	if sums := LiveSummaries(in.comments); len(sums) > 0 {
		mem.EarlierHead, _ = marker.ParseReviewMarker(sums[0].Body)
		data = marker.ParseFindingData(sums[0].Body)
	}
	mem.sameHead = mem.EarlierHead != "" && pipeline.SameCommit(mem.EarlierHead, in.ref)

	byFP := map[string]*MemoryEntry{}
	add := func(d marker.FindingData) *MemoryEntry {
		e := &MemoryEntry{data: d, tracked: true}
		mem.entries = append(mem.entries, e)
		byFP[d.Fingerprint] = e
		return e
	}
	for _, d := range data {
		add(d)
	}
	for _, fp := range ownOrder {
		if byFP[fp] != nil {
			continue
		}
		c := ownByFP[fp]
		add(marker.FindingData{Fingerprint: fp, State: marker.StateOpen, CommentID: c.ID, Path: c.Inline.Path, Line: c.Inline.Line})
	}
	// Link each earlier finding to its inline comment: the one the data
	// names, unless it is gone or deleted and a live one carries the
	// fingerprint (a race between replicas kept the other copy).
	for _, e := range mem.entries {
		c, ok := ownByID[e.data.CommentID]
		if alt, altOK := ownByFP[e.data.Fingerprint]; altOK && (!ok || e.data.CommentID == 0 || c.Deleted && !alt.Deleted) {
			c, ok = alt, true
		}
		if ok {
			e.data.CommentID, e.URL = c.ID, c.URL
			if m := inlineTitleRe.FindStringSubmatch(firstBodyLine(c.Body)); m != nil {
				e.Title = m[2]
				if e.data.Severity == "" {
					e.data.Severity = strings.ToLower(m[1])
				}
			}
		}
	}
	return byFP
}

// matchReported is step 1: this review's findings that report an earlier
// one again (same fingerprint, or same path, title and anchored code), each
// tied to its entry.
func (mem *Memory) matchReported(in memoryInput, rows []*findingRow, byFP map[string]*MemoryEntry) map[*findingRow]*MemoryEntry {
	matched := map[*findingRow]*MemoryEntry{}
	for _, r := range rows {
		e := byFP[r.fp]
		th, ch := marker.TitleHash(r.f.Title), marker.CodeHash(r.a.Code)
		if e == nil && ch != "" {
			for _, x := range mem.entries {
				if x.row == nil && x.data.State == marker.StateOpen && x.data.CodeHash == ch &&
					x.data.TitleHash == th && in.ix.CurrentPath(x.data.Path) == r.a.Path {
					e = x
					break
				}
			}
		}
		if e == nil && !r.inline() {
			// Not on a diff line now (its line is outside this diff): the
			// open finding of that file with that title, nearest line first.
			p := anchor.NormalizePath(r.f.Path)
			for _, x := range mem.entries {
				if x.row == nil && x.data.State == marker.StateOpen && x.data.TitleHash == th && in.ix.CurrentPath(x.data.Path) == p &&
					(e == nil || absInt(x.data.Line-r.f.Line) < absInt(e.data.Line-r.f.Line)) {
					e = x
				}
			}
		}
		if e != nil && e.row == nil {
			e.row, matched[r] = r, e
		}
	}
	return matched
}

// judgeEarlier is step 2: every earlier finding gets its state. It returns
// those whose code changed: resolved unless step 3 finds them reported again.
func (mem *Memory) judgeEarlier(in memoryInput) []*MemoryEntry {
	ref := mem.ref
	var candidates []*MemoryEntry
	for _, e := range mem.entries {
		d := &e.data
		switch {
		case d.State == marker.StateDismissed:
			// Dismissed in its thread: reported again or not, it stays
			// dismissed, out of the table and off the diff (Continues).
			e.State, e.Reason = StateDismissed, "dismissed: "+d.Reason
			if e.row != nil {
				e.take(e.row)
			}
		case e.row != nil:
			e.shown = e.row.placement != placement.Unverified
			switch {
			case d.State != marker.StateOpen:
				e.State, e.Reason = StateStillOpen, "reported again after it was "+d.State
				d.State, d.Changed = marker.StateOpen, ref
			case mem.sameHead && d.Since == ref:
				e.State, e.Reason = StateNew, "reported by this review"
			default:
				e.State, e.Reason = StateStillOpen, "reported again"
			}
			e.take(e.row)
		case d.Placement == marker.PlacementUnverified:
			// An unverified finding is remembered for the review that
			// reported it only: not reported again, it is let go (never
			// resolved, never counted).
			e.tracked = false
			e.State, e.Reason = StateOutdated, "an unverified finding not reported again is not kept"
		case d.State != marker.StateOpen:
			// Resolved or outdated earlier: shown only when that happened at
			// this head (a retried request).
			if mem.sameHead && d.Changed == ref {
				e.shown, e.State, e.Reason = true, d.State, d.State+" by this review"
			} else {
				e.State = d.State
			}
		case mem.sameHead:
			e.shown = true
			e.State, e.Reason = StateStillOpen, "no commit since the last review"
			if d.Since == ref {
				e.State = StateNew
			}
		default:
			e.shown = true
			state, reason, line, path := in.judge(*d)
			d.Path, d.Line = path, line
			switch state {
			case StateResolved:
				e.Reason = reason
				candidates = append(candidates, e)
			case StateOutdated:
				e.State, e.Reason = StateOutdated, reason
				d.State, d.Changed = marker.StateOutdated, ref
				mem.Counted["outdated"]++
			default:
				e.State, e.Reason = state, reason
			}
		}
	}
	return candidates
}

// keepReportedOnChange is step 3: a finding whose code changed but that this
// review reports again by its title, on the same file, stays open (nearest
// line wins); the others are resolved.
func (mem *Memory) keepReportedOnChange(in memoryInput, rows []*findingRow, matched map[*findingRow]*MemoryEntry, candidates []*MemoryEntry) {
	ref := mem.ref
	for _, e := range candidates {
		var best *findingRow
		for _, r := range rows {
			if matched[r] != nil || !r.inline() || r.a.Path != in.ix.CurrentPath(e.data.Path) || marker.TitleHash(r.f.Title) != e.data.TitleHash {
				continue
			}
			if best == nil || absInt(r.a.Line-e.data.Line) < absInt(best.a.Line-e.data.Line) {
				best = r
			}
		}
		if best != nil {
			matched[best] = e
			e.row = best
			e.State, e.Reason = StateStillOpen, "reported again on the changed code"
			e.take(best)
			continue
		}
		e.State = StateResolved
		e.data.State, e.data.Changed = marker.StateResolved, ref
		mem.Counted["resolved"]++
	}
}

// addNew is step 4: this review's other findings are new; those on a diff
// line are remembered from now on.
func (mem *Memory) addNew(rows []*findingRow, matched map[*findingRow]*MemoryEntry) {
	ref := mem.ref
	for _, r := range rows {
		if matched[r] != nil {
			continue
		}
		e := &MemoryEntry{State: StateNew, Reason: "reported by this review", shown: r.placement != placement.Unverified, row: r,
			data: marker.FindingData{Fingerprint: r.fp, State: marker.StateOpen, Since: ref, Changed: ref}}
		e.take(r)
		if r.inline() {
			e.tracked = true
			if r.placement != placement.Unverified {
				mem.Counted["posted"]++
			}
		}
		mem.entries = append(mem.entries, e)
	}
}

// take copies a finding of this review into the entry: where it sits now,
// its title, severity and anchored code.
func (e *MemoryEntry) take(r *findingRow) {
	d := &e.data
	e.anchor = r.a.Anchor
	e.Placement, e.Evidence = r.placement, r.ev.Verdict
	switch r.placement {
	case placement.Summary:
		d.Placement = marker.PlacementSummary
	case placement.Unverified:
		// A finding posted inline by an earlier review stays what it was:
		// its comment is on the pull request and its thread may be resolved.
		if d.CommentID == 0 {
			d.Placement = marker.PlacementUnverified
		}
	default:
		d.Placement = ""
	}
	e.Title = pipeline.OneLine(r.f.Title)
	d.Severity = r.f.Severity
	d.TitleHash = marker.TitleHash(r.f.Title)
	if !r.inline() {
		if d.Path == "" {
			d.Path = r.f.Path
		}
		return
	}
	d.Path, d.Line = r.a.Path, r.a.Line
	if ch := marker.CodeHash(r.a.Code); ch != "" {
		d.CodeHash, d.CodeLines = ch, len(r.a.Code)
	}
}

// inline reports whether the finding sits on a diff line.
func (r *findingRow) inline() bool { return r.a.Anchor == anchor.Line || r.a.Anchor == anchor.Snippet }

// Sync refreshes the exported view (Entries) from the entries: shown ones
// in table order, then the remembered rest.
func (m *Memory) Sync() {
	m.Entries = make([]MemoryEntry, 0, len(m.entries))
	for _, e := range m.tableOrder() {
		m.Entries = append(m.Entries, e.view())
	}
	for _, e := range m.entries {
		if !e.shown {
			m.Entries = append(m.Entries, e.view())
		}
	}
}

func (e *MemoryEntry) view() MemoryEntry {
	v := *e
	v.Fingerprint, v.Path, v.Line = e.data.Fingerprint, e.data.Path, e.data.Line
	v.Severity, v.CommentID, v.Since = e.data.Severity, e.data.CommentID, e.data.Since
	v.row = nil
	return v
}

// stateRank orders the table: new, still open, unreviewed, resolved, outdated.
var stateRank = map[string]int{StateNew: 0, StateStillOpen: 1, StateUnreviewed: 2, StateResolved: 3, StateOutdated: 4}

// tableOrder returns the shown entries: by state, then most severe first,
// then by path and line.
func (m *Memory) tableOrder() []*MemoryEntry {
	var out []*MemoryEntry
	for _, e := range m.entries {
		if e.shown {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if stateRank[a.State] != stateRank[b.State] {
			return stateRank[a.State] < stateRank[b.State]
		}
		if ra, rb := reviewanswer.SeverityRank(a.data.Severity), reviewanswer.SeverityRank(b.data.Severity); ra != rb {
			return ra < rb
		}
		if a.data.Path != b.data.Path {
			return a.data.Path < b.data.Path
		}
		return a.data.Line < b.data.Line
	})
	return out
}

// Posted records the inline comment created for a finding of this review.
func (m *Memory) Posted(fp string, c pipeline.Comment) {
	for _, e := range m.entries {
		if e.data.Fingerprint == fp || (e.row != nil && e.row.fp == fp) {
			if e.data.CommentID == 0 {
				e.data.CommentID, e.URL = c.ID, c.URL
			}
		}
	}
	m.Sync()
}

// Continues reports whether a finding of this review (by fingerprint)
// continues an earlier one that has an inline comment of its own: it is not
// posted again.
func (m *Memory) Continues(fp string) bool {
	for _, e := range m.entries {
		if e.row != nil && e.row.fp == fp && e.data.Fingerprint != fp && e.data.CommentID > 0 {
			return true
		}
	}
	return false
}

// ToResolve returns the findings resolved at this head whose inline thread
// prscout may resolve.
func (m *Memory) ToResolve() []*MemoryEntry {
	var out []*MemoryEntry
	for _, e := range m.entries {
		if e.data.State == marker.StateResolved && e.data.Changed == m.ref && e.data.CommentID > 0 {
			out = append(out, e)
		}
	}
	return out
}

// judge decides an open earlier finding's state from this review's diff
// (see the package comment above): the state, the reason, and the
// finding's line and path in this review's head. StateResolved here means
// "changed": step 3 of remember still looks for it by its title.
func (in memoryInput) judge(d marker.FindingData) (state, reason string, line int, path string) {
	state, reason, line, path = in.judgeDiff(d)
	if state == StateResolved {
		if why := in.cover.uncovered(path); why != "" {
			return StateUnreviewed, "its file was not reviewed this time (" + why + ")", d.Line, path
		}
	}
	return state, reason, line, path
}

// judgeDiff is judge from the diff alone.
func (in memoryInput) judgeDiff(d marker.FindingData) (state, reason string, line int, path string) {
	path = in.ix.CurrentPath(d.Path)
	line = d.Line
	for _, x := range in.excluded {
		if anchor.NormalizePath(x.Path) != path {
			continue
		}
		if x.Reason == pipeline.GateDeleted {
			return StateOutdated, "its file was deleted", line, path
		}
		return StateUnreviewed, "its file is not reviewed this time (" + pipeline.OneLine(x.Reason) + ")", line, path
	}
	df, listed := in.ix.File(path)
	if !listed {
		if in.mode == "full" {
			return StateOutdated, "its file is no longer changed by the pull request", line, path
		}
		return StateStillOpen, "its file did not change since the reviewed commit", line, path
	}
	if df.Deleted() {
		return StateOutdated, "its file was deleted", line, path
	}
	if !df.HasText() {
		return StateOutdated, "its file has no text lines left", line, path
	}
	if d.CodeHash != "" {
		if n, ok := df.FindCode(d.CodeHash, max(d.CodeLines, 1), line); ok {
			return StateStillOpen, "its code did not change", n, path
		}
	}
	if in.mode == "delta" && !in.interdiff && df.HasOldHunks() {
		if line <= 0 {
			return StateStillOpen, "its line is unknown", line, path
		}
		n, removed := df.Follow(line, max(d.CodeLines, 1))
		if removed {
			return StateResolved, "its anchored lines changed", line, path
		}
		return StateStillOpen, "its lines did not change", n, path
	}
	if d.CodeHash == "" {
		return StateStillOpen, "its code was not recorded, so no change can be shown", line, path
	}
	return StateResolved, "its anchored code is gone from the diff", line, path
}

// firstBodyLine is a comment body's first line.
func firstBodyLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSuffix(l, "\r")
}

// stateLabel is a state as the table shows it.
func stateLabel(s string) string {
	switch s {
	case StateNew:
		return "New"
	case StateStillOpen:
		return "Still open"
	case StateUnreviewed:
		return "Still open (not reviewed this time)"
	case StateResolved:
		return "Resolved"
	case StateOutdated:
		return "Outdated"
	}
	return s
}

// writeMemoryTable writes the findings table of a review with memory: this
// review's findings (new or still open), the earlier findings still open,
// and those resolved or outdated by this review, with links to their inline
// comments; then a line of counts.
func writeMemoryTable(b *strings.Builder, m *Memory, limit int) {
	rows := m.tableOrder()
	var folded []string
	if n := pipeline.FoldLimit(len(rows), limit); n < len(rows) {
		// Folded: the most severe rows, in the table's order.
		bySeverity := slices.Clone(rows)
		sort.SliceStable(bySeverity, func(i, j int) bool {
			return reviewanswer.SeverityRank(bySeverity[i].data.Severity) < reviewanswer.SeverityRank(bySeverity[j].data.Severity)
		})
		keep := map[*MemoryEntry]bool{}
		for _, e := range bySeverity[:n] {
			keep[e] = true
		}
		for _, e := range bySeverity[n:] {
			folded = append(folded, e.data.Severity)
		}
		rows = slices.DeleteFunc(rows, func(e *MemoryEntry) bool { return !keep[e] })
	}
	if len(rows) == 0 {
		if n := m.States[StateDismissed]; n > 0 {
			fmt.Fprintf(b, "**Findings by state:** %d dismissed in their thread.\n\n", n)
		}
		return
	}
	b.WriteString("### Findings\n\n")
	if len(rows) > 0 {
		b.WriteString("| State | Severity | Where | Finding |\n| --- | --- | --- | --- |\n")
	}
	for _, e := range rows {
		title := e.Title
		if title == "" {
			title = "(title not kept)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", stateLabel(e.State), reviewanswer.SeverityLabel(e.data.Severity), sanitize.TableCell(e.where()), sanitize.TableCell(title))
	}
	b.WriteString("\n")
	writeFolded(b, folded)
	var parts []string
	for _, s := range []string{StateNew, StateStillOpen, StateUnreviewed, StateResolved, StateOutdated, StateDismissed} {
		if n := m.States[s]; n > 0 {
			label := strings.ReplaceAll(s, "_", " ")
			switch s {
			case StateUnreviewed:
				label = "still open but not reviewed this time"
			case StateDismissed:
				label = "dismissed in their thread"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, label))
		}
	}
	// The same words on a first review and on a retried one, so a retry
	// renders the same summary.
	fmt.Fprintf(b, "**Findings by state:** %s.\n\n", strings.Join(parts, ", "))
}

// where is the table's Where cell: a link to the inline comment when there
// is one.
func (e *MemoryEntry) where() string {
	if !e.tracked && e.row != nil {
		return where(*e.row)
	}
	loc := e.data.Path
	if e.data.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.data.Path, e.data.Line)
	}
	span := sanitize.CodeSpan(loc)
	switch {
	case e.URL != "":
		return "[" + span + "](" + linkTarget(e.URL) + ")"
	case e.data.CommentID > 0:
		return fmt.Sprintf("%s ([comment](#comment-%d))", span, e.data.CommentID)
	}
	return span
}

// linkTarget makes a URL safe as a Markdown link destination.
func linkTarget(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "|", "%7C").Replace(pipeline.OneLine(u))
}

// dataBlock renders the hidden data of the remembered findings within
// budget bytes: when they do not fit, resolved and outdated findings are
// dropped first (oldest first), then open ones that have an inline comment
// (the next review finds them again by its fingerprint marker), then the
// rest. It returns the lines and how many findings were dropped.
func (m *Memory) dataBlock(budget int) ([]string, int) {
	var tracked []*MemoryEntry
	for _, e := range m.entries {
		if e.tracked {
			tracked = append(tracked, e)
		}
	}
	lines := make([]string, len(tracked))
	total := 0
	for i, e := range tracked {
		lines[i] = marker.FindingDataLine(e.data)
		total += len(lines[i]) + 1
	}
	drop := make([]bool, len(tracked))
	dropped := 0
	for pass := 0; pass < 3 && total > budget; pass++ {
		for i, e := range tracked {
			if total <= budget {
				break
			}
			open := e.data.State == marker.StateOpen
			if drop[i] || pass == 0 && open || pass == 1 && (!open || e.data.CommentID == 0) {
				continue
			}
			drop[i] = true
			dropped++
			total -= len(lines[i]) + 1
		}
	}
	var out []string
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return out, dropped
}

// LiveSummaries returns the live prscout summaries, lowest id first.
func LiveSummaries(comments []pipeline.Comment) []pipeline.Comment {
	var out []pipeline.Comment
	for _, c := range comments {
		if marker.IsSummaryComment(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
