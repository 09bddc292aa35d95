package collect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/diff"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/redact"
)

// Review groups. When the reviewable files of a change do not fit one
// review, /v1/context splits them into groups, each a self-contained review
// unit whose scout prompt and review prompt stay within
// Limits.MaxPromptChars (the review prompt keeps groups.ContextReserve of it
// free for the additional context the scout asks for). Related files stay
// together: the files of one directory (a package) first, then files linked
// by the change's own names (an identifier declared in one file's added lines
// and used in another's changed lines: a changed function and its changed
// callers), then the rest packed by size (groups.Plan). A file over the
// budget on its own is reviewed alone with its hunks windowed, the omitted
// lines named. Past Limits.MaxGroups the groups with the fewest changed lines
// are dropped and their files named (reason max_groups); when candidates
// are listed, that is decided before they are found (dropAhead), so they
// are the kept files' candidates. Everything here is pure: no I/O.

// minGroupRoom is the least room for files a prompt must leave once its
// fixed part (instructions, pull request, Jira, rules) is written; below
// it, groups cannot help and the change is one review over the budget.
const minGroupRoom = 1000

// partNoteAllowance is the room kept for the note that tells a group's
// prompts which part of the change they show.
const partNoteAllowance = 900

// ContextGroup is one review group: an item of the context answer's
// groups[], itself a context answer (its ContextResult fields) with the
// group's files, scout prompt, stats and coverage and with group set to its
// id, so that /v1/needs, /v1/repository/batch and /v1/merge take it as they
// take a whole context. Its excluded[] holds the files the gates left out;
// files dropped past the group limit are named in the top-level excluded[].
type ContextGroup struct {
	ID string `json:"id"`
	ContextResult
}

// formGroups splits res.Files into review groups (see the comment at the
// top of this file) and writes res.Groups, the top-level scout prompt and
// the prompt sizes. When everything fits, there is exactly one group and the
// top-level fields are what they were before groups existed. Otherwise the
// top-level files are those of all groups (windowed files as their group
// shows them), files past the group limit move to excluded (max_groups),
// and the top-level scout prompt is kept within the budget by listing the
// files it has no room for.
func (res *ContextResult) formGroups(lim pipeline.Limits) {
	lim = lim.WithDefaults()
	budget := lim.MaxPromptChars
	reviewCap := int(float64(budget) * (1 - groups.ContextReserve))
	res.Stats.Budget = budget
	if res.Skip {
		return // nothing to review: no groups, no prompt
	}

	// Groups dropped ahead leave the groups they kept (dropAhead);
	// otherwise the files are planned here.
	if res.ahead.groups > 0 {
		res.formUnits(lim, res.Excluded[:len(res.Excluded)-res.ahead.files], res.ahead.units, nil)
		return
	}
	gateExcluded := res.Excluded
	costs, total, room, fixed := res.planRoom(lim, budget, reviewCap)

	// One review when it all fits (checked on the real prompts).
	if total <= room+partNoteAllowance || room < minGroupRoom {
		full := scoutPrompt(*res, lim)
		review := merge.ReviewPromptCharsWith(mergeContextOf(*res), res.countMemo)
		fits := promptChars(full) <= budget && review <= reviewCap
		if fits || room < minGroupRoom || len(res.Files) == 0 {
			if !fits && len(res.Files) > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf(
					"the prompts without any changed file take %d of the %d-character budget: the change is reviewed as one group over the budget", fixed, budget))
			}
			res.ScoutPrompt = full
			res.Stats.PromptChars = promptChars(full)
			res.Stats.ReviewPromptChars = review
			one := res.groupItem("g1", res.Files, nil, lim)
			one.ScoutPrompt, one.Stats.PromptChars, one.Stats.ReviewPromptChars = full, res.Stats.PromptChars, review
			res.Groups = []ContextGroup{one}
			return
		}
	}

	units, dropped := keepLargest(res.planUnits(costs, room, lim, budget, reviewCap), lim.MaxGroups)
	res.formUnits(lim, gateExcluded, units, dropped)
}

