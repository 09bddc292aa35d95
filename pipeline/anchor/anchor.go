// Package anchor places review findings on the lines of a change's diff:
// on the finding's own line, on the line its quoted code is at, or on the
// file. It also answers what review memory asks of a diff (where an earlier
// finding's code went). Pure: no I/O.
package anchor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/diff"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/scope"
)

// How a finding was placed (InlineComment.Anchor, a metrics label).
const (
	// Line: the finding's own line is a new-side line of the diff.
	Line = "line"
	// Snippet: the finding's existingCode was found in the diff's
	// new-side lines, ignoring whitespace.
	Snippet = "snippet"
	// OnFile: the path is a changed file but no line of its diff could be
	// chosen. Bitbucket inline comments need a line, so the finding goes into
	// the summary.
	OnFile = "file"
	// Unanchored: the path is not a changed file (or is missing).
	Unanchored = "unanchored"
)

// snippetMinChars is the shortest whitespace-free snippet line that may
// match a diff line by containment (a model quoting part of a line).
const snippetMinChars = 8

// Index holds the new-side lines of each changed file's diff, for
// anchoring findings. Build it with NewIndex.
type Index struct {
	files   map[string]*File  // by normalized new path
	renames map[string]string // old path -> new path
}

type File struct {
	path   string
	status string       // the changed file's status (added, modified, renamed, deleted)
	hunks  [][]diffLine // new-side lines (added and context) per hunk, in order
	lines  map[int]int  // new line number -> index into text (flattened)
	text   []diffLine   // all new-side lines, in order
	old    oldSide      // the old side, for review memory
	// source is the whole file at the head, by line (from the request's
	// files[].source when it shows the whole file; nil otherwise): where a
	// fix's code is looked for when it is outside the diff.
	source []string
	// codeIndex maps a window size n to the CodeHash of every n-line window
	// of non-blank new-side lines and where it starts (FindCode; built on
	// first use).
	codeIndex map[int]map[string][]int
}

// oldSide is what a diff says about its old version: which old lines it
// removed, where its context lines went and each hunk's extent, so a line
// of the old version can be followed into the new one (oldSide.follow).
type oldSide struct {
	removed  map[int]bool // old line numbers removed
	toNew    map[int]int  // old line number of a context line -> its new line number
	spans    []hunkSpan   // per hunk, in order
	hasHunks bool
}

// hunkSpan is one hunk's old and new extent (the @@ header's counts).
type hunkSpan struct {
	oldStart, oldLines, newStart, newLines int
}

type diffLine struct {
	n     int    // 1-based line number in the new file
	text  string // without the trailing newline
	norm  string // text without any whitespace
	added bool
}

// Placed is where a finding goes.
type Placed struct {
	Path string // the changed file's path ("" or the finding's own when unanchored)
	Line int    // the new-file line; 0 for file-level and unanchored
	// EndLine is the last line of a multi-line anchor Line..EndLine: both
	// are new-side lines of the same hunk (so one comment can span them);
	// 0 for a one-line anchor.
	EndLine int
	Anchor  string // Line, Snippet, OnFile or Unanchored
	// Text is the anchored line's content ("" when not on a line).
	Text string
	// Code is the anchored code as whitespace-free non-blank new-side lines:
	// the snippet's matched lines, or the anchored line (review memory
	// hashes it).
	Code []string
	// Reason says, for file-level and unanchored findings, why no line was chosen.
	Reason string
}

// NewIndex reads each file's diff (a complete `diff --git` section, or bare
// @@ hunks) with pipeline/diff. A diff go-gitdiff refuses (for example a
// hunk whose line counts do not add up because the text was cut) is read by
// diff's lenient walker and reported in the warnings; a file whose diff has
// no hunks at all (binary, mode change, deleted) can only take file-level
// findings.
func NewIndex(files []pipeline.ChangedFile) (*Index, []string) {
	ix := &Index{files: map[string]*File{}, renames: map[string]string{}}
	var warnings []string
	for i, cf := range files {
		p := NormalizePath(cf.Path)
		if p == "" {
			continue
		}
		df := &File{path: p, status: cf.Status, lines: map[int]int{}}
		hunks, old, err := parseSides(cf.Diff, p)
		df.old = old
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("files[%d] (%s): diff read leniently: %v", i, p, err))
		}
		for _, h := range hunks {
			var kept []diffLine
			for _, l := range h {
				if _, dup := df.lines[l.n]; dup {
					continue
				}
				df.lines[l.n] = len(df.text)
				df.text = append(df.text, l)
				kept = append(kept, l)
			}
			if len(kept) > 0 {
				df.hunks = append(df.hunks, kept)
			}
		}
		if sr := cf.SourceRange; cf.Source != "" && (sr == nil || sr.From == 1 && sr.To == sr.Total && len(sr.Windows) == 0) {
			df.source = strings.Split(strings.TrimSuffix(strings.ReplaceAll(cf.Source, "\r\n", "\n"), "\n"), "\n")
		}
		ix.files[p] = df
		if op := NormalizePath(cf.OldPath); op != "" && op != p {
			ix.renames[op] = p
		}
	}
	return ix, warnings
}

