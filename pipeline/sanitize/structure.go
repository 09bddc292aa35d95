package sanitize

import (
	"bytes"
	"sort"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The sanitizer leaves code as written and makes everything else inert, so
// what is code must be decided as the renderer decides it: a fence closed by
// a line the sanitizer took for text, or a backtick it paired differently,
// would leave live Markdown "inside code". Markdown's block and inline
// structure is read with a CommonMark parser (goldmark), which reports:
// every line of a fenced code block (the fences included) and of an
// indented code block, every code span, and the lines of HTML blocks (raw
// HTML: their text is made inert, and their line starts lose any block
// meaning, since the block is a paragraph once its "<" is escaped).

// lineKind is what a line of the input is.
type lineKind uint8

const (
	textLine lineKind = iota
	codeLine          // part of a fenced or indented code block: kept as written
	htmlLine          // part of an HTML block
	defLine           // part of a link reference definition: dropped
)

// structure is the input's code and HTML, as line kinds (by line index)
// and code spans (byte ranges [start, end), possibly across lines).
type structure struct {
	kinds []lineKind
	spans [][2]int
	// defAt is, for a defLine, where in the line the definition starts
	// (what is before it, a quote's "> " or a list item's marker, stays).
	defAt map[int]int
}

// recorder collects the positions the wrapped parser saw.
type recorder struct {
	fenceAt []int // byte offsets on fenced code block lines
}

// fenceRecorder is goldmark's fenced code block parser, noting every line
// it opens or continues on (content and closing fence).
type fenceRecorder struct {
	parser.BlockParser
	rec *recorder
}

func (f fenceRecorder) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	_, seg := reader.PeekLine()
	n, st := f.BlockParser.Open(parent, reader, pc)
	if n != nil {
		f.rec.fenceAt = append(f.rec.fenceAt, seg.Start)
	}
	return n, st
}

func (f fenceRecorder) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	_, seg := reader.PeekLine()
	f.rec.fenceAt = append(f.rec.fenceAt, seg.Start)
	return f.BlockParser.Continue(node, reader, pc)
}

// readStructure parses src as CommonMark and returns its code and HTML.
func readStructure(src []byte) structure {
	rec := &recorder{}
	blocks := parser.DefaultBlockParsers()
	for i, b := range blocks {
		if b.Priority == 700 { // the fenced code block parser
			blocks[i].Value = fenceRecorder{BlockParser: b.Value.(parser.BlockParser), rec: rec}
		}
	}
	// No inline parser: code spans are found in each paragraph's and
	// heading's text by spansOf (linear, where a parser's search for each
	// unmatched backtick run's closer is not).
	p := parser.NewParser(parser.WithBlockParsers(blocks...), parser.WithInlineParsers(),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	doc := p.Parse(text.NewReader(src))

	var starts []int // byte offset of each line's start
	starts = append(starts, 0)
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	st := structure{kinds: make([]lineKind, len(starts)), defAt: map[int]int{}}
	mark := func(off int, k lineKind) {
		if l := lineOf(off); l >= 0 && l < len(st.kinds) && k > st.kinds[l] {
			st.kinds[l] = k
		}
	}
	for _, off := range rec.fenceAt {
		mark(off, codeLine)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Paragraph, *ast.Heading:
			st.spans = append(st.spans, spansOf(src, n.Lines())...)
		case *ast.CodeBlock:
			markLines(n.Lines(), func(off int) { mark(off, codeLine) })
		case *ast.LinkReferenceDefinition:
			markLines(n.Lines(), func(off int) {
				if l := lineOf(off); l >= 0 && l < len(st.kinds) {
					st.kinds[l], st.defAt[l] = defLine, off-starts[l]
				}
			})
		case *ast.HTMLBlock:
			markLines(n.Lines(), func(off int) { mark(off, htmlLine) })
			if n.HasClosure() {
				mark(n.ClosureLine.Start, htmlLine)
			}
		}
		return ast.WalkContinue, nil
	})
	return st
}

func markLines(lines *text.Segments, mark func(off int)) {
	for i := 0; i < lines.Len(); i++ {
		mark(lines.At(i).Start)
	}
}

// spansOf returns the code spans of an inline text given as line segments
// of src, as CommonMark finds them scanning left to right: a backslash
// escapes the punctuation after it (an escaped backtick opens nothing, the
// rest of its run may); a backtick run opens a span closed by the next run
// of the same length (backslashes inside count for nothing), else it is
// literal. Each run is looked at once (runs of each length are queued in
// order), so the time is linear.
func spansOf(src []byte, lines *text.Segments) [][2]int {
	type run struct{ at, n int } // at: offset in t
	total, ticks := 0, false
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		total += seg.Stop - seg.Start
		ticks = ticks || bytes.IndexByte(src[seg.Start:seg.Stop], '`') >= 0
	}
	if !ticks {
		return nil
	}
	t := make([]byte, 0, total) // the lines' text, joined
	var from, at []int          // the segments' offsets in t and in src
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		from, at = append(from, len(t)), append(at, seg.Start)
		t = append(t, src[seg.Start:seg.Stop]...)
	}
	abs := func(i int) int { // t[i]'s offset in src
		k := sort.SearchInts(from, i+1) - 1
		return at[k] + i - from[k]
	}
	var runs []run
	byLen := map[int][]int{} // run length -> indexes into runs, in order
	for i := 0; i < len(t); {
		if t[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(t) && t[j] == '`' {
			j++
		}
		byLen[j-i] = append(byLen[j-i], len(runs))
		runs = append(runs, run{i, j - i})
		i = j
	}
	// closer returns the first run of n backticks starting at or after from.
	closer := func(from, n int) (run, bool) {
		q := byLen[n]
		for len(q) > 0 && runs[q[0]].at < from {
			q = q[1:]
		}
		byLen[n] = q
		if len(q) == 0 {
			return run{}, false
		}
		return runs[q[0]], true
	}
	var out [][2]int
	for i := 0; i < len(t); {
		switch c := t[i]; {
		case c == '\\' && i+1 < len(t) && isASCIIPunct(t[i+1]):
			i += 2
		case c == '`':
			j := i
			for j < len(t) && t[j] == '`' {
				j++
			}
			if r, ok := closer(j, j-i); ok {
				out = append(out, [2]int{abs(i), abs(r.at+r.n-1) + 1})
				i = r.at + r.n
			} else {
				i = j
			}
		default:
			i++
		}
	}
	return out
}
