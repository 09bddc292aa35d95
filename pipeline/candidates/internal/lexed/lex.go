package lexed

import (
	"bytes"
	"slices"

	"github.com/prscout/prscout/pipeline/ident"
)

// A small lexer for TypeScript/JavaScript, Python and Java (and a generic
// C-like or #-comment fallback). It only needs to tell identifiers from
// strings, comments, numbers and punctuation, and to track lines and braces.
// A library lexer was measured first: chroma's regexp-driven lexers ran at
// 0.2-1 MB/s here (0.35 s for a 330 KB TypeScript file), too slow for the
// tens of files a search reads; this one runs at memory speed.

type TokKind uint8

const (
	TkIdent TokKind = iota + 1
	TkPunct
	TkString // a string literal; Text holds its content for import paths
	TkNumber
)

type Tok struct {
	Text string
	Line int
	// col is the token's column (0-based) on its line; indent is the
	// line's indentation width (Python blocks). Sources are at most 2 MiB:
	// both fit 32 bits, which keeps a token at 40 bytes instead of 48.
	Col, Indent int32
	Kind        TokKind
}

type LexMode int

const (
	LexCLike  LexMode = iota // // and /* */ comments, ' " ` strings
	LexJS                    // lexCLike plus template literals and regex literals
	LexPython                // # comments, ''' and """ strings, string prefixes
	LexHash                  // # comments, ' " strings (shell, Ruby, YAML, ...)
)

func LexModeOf(l Lang) LexMode {
	switch l {
	case LangJS:
		return LexJS
	case LangPython:
		return LexPython
	}
	return LexCLike
}

// MaxTokens bounds the tokens Tokens makes of one source (6 MB of them):
// what follows is not read, and File.ReadTo says so. Sources are at most
// 2 MiB; real source files hold far fewer (a 500 KB library bundle about
// 80,000), so the cap cuts only ones of punctuation runs and one-call
// lines (generated code, data, attacks), after their imports and first
// declarations. Every token is counted, those of template substitutions
// and f-string fields too: no source makes more.
const MaxTokens = 1 << 17

// Tokens splits src into tokens, dropping comments and whitespace; at
// most MaxTokens of them. Token texts are cut from one copy of src, never
// copied one by one: a string nested in another (a template literal in a
// substitution, an f-string in a field) costs no copy of its content.
func Tokens(src []byte, mode LexMode) []Tok {
	toks, _ := lex(src, mode)
	return toks
}

// lex is Tokens, and reports whether src holds more than MaxTokens
// tokens (those past it are not made).
func lex(src []byte, mode LexMode) (toks []Tok, cut bool) {
	x := &lexer{src: src, text: string(src), n: len(src), mode: mode, line: 1, atLineStart: true, out: make([]Tok, 0, min(len(src)/bytesPerToken(mode), MaxTokens))}
	for x.i < x.n && !x.cut {
		c := src[x.i]
		if c == '\n' {
			x.line++
			x.i++
			x.lineStart = x.i
			x.atLineStart = true
			x.indent = 0
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' {
			if x.atLineStart {
				x.indent++
			}
			x.i++
			continue
		}
		x.atLineStart = false
		if !x.comment(c) {
			x.token(c)
		}
	}
	return x.tokens(), x.cut
}

// bytesPerToken foretells a source's tokens from its length: one per 4
// bytes of TypeScript and JavaScript, one per 5 of the other modes, more
// than nine files in ten of the benchmarks' repositories hold (hono 0.19
// tokens a byte, gson and httpx 0.14 overall; 0.23, 0.19 and 0.18 at the
// ninetieth percentile). A source that holds more spills (spill) and is
// joined once; one that holds far fewer is copied to its length (tokens).
func bytesPerToken(mode LexMode) int {
	if mode == LexJS {
		return 4
	}
	return 5
}

// lexer is the state of lex's walk over the source.
type lexer struct {
	src  []byte
	text string // src, which token texts are cut from
	n, i int
	mode LexMode
	// out is the block of tokens being made, full the blocks made before
	// it, made their count (tokens).
	out  []Tok
	full [][]Tok
	made int
	// line and lineStart are the current line and its offset; indent is
	// its indentation width so far.
	line, lineStart, indent int
	atLineStart             bool
	// nested counts the JS template literals being lexed (one inside
	// another's substitution).
	nested int
	// cut is set once a token past MaxTokens was met: it is not made,
	// nor any after it.
	cut bool
}

// numberChars are the bytes a number or a regex's flags run over.
const numberChars = ident.Dollar | ident.Unicode

// chars are the identifier bytes of the mode: '$' only in JavaScript.
func (x *lexer) chars() ident.Chars {
	if x.mode == LexJS {
		return ident.Dollar | ident.Unicode
	}
	return ident.Unicode
}

