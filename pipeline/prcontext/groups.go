package prcontext

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
)

// Review groups. When the reviewable files of a change do not fit one
// review, /v1/context splits them into groups, each a self-contained review
// unit whose scout prompt and review prompt stay within
// Limits.MaxPromptChars (the review prompt keeps contextReserve of it free
// for the additional context the scout asks for). Related files stay
// together: the files of one directory (a package) first, then files linked
// by the change's own names (an identifier declared in one file's added lines
// and used in another's changed lines: a changed function and its changed
// callers), then the rest packed by size. A file over the budget on its own is
// reviewed alone with its hunks windowed, the omitted lines named. Past
// Limits.MaxGroups the groups with the fewest changed lines are dropped and
// their files named (reason max_groups). Everything here is pure: no I/O.

// contextReserve is the share of Limits.MaxPromptChars a group's review
// prompt keeps free for the additional context the scout asks for.
const contextReserve = 0.25

// minGroupRoom is the least room for files a prompt must leave once its
// fixed part (instructions, pull request, Jira, rules) is written; below
// it, groups cannot help and the change is one review over the budget.
const minGroupRoom = 1000

// partNoteAllowance is the room kept for the note that tells a group's
// prompts which part of the change they show.
const partNoteAllowance = 900

// maxLabelRunes bounds a group's label.
const maxLabelRunes = 120