// parseSides returns the new-side lines of diff per hunk, and its old side.
// Sections naming path are read; when none does (bare hunks, a model's
// paths) every section is. The error is why the lenient reader was needed.
func parseSides(raw, path string) ([][]diffLine, oldSide, error) {
	old := oldSide{removed: map[int]bool{}, toNew: map[int]int{}}
	if strings.TrimSpace(raw) == "" {
		return nil, old, nil
	}
	files := diff.Parse(raw).Files
	var pick []diff.File
	for _, f := range files {
		if NormalizePath(f.Path) == path {
			pick = append(pick, f)
		}
	}
	if len(pick) == 0 {
		pick = files
	}
	var hunks [][]diffLine
	var lenient error
	for _, f := range pick {
		if f.Lenient != nil && lenient == nil {
			lenient = f.Lenient
		}
		for _, dh := range f.Hunks {
			old.hasHunks = true
			old.spans = append(old.spans, hunkSpan{oldStart: dh.OldStart, oldLines: dh.OldLines, newStart: dh.NewStart, newLines: dh.NewLines})
			var h []diffLine
			for _, l := range dh.Lines {
				switch l.Op {
				case diff.Delete:
					old.removed[l.Old] = true
					continue
				case diff.Context:
					old.toNew[l.Old] = l.New
				}
				// Line numbers below 1 cannot be anchored.
				if l.New >= 1 {
					h = append(h, newDiffLine(l.New, l.Text, l.Op == diff.Add))
				}
			}
			hunks = append(hunks, h)
		}
	}
	return hunks, old, lenient
}

func newDiffLine(n int, text string, added bool) diffLine {
	return diffLine{n: n, text: text, norm: pipeline.StripSpace(text), added: added}
}

// NormalizePath cleans a path as a model writes it: trimmed, quotes
// and backticks removed, backslashes made slashes, leading "/" and "./"
// stripped. The a/ and b/ prefixes of git diffs are resolved by the index
// (stripped only when the path with them is not a changed file).
func NormalizePath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "`\"'")
	if p == "" {
		return ""
	}
	if n, err := scope.NormalizePath(p, 0); err == nil {
		return n
	}
	p = strings.ReplaceAll(p, "\\", "/")
	for strings.HasPrefix(p, "./") || strings.HasPrefix(p, "/") {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	}
	return p
}

// ResolvePath finds the changed file a finding's path names: exact, after
// stripping a/ or b/, by a rename's old path, or as the unique changed file
// whose path ends in "/"+path (a model that dropped the directories).
func (ix *Index) ResolvePath(raw string) (string, bool) {
	p := NormalizePath(raw)
	if p == "" {
		return "", false
	}
	if _, ok := ix.files[p]; ok {
		return p, true
	}
	for _, pre := range []string{"a/", "b/"} {
		if s, ok := strings.CutPrefix(p, pre); ok {
			if _, ok := ix.files[s]; ok {
				return s, true
			}
		}
	}
	if n, ok := ix.renames[p]; ok {
		return n, true
	}
	var match string
	count := 0
	for fp := range ix.files {
		if strings.HasSuffix(fp, "/"+p) {
			match = fp
			count++
		}
	}
	if count == 1 {
		return match, true
	}
	return p, false
}

// HasLine reports whether line is a new-side line (added or context) of
// path's diff.
func (ix *Index) HasLine(path string, line int) bool {
	df, ok := ix.files[path]
	if !ok {
		return false
	}
	_, ok = df.lines[line]
	return ok
}