// hashComments reports whether the mode's comments start with '#'.
func (x *lexer) hashComments() bool { return x.mode == LexPython || x.mode == LexHash }

// comment skips a comment starting at c, and reports whether there was one.
func (x *lexer) comment(c byte) bool {
	src, n := x.src, x.n
	switch {
	case x.hashComments() && c == '#', !x.hashComments() && c == '/' && x.i+1 < n && src[x.i+1] == '/':
		for x.i < n && src[x.i] != '\n' {
			x.i++
		}
	case !x.hashComments() && c == '/' && x.i+1 < n && src[x.i+1] == '*':
		x.i += 2
		for x.i+1 < n && !(src[x.i] == '*' && src[x.i+1] == '/') {
			if src[x.i] == '\n' {
				x.line++
				x.lineStart = x.i + 1
			}
			x.i++
		}
		x.i += 2
	default:
		return false
	}
	return true
}

// token reads the token starting at c: a JS regex literal, a string, a
// number, an identifier (or a Python prefixed string), or one punctuation
// byte.
func (x *lexer) token(c byte) {
	src, n, mode := x.src, x.n, x.mode
	start := x.i
	switch {
	case mode == LexJS && c == '/' && x.regexOK():
		x.skipRegex()
		x.emit(TkString, "", start)
	case c == '`' && mode == LexJS:
		x.template(start)
	case c == '"' || c == '\'':
		triple := (mode == LexPython || mode == LexCLike && c == '"') && x.i+2 < n && src[x.i+1] == c && src[x.i+2] == c
		x.emit(TkString, x.skipString(c, triple), start)
	case '0' <= c && c <= '9':
		for x.i < n && (numberChars.IsByte(src[x.i]) || src[x.i] == '.') {
			x.i++
		}
		x.emit(TkNumber, x.text[start:x.i], start)
	case x.chars().IsByte(c):
		x.i = ident.End(src, x.i, x.chars())
		// Python string prefixes: r"..", b'..', f"..", rb"..".
		if mode == LexPython && x.i < n && (src[x.i] == '"' || src[x.i] == '\'') && x.i-start <= 2 && isStringPrefix(src[start:x.i]) {
			q := src[x.i]
			triple := x.i+2 < n && src[x.i+1] == q && src[x.i+2] == q
			if bytes.ContainsAny(src[start:x.i], "fF") && x.nested < maxTemplateNesting {
				x.fstring(q, triple, start)
				return
			}
			x.emit(TkString, x.skipString(q, triple), start)
			return
		}
		x.emit(TkIdent, x.text[start:x.i], start)
	default:
		x.emit(TkPunct, x.text[x.i:x.i+1], x.i)
		x.i++
	}
}

// regexOK decides whether '/' starts a regex in JS, by the token before.
func (x *lexer) regexOK() bool {
	p, ok := x.last()
	if !ok {
		return true
	}
	switch p.Kind {
	case TkIdent:
		switch p.Text {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await":
			return true
		}
		return false
	case TkNumber, TkString:
		return false
	case TkPunct:
		if p.Text == "<" && p.Line == x.line && int(p.Col) == x.i-x.lineStart-1 {
			return false // a JSX closing tag </div>
		}
		return p.Text != ")" && p.Text != "]" && p.Text != "}"
	}
	return true
}

// emit makes a token, unless MaxTokens are made: then it marks the source
// cut, and the walk ends at the end of the construct it is in (a template
// literal's substitutions and an f-string's fields emit as they go).
func (x *lexer) emit(k TokKind, text string, start int) {
	if x.cut || x.made >= MaxTokens {
		x.cut = true
		return
	}
	if len(x.out) == cap(x.out) {
		x.spill()
	}
	x.out = append(x.out, Tok{Kind: k, Text: text, Line: x.line, Col: int32(start - x.lineStart), Indent: int32(x.indent)})
	x.made++
}

// spill sets the full block aside and starts one of half as many tokens
// as were made so far (at most what MaxTokens leaves): a source of more
// tokens than its length foretold (lex) is not grown by copies but joined
// once (tokens), into a slice of its length. On the benchmarks'
// repositories this allocates a little less than growing by append did
// and keeps 12 % less; a source cut at MaxTokens allocates at most
// about twice its tokens.
func (x *lexer) spill() {
	if len(x.out) > 0 {
		x.full = append(x.full, x.out)
	}
	x.out = make([]Tok, 0, min(max(x.made/2, 16), MaxTokens-x.made))
}

// tokens answers the tokens made: the one block (copied to its length
// when a third of it or more is left unused: what a cache keeps is its
// length's worth), or the blocks joined into a slice of just their length.
func (x *lexer) tokens() []Tok {
	if len(x.full) == 0 {
		if cap(x.out)-len(x.out) <= len(x.out)/3 {
			return x.out
		}
		return slices.Clone(x.out)
	}
	all := make([]Tok, 0, x.made)
	for _, b := range x.full {
		all = append(all, b...)
	}
	return append(all, x.out...)
}

