package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteJSON writes the report as indented JSON (the shape documented on Report).
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes a human report: one block per node that is not ok (and per
// undecided node even when undecided is allowed), each problem, and a summary.
//
//	FAIL wf.json: workflow "Deploy" node "Parse" (n8n-nodes-base.code) jsCode 3:11: Unexpected token ;
//	    3 | const a = ;
//	      |           ^
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, n := range r.Nodes {
		if n.Verdict == VerdictOK || n.Verdict == VerdictSkipped {
			continue
		}
		label := "FAIL"
		switch n.Verdict {
		case VerdictUndecided:
			label = "UNDECIDED"
		case VerdictTooDeep, VerdictTooLarge, VerdictTimeout:
			label = "REFUSED"
		}
		kind := ""
		if n.Check == CheckExpression {
			kind = "expression "
		}
		fmt.Fprintf(&b, "%s %s: workflow %q node %q (%s) %s%s", label, n.File, n.Workflow, n.Node, n.Type, kind, n.Parameter)
		if n.Error == nil {
			b.WriteString("\n")
			continue
		}
		if n.Error.Line > 0 {
			fmt.Fprintf(&b, " %d:%d", n.Error.Line, n.Error.Column)
		}
		fmt.Fprintf(&b, ": %s\n", n.Error.Message)
		if n.Error.Line > 0 {
			num := fmt.Sprint(n.Error.Line)
			fmt.Fprintf(&b, "    %s | %s\n", num, n.Error.Excerpt)
			// A long line's excerpt is a window (code.go excerpt): no caret
			// when the column is not in it.
			if !strings.HasPrefix(n.Error.Excerpt, "…") && n.Error.Column <= utf8.RuneCountInString(n.Error.Excerpt)+1 {
				fmt.Fprintf(&b, "    %s | %s^\n", strings.Repeat(" ", len(num)), caretPad(n.Error.Excerpt, n.Error.Column))
			}
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "ERROR %s: %s\n", p.File, p.Message)
	}
	s := r.Stats
	verdict := "ok"
	if !r.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "%s: %d file(s), %d workflow(s), %d code node(s), %d expression(s): %d invalid, %d undecided, %d unreadable\n",
		verdict, s.Files, s.Workflows, s.CodeNodes, s.Expressions, s.Invalid, s.Undecided, s.Problems)
	_, err := io.WriteString(w, b.String())
	return err
}

// caretPad returns the blanks that put a caret under column col (1-based, in
// code points) of line, keeping tabs so the caret lines up.
func caretPad(line string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteRune('\t')
		} else {
			b.WriteRune(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteRune(' ')
	}
	return b.String()
}