// Anchor places a finding on a new-file line of the diff:
//
//  1. The path must name a changed file (see ResolvePath); else "unanchored".
//  2. If existingCode is given and found (ignoring whitespace) in the file's
//     new-side lines, and no match covers the finding's own line, the finding
//     goes to the match: "snippet". Matches that include an added line win
//     over context-only ones, then the match nearest the finding's line, then
//     the first. A match is anchored at the snippet's FIRST line: that is the
//     line a model's `line` names when both are right, so "line" and
//     "snippet" agree, and the comment sits where the reader starts reading
//     the code it is about.
//  3. Else, if the finding's line is a new-side line of the diff: "line".
//  4. Else, if the finding spans lines (EndLine) and only its end is a
//     new-side line: "line" on the end.
//  5. Else "file": the path is changed, but no line can be chosen.
//
// A placed finding spans lines (Placed.EndLine) when its quoted code covers
// several lines, or its line and EndLine are both new-side lines of the same
// hunk. A range whose ends are in different hunks is placed on its end line
// alone (where Bitbucket shows a multi-line comment); one whose end is not
// in the diff on its first line.
//
// Step 2 runs before 3 because models get line numbers wrong far more often
// than they misquote code; a snippet that is found nowhere does not veto a
// valid line.
func (ix *Index) Anchor(f pipeline.Finding) Placed {
	path, ok := ix.ResolvePath(f.Path)
	if !ok {
		reason := "not a changed file"
		if path == "" {
			reason = "no path"
		}
		return Placed{Path: path, Anchor: Unanchored, Reason: reason}
	}
	df := ix.files[path]
	lineOK := false
	if f.Line > 0 {
		_, lineOK = df.lines[f.Line]
	}
	if strings.TrimSpace(f.ExistingCode) != "" {
		if start, end, covers, found := df.findSnippet(f.ExistingCode, f.Line); found && !(lineOK && covers) {
			l := df.text[start]
			return Placed{Path: path, Line: l.n, EndLine: df.endLine(start, end), Anchor: Snippet, Text: l.text, Code: df.codeOf(start, end)}
		}
	}
	if lineOK {
		i := df.lines[f.Line]
		a := Placed{Path: path, Line: f.Line, Anchor: Line, Text: df.text[i].text}
		if strings.TrimSpace(f.ExistingCode) != "" {
			// The quoted code's lines that follow the anchored line, when they
			// are there; else the anchored line alone.
			if start, end, _, found := df.findSnippet(f.ExistingCode, f.Line); found && start == i {
				a.Code, a.EndLine = df.codeOf(start, end), df.endLine(start, end)
			}
		}
		if j, ok := df.lines[f.EndLine]; ok && a.EndLine == 0 && f.EndLine > f.Line {
			if !df.sameHunk(i, j) {
				// The range cannot be one comment: one line, its end, where
				// Bitbucket shows a multi-line comment too.
				return Placed{Path: path, Line: f.EndLine, Anchor: Line, Text: df.text[j].text, Code: df.codeOf(j, j)}
			}
			a.Code, a.EndLine = df.codeOf(i, j), f.EndLine
		}
		if a.Code == nil {
			a.Code = df.codeOf(i, i)
		}
		return a
	}
	if j, ok := df.lines[f.EndLine]; ok && f.EndLine > f.Line {
		// The range starts outside the diff and ends in it: one line, the
		// end (the last line the finding is about that the diff shows).
		return Placed{Path: path, Line: f.EndLine, Anchor: Line, Text: df.text[j].text, Code: df.codeOf(j, j)}
	}
	var reason string
	switch {
	case len(df.text) == 0:
		reason = "the diff has no new-side lines"
	case f.Line > 0 && f.ExistingCode != "":
		reason = fmt.Sprintf("line %d is not in the diff and the quoted code was not found", f.Line)
	case f.Line > 0:
		reason = fmt.Sprintf("line %d is not in the diff", f.Line)
	case f.ExistingCode != "":
		reason = "the quoted code was not found in the diff"
	default:
		reason = "no line given"
	}
	return Placed{Path: path, Anchor: OnFile, Reason: reason}
}

// endLine is the new line number of text[end] when text[start..end] span
// more than one line of one hunk (a multi-line anchor), else 0.
func (df *File) endLine(start, end int) int {
	if end <= start || !df.sameHunk(start, end) {
		return 0
	}
	return df.text[end].n
}

// sameHunk reports whether text[i] and text[j] are lines of the same hunk.
func (df *File) sameHunk(i, j int) bool {
	base := 0
	for _, h := range df.hunks {
		if i >= base && i < base+len(h) {
			return j >= base && j < base+len(h)
		}
		base += len(h)
	}
	return false
}