// last is the last token made; ok false for none.
func (x *lexer) last() (t Tok, ok bool) {
	switch {
	case len(x.out) > 0:
		return x.out[len(x.out)-1], true
	case len(x.full) > 0:
		b := x.full[len(x.full)-1]
		return b[len(b)-1], true
	}
	return t, false
}

// skipRegex consumes a JS regex literal from its '/' to its flags.
func (x *lexer) skipRegex() {
	src, n := x.src, x.n
	x.i++
	inClass := false
	for x.i < n && src[x.i] != '\n' {
		if src[x.i] == '\\' {
			x.i += 2
			continue
		}
		if src[x.i] == '[' {
			inClass = true
		} else if src[x.i] == ']' {
			inClass = false
		} else if src[x.i] == '/' && !inClass {
			break
		}
		x.i++
	}
	if x.i < n && src[x.i] == '/' {
		x.i++
		x.i = ident.End(src, x.i, numberChars)
	}
}

// skipString consumes a quoted string from i (at the quote) and returns its
// content; it counts newlines.
func (x *lexer) skipString(q byte, triple bool) string { return x.scanString(q, triple, false) }

// scanString is skipString; with fields, a Python f-string's replacement
// fields are lexed as code (field).
func (x *lexer) scanString(q byte, triple, fields bool) string {
	src, n := x.src, x.n
	if triple {
		x.i += 3
	} else {
		x.i++
	}
	cstart := x.i
	for x.i < n {
		c := src[x.i]
		switch {
		case c == '\\':
			// An escaped newline continues the string on the next line.
			if x.i+1 < n && src[x.i+1] == '\n' {
				x.line++
				x.lineStart = x.i + 2
			}
			x.i += 2
			continue
		case c == '\n':
			x.line++
			x.lineStart = x.i + 1
			if !triple && q != '`' {
				x.i++
				return x.text[cstart : x.i-1]
			}
		case c == q:
			if !triple {
				x.i++
				return x.text[cstart : x.i-1]
			}
			if x.i+2 < n && src[x.i+1] == q && src[x.i+2] == q {
				x.i += 3
				return x.text[cstart : x.i-3]
			}
		case q == '`' && c == '$' && x.i+1 < n && src[x.i+1] == '{':
			if fields && x.nested < maxTemplateNesting {
				x.i += 2
				x.substitution()
				continue
			}
			x.skipSubstitution()
		case q == '`':
		case fields && c == '{' && x.i+1 < n && src[x.i+1] == '{':
			x.i++ // an escaped brace
		case fields && c == '{':
			x.i++
			x.field(q, triple)
			continue
		}
		x.i++
	}
	return x.text[cstart:min(x.i, n)]
}

// fstring consumes a Python f-string from its quote. The expressions of
// its replacement fields ({name.attr!r:>{width}}, not the escaped {{) are
// code: their tokens are emitted between an empty string token at the
// f-string's start (so that x = f"{C()}" does not read as x = C()) and the
// string token at its end, which carries the content and the end line as
// every string token does.
func (x *lexer) fstring(q byte, triple bool, start int) {
	x.emit(TkString, "", start)
	x.nested++
	text := x.scanString(q, triple, true)
	x.nested--
	x.emit(TkString, text, start)
}

// field lexes the expression of an f-string's replacement field, from
// after its '{' to its closing '}': a conversion (!r) and a format spec
// (after ':') are text, but a spec's nested fields ({width}) are code. It
// stops before the f-string's closing quote or, in a one-line f-string,
// its line's end, so that a malformed field cannot swallow the file.
func (x *lexer) field(q byte, triple bool) {
	src, n := x.src, x.n
	depth := 0
	spec := false
	for x.i < n {
		c := src[x.i]
		switch {
		case c == q && (!triple || x.i+2 < n && src[x.i+1] == q && src[x.i+2] == q):
			return
		case c == '\n':
			if !triple {
				return
			}
			x.line++
			x.lineStart = x.i + 1
		case c == '}' && depth == 0:
			x.i++
			return
		case spec && c == '{' && x.nested < maxTemplateNesting:
			x.i++
			x.nested++
			x.field(q, triple)
			x.nested--
			continue
		case spec, c == ' ' || c == '\t' || c == '\r':
		case depth == 0 && (c == ':' || c == '!' && (x.i+1 >= n || src[x.i+1] != '=')):
			spec = true
		case c == '(' || c == '[' || c == '{':
			depth++
			x.emit(TkPunct, x.text[x.i:x.i+1], x.i)
		case c == ')' || c == ']' || c == '}':
			depth--
			x.emit(TkPunct, x.text[x.i:x.i+1], x.i)
		default:
			x.token(c)
			continue
		}
		x.i++
	}
}

