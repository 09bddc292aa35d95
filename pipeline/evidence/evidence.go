// Package evidence checks a review finding's quoted code (its existingCode:
// the model's evidence) against what the review model was shown: the
// changed files' diffs and new sources, and the additional context files.
// It uses anchor's snippet matcher (whitespace ignored), so a quote that
// anchors a comment is a quote that verifies it. Pure: no I/O.
package evidence

import (
	"strings"
	"unicode"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/diff"
)

// Verdicts of the check (Result.Verdict, a metrics label).
const (
	// Verified: the quote is in the file the finding names (its diff's
	// new side, its new source, or the context file of that path).
	Verified = "verified"
	// Elsewhere: the quote is real but in another file the review was
	// shown. The finding's place would be a guess, so it is not placed on
	// the diff: it is treated as unverified.
	Elsewhere = "elsewhere"
	// Unverified: no quote, a quote found nowhere the review was shown, or
	// one found only in removed lines (code the change deletes).
	Unverified = "unverified"
)

// Verdicts lists the verdicts in report order.
var Verdicts = []string{Verified, Elsewhere, Unverified}

// Reasons of a result that is not Verified.
const (
	ReasonNoQuote  = "no quoted code"
	ReasonDeleted  = "the quoted code is only in removed lines"
	ReasonNotFound = "the quoted code was not found in what the review was shown"
	ReasonTooShort = "the quoted code is too short to be evidence (too few identifier characters) and is not the one match at the finding's line"
)

// A quote verifies a finding when it is found (see Check) and carries
// evidence: at least MinQuoteIdentChars letters, digits or underscores, or,
// when it has fewer ("}", "i++", ");"), a match that is the only one within
// uniqueRadius lines of the finding's line and covers that line.
const (
	MinQuoteIdentChars = 4
	uniqueRadius       = 10
)

// Result is one finding's verdict.
type Result struct {
	Verdict string `json:"verdict"`
	// FoundIn is the file the quote was found in when it is not the one
	// the finding names (Elsewhere).
	FoundIn string `json:"foundIn,omitempty"`
	// Reason says why the finding is not Verified ("" when it is).
	Reason string `json:"reason,omitempty"`
}

// OK reports whether the finding's evidence holds.
func (r Result) OK() bool { return r.Verdict == Verified }

// Shown is what the review model was shown, indexed for quotes. It is not
// safe for concurrent use (its files are indexed on first use).
type Shown struct {
	ix      *anchor.Index
	changed []*shownFile // changed files, in request order
	context []*shownFile // additional context files read whole, in request order
}

// shownFile is one file as shown; its source and old side are indexed on
// first use (most quotes are found in the diff the anchor index holds).
type shownFile struct {
	path    string
	diff    *anchor.File // new-side diff lines (nil for context files)
	rawSrc  string       // the new source or the context file's content
	rawDiff string
	source  *anchor.Text // rawSrc indexed
	removed *anchor.Text // the diff's old side per hunk: removed and context lines
	built   bool
	oldDone bool
}

func (sf *shownFile) sourceText() *anchor.Text {
	if !sf.built {
		sf.built = true
		if sf.rawSrc != "" {
			sf.source = anchor.NewText(splitLines(sf.rawSrc))
		}
	}
	return sf.source
}

func (sf *shownFile) oldText() *anchor.Text {
	if !sf.oldDone {
		sf.oldDone = true
		sf.removed = oldSide(sf.rawDiff)
	}
	return sf.removed
}

// New indexes what the review was shown: files are the changed files (diff,
// and new source when the request carries it), ix their anchor index
// (anchor.NewIndex(files)), context the /v1/merge additionalContext (only
// items read ok with get_file count: a listing or a failure shows no code).
func New(ix *anchor.Index, files []pipeline.ChangedFile, context []pipeline.ContextItem) *Shown {
	s := &Shown{ix: ix}
	for _, cf := range files {
		p := anchor.NormalizePath(cf.Path)
		if p == "" {
			continue
		}
		sf := &shownFile{path: p, rawSrc: cf.Source, rawDiff: cf.Diff}
		if df, ok := ix.File(p); ok {
			sf.diff = df
		}
		s.changed = append(s.changed, sf)
	}
	for _, c := range context {
		if !c.OK || (c.Op != "" && c.Op != pipeline.OpGetFile) || c.Content == "" {
			continue
		}
		p := anchor.NormalizePath(c.Path)
		if p == "" {
			continue
		}
		s.context = append(s.context, &shownFile{path: p, rawSrc: c.Content})
	}
	return s
}

