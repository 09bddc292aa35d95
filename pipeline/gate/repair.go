package gate

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// A repair rewrites syntax that V8 accepts and goja's parser rejects into
// same-length text goja parses the same way, at the place goja reported its
// error. Some repairs leave a follow-up check on the AST (fix.post) for the
// early errors V8 still applies to the original syntax.
type fix struct {
	kind   string // forAwait | importCall
	offset int    // byte offset of the rewritten token in the wrapped source
}

var (
	legacyDecimal = regexp.MustCompile(`^0[0-9]*[89][0-9]*(\.[0-9]*)?([eE][+-]?[0-9]+)?`)
	importCallRe  = regexp.MustCompile(`^import\s*\(`)
	forBeforeRe   = regexp.MustCompile(`\bfor\s*$`)
	awaitBeforeRe = regexp.MustCompile(`(^|[^\w$.])await[ \t]*(//[^\n]*)?\n(\s*//[^\n]*\n)*\s*$`)
	letBeforeRe   = regexp.MustCompile(`(^|[^\w$.])let[ \t]*(//[^\n]*)?\n(\s*//[^\n]*\n)*\s*$`)
)

// repair tries one rewrite for goja's error at offset off in src (user code
// spans [start,end)). It returns the rewritten source and the follow-up check,
// or an undecided reason when the error is a known goja/V8 difference the gate
// cannot settle, or ok=false when the error stands.
func repair(src []byte, start, end, off int, msg string) (out []byte, f *fix, undecided string, ok bool) {
	if off < start || off > end {
		return nil, nil, "", false
	}
	code := src[start:end]
	rel := off - start
	lineStart := bytes.LastIndexAny(code[:rel], "\n\r") + 1
	lineEnd := len(code)
	if i := bytes.IndexAny(code[rel:], "\n\r"); i >= 0 {
		lineEnd = rel + i
	}
	rest := code[rel:]

	// for await (... of ...): blank out "await"; the loop is checked afterwards.
	if loc := forBeforeRe.FindIndex(code[:rel]); bytes.HasPrefix(rest, []byte("await")) && loc != nil && (loc[0] == 0 || !isIdentByte(code[loc[0]-1])) {
		out = bytes.Clone(src)
		copy(out[off:], "     ")
		return out, &fix{kind: "forAwait", offset: off}, "", true
	}
	// import(...): rename to an identifier of the same length; arity checked afterwards.
	if importCallRe.Match(rest) && (rel == 0 || !isIdentByte(code[rel-1])) && (rel < 1 || code[rel-1] != '.') {
		out = bytes.Clone(src)
		copy(out[off:], importName)
		return out, &fix{kind: "importCall", offset: off}, "", true
	}
	// Legacy non-octal decimal literals 08, 09.5, 08e1 (sloppy mode only).
	if m := legacyDecimal.Find(rest); m != nil && (rel == 0 || !isIdentByte(code[rel-1])) {
		after := rel + len(m)
		if after < len(code) && (isIdentByte(code[after]) || code[after] == '.') {
			return nil, nil, "", false // 08n, 08.5.3, 08x: an error in V8 too
		}
		out = bytes.Clone(src)
		n := 0
		for n < len(m) && out[off+n] == '0' {
			out[off+n] = ' '
			n++
		}
		return out, &fix{kind: "legacyDecimal", offset: off + n}, "", true
	}
	// Annex B HTML-like comments: <!-- anywhere (outside strings), --> first on a line.
	line := code[lineStart:lineEnd]
	// The "<!--" is on the error line before the error, or ends an earlier
	// line (goja then fails on the next token).
	for ls, le, k := lineStart, lineEnd, 0; k < 3; k++ {
		if i := firstHTMLOpen(code[ls:le]); i >= 0 {
			out = bytes.Clone(src)
			copy(out[start+ls+i:], "//  ")
			return out, nil, "", true
		}
		if ls == 0 {
			break
		}
		le = ls - 1
		if le > 0 && code[le] == '\n' && code[le-1] == '\r' {
			le--
		}
		ls = bytes.LastIndexAny(code[:le], "\n\r") + 1
	}
	if lineStart > 0 {
		trimmed := bytes.TrimLeft(line, " \t\v\f\u00a0")
		if bytes.HasPrefix(trimmed, []byte("-->")) {
			i := lineStart + len(line) - len(trimmed)
			if i <= rel+3 {
				out = bytes.Clone(src)
				copy(out[start+i:], "// ")
				return out, nil, "", true
			}
		}
	}
	// `let` before a line break can be an identifier in sloppy code (V8
	// reads `let\nconst x` as two statements); goja rejects the next token.
	if letBeforeRe.Match(code[:rel]) {
		return nil, nil, "V8 may read this `let` as an identifier (sloppy mode) where goja expects a declaration", false
	}
	// `await` is an identifier in a sloppy function that is not async, even
	// inside the async wrapper; goja keeps treating it as an operator there.
	if awaitBeforeRe.Match(code[:rel]) {
		return nil, nil, "V8 reads `await` as an identifier in functions that are not async; goja does not", false
	}
	// V8 accepts a call as assignment target in sloppy code (it throws a
	// ReferenceError only when run); goja rejects it while parsing.
	if strings.HasPrefix(msg, "Invalid left-hand side") && callTarget(rest) {
		return nil, nil, "V8 accepts a function call as an assignment target (it fails only when run); goja cannot parse it", false
	}
	return nil, nil, "", false
}