// GroupPart says which part of a large change a review group is; the
// prompts of a group state it so the model does not report the files of
// other parts as missing.
type GroupPart struct {
	Index int `json:"index"` // 1-based
	Of    int `json:"of"`    // number of groups reviewed
	// Files is the number of changed files this group shows; TotalFiles
	// those of all groups; Dropped the changed files past the group limit.
	Files      int `json:"files"`
	TotalFiles int `json:"totalFiles"`
	Dropped    int `json:"dropped,omitempty"`
	// Label names the group's directories (or its one windowed file).
	Label string `json:"label"`
}

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
	reviewCap := int(float64(budget) * (1 - contextReserve))
	res.Stats.Budget = budget
	if res.Skip {
		return // nothing to review: no groups, no prompt
	}

	costs := make([]int, len(res.Files))
	total := 0
	for i, f := range res.Files {
		costs[i] = fileCost(f, budget)
		total += costs[i]
	}
	gateExcluded := res.Excluded
	shell := res.groupShell(nil, GroupPart{Index: 99, Of: 99, Files: len(res.Files), TotalFiles: len(res.Files), Dropped: len(res.Files), Label: strings.Repeat("x", maxLabelRunes)})
	baseScout := promptChars(scoutPrompt(shell, lim)) + partNoteAllowance
	baseReview := promptChars(renderReviewPrompt(mergeContextOf(shell), nil)) + partNoteAllowance
	room := min(budget-baseScout, reviewCap-baseReview)

	// One review when it all fits (checked on the real prompts).
	if total <= room+partNoteAllowance || room < minGroupRoom {
		full := scoutPrompt(*res, lim)
		review := promptChars(renderReviewPrompt(mergeContextOf(*res), nil))
		fits := promptChars(full) <= budget && review <= reviewCap
		if fits || room < minGroupRoom || len(res.Files) == 0 {
			if !fits && len(res.Files) > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf(
					"the prompts without any changed file take %d of the %d-character budget: the change is reviewed as one group over the budget", max(baseScout, baseReview)-partNoteAllowance, budget))
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

	plan := planGroups(res.Files, costs, room)
	var units []groupUnit
	for _, g := range plan {
		units = append(units, res.fitUnit(g, room, lim, budget, reviewCap)...)
	}
	// Changed lines are counted on the whole diffs, before any windowing.
	changed := make(map[string]int, len(res.Files))
	for _, f := range res.Files {
		changed[f.Path] = changedLines([]pipeline.ChangedFile{f})
	}
	for i := range units {
		units[i].changed = 0
		for _, f := range units[i].files {
			units[i].changed += changed[f.Path]
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].files[0].Path < units[j].files[0].Path })

	// Past the group limit, the groups with the fewest changed lines go.
	var dropped []groupUnit
	if len(units) > lim.MaxGroups {
		order := make([]int, len(units))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return units[order[a]].changed > units[order[b]].changed })
		keep := map[int]bool{}
		for _, i := range order[:lim.MaxGroups] {
			keep[i] = true
		}
		var kept []groupUnit
		for i, u := range units {
			if keep[i] {
				kept = append(kept, u)
			} else {
				dropped = append(dropped, u)
			}
		}
		units = kept
	}

	var files []pipeline.ChangedFile
	for _, u := range units {
		files = append(files, u.files...)
	}
	droppedFiles := 0
	for _, u := range dropped {
		for _, f := range u.files {
			res.exclude(f.Path, pipeline.GateMaxGroups)
			droppedFiles++
		}
	}
	if len(dropped) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s (%s) dropped past the limit of %d review groups (PRSCOUT_MAX_GROUPS): named in excluded as max_groups",
			pipeline.CountNoun(len(dropped), "review group"), pipeline.CountNoun(droppedFiles, "changed file"), lim.MaxGroups))
	}
	windowed := 0
	for _, f := range files {
		if len(f.DiffOmitted) > 0 {
			windowed++
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: alone over the prompt budget; reviewed alone, %s", f.Path, omittedSentence(f)))
		}
	}

	res.Files = files
	res.recount()
	res.Coverage.Groups = len(units)
	res.Coverage.DroppedGroups = len(dropped)
	res.Coverage.Windowed = windowed
	res.ScoutPrompt = scoutPromptWithin(*res, lim, budget)
	res.Stats.PromptChars = promptChars(res.ScoutPrompt)
	res.Stats.ReviewPromptChars = 0 // no single review prompt: see each group's

	res.Groups = make([]ContextGroup, len(units))
	for i, u := range units {
		part := GroupPart{Index: i + 1, Of: len(units), Files: len(u.files), TotalFiles: len(files), Dropped: droppedFiles, Label: u.label()}
		g := res.groupItem("g"+strconv.Itoa(i+1), u.files, &part, lim)
		// A group's excluded[] is the gates' only (not max_groups), so its
		// prompts stay the size they were planned at.
		g.Excluded = nonNil(gateExcluded)
		g.recount()
		g.Coverage.Windowed = u.windowed()
		g.ScoutPrompt = scoutPrompt(g.ContextResult, lim)
		g.Stats.PromptChars = promptChars(g.ScoutPrompt)
		g.Stats.ReviewPromptChars = promptChars(renderReviewPrompt(mergeContextOf(g.ContextResult), nil))
		if g.Stats.PromptChars > budget || g.Stats.ReviewPromptChars > reviewCap {
			res.Warnings = append(res.Warnings, fmt.Sprintf("review group %s: prompts of %d (scout) and %d (review) characters are over the budget of %d (review: %d before context)",
				g.ID, g.Stats.PromptChars, g.Stats.ReviewPromptChars, budget, reviewCap))
		}
		res.Groups[i] = g
	}
}

// groupShell is res with the given files and part and no other group data:
// the basis of a group's item and of the fixed prompt sizes.
func (res ContextResult) groupShell(files []pipeline.ChangedFile, part GroupPart) ContextResult {
	g := res
	g.Files = nonNil(files)
	g.Groups = nil
	g.Part = &part
	g.Warnings = []string{}
	return g
}

// groupItem builds group id's item from res's shared fields and files.
func (res ContextResult) groupItem(id string, files []pipeline.ChangedFile, part *GroupPart, lim pipeline.Limits) ContextGroup {
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
			g.Warnings = append(g.Warnings, fmt.Sprintf("%s: alone over the prompt budget; %s", f.Path, omittedSentence(f)))
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
		st.DiffChars += runeCount(f.Diff)
		switch {
		case f.SourceRange == nil:
			st.NoSource++
			continue
		case len(f.SourceRange.Windows) > 0:
			st.WindowedSources++
		default:
			st.WholeSources++
		}
		st.SourceChars += runeCount(f.Source)
		st.ShownRanges = append(st.ShownRanges, f.Path+": "+rangeLabel(*f.SourceRange))
	}
	st.Files = len(res.Files)
	st.Excluded = len(res.Excluded)
	groups := res.Coverage.Groups
	res.Coverage = pipeline.CoverageOf(len(res.Files), res.Excluded)
	res.Coverage.Groups = groups
}

