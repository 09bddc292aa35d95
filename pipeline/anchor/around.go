package anchor

// NumberedLine is one new-side line of a diff with its number.
type NumberedLine struct {
	N    int
	Text string
}

// Around returns the new-side lines of path's diff within radius lines of
// line, in order: the code a reader of the finding on that line sees. It is
// nil when the path is not a changed file or the diff shows no such line.
func (ix *Index) Around(path string, line, radius int) []NumberedLine {
	df, ok := ix.File(path)
	if !ok || line < 1 || radius < 0 {
		return nil
	}
	var out []NumberedLine
	for _, l := range df.text {
		if l.n >= line-radius && l.n <= line+radius {
			out = append(out, NumberedLine{N: l.n, Text: l.text})
		}
	}
	return out
}
