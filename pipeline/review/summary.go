package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/criteria"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/placement"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// renderSummary writes the summary. With x.mem, the findings table is the
// memory table and the hidden data comes before the review marker, within
// the summary's size bound (memory.go); the findings whose inline comment
// was not posted come after the context table.
func renderSummary(in CommentsInput, ref, summary string, rows []findingRow, st *CommentStats, x summaryExtras) string {
	tail := marker.ReviewMarker(ref) + "\n"
	budget := maxSummaryBytes - len(tail)
	if x.mem != nil {
		budget -= min(maxDataBytes, x.mem.dataSize()) + foldRoom
	}
	var chosen CommentStats
	visible := pipeline.FitFolding(func(limit int) string {
		chosen = *st // each rendering counts the context table afresh
		return renderVisible(in, ref, summary, rows, &chosen, x, limit)
	}, foldLimits, budget, foldCut)
	*st = chosen
	var b strings.Builder
	b.WriteString(visible)
	if x.mem != nil {
		// Room for the data, with a margin for the dropped-count line.
		budget := min(maxDataBytes, maxSummaryBytes-b.Len()-len(tail)-300)
		lines, dropped := x.mem.dataBlock(max(budget, 0))
		x.mem.DataDropped = dropped
		if dropped > 0 {
			fmt.Fprintf(&b, "%s of earlier reviews %s no longer remembered: this summary keeps at most %d characters of hidden review data (resolved and outdated findings are dropped first; open ones are found again from their inline comments).\n\n",
				pipeline.CountNoun(dropped, "finding"), pipeline.ByCount(dropped, "is", "are"), maxDataBytes)
		}
		if len(lines) > 0 {
			b.WriteString(strings.Join(lines, "\n"))
			b.WriteString("\n\n")
		}
	}
	b.WriteString(tail)
	return b.String()
}

// renderVisible writes the summary up to its hidden data, each list
// showing at most limit entries (pipeline.Unlimited: all), most severe first.
func renderVisible(in CommentsInput, ref, summary string, rows []findingRow, st *CommentStats, x summaryExtras, limit int) string {
	var b strings.Builder
	b.WriteString("## prscout review\n\n")
	mode := in.Mode
	if mode == "delta" && in.Interdiff {
		mode = "interdiff"
	}
	writeHeadline(&b, mode, ref, rows, st)
	writeCoverage(&b, in, x.criteria)
	writeNotReviewedGroups(&b, x.failedGroups)
	if x.notice != "" {
		b.WriteString(x.notice)
		b.WriteString("\n\n")
	}
	if n := len(x.verifyDropped); n > 0 {
		fmt.Fprintf(&b, "A second check (the verify pass) dropped %s of the review as not supported by the code.\n\n", pipeline.CountNoun(n, "finding"))
	}
	// The model's summary.
	if s := strings.TrimSpace(summary); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	criteria.WriteTable(&b, x.criteria, x.ix, x.prURL, in.LinkHosts)
	if x.mem != nil {
		writeMemoryTable(&b, x.mem, limit)
	} else {
		writeFindingsTable(&b, rows, limit)
	}
	writeOffDiff(&b, rows, limit)
	writeSummaryOnly(&b, rows, limit)
	writeUnverified(&b, rows, in.policy, limit)
	writeContextTable(&b, in, st)
	b.WriteString(unpostedText(x.failed, x.deferred))
	// Only prscout's own data block, written after this, may read as hidden
	// review data (marker.DefuseData is the guard should a line slip through).
	return marker.DefuseData(b.String())
}

// rowSeverities lists the severities of rows.
func rowSeverities(rows []findingRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.f.Severity
	}
	return out
}

