package review

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// shownFix is a finding's proposed fix as the comment shows it: the head's
// own lines first..last that it replaces, and what they become.
type shownFix struct {
	head        []string
	first, last int
	after       []string
}

// checkFix decides whether a finding's fix is shown. Bitbucket Cloud has no
// suggestion API, so a fix can only be a ```diff block, and a reader may
// apply it by hand: it is shown only when the code it replaces ("before",
// else the quoted existingCode, else the anchored line) is at the head, in
// the new-side lines of the file's diff, or in the whole file at the head
// when the request's files[].source shows all of it (anchor.HeadLines:
// whitespace ignored, never a partial line). The block's "-" lines are then the
// head's own text, not the model's copy of it. A fix whose code is not
// there was written against code that does not exist and is left out (with
// a warning): shown, it would be a patch that cannot apply. Its text is
// redacted and marker look-alikes are removed, as for every model text.
func checkFix(f pipeline.Finding, a anchor.Placed, ix *anchor.Index, st *CommentStats, i int) (*shownFix, string) {
	if f.Fix == nil {
		return nil, ""
	}
	before := f.Fix.Before
	if strings.TrimSpace(before) == "" && a.EndLine == 0 && (a.Anchor == anchor.Line || a.Anchor == anchor.Snippet) {
		before = a.Text
	}
	drop := func(why string) (*shownFix, string) {
		st.FixesDropped++
		return nil, fmt.Sprintf("findings[%d].fix not shown: %s", i, why)
	}
	if strings.TrimSpace(before) == "" {
		return drop("it names no code it replaces")
	}
	if a.Path == "" || a.Anchor == anchor.Unanchored {
		return drop("its file is not a changed file")
	}
	head, first, last, ok := ix.HeadLines(a.Path, before, a.Line)
	if !ok {
		return drop("the code it replaces is not at the head (not among the diff's new-side lines, nor in the file's whole source)")
	}
	after, n := marker.StripMarkers(redact.Secrets(f.Fix.After, st.Redactions))
	st.MarkersStripped += n
	for k, l := range head {
		head[k] = redact.Secrets(l, st.Redactions)
	}
	fx := &shownFix{head: head, first: first, last: last}
	if strings.TrimSpace(after) != "" {
		fx.after = reindent(strings.Split(after, "\n"), head)
	}
	st.FixesShown++
	return fx, ""
}

// fixMarkdown writes a shown fix as a ```diff block under a line naming
// the head lines it replaces ("" for none). sanitize.CodeBlock chooses a
// fence no line of the code can close.
func fixMarkdown(fx *shownFix) string {
	if fx == nil {
		return ""
	}
	lines := make([]string, 0, len(fx.head)+len(fx.after))
	for _, l := range fx.head {
		lines = append(lines, "-"+l)
	}
	for _, l := range fx.after {
		lines = append(lines, "+"+l)
	}
	where := fmt.Sprintf("line %d", fx.first)
	if fx.last > fx.first {
		where = fmt.Sprintf("lines %d-%d", fx.first, fx.last)
	}
	return fmt.Sprintf("**Suggested change** (%s at the head):\n\n%s\n", where, sanitize.CodeBlock("diff", lines))
}

// reindent gives the replacement the head's indentation when the model
// wrote it without any (its lines all flush left) and the replaced code has
// some: what a reader pastes then lines up with the code around it.
func reindent(after, head []string) []string {
	indent := ""
	for _, l := range head {
		if strings.TrimSpace(l) != "" {
			indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			break
		}
	}
	if indent == "" {
		return after
	}
	for _, l := range after {
		if strings.TrimSpace(l) != "" && strings.TrimLeft(l, " \t") != l {
			return after
		}
	}
	out := make([]string, len(after))
	for i, l := range after {
		if strings.TrimSpace(l) != "" {
			l = indent + l
		}
		out[i] = l
	}
	return out
}
