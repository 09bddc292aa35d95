package anchor

// Quotes checked against text: the matcher Anchor places snippets with
// (findSnippet: whitespace ignored, exact lines first, then containment for
// snippets of at least snippetMinChars, a snippet copied with diff markers
// read without them), offered to callers that check a model's quote against
// what it was shown.

// HasQuote reports whether quote is found in the file's new-side diff lines
// (added or context), as Anchor would find an existingCode snippet.
func (df *File) HasQuote(quote string) bool {
	_, _, _, found := df.findSnippet(quote, 0)
	return found
}

// Text is lines of text a quote is looked for in with Anchor's matcher:
// each block a run of consecutive lines (a whole file, or one hunk's lines).
// Build it with NewText.
type Text struct{ f File }

// NewText indexes blocks of lines; a quote matches within one block.
func NewText(blocks ...[]string) *Text {
	t := &Text{f: File{lines: map[int]int{}}}
	n := 0
	for _, b := range blocks {
		var h []diffLine
		for _, l := range b {
			n++
			dl := newDiffLine(n, l, false)
			t.f.text = append(t.f.text, dl)
			h = append(h, dl)
		}
		if len(h) > 0 {
			t.f.hunks = append(t.f.hunks, h)
		}
	}
	return t
}

// HasQuote reports whether quote is found in the text.
func (t *Text) HasQuote(quote string) bool {
	if t == nil {
		return false
	}
	return t.f.HasQuote(quote)
}

// QuoteUniqueAt reports whether quote, matched line by line exactly
// (whitespace ignored), is found once and only once among the new-side lines
// within radius of line, and that match covers line: the evidence a short
// quote ("}", "i++") can give, since it alone says nothing about where it is.
func (df *File) QuoteUniqueAt(quote string, line, radius int) bool {
	want := snippetLines(quote)
	if s, ok := stripDiffMarkers(quote); ok && len(df.matchLines(want, false)) == 0 {
		want = snippetLines(s)
	}
	if len(want) == 0 || line <= 0 {
		return false
	}
	near, covers := 0, false
	for _, m := range df.matchLines(want, false) {
		first, last := df.text[m.start].n, df.text[m.end].n
		if last < line-radius || first > line+radius {
			continue
		}
		near++
		covers = first <= line && line <= last
	}
	return near == 1 && covers
}

// QuoteUniqueAt is File.QuoteUniqueAt over the text (lines numbered from 1
// across its blocks).
func (t *Text) QuoteUniqueAt(quote string, line, radius int) bool {
	if t == nil {
		return false
	}
	return t.f.QuoteUniqueAt(quote, line, radius)
}