// writeHeadline writes the head, the mode and the finding counts.
func writeHeadline(b *strings.Builder, mode, ref string, rows []findingRow, st *CommentStats) {
	// Headline: head, mode, counts.
	label := "full review"
	switch mode {
	case "delta":
		label = "delta review: changes since the last reviewed commit"
	case "interdiff":
		label = "delta review: the pull request's own changes since the last reviewed commit; the destination merged in is not reviewed"
	}
	fmt.Fprintf(b, "Head `%s` (%s). ", pipeline.ShortCommit(ref), label)
	counted := len(rows) - st.Unverified
	unverified := ""
	if st.Unverified > 0 {
		unverified = fmt.Sprintf(" Not counted: %s (their evidence was not found).", pipeline.CountNoun(st.Unverified, "unverified finding"))
	}
	if counted == 0 {
		b.WriteString("No findings." + unverified + "\n\n")
	} else {
		var parts []string
		for _, s := range reviewanswer.Severities {
			if n := st.BySeverity[s]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		fmt.Fprintf(b, "%s (%s): %d on diff lines", pipeline.CountNoun(counted, "finding"), strings.Join(parts, ", "), st.Inline)
		if below := st.Unanchored + st.SummaryOnly; below > 0 {
			fmt.Fprintf(b, ", %d below", below)
		}
		b.WriteString("." + unverified + "\n\n")
	}

}

// writeCoverage writes the coverage line and the files not reviewed.
func writeCoverage(b *strings.Builder, in CommentsInput, criteria criteria.Counts) {
	// Coverage: how many changed files the review saw, so "no findings"
	// never hides a partial review.
	cov := pipeline.CoverageOf(len(in.Files), in.Excluded)
	if in.Coverage != nil {
		cov = *in.Coverage
	}
	if cov.ContextDropped == 0 {
		cov.ContextDropped = len(in.Dropped)
	}
	fmt.Fprintf(b, "**Coverage:** %s", cov.Sentence())
	if criteria.Total() > 0 {
		fmt.Fprintf(b, "; %s", criteria.Sentence())
	}
	if names := instructionNames(in.Instructions); names != "" {
		fmt.Fprintf(b, "; instructions: %s", names)
	}
	if len(in.Excluded) > 0 {
		const maxListed = 10
		var ex []string
		for i, e := range in.Excluded {
			if i == maxListed {
				ex = append(ex, fmt.Sprintf("and %d more", len(in.Excluded)-maxListed))
				break
			}
			item := sanitize.CodeSpan(e.Path)
			if e.Reason != "" {
				item += " (" + pipeline.OneLine(e.Reason) + ")"
			}
			ex = append(ex, item)
		}
		fmt.Fprintf(b, ". Not reviewed: %s", strings.Join(ex, ", "))
	}
	b.WriteString(".\n\n")

}

// instructionNames lists the instruction files a review read, as code
// spans (at most 10 named).
func instructionNames(files []pipeline.InstructionFile) string {
	var names []string
	for i, f := range files {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(files)-i))
			break
		}
		names = append(names, sanitize.CodeSpan(pipeline.OneLine(f.Path)))
	}
	return strings.Join(names, ", ")
}

// writeFindingsTable writes every finding as a table row, most severe first.
func writeFindingsTable(b *strings.Builder, rows []findingRow, limit int) {
	// Findings table, most severe first.
	var sorted []findingRow
	for _, r := range rows {
		if r.placement != placement.Unverified {
			sorted = append(sorted, r)
		}
	}
	if len(sorted) > 0 {
		sort.SliceStable(sorted, func(i, j int) bool {
			x, y := sorted[i], sorted[j]
			if ra, rb := reviewanswer.SeverityRank(x.f.Severity), reviewanswer.SeverityRank(y.f.Severity); ra != rb {
				return ra < rb
			}
			if x.a.Path != y.a.Path {
				return x.a.Path < y.a.Path
			}
			return x.a.Line < y.a.Line
		})
		b.WriteString("### Findings\n\n")
		n := pipeline.FoldLimit(len(sorted), limit)
		if n > 0 {
			b.WriteString("| Severity | Where | Finding |\n| --- | --- | --- |\n")
		}
		for _, r := range sorted[:n] {
			fmt.Fprintf(b, "| %s | %s | %s |\n", reviewanswer.SeverityLabel(r.f.Severity), sanitize.TableCell(where(r)), sanitize.TableCell(pipeline.OneLine(r.f.Title)))
		}
		b.WriteString("\n")
		writeFolded(b, rowSeverities(sorted[n:]))
	}

}