// formUnits makes the review groups of units, the top-level files those of
// all units, and names the files of dropped in excluded (max_groups), with
// those dropAhead dropped; gateExcluded are the gates' exclusions, the
// groups' excluded[].
func (res *ContextResult) formUnits(lim pipeline.Limits, gateExcluded []pipeline.Excluded, units, dropped []groupUnit) {
	budget := lim.MaxPromptChars
	reviewCap := int(float64(budget) * (1 - groups.ContextReserve))
	var files []pipeline.ChangedFile
	for _, u := range units {
		files = append(files, u.files...)
	}
	droppedGroups, droppedFiles := res.ahead.groups+len(dropped), res.ahead.files
	for _, u := range dropped {
		for _, f := range u.files {
			res.exclude(f.Path, pipeline.GateMaxGroups)
			droppedFiles++
		}
	}
	if droppedGroups > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s (%s) dropped past the limit of %d review groups (PRSCOUT_MAX_GROUPS): named in excluded as max_groups",
			pipeline.CountNoun(droppedGroups, "review group"), pipeline.CountNoun(droppedFiles, "changed file"), lim.MaxGroups))
	}
	windowed := 0
	for _, f := range files {
		if len(f.DiffOmitted) > 0 {
			windowed++
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: alone over the prompt budget; reviewed alone, %s", f.Path, groups.OmittedSentence(f)))
		}
	}

	res.Files = files
	res.recount()
	res.Coverage.Groups = len(units)
	res.Coverage.DroppedGroups = droppedGroups
	res.Coverage.Windowed = windowed
	// The top-level scout prompt and each group's prompts are written on
	// every core, from the answer as it stands here.
	shared := *res
	var top pipeline.Prompt
	items := make([]ContextGroup, len(units))
	pipeline.Parallel(len(units)+1, func(i int) {
		if i == len(units) {
			top = scoutPromptWithin(shared, lim, budget)
			return
		}
		u := units[i]
		part := groups.Part{Index: i + 1, Of: len(units), Files: len(u.files), TotalFiles: len(files), Dropped: droppedFiles, Label: groups.Label(u.files)}
		g := shared.groupItem("g"+strconv.Itoa(i+1), u.files, &part, lim)
		// A group's excluded[] is the gates' only (not max_groups), so its
		// prompts stay the size they were planned at.
		g.Excluded = nonNil(gateExcluded)
		g.recount()
		g.Coverage.Windowed = u.windowed()
		g.ScoutPrompt = scoutPrompt(g.ContextResult, lim)
		g.Stats.PromptChars = promptChars(g.ScoutPrompt)
		g.Stats.ReviewPromptChars = merge.ReviewPromptChars(mergeContextOf(g.ContextResult))
		items[i] = g
	})
	res.ScoutPrompt = top
	res.Stats.PromptChars = promptChars(res.ScoutPrompt)
	res.Stats.ReviewPromptChars = 0 // no single review prompt: see each group's
	for _, g := range items {
		if g.Stats.PromptChars > budget || g.Stats.ReviewPromptChars > reviewCap {
			res.Warnings = append(res.Warnings, fmt.Sprintf("review group %s: prompts of %d (scout) and %d (review) characters are over the budget of %d (review: %d before context)",
				g.ID, g.Stats.PromptChars, g.Stats.ReviewPromptChars, budget, reviewCap))
		}
	}
	res.Groups = items
}

// planRoom is what planning res.Files reads at budget: each file's cost
// (made in the background when the files are the same), their total and
// the room a group's prompts leave for files once their fixed parts, the
// part note and res.Candidates are written; fixed is the larger of the two
// prompts' fixed parts.
func (res *ContextResult) planRoom(lim pipeline.Limits, budget, reviewCap int) (costs []int, total, room, fixed int) {
	if p := res.waitPlanPrep(); p != nil && p.budget == budget {
		costs = p.costs
	} else {
		costs = fileCosts(res.Files, budget, res.countMemo)
	}
	for _, c := range costs {
		total += c
	}
	shell := res.groupShell(nil, groups.Part{Index: 99, Of: 99, Files: len(res.Files), TotalFiles: len(res.Files), Dropped: len(res.Files), Label: strings.Repeat("x", groups.MaxLabelRunes)})
	baseScout := promptChars(scoutPrompt(shell, lim)) + partNoteAllowance
	baseReview := merge.ReviewPromptChars(mergeContextOf(shell)) + partNoteAllowance
	return costs, total, min(budget-baseScout, reviewCap-baseReview), max(baseScout, baseReview) - partNoteAllowance
}

