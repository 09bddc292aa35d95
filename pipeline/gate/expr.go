package gate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// codeParams are parameters holding programs, not expressions (n8n marks them
// noDataExpression): they are checked as code, never as expressions.
var codeParams = map[string]bool{"jsCode": true, "functionCode": true, "pythonCode": true}

// checkExpressions checks every n8n expression among a node's parameters: a
// string starting with "=" whose {{ ... }} chunks must each parse as a
// JavaScript expression. Only expressions that are not ok are returned
// (CheckExport counts all of them in Stats.Expressions).
func (r *run) checkExpressions(base NodeResult, params map[string]any) []NodeResult {
	var out []NodeResult
	base.Check = CheckExpression
	forEachExpression(params, "", func(path, expr string) {
		if r.budgetOut || r.ctx.Err() != nil {
			return // reported once, by the snippet that ran out or by the caller
		}
		if res := r.checkExpressionText(expr); res.Verdict != VerdictOK {
			r := base
			r.Parameter = path
			r.Verdict = res.Verdict
			r.Error = &NodeError{Message: res.Message, Line: res.Line, Column: res.Column, Excerpt: res.Excerpt}
			out = append(out, r)
		}
	})
	return out
}

// forEachExpression calls fn with the dotted path and the text (without the
// leading "=") of each expression parameter under v, in a stable order.
// Paths are built only for expressions, and cut at maxParamPath bytes, so
// long or deeply nested keys cost no more than the expressions they hold.
func forEachExpression(v any, path string, fn func(path, expr string)) {
	var segs []string
	if path != "" {
		segs = append(segs, path)
	}
	walkParams(v, &segs, fn)
}

// maxParamPath bounds the parameter path reported for an expression.
const maxParamPath = 512

func walkParams(v any, segs *[]string, fn func(path, expr string)) {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "=") && strings.Contains(x, "{{") {
			fn(joinPath(*segs), x[1:])
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if len(*segs) == 0 && codeParams[k] {
				continue
			}
			seg := k
			if len(*segs) > 0 {
				seg = "." + k
			}
			*segs = append(*segs, seg)
			walkParams(x[k], segs, fn)
			*segs = (*segs)[:len(*segs)-1]
		}
	case []any:
		for i, el := range x {
			*segs = append(*segs, "["+strconv.Itoa(i)+"]")
			walkParams(el, segs, fn)
			*segs = (*segs)[:len(*segs)-1]
		}
	}
}

func joinPath(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if b.Len()+len(s) > maxParamPath {
			cut := max(0, maxParamPath-b.Len())
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			b.WriteString(s[:cut])
			b.WriteString("…")
			break
		}
		b.WriteString(s)
	}
	return b.String()
}

// checkExpressionText checks an n8n expression (the parameter text after its
// leading "="): it is split as n8n's ExpressionSplitter does ({{ not preceded
// by an odd number of backslashes, up to the next }}; an unclosed {{ is left
// as text) and each code chunk must parse as a JavaScript expression. Lines
// and columns count in the expression text.
func checkExpressionText(expr string) Result { return defaultRun().checkExpressionText(expr) }

func (r *run) checkExpressionText(expr string) Result {
	if len(expr) > r.lim.MaxCodeBytes {
		return tooLarge(len(expr), r.lim.MaxCodeBytes, "the expression")
	}
	for _, ch := range splitExpression(expr) {
		if strings.TrimSpace(ch.code) == "" {
			continue
		}
		if !r.spend(len(ch.code) + exprChunkCost) {
			return r.overBudget()
		}
		res := r.checkCodeExpression(ch.code)
		if res.Verdict == VerdictOK {
			continue
		}
		if res.Line > 0 {
			line0, col0 := position(expr, ch.start)
			if res.Line == 1 {
				res.Column += col0 - 1
			}
			res.Line += line0 - 1
			line := lineText(expr, res.Line)
			res.Excerpt = excerpt(line, byteColumn(line, res.Column))
		}
		return res
	}
	return Result{Verdict: VerdictOK}
}

// checkCodeExpression checks one {{ }} chunk as n8n's expression engine
// (@n8n/tournament) reads it: parsed as a program (esprima-next via recast),
// wrapped in parentheses when it starts with "{". The gate parses it as a
// sloppy script with goja, so this check is close to tournament's but not
// exact (esprima's tolerant mode forgives some early errors); it is a separate
// check that can be switched off.
func checkCodeExpression(code string) Result { return defaultRun().checkCodeExpression(code) }

func (r *run) checkCodeExpression(code string) (res Result) {
	defer func() {
		if x := recover(); x != nil {
			res = Result{Verdict: VerdictUndecided, Message: fmt.Sprintf("internal error in the JavaScript checker: %v", x)}
		}
	}()
	code = strings.ToValidUTF8(code, "\uFFFD")
	if strings.HasPrefix(strings.TrimLeft(code, " \t\r\n"), "{") {
		return r.check("(", code, "\n)")
	}
	return r.check("", code, "\n")
}

type chunk struct {
	code  string
	start int // byte offset of code in the expression
}

func splitExpression(expr string) []chunk {
	var out []chunk
	i := 0
	for {
		open := findOpen(expr, i)
		if open < 0 {
			return out
		}
		end := strings.Index(expr[open+2:], "}}")
		if end < 0 {
			return out // unclosed: n8n keeps it as text
		}
		out = append(out, chunk{code: expr[open+2 : open+2+end], start: open + 2})
		i = open + 2 + end + 2
	}
}

// findOpen finds "{{" at or after i that is not escaped by an odd number of
// backslashes.
func findOpen(s string, i int) int {
	for {
		k := strings.Index(s[i:], "{{")
		if k < 0 {
			return -1
		}
		k += i
		n := 0
		for j := k - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		i = k + 2
	}
}

// position returns the 1-based line and column (in code points) of byte
// offset off in s.
func position(s string, off int) (int, int) {
	starts := lineStarts(s)
	line := 0
	for line+1 < len(starts) && starts[line+1] <= off {
		line++
	}
	return line + 1, utf8.RuneCountInString(s[starts[line]:off]) + 1
}

// byteColumn turns a 1-based column in code points into a byte offset in line.
func byteColumn(line string, col int) int {
	n := 1
	for i := range line {
		if n == col {
			return i
		}
		n++
	}
	return len(line)
}

func lineText(s string, line int) string {
	starts := lineStarts(s)
	if line < 1 || line > len(starts) {
		return ""
	}
	end := len(s)
	if line < len(starts) {
		end = starts[line]
	}
	return strings.TrimRight(s[starts[line-1]:end], "\r\n\u2028\u2029")
}