// HeadLines finds code among path's new-side lines of one hunk, lines
// compared without whitespace and blank lines skipped (the exact step of
// the snippet matcher, also after stripping diff markers; never
// containment, since the lines found are what a fix replaces), the match
// nearest near when several; else, the same way, in the whole file at the
// head when the request's files[].source shows all of it. It answers the head's own text of the
// matched lines, blank lines between them included, and their first and
// last line numbers.
func (ix *Index) HeadLines(path, code string, near int) (lines []string, first, last int, ok bool) {
	df, found := ix.files[path]
	if !found {
		return nil, 0, 0, false
	}
	want := snippetLines(code)
	if len(want) == 0 {
		return nil, 0, 0, false
	}
	matches := df.matchLines(want, false)
	if len(matches) == 0 {
		if s, stripped := stripDiffMarkers(code); stripped {
			if w := snippetLines(s); len(w) > 0 {
				want = w
				matches = df.matchLines(w, false)
			}
		}
	}
	if len(matches) == 0 {
		return df.sourceLines(want, near)
	}
	best := matches[0]
	for _, m := range matches[1:] {
		if near > 0 && absInt(df.text[m.start].n-near) < absInt(df.text[best.start].n-near) {
			best = m
		}
	}
	for i := best.start; i <= best.end; i++ {
		lines = append(lines, df.text[i].text)
	}
	return lines, df.text[best.start].n, df.text[best.end].n, true
}

// sourceLines finds want (whitespace-free, non-blank lines) in the whole
// file at the head, when the request gave it: the match nearest near.
func (df *File) sourceLines(want []string, near int) (lines []string, first, last int, ok bool) {
	var idx []int // non-blank lines of the source, 0-based
	norm := make([]string, len(df.source))
	for i, l := range df.source {
		if norm[i] = pipeline.StripSpace(l); norm[i] != "" {
			idx = append(idx, i)
		}
	}
	bestS, bestE := -1, -1
	for s := 0; s+len(want) <= len(idx); s++ {
		match := true
		for k, w := range want {
			if norm[idx[s+k]] != w {
				match = false
				break
			}
		}
		if match && (bestS < 0 || near > 0 && absInt(idx[s]+1-near) < absInt(bestS+1-near)) {
			bestS, bestE = idx[s], idx[s+len(want)-1]
		}
	}
	if bestS < 0 {
		return nil, 0, 0, false
	}
	return append([]string(nil), df.source[bestS:bestE+1]...), bestS + 1, bestE + 1, true
}

// snippetLines splits a snippet into whitespace-free, non-empty lines.
func snippetLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if n := pipeline.StripSpace(l); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// stripDiffMarkers removes a leading '+', '-' or ' ' from every line when
// each non-blank line carries one (a snippet copied out of the diff).
func stripDiffMarkers(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l[0] != '+' && l[0] != '-' && l[0] != ' ' {
			return "", false
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l != "" && (l[0] == '-') {
			continue // a deleted line is not in the new file
		}
		if l != "" {
			l = l[1:]
		}
		b.WriteString(l)
	}
	return b.String(), true
}

type snippetMatch struct {
	start, end int // indexes into text
	added      bool
}

// findSnippet looks for the snippet in the new-side lines, hunk by hunk
// (blank lines on both sides ignored). It tries exact whitespace-free
// equality first, then, when that finds nothing, containment (each snippet
// line inside the diff line) for snippets of at least snippetMinChars. It
// returns the chosen match's first and last line index, whether some match
// covers line, and whether anything matched.
func (df *File) findSnippet(snippet string, line int) (start, end int, coversLine, found bool) {
	var matches []snippetMatch
	want := snippetLines(snippet)
	if len(want) == 0 {
		return 0, 0, false, false
	}
	matches = df.matchLines(want, false)
	if len(matches) == 0 {
		if s, ok := stripDiffMarkers(snippet); ok {
			if w := snippetLines(s); len(w) > 0 {
				want = w
				matches = df.matchLines(want, false)
			}
		}
	}
	if len(matches) == 0 && len(strings.Join(want, "")) >= snippetMinChars {
		matches = df.matchLines(want, true)
	}
	if len(matches) == 0 {
		return 0, 0, false, false
	}
	for _, m := range matches {
		if line > 0 && df.text[m.start].n <= line && line <= df.text[m.end].n {
			coversLine = true
		}
	}
	sort.SliceStable(matches, func(i, j int) bool {
		a, b := matches[i], matches[j]
		if a.added != b.added {
			return a.added
		}
		if line > 0 {
			da, db := absInt(df.text[a.start].n-line), absInt(df.text[b.start].n-line)
			if da != db {
				return da < db
			}
		}
		return a.start < b.start
	})
	return matches[0].start, matches[0].end, coversLine, true
}