// writeOffDiff writes in full the findings that are not on a diff line.
func writeOffDiff(b *strings.Builder, rows []findingRow, limit int) {
	// Findings that are not on a line, in full.
	var off []findingRow
	for _, r := range rows {
		if !r.inline() && r.placement != placement.Unverified {
			off = append(off, r)
		}
	}
	if len(off) > 0 {
		sort.SliceStable(off, func(i, j int) bool {
			return reviewanswer.SeverityRank(off[i].f.Severity) < reviewanswer.SeverityRank(off[j].f.Severity)
		})
		fmt.Fprintf(b, "### Not on a diff line (%d)\n\n", len(off))
		n := pipeline.FoldLimit(len(off), limit)
		defer writeFolded(b, rowSeverities(off[n:]))
		for _, r := range off[:n] {
			fmt.Fprintf(b, "#### %s: %s\n\n", reviewanswer.SeverityLabel(r.f.Severity), pipeline.OneLine(r.f.Title))
			fmt.Fprintf(b, "%s: %s.\n\n", where(r), r.a.Reason)
			if body := strings.TrimSpace(r.f.Body); body != "" {
				b.WriteString(body)
				b.WriteString("\n\n")
			}
			if fix := fixMarkdown(r.fix); fix != "" {
				b.WriteString(fix)
				b.WriteString("\n")
			}
		}
	}

}

// writeContextTable writes the table of context the scout asked for.
func writeContextTable(b *strings.Builder, in CommentsInput, st *CommentStats) {
	// Context the scout asked for.
	b.WriteString("### Context the scout asked for\n\n")
	ctxRows := contextRows(in, st)
	if len(ctxRows) == 0 {
		b.WriteString("The scout asked for no extra context.\n\n")
	} else {
		b.WriteString("| Path | Op | Result |\n| --- | --- | --- |\n")
		for _, r := range ctxRows {
			fmt.Fprintf(b, "| %s | %s | %s |\n", sanitize.TableCell(sanitize.CodeSpan(r[0])), sanitize.TableCell(r[1]), sanitize.TableCell(r[2]))
		}
		b.WriteString("\n")
	}

}

// contextRows lists the context table: every additionalContext item, then
// each dropped item not listed there. /v1/merge turns a dropped item into an
// ok:false additionalContext entry and lists it in stats.dropped; such an
// entry shows as "dropped for budget", not as a failure.
func contextRows(in CommentsInput, st *CommentStats) [][3]string {
	key := func(op, path string) string { return opOrGetFile(op) + "\x00" + path }
	dropped := map[string]pipeline.DroppedContext{}
	for _, d := range in.Dropped {
		dropped[key(d.Op, d.Path)] = d
	}
	var rows [][3]string
	listed := map[string]bool{}
	for _, c := range in.AdditionalContext {
		k := key(c.Op, c.Path)
		var result string
		if d, ok := dropped[k]; ok {
			result = d.Text()
			listed[k] = true
			st.ContextDropped++
		} else if c.OK {
			result = "fetched"
			st.ContextFetched++
		} else {
			reason := strings.TrimSpace(c.Error)
			if reason == "" {
				reason = "unknown error"
			}
			result = "failed: " + pipeline.OneLine(reason)
			st.ContextFailed++
		}
		rows = append(rows, [3]string{c.Path, opOrGetFile(c.Op), result})
	}
	for _, d := range in.Dropped {
		k := key(d.Op, d.Path)
		if listed[k] {
			continue
		}
		listed[k] = true
		rows = append(rows, [3]string{d.Path, opOrGetFile(d.Op), d.Text()})
		st.ContextDropped++
	}
	return rows
}

func where(r findingRow) string {
	p := r.a.Path
	if p == "" {
		p = r.f.Path
	}
	switch r.a.Anchor {
	case anchor.Line, anchor.Snippet:
		if r.placement == placement.Summary {
			return sanitize.CodeSpan(fmt.Sprintf("%s:%d", p, r.a.Line)) + " (summary only)"
		}
		return sanitize.CodeSpan(fmt.Sprintf("%s:%d", p, r.a.Line))
	case anchor.OnFile:
		return sanitize.CodeSpan(p) + " (file)"
	default:
		if p == "" {
			return "(no file)"
		}
		return sanitize.CodeSpan(p) + " (not in this PR)"
	}
}