// maxTemplateNesting bounds the template literals (and Python f-strings)
// lexed inside one another's substitutions (fields); deeper ones are
// skipped as text (a deeper f-string as a plain string).
const maxTemplateNesting = 32

// template consumes a JS template literal from its backquote. The
// expressions of its substitutions (${f(x)}) are code: their tokens are
// emitted between an empty string token at the template's start (so that
// x = `${C()}` does not read as x = C()) and the string token at its end,
// which carries the content and the end line as every string token does.
func (x *lexer) template(start int) {
	x.emit(TkString, "", start)
	x.nested++
	text := x.scanString('`', false, true)
	x.nested--
	x.emit(TkString, text, start)
}

// substitution lexes the expression of a template literal's ${...}, from
// after its "${" to its closing brace, which it consumes; strings, nested
// templates, regex literals and comments inside are read as in code.
func (x *lexer) substitution() {
	src, n := x.src, x.n
	depth := 0
	prev := byte('{') // the last byte of code read: whether a '/' starts a regex
	for x.i < n {
		c := src[x.i]
		if c == '/' && (x.i+1 >= n || src[x.i+1] != '/' && src[x.i+1] != '*') {
			start := x.i
			if regexStarts(prev) {
				x.skipRegex()
				x.emit(TkString, "", start)
				prev = 'a'
			} else {
				x.emit(TkPunct, "/", start)
				x.i++
				prev = '/'
			}
			continue
		}
		switch {
		case c == '\n':
			x.line++
			x.i++
			x.lineStart = x.i
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			x.i++
			continue
		case c == '}' && depth == 0:
			x.i++
			return
		case x.comment(c):
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
		x.token(c)
		prev = src[min(x.i, n)-1] // an unclosed string or template ends past the source
	}
}

// skipSubstitution skips a template literal's ${...} to its closing brace,
// over the strings, nested templates and regex literals inside it (whose
// braces do not count).
func (x *lexer) skipSubstitution() {
	src, n := x.src, x.n
	depth := 0
	prev := byte('{')
	for x.i < n {
		c := src[x.i]
		switch {
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return
			}
		case c == '\n':
			x.line++
			x.lineStart = x.i + 1
		case c == '"' || c == '\'':
			x.skipString(c, false)
			prev = c
			continue
		case c == '`':
			x.skipTemplate()
			prev = c
			continue
		case c == '/' && x.i+1 < n && src[x.i+1] != '/' && src[x.i+1] != '*' && regexStarts(prev):
			x.skipRegex()
			prev = 'a'
			continue
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
		x.i++
	}
}

// skipTemplate skips a JS template literal from its backquote to after
// its closing one, over the code of its substitutions and the templates
// nested in them, however deep: it keeps a stack of what is open rather
// than recursing, and copies nothing.
func (x *lexer) skipTemplate() {
	src, n := x.src, x.n
	// open holds, innermost last, -1 for a template's text and the brace
	// depth of a substitution's code.
	open := []int{-1}
	prev := byte('{')
	x.i++
	for x.i < n && len(open) > 0 {
		c := src[x.i]
		top := len(open) - 1
		if c == '\n' {
			x.line++
			x.lineStart = x.i + 1
		}
		if open[top] < 0 { // template text
			switch {
			case c == '\\':
				if x.i+1 < n && src[x.i+1] == '\n' {
					x.line++
					x.lineStart = x.i + 2
				}
				x.i++
			case c == '`':
				open = open[:top]
				prev = 'a'
			case c == '$' && x.i+1 < n && src[x.i+1] == '{':
				open = append(open, 0)
				prev = '{'
				x.i++
			}
			x.i++
			continue
		}
		switch {
		case c == '"' || c == '\'':
			x.skipString(c, false)
			prev = 'a'
			continue
		case c == '`':
			open = append(open, -1)
		case c == '/' && x.i+1 < n && src[x.i+1] != '/' && src[x.i+1] != '*' && regexStarts(prev):
			x.skipRegex()
			prev = 'a'
			continue
		case c == '{':
			open[top]++
		case c == '}' && open[top] == 0:
			open = open[:top]
		case c == '}':
			open[top]--
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
		x.i++
	}
}

// regexStarts reports whether a '/' after the byte prev starts a regex
// literal rather than a division.
func regexStarts(prev byte) bool {
	switch prev {
	case '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^':
		return true
	}
	return false
}

func isStringPrefix(b []byte) bool {
	for _, c := range b {
		switch c {
		case 'r', 'R', 'b', 'B', 'f', 'F', 'u', 'U':
		default:
			return false
		}
	}
	return true
}