// droppedAhead is what dropAhead dropped (groups, files) and the units it
// kept.
type droppedAhead struct {
	groups, files int
	units         []groupUnit
}

// dropAhead plans the review groups before the candidates are found, with
// room for the longest candidates section lim allows (candidatesStandIn),
// and when the plan drops groups past lim.MaxGroups drops them now: their
// files move to excluded (max_groups) and leave res.Files, so the
// candidates are found for the files the review keeps, not for files no
// group shows. It returns the indices in res.Files of the files kept
// (nil when nothing was dropped: a plan that drops nothing is discarded,
// and formGroups plans as if this had not run). Otherwise formGroups makes
// the groups of the units kept here, whose room allowed for any candidate
// list.
func (res *ContextResult) dropAhead(lim pipeline.Limits) []int {
	lim = lim.WithDefaults()
	budget := lim.MaxPromptChars
	reviewCap := int(float64(budget) * (1 - groups.ContextReserve))
	// Every unit holds a file at least: with no more files than the group
	// limit nothing can be dropped, and the plan is not made twice.
	if res.Skip || lim.MaxGroups <= 0 || len(res.Files) <= lim.MaxGroups {
		return nil
	}
	real := res.Candidates
	res.Candidates = candidatesStandIn(lim.CandidatesMax)
	defer func() { res.Candidates = real }()
	costs, total, room, _ := res.planRoom(lim, budget, reviewCap)
	if total <= room+partNoteAllowance || room < minGroupRoom {
		return nil // one review, or one over the budget: nothing is dropped
	}
	units, dropped := keepLargest(res.planUnits(costs, room, lim, budget, reviewCap), lim.MaxGroups)
	if len(dropped) == 0 {
		return nil
	}
	gone := map[string]bool{}
	for _, u := range dropped {
		for _, f := range u.files {
			gone[f.Path] = true
		}
	}
	var kept []int
	var files []pipeline.ChangedFile
	for i, f := range res.Files {
		if gone[f.Path] {
			res.exclude(f.Path, pipeline.GateMaxGroups)
			res.ahead.files++
			continue
		}
		kept, files = append(kept, i), append(files, f)
	}
	res.ahead.groups, res.ahead.units = len(dropped), units
	res.Files = files
	return kept
}