// importName is as long as "import" and cannot clash with user identifiers
// that are ASCII ("ɪ" is two bytes).
const importName = "\u026amprt"

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || ('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}

// firstHTMLOpen finds the first "<!--" of line that is not inside a string,
// template, regexp or comment: V8's comment starts there, wherever goja
// reported its error on the line.
func firstHTMLOpen(line []byte) int {
	for i := 0; i+4 <= len(line); i++ {
		if string(line[i:i+4]) == "<!--" && !insideQuotes(line[:i]) {
			return i
		}
	}
	return -1
}

// insideQuotes reports whether the end of prefix (a line up to a "<!--") is
// inside a string, template, regexp literal or comment, by a lexical scan of
// the line (a regexp is assumed where "/" follows an operator, a bracket or
// the line start).
func insideQuotes(prefix []byte) bool {
	var q byte
	prev := byte(0) // last significant byte outside strings
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
			prev = c
		case q != 0:
		case c == '\'' || c == '"' || c == '`':
			q = c
		case c == '/' && i+1 < len(prefix) && prefix[i+1] == '/':
			return true // in a line comment
		case c == '/' && i+1 < len(prefix) && prefix[i+1] == '*':
			end := bytes.Index(prefix[i+2:], []byte("*/"))
			if end < 0 {
				return true
			}
			i += 2 + end + 1
		case c == '/' && (prev == 0 || bytes.IndexByte([]byte("(,=:[!&|?{};+-*%<>~^"), prev) >= 0):
			inClass := false
			for i++; ; i++ {
				if i >= len(prefix) {
					return true // in a regexp literal
				}
				switch prefix[i] {
				case '\\':
					i++
				case '[':
					inClass = true
				case ']':
					inClass = false
				}
				if prefix[i] == '/' && !inClass && prefix[i-1] != '\\' {
					break
				}
			}
			prev = 'a'
		case c != ' ' && c != '\t':
			prev = c
		}
	}
	return q != 0
}

// callTarget reports whether text starts with a member/call chain ending in a
// call, followed by an assignment or update operator.
func callTarget(text []byte) bool {
	depth := 0
	last := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
			if depth < 0 {
				return false
			}
		case depth > 0:
			continue
		case c == ' ' || c == '\t':
			continue
		case isIdentByte(c) || c == '.':
		default:
			return last == ')' && (c == '=' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '&' || c == '|' || c == '^' || c == '<' || c == '>')
		}
		if c != ' ' && c != '\t' {
			last = c
		}
	}
	return false
}