// mergeContextOf is the part of a context answer /v1/merge reads.
func mergeContextOf(res ContextResult) MergeContext {
	cov := res.Coverage
	return MergeContext{
		Mode: res.Mode, Workspace: res.Workspace, RepoSlug: res.RepoSlug, PRID: res.PRID, Ref: res.Ref, Base: res.Base,
		ReviewedCommit: res.ReviewedCommit, PR: res.PR, Jira: res.Jira, Rules: res.Rules, Requirements: pipeline.RequirementsField{Text: res.RequirementsText, Criteria: res.Requirements},
		Files: res.Files, Excluded: res.Excluded, Coverage: &cov, Group: res.Group, Part: res.Part,
	}
}

func promptChars(p pipeline.Prompt) int { return runeCount(p.System) + runeCount(p.User) }

// fileCost is the characters file f adds to the larger of its two prompt
// sections (scout and review, its rules written out in full). A file far
// over budget is not rendered: its diff and source size say enough.
func fileCost(f pipeline.ChangedFile, budget int) int {
	raw := runeCount(f.Diff) + runeCount(f.Source)
	if raw > 2*budget {
		return raw
	}
	var b strings.Builder
	reviewChangedFile(&b, f, map[string]string{})
	return max(runeCount(scoutFileSection(1, f, map[string]string{})), runeCount(b.String()))
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

// label names a unit by its directories ("internal/api, internal/store"),
// or by its one file when that file is windowed.
func (u groupUnit) label() string {
	if len(u.files) == 1 && len(u.files[0].DiffOmitted) > 0 {
		return pipeline.ClipRunes(u.files[0].Path+" (windowed)", maxLabelRunes)
	}
	var dirs []string
	seen := map[string]bool{}
	for _, f := range u.files {
		d := path.Dir(f.Path)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	label := strings.Join(dirs[:min(3, len(dirs))], ", ")
	if len(dirs) > 3 {
		label += fmt.Sprintf(" (+%d more)", len(dirs)-3)
	}
	return pipeline.ClipRunes(label, maxLabelRunes)
}

// fitUnit turns one planned group into units whose real prompts fit: a
// group over the budget is halved (in path order) until it fits, a single
// file over it is windowed, each time with the room the real prompts left.
func (res ContextResult) fitUnit(files []pipeline.ChangedFile, room int, lim pipeline.Limits, budget, reviewCap int) []groupUnit {
	if len(files) == 1 && fileCost(files[0], budget) > room {
		files = []pipeline.ChangedFile{windowFile(files[0], room)}
	}
	for try := 0; ; try++ {
		g := res.groupShell(files, GroupPart{Index: 99, Of: 99, Files: len(files), TotalFiles: len(res.Files), Dropped: len(res.Files), Label: strings.Repeat("x", maxLabelRunes)})
		g.Excluded = res.Excluded
		scout := promptChars(scoutPrompt(g, lim))
		review := promptChars(renderReviewPrompt(mergeContextOf(g), nil))
		over := max(scout-budget, review-reviewCap)
		if over <= 0 || try == 3 {
			return []groupUnit{{files: files, changed: changedLines(files)}}
		}
		if len(files) > 1 {
			half := splitByCost(files, budget)
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
func splitByCost(files []pipeline.ChangedFile, budget int) int {
	total := 0
	costs := make([]int, len(files))
	for i, f := range files {
		costs[i] = fileCost(f, budget)
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

// changedLines counts the added and removed lines of the files' diffs.
func changedLines(files []pipeline.ChangedFile) int {
	n := 0
	for _, f := range files {
		for _, line := range strings.Split(f.Diff, "\n") {
			if (strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++ ")) ||
				(strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "--- ")) {
				n++
			}
		}
	}
	return n
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

// partNote tells a group's prompt which part of the change it shows.
// stage is "scout" or "review".
func partNote(p GroupPart, stage string) string {
	var b strings.Builder
	b.WriteString("# Part " + strconv.Itoa(p.Index) + " of " + strconv.Itoa(p.Of) + " of this pull request\n\n")
	fmt.Fprintf(&b, "The pull request is too large for one review, so it is reviewed in %d parts, each on its own. This part shows %d of the %d changed files under review (%s). ",
		p.Of, p.Files, p.TotalFiles, pipeline.ClipRunes(pipeline.OneLine(p.Label), maxLabelRunes))
	if stage == "scout" {
		b.WriteString("Ask only for what the files shown here need; the other changed files are handled in the other parts.")
	} else {
		b.WriteString("Review only the files shown here; the other changed files are reviewed in the other parts, so do not report them as missing.")
	}
	if p.Dropped > 0 {
		fmt.Fprintf(&b, " %s over the limit of review groups are not reviewed at all.", pipeline.CountNoun(p.Dropped, "further changed file"))
	}
	b.WriteString("\n\n")
	return b.String()
}

// maxNamedRanges bounds the omitted ranges a note names one by one.
const maxNamedRanges = 12

// omittedSentence names the lines a windowed file leaves out, e.g. "the
// changes at new-file lines 2101-50000 are left out (not shown, not
// reviewed)".
func omittedSentence(f pipeline.ChangedFile) string {
	parts := make([]string, 0, min(len(f.DiffOmitted), maxNamedRanges)+1)
	for i, r := range f.DiffOmitted {
		if i == maxNamedRanges {
			parts = append(parts, fmt.Sprintf("and %d more ranges", len(f.DiffOmitted)-i))
			break
		}
		if r.From == r.To {
			parts = append(parts, strconv.Itoa(r.From))
		} else {
			parts = append(parts, strconv.Itoa(r.From)+"-"+strconv.Itoa(r.To))
		}
	}
	return "the changes at new-file lines " + strings.Join(parts, ", ") + " are left out (not shown, not reviewed)"
}

// omittedNote is the line a prompt writes above a windowed file's diff.
func omittedNote(f pipeline.ChangedFile) string {
	return "Only part of this file's diff is shown: the file alone is over the prompt budget, so " + omittedSentence(f) + "."
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
	reviewChangedFile(&probe, pipeline.ChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Language: f.Language, Rules: f.Rules, RuleSource: f.RuleSource}, map[string]string{})
	// The section without the diff, and the note naming the omitted ranges
	// (at most maxNamedRanges of them, about 16 characters each).
	overhead := max(runeCount(probe.String()), runeCount(scoutFileSection(1, pipeline.ChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Language: f.Language, Rules: f.Rules, RuleSource: f.RuleSource, DiffOmitted: []pipeline.LineRange{{From: 1, To: 1}}}, map[string]string{})))
	overhead += 200 + maxNamedRanges*16 + 40
	diff, omitted := windowDiff(f.Diff, room-overhead)
	if len(omitted) == 0 {
		return f
	}
	f.Diff, f.DiffOmitted = diff, omitted
	return f
}

// windowDiff keeps the diff's header and as many of its hunks as fit in
// limit characters (see windowFile) and returns the new-file line ranges of
// what it left out, merged where they touch.
func windowDiff(diff string, limit int) (string, []pipeline.LineRange) {
	if runeCount(diff) <= limit {
		return diff, nil
	}
	lines := strings.SplitAfter(diff, "\n")
	var b strings.Builder
	used := 0
	i := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@ "); i++ {
		b.WriteString(lines[i])
		used += runeCount(lines[i])
	}
	var omitted []pipeline.LineRange
	leave := func(r pipeline.LineRange) {
		if n := len(omitted); n > 0 && r.From <= omitted[n-1].To+1 {
			omitted[n-1].To = max(omitted[n-1].To, r.To)
			return
		}
		omitted = append(omitted, r)
	}
	for i < len(lines) {
		head := lines[i]
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "@@ ") {
			j++
		}
		body := lines[i+1 : j]
		i = j
		h, ok := parseHunkHeader(head)
		if !ok {
			continue // not a hunk header git writes: leave it out, its lines are unknown
		}
		size := runeCount(head)
		for _, l := range body {
			size += runeCount(l)
		}
		if used+size <= limit {
			b.WriteString(head)
			for _, l := range body {
				b.WriteString(l)
			}
			used += size
			continue
		}
		// Cut: keep the lines that fit under a recounted header.
		room := limit - used - runeCount(head) - 8 // a recounted header may be a few characters longer
		k, oldN, newN, kept := 0, 0, 0, 0
		hasChange := false
		for k < len(body) {
			l := body[k]
			c := runeCount(l)
			if kept+c > room {
				break
			}
			kept += c
			switch {
			case strings.HasPrefix(l, "+"):
				newN++
				hasChange = true
			case strings.HasPrefix(l, "-"):
				oldN++
				hasChange = true
			case strings.HasPrefix(l, `\`):
			default:
				oldN++
				newN++
			}
			k++
		}
		if hasChange {
			cut := fmt.Sprintf("@@ -%d,%d +%d,%d @@%s", h.oldStart, oldN, h.newStart, newN, h.rest)
			b.WriteString(cut)
			for _, l := range body[:k] {
				b.WriteString(l)
			}
			used += runeCount(cut) + kept
		} else {
			newN = 0
		}
		from := h.newStart + newN
		to := h.newStart + h.newLines - 1
		if to < from {
			to = from // a pure deletion: git names the line before the removed ones
		}
		leave(pipeline.LineRange{From: max(1, from), To: max(1, to)})
	}
	return b.String(), omitted
}

// hunkHeader is a parsed "@@ -a,b +c,d @@ rest" line.
type hunkHeader struct {
	oldStart, oldLines, newStart, newLines int
	rest                                   string // after the closing "@@", newline included
}

func parseHunkHeader(line string) (hunkHeader, bool) {
	var h hunkHeader
	body, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return h, false
	}
	ranges, rest, ok := strings.Cut(body, " @@")
	if !ok {
		return h, false
	}
	oldR, newR, ok := strings.Cut(ranges, " +")
	if !ok {
		return h, false
	}
	num := func(s string) (int, int, bool) {
		a, b, has := strings.Cut(s, ",")
		x, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, false
		}
		if !has {
			return x, 1, true
		}
		y, err := strconv.Atoi(b)
		return x, y, err == nil
	}
	var okOld, okNew bool
	h.oldStart, h.oldLines, okOld = num(oldR)
	h.newStart, h.newLines, okNew = num(newR)
	h.rest = rest
	if !strings.HasSuffix(h.rest, "\n") {
		h.rest += "\n"
	}
	return h, okOld && okNew
}

// planGroups partitions files (by index) into groups of at most room cost,
// related files together:
//
//  1. a file over room is a group alone (windowed later);
//  2. each directory (package) is one piece when it fits; a larger one is
//     cut into as few pieces as it can: its files (a file and its test
//     together) joined along the change's own names first, then packed by
//     size;
//  3. pieces of different directories joined along the change's own names
//     (strongest links first) while they fit;
//  4. the rest packed by size, largest first, each into the group sharing
//     the most of its directory that still has room (the fullest on a tie).
//
// Groups and their files come in path order.
func planGroups(files []pipeline.ChangedFile, costs []int, room int) [][]pipeline.ChangedFile {
	links := nameLinks(files)
	byDir := map[string][]int{}
	var dirs []string
	var out [][]pipeline.ChangedFile
	emit := func(idx []int) {
		sort.Slice(idx, func(a, b int) bool { return files[idx[a]].Path < files[idx[b]].Path })
		g := make([]pipeline.ChangedFile, len(idx))
		for k, i := range idx {
			g[k] = files[i]
		}
		out = append(out, g)
	}
	for i, f := range files {
		if costs[i] > room {
			emit([]int{i})
			continue
		}
		d := path.Dir(f.Path)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	sort.Strings(dirs)

	var pieces []piece
	for _, d := range dirs {
		idx := byDir[d]
		sort.Slice(idx, func(a, b int) bool { return files[idx[a]].Path < files[idx[b]].Path })
		total := 0
		for _, i := range idx {
			total += costs[i]
		}
		if total <= room {
			pieces = append(pieces, piece{members: idx, cost: total, dir: d})
			continue
		}
		var parts []piece
		for _, i := range idx {
			st := stem(files[i].Path)
			if n := len(parts); n > 0 && stem(files[parts[n-1].members[0]].Path) == st && parts[n-1].cost+costs[i] <= room {
				parts[n-1].members = append(parts[n-1].members, i)
				parts[n-1].cost += costs[i]
				continue
			}
			parts = append(parts, piece{members: []int{i}, cost: costs[i], dir: d})
		}
		pieces = append(pieces, packPieces(joinLinked(parts, links, room), room)...)
	}
	for _, b := range packPieces(joinLinked(pieces, links, room), room) {
		emit(b.members)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0].Path < out[j][0].Path })
	return out
}

// piece is a set of files (by index) planned to share a group.
type piece struct {
	members []int
	cost    int
	dir     string // the directory of its first file
	dirs    map[string]bool
}

// joinLinked joins pieces along the name links (file index pairs), the
// pairs of pieces with the most links first, while the joined cost fits in
// room.
func joinLinked(ps []piece, links [][2]int, room int) []piece {
	of := map[int]int{}
	for pi, p := range ps {
		for _, i := range p.members {
			of[i] = pi
		}
	}
	weights := map[[2]int]int{}
	for _, l := range links {
		a, okA := of[l[0]]
		b, okB := of[l[1]]
		if !okA || !okB || a == b {
			continue
		}
		weights[[2]int{min(a, b), max(a, b)}]++
	}
	type pair struct{ a, b, w int }
	pairs := make([]pair, 0, len(weights))
	for k, w := range weights {
		pairs = append(pairs, pair{k[0], k[1], w})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].w != pairs[j].w {
			return pairs[i].w > pairs[j].w
		}
		if pairs[i].a != pairs[j].a {
			return pairs[i].a < pairs[j].a
		}
		return pairs[i].b < pairs[j].b
	})
	parent := make([]int, len(ps))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for _, p := range pairs {
		ra, rb := find(p.a), find(p.b)
		if ra == rb || ps[ra].cost+ps[rb].cost > room {
			continue
		}
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
		ps[ra].members = append(ps[ra].members, ps[rb].members...)
		ps[ra].cost += ps[rb].cost
	}
	var out []piece
	for i := range ps {
		if find(i) == i {
			out = append(out, ps[i])
		}
	}
	return out
}

// packPieces packs pieces into groups of at most room cost: largest first,
// each into the group sharing the most of its directory that still has
// room, the fullest such group on a tie, a new group when none has room.
func packPieces(ps []piece, room int) []piece {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].cost != ps[j].cost {
			return ps[i].cost > ps[j].cost
		}
		return ps[i].dir < ps[j].dir
	})
	var bins []*piece
	for _, p := range ps {
		var best *piece
		bestShare, bestLeft := -1, 0
		for _, b := range bins {
			left := room - b.cost - p.cost
			if left < 0 {
				continue
			}
			share := 0
			for d := range b.dirs {
				share = max(share, sharedDirs(d, p.dir))
			}
			if share > bestShare || (share == bestShare && left < bestLeft) {
				best, bestShare, bestLeft = b, share, left
			}
		}
		if best == nil {
			best = &piece{dir: p.dir, dirs: map[string]bool{}}
			bins = append(bins, best)
		}
		best.members = append(best.members, p.members...)
		best.cost += p.cost
		best.dirs[p.dir] = true
		for d := range p.dirs {
			best.dirs[d] = true
		}
	}
	out := make([]piece, len(bins))
	for i, b := range bins {
		out[i] = *b
	}
	return out
}

// sharedDirs counts the leading directory names a and b share; the same
// directory (the root included) outranks any shared prefix.
func sharedDirs(a, b string) int {
	if a == b {
		return 1 << 20
	}
	if a == "." || b == "." {
		return 0
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// stem is a file's name without its extension and test affixes, so that
// "mux.go" and "mux_test.go", "app.ts" and "app.spec.ts", "util.py" and
// "test_util.py" share one.
func stem(p string) string {
	base := path.Base(p)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	for _, suffix := range []string{"_test", "_spec", "Tests", "Test", "Spec"} {
		base = strings.TrimSuffix(base, suffix)
	}
	return strings.TrimPrefix(base, "test_")
}

// Bounds of the name links: the part of a diff scanned, the shortest name
// that counts, and how many changed files may declare one name before it is
// too common to link anything (String, Error, New...).
const (
	maxLinkScan       = 1 << 20
	minLinkName       = 3
	maxDeclaringFiles = 4
)

// declKeywords precede a declared name in the languages prscout reviews
// (Go, JavaScript and TypeScript, Python, Rust, Kotlin, Swift, Java/C#
// types, Ruby, PHP...).
var declKeywords = map[string]bool{
	"func": true, "function": true, "def": true, "fn": true, "fun": true, "class": true, "interface": true,
	"struct": true, "enum": true, "trait": true, "type": true, "record": true, "module": true, "object": true,
	"protocol": true, "const": true, "let": true, "var": true, "val": true, "typedef": true, "macro": true,
}

// nameLinks returns a pair (declaring file, using file) for every name
// declared in one changed file's added lines and used in another changed
// file's added or removed lines: a changed function and its changed callers.
// Each file's diff is scanned once (at most maxLinkScan bytes of it).
func nameLinks(files []pipeline.ChangedFile) [][2]int {
	declared := map[string][]int{}
	uses := make([]map[string]bool, len(files))
	for i, f := range files {
		uses[i] = map[string]bool{}
		diff := f.Diff
		if len(diff) > maxLinkScan {
			diff = diff[:maxLinkScan]
		}
		seenDecl := map[string]bool{}
		for len(diff) > 0 {
			line, rest, _ := strings.Cut(diff, "\n")
			diff = rest
			if line == "" || strings.HasPrefix(line, "+++ ") || strings.HasPrefix(line, "--- ") {
				continue
			}
			added := line[0] == '+'
			if !added && line[0] != '-' {
				continue
			}
			toks := identifiers(line[1:])
			for k, t := range toks {
				if len(t) >= minLinkName && !declKeywords[t] {
					uses[i][t] = true
				}
				if !added || !declKeywords[t] {
					continue
				}
				if name := declaredAfter(line[1:], toks, k); name != "" && !seenDecl[name] {
					seenDecl[name] = true
					declared[name] = append(declared[name], i)
				}
			}
		}
	}
	var out [][2]int
	for u := range files {
		for name := range uses[u] {
			by := declared[name]
			if len(by) > maxDeclaringFiles {
				continue
			}
			for _, d := range by {
				if d != u {
					out = append(out, [2]int{d, u})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// declaredAfter returns the name a declaration keyword toks[k] declares:
// the next identifier, skipping a Go method receiver "(r *T)".
func declaredAfter(line string, toks []string, k int) string {
	if toks[k] == "func" {
		if i := strings.Index(line, "func"); i >= 0 {
			rest := strings.TrimLeft(line[i+4:], " \t")
			if strings.HasPrefix(rest, "(") {
				if j := strings.IndexByte(rest, ')'); j > 0 {
					if ids := identifiers(rest[j+1:]); len(ids) > 0 {
						return keepName(ids[0])
					}
					return ""
				}
			}
		}
	}
	if k+1 < len(toks) {
		return keepName(toks[k+1])
	}
	return ""
}

func keepName(n string) string {
	if len(n) < minLinkName || declKeywords[n] {
		return ""
	}
	return n
}

// identifiers splits s into its identifier-like tokens ([A-Za-z_$][\w$]*).
func identifiers(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		c := byte(0)
		if i < len(s) {
			c = s[i]
		}
		word := c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (start >= 0 && c >= '0' && c <= '9')
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	return out
}