// candidatesStandIn is n candidates whose section in the scout prompt is
// at least as long as that of n real ones: paths and reasons longer than
// the engines write (a longer one only costs a prompt a little over its
// budget, with the warning formGroups gives).
func candidatesStandIn(n int) []pipeline.Candidate {
	c := pipeline.Candidate{Path: strings.Repeat("x", 160), Kind: "impact", Method: string(candidates.MethodIdentifier), Test: true,
		Reason: strings.Repeat("x", 240)}
	out := make([]pipeline.Candidate, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// planPrep is what planning the review groups reads of the shown files
// alone: the names that link them, each file's changed lines, counted on
// the whole diffs, before any windowing, and, when made ahead, each
// file's cost (fileCost) at budget.
type planPrep struct {
	files   []pipeline.ChangedFile // the files it was made of
	links   groups.Links
	changed map[string]int // by path
	budget  int
	costs   []int // nil unless budget > 0
}

// makePlanPrep prepares the plan of files; with budget > 0, their costs
// at that prompt budget too.
func makePlanPrep(files []pipeline.ChangedFile, budget int, memo *merge.TextMemo) *planPrep {
	p := &planPrep{files: files, budget: budget}
	// The links are found while each file's changed lines and cost are
	// counted, all on every core.
	done := make(chan groups.Links, 1)
	go func() { done <- groups.NameLinks(files) }()
	lines := make([]int, len(files))
	if budget > 0 {
		p.costs = make([]int, len(files))
	}
	pipeline.Parallel(len(files), func(i int) {
		lines[i] = groups.ChangedLines(files[i : i+1])
		if budget > 0 {
			p.costs[i] = fileCost(files[i], budget, memo)
		}
	})
	p.changed = make(map[string]int, len(files))
	for i, f := range files {
		p.changed[f.Path] = lines[i]
	}
	p.links = <-done
	return p
}

// fileCosts is each file's fileCost at budget, counted on every core.
func fileCosts(files []pipeline.ChangedFile, budget int, memo *merge.TextMemo) []int {
	costs := make([]int, len(files))
	pipeline.Parallel(len(files), func(i int) { costs[i] = fileCost(files[i], budget, memo) })
	return costs
}

// startPlanPrep makes the plan's preparation of res.Files, their costs at
// the prompt budget included, in the background; dropAhead, formGroups
// and planUnits take it when the files are still the same.
func (res *ContextResult) startPlanPrep(budget int) {
	ch := make(chan *planPrep, 1)
	files := res.Files
	if res.countMemo == nil {
		res.countMemo = &merge.TextMemo{}
	}
	memo := res.countMemo
	go func() { ch <- makePlanPrep(files, budget, memo) }()
	res.planPrep = ch
}

// mayGroup reports whether res.Files may be split into review groups, so
// that preparing the plan ahead is worth it: more than one file, whose
// diffs and sources hold more than half the prompt budget in bytes (never
// fewer than the characters formGroups counts). A smaller change fits one
// review unless the rest of the prompt is large, and then planUnits
// prepares the plan itself.
func (res *ContextResult) mayGroup(lim pipeline.Limits) bool {
	if len(res.Files) < 2 {
		return false
	}
	half, n := lim.WithDefaults().MaxPromptChars/2, 0
	for _, f := range res.Files {
		if n += len(f.Diff) + len(f.Source); n > half {
			return true
		}
	}
	return false
}

// waitPlanPrep waits for the preparation started in the background, once,
// and returns it when it was made of res.Files (nil otherwise, or when
// none was started).
func (res *ContextResult) waitPlanPrep() *planPrep {
	if res.planPrep != nil {
		res.prep = <-res.planPrep
		res.planPrep = nil
	}
	if res.prep == nil || !sameFiles(res.prep.files, res.Files) {
		return nil
	}
	return res.prep
}

// takePlanPrep returns the preparation made in the background for
// res.Files, or makes it (without costs).
func (res *ContextResult) takePlanPrep() *planPrep {
	if p := res.waitPlanPrep(); p != nil {
		return p
	}
	return makePlanPrep(res.Files, 0, res.countMemo)
}

// sameFiles reports whether a and b are the same slice of files.
func sameFiles(a, b []pipeline.ChangedFile) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// planUnits plans the review groups of res.Files (groups.Plan) and fits
// each to the real prompts (fitUnit), with its changed lines counted on the
// whole diffs, before any windowing; in path order.
func (res *ContextResult) planUnits(costs []int, room int, lim pipeline.Limits, budget, reviewCap int) []groupUnit {
	prep := res.takePlanPrep()
	plan := groups.PlanLinked(res.Files, costs, room, prep.links)
	var units []groupUnit
	// Each planned group is fitted on its own, on every core, and the
	// units kept in plan order.
	fitted := make([][]groupUnit, len(plan))
	pipeline.Parallel(len(plan), func(i int) { fitted[i] = res.fitUnit(plan[i], room, lim, budget, reviewCap) })
	for _, f := range fitted {
		units = append(units, f...)
	}
	changed := prep.changed
	for i := range units {
		units[i].changed = 0
		for _, f := range units[i].files {
			units[i].changed += changed[f.Path]
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].files[0].Path < units[j].files[0].Path })
	return units
}

// keepLargest keeps at most limit units: past it, the units with the
// fewest changed lines go (dropped), the others keep their order.
func keepLargest(units []groupUnit, limit int) (kept, dropped []groupUnit) {
	if len(units) <= limit {
		return units, nil
	}
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return units[order[a]].changed > units[order[b]].changed })
	keep := map[int]bool{}
	for _, i := range order[:limit] {
		keep[i] = true
	}
	for i, u := range units {
		if keep[i] {
			kept = append(kept, u)
		} else {
			dropped = append(dropped, u)
		}
	}
	return kept, dropped
}