// codeOf returns the whitespace-free non-blank lines of text[start..end].
func (df *File) codeOf(start, end int) []string {
	var out []string
	for i := start; i <= end && i < len(df.text); i++ {
		if n := df.text[i].norm; n != "" {
			out = append(out, n)
		}
	}
	return out
}

// matchLines finds every run of non-blank new-side lines, inside one hunk,
// equal to (or, with contain, containing) want line by line.
func (df *File) matchLines(want []string, contain bool) []snippetMatch {
	var out []snippetMatch
	base := 0
	for _, h := range df.hunks {
		// non-blank lines of the hunk, as indexes into df.text
		var idx []int
		for i, l := range h {
			if l.norm != "" {
				idx = append(idx, base+i)
			}
		}
		for s := 0; s+len(want) <= len(idx); s++ {
			ok, added := true, false
			for k, w := range want {
				l := df.text[idx[s+k]]
				if contain && !strings.Contains(l.norm, w) || !contain && l.norm != w {
					ok = false
					break
				}
				added = added || l.added
			}
			if ok {
				out = append(out, snippetMatch{start: idx[s], end: idx[s+len(want)-1], added: added})
			}
		}
		base += len(h)
	}
	return out
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// File returns the indexed file at a normalized new path.
func (ix *Index) File(path string) (*File, bool) {
	df, ok := ix.files[path]
	return df, ok
}

// Deleted reports whether the changed file is deleted.
func (df *File) Deleted() bool { return df.status == "deleted" }

// HasText reports whether the file has new-side lines to anchor to.
func (df *File) HasText() bool { return len(df.text) > 0 }

// HasOldHunks reports whether the diff has hunks to follow old lines through.
func (df *File) HasOldHunks() bool { return df.old.hasHunks }

// Follow takes lines [line, line+n-1] of the old version into the new one
// (see oldSide.follow).
func (df *File) Follow(line, n int) (newLine int, removed bool) { return df.old.follow(line, n) }

// CurrentPath is where an earlier finding's file is in this diff: its
// path, or the new path of a rename.
func (ix *Index) CurrentPath(p string) string {
	p = NormalizePath(p)
	if n, ok := ix.renames[p]; ok {
		return n
	}
	return p
}

// follow takes lines [line, line+n-1] of the old version into the new one:
// the new number of line, or removed when the diff removes any of them.
func (o oldSide) follow(line, n int) (newLine int, removed bool) {
	for l := line; l < line+n; l++ {
		if o.removed[l] {
			return 0, true
		}
	}
	if nl, ok := o.toNew[line]; ok {
		return nl, false
	}
	offset := 0
	for _, sp := range o.spans {
		if sp.oldLines == 0 {
			// Lines inserted after old line oldStart.
			if line <= sp.oldStart {
				break
			}
			offset += sp.newLines
			continue
		}
		if line < sp.oldStart {
			break
		}
		offset += sp.newLines - sp.oldLines
	}
	return line + offset, false
}

// FindCode finds n consecutive non-blank new-side lines of one hunk whose
// CodeHash is hash; of several, the one nearest near. The hashes of every
// n-line window are computed once per file and n (codeIndex).
func (df *File) FindCode(hash string, n, near int) (int, bool) {
	if df.codeIndex == nil {
		df.codeIndex = map[int]map[string][]int{}
	}
	ix, ok := df.codeIndex[n]
	if !ok {
		ix = map[string][]int{}
		base := 0
		for _, h := range df.hunks {
			var idx []int
			for i, l := range h {
				if l.norm != "" {
					idx = append(idx, base+i)
				}
			}
			base += len(h)
			lines := make([]string, n)
			for s := 0; s+n <= len(idx); s++ {
				for k := range n {
					lines[k] = df.text[idx[s+k]].norm
				}
				k := marker.CodeHash(lines)
				ix[k] = append(ix[k], df.text[idx[s]].n)
			}
		}
		df.codeIndex[n] = ix
	}
	best, found := 0, false
	for _, l := range ix[hash] {
		if !found || absInt(l-near) < absInt(best-near) {
			best, found = l, true
		}
	}
	return best, found
}