// Check judges one finding's quote (f.ExistingCode).
func (s *Shown) Check(f pipeline.Finding) Result {
	quote := f.ExistingCode
	if strings.TrimSpace(quote) == "" {
		return Result{Verdict: Unverified, Reason: ReasonNoQuote}
	}
	named := anchor.NormalizePath(f.Path)
	if p, ok := s.ix.ResolvePath(f.Path); ok {
		named = p
	}
	if identChars(quote) < MinQuoteIdentChars {
		return s.checkShort(f, named)
	}
	all := s.all()
	// The named file first: the common case costs one file's search.
	for _, sf := range all {
		if sf.path == named && sf.hasNew(quote) {
			return Result{Verdict: Verified}
		}
	}
	for _, sf := range all {
		if sf.path != named && sf.hasNew(quote) {
			return Result{Verdict: Elsewhere, FoundIn: sf.path, Reason: "the quoted code is in " + sf.path + ", not in the file the finding names"}
		}
	}
	q := withoutMarkers(quote)
	for _, sf := range s.changed {
		if sf.oldText().HasQuote(q) {
			return Result{Verdict: Unverified, Reason: ReasonDeleted}
		}
	}
	return Result{Verdict: Unverified, Reason: ReasonNotFound}
}

// checkShort judges a quote with too few identifier characters to say
// where it is from: verified only when it is the one match near the
// finding's line of the named file (its diff, else its source).
func (s *Shown) checkShort(f pipeline.Finding, named string) Result {
	for _, sf := range s.changed {
		if sf.path != named {
			continue
		}
		if sf.diff != nil && sf.diff.QuoteUniqueAt(f.ExistingCode, f.Line, uniqueRadius) ||
			sf.sourceText().QuoteUniqueAt(f.ExistingCode, f.Line, uniqueRadius) {
			return Result{Verdict: Verified}
		}
	}
	return Result{Verdict: Unverified, Reason: ReasonTooShort}
}

// identChars counts the letters, digits and underscores of s.
func identChars(s string) int {
	n := 0
	for _, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func (s *Shown) all() []*shownFile {
	return append(append([]*shownFile(nil), s.changed...), s.context...)
}

// hasNew reports whether quote is in the file's new code as shown: the
// diff's added and context lines, or the whole source.
func (sf *shownFile) hasNew(quote string) bool {
	if sf.diff != nil && sf.diff.HasQuote(quote) {
		return true
	}
	return sf.sourceText().HasQuote(quote)
}

// oldSide returns the old version's lines of each hunk of a diff (context
// and removed), or nil when it has none.
func oldSide(raw string) *anchor.Text {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	var blocks [][]string
	for _, f := range diff.Parse(raw).Files {
		for _, h := range f.Hunks {
			var b []string
			for _, l := range h.Lines {
				if l.Op == diff.Delete || l.Op == diff.Context {
					b = append(b, l.Text)
				}
			}
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	return anchor.NewText(blocks...)
}

// withoutMarkers drops the leading '+', '-' or ' ' of every line of a
// quote copied out of a diff (each non-blank line carries one), keeping the
// removed lines, which the old side holds.
func withoutMarkers(q string) string {
	lines := strings.Split(q, "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && l[0] != '+' && l[0] != '-' && l[0] != ' ' {
			return q
		}
	}
	for i, l := range lines {
		if l != "" {
			lines[i] = l[1:]
		}
	}
	return strings.Join(lines, "\n")
}

func splitLines(s string) []string {
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
}