// groupShell is res with the given files and part and no other group data:
// the basis of a group's item and of the fixed prompt sizes.
func (res ContextResult) groupShell(files []pipeline.ChangedFile, part groups.Part) ContextResult {
	g := res
	g.Files = nonNil(files)
	g.Groups = nil
	g.Part = &part
	g.Warnings = []string{}
	return g
}

// groupItem builds group id's item from res's shared fields and files.
func (res ContextResult) groupItem(id string, files []pipeline.ChangedFile, part *groups.Part, lim pipeline.Limits) ContextGroup {
	g := res
	g.Files = nonNil(files)
	g.Groups = nil
	g.Group = id
	g.Part = part
	g.Warnings = []string{}
	if part == nil {
		g.Warnings = append(g.Warnings, res.Warnings...)
		return ContextGroup{ID: id, ContextResult: g}
	}
	for _, f := range files {
		if len(f.DiffOmitted) > 0 {
			g.Warnings = append(g.Warnings, fmt.Sprintf("%s: alone over the prompt budget; %s", f.Path, groups.OmittedSentence(f)))
		}
	}
	g.Stats = ContextStats{Budget: lim.MaxPromptChars, Redactions: redactionsIn(files)}
	return ContextGroup{ID: id, ContextResult: g}
}

// recount recomputes the stats and coverage that depend on the files and
// exclusions (not the prompts).
func (res *ContextResult) recount() {
	st := &res.Stats
	st.DiffChars, st.SourceChars, st.WholeSources, st.WindowedSources, st.NoSource = 0, 0, 0, 0, 0
	st.ShownRanges = []string{}
	st.ExcludedByReason = map[string]int{}
	for _, e := range res.Excluded {
		st.ExcludedByReason[e.Reason]++
	}
	if st.Redactions == nil {
		st.Redactions = map[string]int{}
	}
	for _, f := range res.Files {
		st.DiffChars += pipeline.RuneCount(f.Diff)
		switch {
		case f.SourceRange == nil:
			st.NoSource++
			continue
		case len(f.SourceRange.Windows) > 0:
			st.WindowedSources++
		default:
			st.WholeSources++
		}
		st.SourceChars += pipeline.RuneCount(f.Source)
		st.ShownRanges = append(st.ShownRanges, f.Path+": "+rangeLabel(*f.SourceRange))
	}
	st.Files = len(res.Files)
	st.Excluded = len(res.Excluded)
	groups := res.Coverage.Groups
	res.Coverage = pipeline.CoverageOf(len(res.Files), res.Excluded)
	res.Coverage.Groups = groups
}

// mergeContextOf is the part of a context answer /v1/merge reads.
func mergeContextOf(res ContextResult) merge.MergeContext {
	cov := res.Coverage
	return merge.MergeContext{
		Mode: res.Mode, Workspace: res.Workspace, RepoSlug: res.RepoSlug, PRID: res.PRID, Ref: res.Ref, Base: res.Base,
		ReviewedCommit: res.ReviewedCommit, PR: res.PR, Jira: res.Jira, Rules: res.Rules, Instructions: res.Instructions, Requirements: pipeline.RequirementsField{Text: res.RequirementsText, Criteria: res.Requirements},
		Files: res.Files, Excluded: res.Excluded, Coverage: &cov, Group: res.Group, Part: res.Part,
	}
}

func promptChars(p pipeline.Prompt) int {
	return pipeline.RuneCount(p.System) + pipeline.RuneCount(p.User)
}

// fileCost is the characters file f adds to the larger of its two prompt
// sections (scout and review, its rules written out in full). A file far
// over budget is not rendered: its diff and source size say enough.
func fileCost(f pipeline.ChangedFile, budget int, memo *merge.TextMemo) int {
	raw := memo.Runes(f.Diff) + memo.Runes(f.Source)
	if raw > 2*budget {
		return raw
	}
	c := merge.Counter{Memo: memo}
	merge.WriteChangedFile(&c, f, map[string]string{})
	return max(scoutFileSectionChars(1, f, map[string]string{}, memo), c.N)
}

// groupUnit is one planned group: its files (windowed when alone over the
// budget) and how many lines they change.
type groupUnit struct {
	files   []pipeline.ChangedFile
	changed int
}