// postCheck applies V8's remaining early errors to a repaired construct.
func postCheck(prg *ast.Program, fixes []*fix) (off int, msg string, bad bool) {
	if len(fixes) == 0 {
		return 0, "", false
	}
	at := map[int]*fix{}
	for _, f := range fixes {
		at[f.offset] = f
	}
	walk(prg, func(n any, stack []any) {
		if bad {
			return
		}
		switch n := n.(type) {
		case *ast.ForOfStatement:
			if findForAwait(at, int(n.For)-1) != nil {
				if !inAsyncFunction(stack) {
					off, msg, bad = int(n.For)-1, "for await is only valid in async functions and the top level bodies of modules", true
				}
			}
		case *ast.ForInStatement:
			if findForAwait(at, int(n.For)-1) != nil {
				off, msg, bad = int(n.For)-1, "Unexpected token 'in'", true
			}
		case *ast.ForStatement:
			if findForAwait(at, int(n.For)-1) != nil {
				off, msg, bad = int(n.For)-1, "Unexpected token ';'", true
			}
		case *ast.NumberLiteral:
			if f := at[int(n.Idx)-1]; f != nil && f.kind == "legacyDecimal" && strictAt(stack) {
				off, msg, bad = int(n.Idx)-1, "Decimals with leading zeros are not allowed in strict mode.", true
			}
		case *ast.CallExpression:
			id, ok := n.Callee.(*ast.Identifier)
			if !ok || at[int(id.Idx)-1] == nil {
				return
			}
			if len(n.ArgumentList) < 1 || len(n.ArgumentList) > 2 {
				off, msg, bad = int(id.Idx)-1, "import() requires a specifier and at most one options argument", true
			}
			for _, a := range n.ArgumentList {
				if _, spread := a.(*ast.SpreadElement); spread {
					off, msg, bad = int(id.Idx)-1, "Unexpected token '...'", true
				}
			}
		case *ast.Identifier:
			if at[int(n.Idx)-1] != nil && n.Name.String() == importName {
				if _, isCall := stack[len(stack)-1].(*ast.CallExpression); !isCall {
					off, msg, bad = int(n.Idx)-1, "Unexpected token 'import'", true
				}
			}
		}
	})
	return off, msg, bad
}

// findForAwait returns the forAwait fix that belongs to the for keyword at
// offset forOff (the await token follows it after some spaces).
func findForAwait(at map[int]*fix, forOff int) *fix {
	for i := forOff + 3; i <= forOff+3+8; i++ {
		if f := at[i]; f != nil && f.kind == "forAwait" {
			return f
		}
	}
	return nil
}

func inAsyncFunction(stack []any) bool {
	switch f := enclosingFunction(stack).(type) {
	case *ast.FunctionLiteral:
		return f.Async
	case *ast.ArrowFunctionLiteral:
		return f.Async
	}
	return false
}

// htmlOpenInCode finds a "<!--" that goja parsed as the operators < ! -- (so
// it lies in code, not in a string, template, regexp or comment): V8 reads it
// as the start of a single-line comment (Annex B). It returns the offset in
// src, or -1.
func htmlOpenInCode(prg *ast.Program, src []byte, start, end int) int {
	if !bytes.Contains(src[start:end], []byte("<!--")) {
		return -1
	}
	found := -1
	walk(prg, func(n any, _ []any) {
		u, ok := n.(*ast.UnaryExpression)
		if found >= 0 || !ok || u.Operator != token.NOT {
			return
		}
		bang := int(u.Idx) - 1
		if bang >= 1 && bang+3 <= len(src) && string(src[bang-1:bang+3]) == "<!--" {
			if d, ok := u.Operand.(*ast.UnaryExpression); ok && d.Operator == token.DECREMENT && !d.Postfix {
				found = bang - 1
			}
		}
	})
	return found
}
