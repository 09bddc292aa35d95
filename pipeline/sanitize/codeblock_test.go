package sanitize

import (
	"strings"
	"testing"
)

// TestCodeBlockCannotBeClosed: no line of the code closes the block, so
// what follows it (a comment's marker) stays outside it and code never
// leaks out as Markdown.
func TestCodeBlockCannotBeClosed(t *testing.T) {
	for _, lines := range [][]string{
		{"+```", "-````", " ```"},
		{"+x := `a`", "+``````"},
		{"+plain"},
	} {
		got := CodeBlock("diff", lines)
		all := strings.Split(got, "\n")
		open, close := all[0], all[len(all)-1]
		if open != close+"diff" || len(close) < 3 || strings.Trim(close, "`") != "" {
			t.Fatalf("CodeBlock(%q) fences %q / %q", lines, open, close)
		}
		for _, l := range all[1 : len(all)-1] {
			if strings.HasPrefix(strings.TrimLeft(l, " "), close) {
				t.Errorf("CodeBlock(%q): line %q can close the fence %q", lines, l, close)
			}
		}
		// The sanitizer sees it as one block: text after it is outside.
		if out := Markdown(got+"\n<b>x</b>", nil); !strings.HasSuffix(out, "&lt;b>x&lt;/b>") {
			t.Errorf("text after the block is not outside it: %q", out)
		}
	}
	if got := CodeBlock("di`ff\nx", nil); strings.Contains(got, "di`ff") || strings.Count(got, "\n") != 1 {
		t.Errorf("info string not made one safe word: %q", got)
	}
}