// windowed counts the unit's files shown in part.
func (u groupUnit) windowed() int {
	n := 0
	for _, f := range u.files {
		if len(f.DiffOmitted) > 0 {
			n++
		}
	}
	return n
}

// fitUnit turns one planned group into units whose real prompts fit: a
// group over the budget is halved (in path order) until it fits, a single
// file over it is windowed, each time with the room the real prompts left.
func (res ContextResult) fitUnit(files []pipeline.ChangedFile, room int, lim pipeline.Limits, budget, reviewCap int) []groupUnit {
	if len(files) == 1 && fileCost(files[0], budget, res.countMemo) > room {
		files = []pipeline.ChangedFile{windowFile(files[0], room)}
	}
	for try := 0; ; try++ {
		g := res.groupShell(files, groups.Part{Index: 99, Of: 99, Files: len(files), TotalFiles: len(res.Files), Dropped: len(res.Files), Label: strings.Repeat("x", groups.MaxLabelRunes)})
		g.Excluded = res.Excluded
		scout := scoutPromptChars(g, lim)
		review := merge.ReviewPromptCharsWith(mergeContextOf(g), res.countMemo)
		over := max(scout-budget, review-reviewCap)
		if over <= 0 || try == 3 {
			return []groupUnit{{files: files}} // planUnits counts its changed lines
		}
		if len(files) > 1 {
			half := splitByCost(files, budget, res.countMemo)
			return append(res.fitUnit(files[:half], room, lim, budget, reviewCap), res.fitUnit(files[half:], room, lim, budget, reviewCap)...)
		}
		room -= over + 200
		if room < minGroupRoom {
			room = minGroupRoom
		}
		files = []pipeline.ChangedFile{windowFile(files[0], room)}
	}
}

// splitByCost returns the index that splits files into two halves of about
// the same cost (at least one file each).
func splitByCost(files []pipeline.ChangedFile, budget int, memo *merge.TextMemo) int {
	total := 0
	costs := make([]int, len(files))
	for i, f := range files {
		costs[i] = fileCost(f, budget, memo)
		total += costs[i]
	}
	acc := 0
	for i, c := range costs {
		acc += c
		if acc*2 >= total {
			return min(max(i, 1), len(files)-1)
		}
	}
	return len(files) / 2
}

// redactionsIn counts the [REDACTED:<kind>] markers in the files' diffs and
// sources, by kind.
func redactionsIn(files []pipeline.ChangedFile) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		for _, s := range []string{f.Diff, f.Source} {
			for {
				i := strings.Index(s, redact.Marker)
				if i < 0 {
					break
				}
				s = s[i+len(redact.Marker):]
				kind, _, ok := strings.Cut(s, "]")
				if ok && len(kind) <= 40 {
					out[kind]++
				}
			}
		}
	}
	return out
}

// windowFile fits file f into room characters of a prompt section: its
// source is left out first; then its diff keeps whole hunks in order while
// they fit, the first hunk that does not fit is cut after the last line that
// does (its header recounted, so the diff stays valid), and every new-file
// line range left out is recorded in DiffOmitted. Nothing is dropped
// silently.
func windowFile(f pipeline.ChangedFile, room int) pipeline.ChangedFile {
	f.Source, f.SourceRange = "", nil
	var probe strings.Builder
	merge.WriteChangedFile(&probe, pipeline.ChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Language: f.Language, Rules: f.Rules, RuleSource: f.RuleSource}, map[string]string{})
	// The section without the diff, and the note naming the omitted ranges
	// (at most groups.MaxNamedRanges of them, about 16 characters each).
	overhead := max(pipeline.RuneCount(probe.String()), pipeline.RuneCount(scoutFileSection(1, pipeline.ChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Language: f.Language, Rules: f.Rules, RuleSource: f.RuleSource, DiffOmitted: []pipeline.LineRange{{From: 1, To: 1}}}, map[string]string{})))
	overhead += 200 + groups.MaxNamedRanges*16 + 40
	windowed, omitted := diff.Window(f.Diff, room-overhead)
	if len(omitted) == 0 {
		return f
	}
	f.Diff, f.DiffOmitted = windowed, omitted
	return f
}
