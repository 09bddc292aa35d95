//go:build cgo

package cwalk

import (
	"bytes"
	"slices"
)

// LineEdits are the edits that make old into new as a change's lines say:
// removed are old's lines the change removed and added new's it added
// (from 1), every other line kept as it was. They come last first, each
// in old's places, the order EditTree applies them in. It answers
// false when the kept lines differ between the sides: the sets do not
// describe the two texts, and no edit would make the base's tree the
// head's.
func LineEdits(old, new []byte, removed, added map[int]bool) ([]Edit, bool) {
	var out []Edit
	o, n := lineCursor{src: old}, lineCursor{src: new}
	for !o.done() || !n.done() {
		if removed[o.row+1] && !o.done() || added[n.row+1] && !n.done() {
			e := Edit{Start: o.at, StartPoint: o.point()}
			from, fromRow := n.at, n.row
			for removed[o.row+1] && !o.done() {
				o.next()
			}
			for added[n.row+1] && !n.done() {
				n.next()
			}
			e.OldEnd, e.OldEndPoint = o.at, o.point()
			e.NewEnd = e.Start + n.at - from
			e.NewEndPoint = Point{Row: e.StartPoint.Row + n.row - fromRow, Column: n.point().Column}
			out = append(out, e)
			continue
		}
		if o.done() || n.done() {
			return nil, false
		}
		ol, nl := o.next(), n.next()
		if !bytes.Equal(ol, nl) {
			return nil, false
		}
	}
	slices.Reverse(out)
	return out, true
}

// lineCursor steps through a source a line at a time.
type lineCursor struct {
	src []byte
	// at is the offset of the line row (from 0) begins at; past the last
	// line when done, at the source's end.
	at, row int
	// col is the end's column when the source ends without a newline.
	col int
}

func (c *lineCursor) done() bool { return c.at >= len(c.src) }

// next steps past the current line, answering it with its newline.
func (c *lineCursor) next() []byte {
	from := c.at
	if i := bytes.IndexByte(c.src[from:], '\n'); i >= 0 {
		c.at, c.row = from+i+1, c.row+1
	} else {
		c.at, c.col = len(c.src), len(c.src)-from
	}
	return c.src[from:c.at]
}

// point is where the cursor is, as a row and a byte column.
func (c *lineCursor) point() Point { return Point{Row: c.row, Column: c.col} }
