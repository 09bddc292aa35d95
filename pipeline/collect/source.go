package collect

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// countLines counts the lines of data: newlines, plus one for a last line
// without one.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// sourceWindows pads each hunk's new-side range by pad lines, clips it to
// 1..total and merges windows that overlap or touch. ranges must be in file
// order (as git prints hunks).
func sourceWindows(ranges []pipeline.LineRange, pad, total int) []pipeline.LineRange {
	var out []pipeline.LineRange
	for _, r := range ranges {
		w := pipeline.LineRange{From: max(1, r.From-pad), To: min(total, r.To+pad)}
		if w.From > total {
			w.From = total
		}
		if w.To < w.From {
			continue
		}
		if n := len(out); n > 0 && w.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, w.To)
			continue
		}
		out = append(out, w)
	}
	return out
}

// windowLabel is the line that opens a source window, e.g.
// "--- lines 910-1031 of 1031 ---": neutral to every comment syntax.
func windowLabel(w pipeline.LineRange, total int) string {
	return "--- lines " + strconv.Itoa(w.From) + "-" + strconv.Itoa(w.To) + " of " + strconv.Itoa(total) + " ---"
}

// shapeSource decides how a new source is shown: whole when it has at most
// fullLines lines (or the windows around the changes cover all of it),
// otherwise only those windows, each opened by its label line. The result is
// never a silently cut file: the range says what is shown and of how many
// lines. An empty file shows nothing (nil range).
func shapeSource(data []byte, ranges []pipeline.LineRange, pad, fullLines int) (string, *pipeline.SourceRange) {
	total := countLines(data)
	if total == 0 {
		return "", nil
	}
	whole := &pipeline.SourceRange{From: 1, To: total, Total: total}
	if total <= fullLines {
		return bytesString(data), whole
	}
	windows := sourceWindows(ranges, pad, total)
	if len(windows) == 0 || (len(windows) == 1 && windows[0].From == 1 && windows[0].To == total) {
		return bytesString(data), whole
	}
	var b strings.Builder
	shown := 0
	for _, w := range windows {
		shown += w.To - w.From + 1
	}
	b.Grow(len(data)*shown/total + len(windows)*40 + 1)
	line, off := 1, 0 // off is the byte offset where line starts
	for _, w := range windows {
		for line < w.From {
			off += bytes.IndexByte(data[off:], '\n') + 1
			line++
		}
		start := off
		for line <= w.To {
			i := bytes.IndexByte(data[off:], '\n')
			if i < 0 {
				off = len(data)
			} else {
				off += i + 1
			}
			line++
		}
		b.WriteString(windowLabel(w, total))
		b.WriteByte('\n')
		b.Write(data[start:off])
		if off > start && data[off-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.String(), &pipeline.SourceRange{From: windows[0].From, To: windows[len(windows)-1].To, Total: total, Windows: windows}
}

// rangeLabel renders a source range for stats: "910-1031 of 1031", windows
// joined by ", " ("1-60, 910-1031 of 1031").
func rangeLabel(r pipeline.SourceRange) string {
	ws := r.Windows
	if len(ws) == 0 {
		ws = []pipeline.LineRange{{From: r.From, To: r.To}}
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = strconv.Itoa(w.From) + "-" + strconv.Itoa(w.To)
	}
	return strings.Join(parts, ", ") + " of " + strconv.Itoa(r.Total)
}
