package gate

// This file holds the nesting scan that runs before goja parses a snippet.
//
// goja's parser, the gate's AST walk and goja's compiler are recursive
// descents: each nesting level of the source costs Go stack frames (about
// 2.6 KB per parenthesis in goja's parser), and a deep enough input ends in
// `fatal error: stack overflow`, which no recover() catches and which takes
// the whole process down. Some chains also cost quadratic time in goja's
// compiler (constant folding of a + b + c ..., empty-result checks of
// nested blocks). So the gate measures how deep a snippet nests, without
// recursion and in one linear pass, and refuses a snippet above the limit
// with the verdict too_deep instead of parsing it.
//
// The scan tokenizes JavaScript as far as nesting needs: strings, template
// literals (with ${ substitutions), comments, regular expression literals
// (told from division by the token before the slash), numbers, identifiers
// and punctuators. Its figure is
//
//	the brackets ( [ { and template substitutions ${ open at a point, plus,
//	at each open level, the operators and keywords chained since the last
//	statement or list boundary (; , a line break where a statement ends,
//	case/default)
//
// The operator count stands for what nests without brackets: unary prefixes
// (!!!!x, typeof typeof x, new new X), right-recursive assignments, arrows
// and conditionals (a=b=c, x=>y=>z, a?b:c?d:e), left-deep binary, member and
// call chains (1+1+1, a.b.c, f()()()), and statements whose body is a
// statement (if/else/while/for/with/do, labels). It counts each such token
// as one level, which overestimates real code a little (a + b * c is two
// levels deep, counted three) and never underestimates what the parser
// recurses on for the constructs above.

// Token classes of the previous significant token, which decide whether a
// slash starts a regular expression and whether a line break ends a
// statement.
const (
	tokStart       = iota // nothing yet, or a punctuator after which an expression starts
	tokOperand            // identifier, literal, ] or the end of a template: a slash divides
	tokCloseParen         // ) of a call or grouping: a slash divides
	tokCloseCtrl          // ) of if/while/for/with (...): a statement follows, a slash starts a regexp
	tokCloseBlock         // } of a block: a statement follows
	tokCloseObject        // } of an object literal or a function expression: a slash divides
	tokKeyword            // return, typeof, case, ...: an expression follows
	tokPostfix            // ++ or -- (read as postfix: a slash divides)
	tokDot                // . or ?.: the next word is a property name
	tokNoEnd              // a token after which the statement goes on (else, do, =>, an operator)
)

type nestLevel struct {
	kind  byte // '(' '[' '{' or '$' (template substitution)
	saved int  // the enclosing level's operator chain when this level opened
	block bool // '{' that opens a block or a function/class body (not an object literal)
	ctrl  bool // '(' of if/while/for/with
}

// nestingScan is the state of one scan.
type nestingScan struct {
	src    string
	limit  int
	levels []nestLevel
	sum    int // sum over the open levels of 1 + their saved chain
	chain  int // operators chained at the current level since its last boundary
	prev   int // class of the previous significant token
	word   string
	max    int
	maxOff int
	over   bool // the limit was passed at maxOff
	// unbounded names why the scan cannot bound the nesting (it stops
	// then, with over set): see ambiguousSlash.
	unbounded string
	// newline is set when a line break came after the previous token.
	newline bool
}

// nestingDepth scans src and returns the deepest nesting figure it finds (see
// the file comment). When the figure passes limit the scan stops there:
// exceeded is true and off is the byte offset in src where it happened.
func nestingDepth(src string, limit int) (depth, off int, exceeded bool) {
	depth, off, exceeded, _ = nestingCheck(src, limit)
	return depth, off, exceeded
}

// nestingCheck is nestingDepth that also says, when exceeded, whether the
// nesting could not be bounded at all (unbounded is the reason, see
// ambiguousSlash) rather than passed the limit.
func nestingCheck(src string, limit int) (depth, off int, exceeded bool, unbounded string) {
	s := nestingScan{src: src, limit: limit, prev: tokStart}
	s.run()
	return s.max, s.maxOff, s.over, s.unbounded
}

func (s *nestingScan) depthNow() int { return s.sum + s.chain }

// note records the current figure at offset off; it returns false when the
// limit is passed (the scan stops).
func (s *nestingScan) note(off int) bool {
	if d := s.depthNow(); d > s.max {
		s.max, s.maxOff = d, off
		if d > s.limit {
			s.over = true
			return false
		}
	}
	return true
}

// link counts one chaining operator or keyword at offset off.
func (s *nestingScan) link(off int) bool {
	s.chain++
	return s.note(off)
}

func (s *nestingScan) push(kind byte, off int) bool {
	lv := nestLevel{kind: kind, saved: s.chain}
	switch kind {
	case '{':
		lv.block = s.braceOpensBlock()
	case '(':
		lv.ctrl = s.prev == tokKeyword && (s.word == "if" || s.word == "while" || s.word == "for" || s.word == "with")
	}
	s.levels = append(s.levels, lv)
	s.sum += 1 + s.chain
	s.chain = 0
	s.prev, s.word = tokStart, string(kind)
	return s.note(off)
}

// pop closes the innermost level of the given kinds; a closer with no
// matching opener is ignored (goja reports it and goes on). It returns the
// closed level.
func (s *nestingScan) pop(match func(byte) bool) (nestLevel, bool) {
	for i := len(s.levels) - 1; i >= 0; i-- {
		if match(s.levels[i].kind) {
			lv := s.levels[i]
			for j := len(s.levels) - 1; j >= i; j-- {
				s.sum -= 1 + s.levels[j].saved
			}
			s.levels = s.levels[:i]
			s.chain = lv.saved
			return lv, true
		}
	}
	return nestLevel{}, false
}

// atBlockLevel reports whether the innermost level holds statements (the
// top level, a block or a function body), where ':' ends a label or a case.
func (s *nestingScan) atBlockLevel() bool {
	return len(s.levels) == 0 || (s.levels[len(s.levels)-1].kind == '{' && s.levels[len(s.levels)-1].block)
}

// braceOpensBlock tells a block or body '{' from an object literal by the
// token before it.
func (s *nestingScan) braceOpensBlock() bool {
	switch s.prev {
	case tokCloseParen, tokCloseCtrl, tokCloseBlock, tokCloseObject:
		// ) { is a function or control body; } { is a new block statement.
		return true
	case tokKeyword:
		switch s.word {
		case "else", "do", "try", "finally":
			return true
		}
		return false
	case tokNoEnd:
		return s.word == "=>" || s.word == "else" || s.word == "do" || s.word == ";"
	case tokOperand:
		// class A {, class A extends B {: a class body.
		return true
	case tokStart:
		return s.word == "" || s.word == ";" || s.word == "{" || (s.word == ":" && s.atBlockLevel())
	}
	return false
}

// regexAllowed reports whether a slash at this point starts a regular
// expression literal rather than a division.
func (s *nestingScan) regexAllowed() bool {
	switch s.prev {
	case tokOperand, tokCloseParen, tokCloseObject, tokPostfix, tokDot:
		return false
	}
	return true
}

// slashAmbiguous reports whether the token before a slash leaves open
// whether goja reads a regular expression or a division: after "}" (the end
// of a function expression or of a declaration, of an object or of a
// block: only the parser knows) and after words that are keywords in some
// places and identifiers in others (of, yield, await, let, async).
func (s *nestingScan) slashAmbiguous() bool {
	switch s.prev {
	case tokCloseBlock, tokCloseObject:
		return true
	case tokKeyword:
		return s.word == "of" || s.word == "yield" || s.word == "await"
	}
	return s.prev == tokOperand && (s.word == "let" || s.word == "async")
}

// ambiguousSlash scans a slash that may start a regular expression or be a
// division (slashAmbiguous) so that neither reading can nest deeper than
// the figure: the region a regular expression would take (to its closing
// slash, or to the end of the line) counts every opening bracket in it and
// no closing one, and the scan goes on after it. A region holding a
// backtick or "/*" would put the two readings out of step for more than a
// line (a template or a comment in one of them), so the scan stops and
// reports the code as unbounded. It returns the offset after the region.
func (s *nestingScan) ambiguousSlash(i int) (int, bool) {
	src := s.src
	end := skipRegExp(src, i)
	if end < len(src) && (src[end] == '\n' || src[end] == '\r' || isLSPS(src, end)) {
		end = lineEnd(src, i) // unterminated: the region is the rest of the line
	}
	for j := i + 1; j < end; j++ {
		switch c := src[j]; c {
		case '`':
			s.unboundedAt(j, "a slash after \"}\" or a contextual keyword may start a regular expression or divide, and a backtick follows it on the line")
			return j, false
		case '*':
			if src[j-1] == '/' {
				s.unboundedAt(j, "a slash after \"}\" or a contextual keyword may start a regular expression or divide, and \"/*\" follows it on the line")
				return j, false
			}
		case '(', '[', '{':
			if !s.push(c, j) {
				return j, false
			}
		}
	}
	return end, true
}

func (s *nestingScan) unboundedAt(off int, why string) {
	s.unbounded, s.over, s.maxOff = why, true, off
}

// endsStatement reports whether a line break after the previous token can
// end a statement (automatic semicolon insertion), given the first byte c of
// the next token.
func (s *nestingScan) endsStatement(next int) bool {
	switch s.prev {
	case tokOperand, tokCloseParen, tokCloseBlock, tokCloseObject, tokPostfix:
	case tokKeyword:
		if s.word != "return" && s.word != "break" && s.word != "continue" {
			return false
		}
	default:
		return false
	}
	if next >= len(s.src) {
		return true
	}
	c := s.src[next]
	switch {
	case isIdentStart(c):
		w := s.src[next:identEnd(s.src, next)]
		// These words continue the expression or statement on the next line.
		return w != "in" && w != "instanceof" && w != "of" && w != "else" && w != "catch" && w != "finally" && w != "while"
	case c >= '0' && c <= '9', c == '"', c == '\'', c == '{', c == '!', c == '~', c == ';', c == '}':
		return true
	case c == '+' || c == '-':
		// ++ and -- after a line break start a new statement; + and - go on.
		return next+1 < len(s.src) && s.src[next+1] == c
	}
	return false
}

// boundary ends the current statement or list element.
func (s *nestingScan) boundary() { s.chain = 0 }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '\\' || c == '#' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// identEnd returns the end of the identifier (or keyword) starting at i.
// Line and paragraph separators (U+2028, U+2029) end it.
func identEnd(src string, i int) int {
	for i < len(src) && isIdentPart(src[i]) {
		if isLSPS(src, i) {
			break
		}
		if src[i] == '\\' && i+1 < len(src) {
			i++
		}
		i++
	}
	return i
}

// isLSPS reports whether src[i:] starts with U+2028 or U+2029.
func isLSPS(src string, i int) bool {
	return i+2 < len(src) && src[i] == 0xE2 && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9)
}

// lineEnd returns the offset of the next line terminator at or after i (or len(src)).
func lineEnd(src string, i int) int {
	for ; i < len(src); i++ {
		if src[i] == '\n' || src[i] == '\r' || isLSPS(src, i) {
			return i
		}
	}
	return i
}

// keywords after which an expression starts (a slash starts a regexp), and
// those that nest what follows (counted as a chain link).
var (
	exprKeywords = map[string]bool{
		"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
		"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
		"yield": true, "await": true, "extends": true, "if": true, "while": true, "for": true,
		"with": true, "try": true, "finally": true, "break": true, "continue": true, "default": true,
	}
	chainKeywords = map[string]bool{
		"typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true,
		"void": true, "yield": true, "await": true, "extends": true, "if": true, "else": true,
		"while": true, "for": true, "with": true, "do": true,
	}
)

// punctuators, longest first within each leading byte.
var punctuators = []string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "%=",
	"&=", "|=", "^=", "/=", "**", "<<", ">>",
}

func punctuatorAt(src string, i int) string {
	for _, p := range punctuators {
		if len(src)-i >= len(p) && src[i:i+len(p)] == p {
			if p == "?." && i+2 < len(src) && src[i+2] >= '0' && src[i+2] <= '9' {
				continue // a ? .5 : b
			}
			return p
		}
	}
	return src[i : i+1]
}

// run scans src once, token by token: the first byte picks the step that
// reads the token. It stops at the end, at an unterminated comment or
// template, or when a step finds the limit passed.
func (s *nestingScan) run() {
	src := s.src
	i := 0
	for i < len(src) {
		c := src[i]
		ok := true
		switch {
		case c == '\n' || c == '\r' || isLSPS(src, i):
			i = s.lineBreak(i)
			continue
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = lineEnd(src, i)
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if i, ok = s.blockComment(i); !ok {
				return
			}
			continue
		case c == '\'' || c == '"':
			i = skipString(src, i)
			s.prev, s.word = tokOperand, ""
		case c == '`':
			i, ok = s.template(i + 1)
		case c == '/' && s.slashAmbiguous():
			if i, ok = s.ambiguousSlash(i); ok {
				s.prev, s.word = tokOperand, ""
			}
		case c == '/' && s.regexAllowed():
			i = skipRegExp(src, i)
			s.prev, s.word = tokOperand, ""
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i = skipNumber(src, i)
			s.prev, s.word = tokOperand, ""
		case isIdentStart(c):
			i, ok = s.identifier(i)
		case c == '(' || c == '[' || c == '{':
			ok = s.open(c, i)
			i++
		case c == ')':
			s.closeParen()
			i++
		case c == ']':
			s.pop(func(k byte) bool { return k == '[' })
			s.prev, s.word = tokOperand, ""
			i++
		case c == '}':
			var resumed bool
			if i, resumed, ok = s.closeBrace(i); resumed && ok {
				continue // newline still stands for the template's next token
			}
		case c == ';' || c == ',':
			s.boundary()
			s.prev, s.word = tokStart, src[i:i+1]
			i++
		default:
			i, ok = s.punctuator(i)
		}
		if !ok {
			return
		}
		s.newline = false
	}
}

// lineBreak reads the line terminator at src[i]: it ends the statement
// when what follows cannot continue it (automatic semicolon insertion).
func (s *nestingScan) lineBreak(i int) int {
	n := i + 1
	if c := s.src[i]; c != '\n' && c != '\r' {
		n = i + 3 // U+2028, U+2029
	}
	if s.endsStatement(skipBlank(s.src, n)) {
		s.boundary()
	}
	s.newline = true
	return n
}

// blockComment skips the /* comment */ at src[i]; one holding a line
// break counts as one for ASI. It returns false when it is unterminated.
func (s *nestingScan) blockComment(i int) (int, bool) {
	end := indexFrom(s.src, "*/", i+2)
	if end < 0 {
		return i, false
	}
	if lineEnd(s.src[:end], i+2) < end {
		if s.endsStatement(skipBlank(s.src, end+2)) {
			s.boundary()
		}
		s.newline = true
	}
	return end + 2, true
}

// identifier reads the identifier or keyword at src[i]; a keyword that
// nests what follows is a chain link.
func (s *nestingScan) identifier(i int) (int, bool) {
	end := identEnd(s.src, i)
	w := s.src[i:end]
	switch {
	case s.prev == tokDot:
		s.prev, s.word = tokOperand, ""
	case exprKeywords[w]:
		if w == "case" || w == "default" {
			s.boundary()
		}
		if chainKeywords[w] && !s.link(i) {
			return end, false
		}
		// for await (...): the parenthesis is still the loop's.
		if !(w == "await" && s.prev == tokKeyword && s.word == "for") {
			s.prev, s.word = tokKeyword, w
		}
	default:
		s.prev, s.word = tokOperand, w
	}
	return end, true
}

// open reads the bracket c at src[i]: a new level.
func (s *nestingScan) open(c byte, i int) bool {
	// f(x)(y), a[0][1]: a call or an index after an operand nests the
	// callee one level deeper.
	if c != '{' && (s.prev == tokOperand || s.prev == tokCloseParen || s.prev == tokCloseObject) && !s.link(i) {
		return false
	}
	return s.push(c, i)
}

// closeParen reads a ')': the one of if/while/for/with (...) is followed
// by a statement.
func (s *nestingScan) closeParen() {
	lv, ok := s.pop(func(k byte) bool { return k == '(' })
	s.prev, s.word = tokCloseParen, ""
	if ok && lv.ctrl {
		s.prev = tokCloseCtrl
	}
}

// closeBrace reads the '}' at src[i]. Closing a template substitution
// resumes the template literal (resumed); closing a block or a function
// body ends its statement when a new one follows on the same line
// (minified code).
func (s *nestingScan) closeBrace(i int) (next int, resumed, ok bool) {
	lv, popped := s.pop(func(k byte) bool { return k == '{' || k == '$' })
	i++
	if popped && lv.kind == '$' {
		next, ok = s.template(i)
		return next, true, ok
	}
	s.prev, s.word = tokCloseObject, ""
	if popped && lv.block {
		s.prev = tokCloseBlock
		if s.endsStatement(skipBlank(s.src, i)) {
			s.boundary()
		}
	}
	return i, false, true
}

// punctuator reads the punctuator at src[i]: each links the chain except
// a ':' that is a conditional's (counted at its '?') or a property's.
func (s *nestingScan) punctuator(i int) (int, bool) {
	p := punctuatorAt(s.src, i)
	end := i + len(p)
	switch p {
	case ":":
		// A label or a case nests the statement after it.
		if s.atBlockLevel() && !s.link(i) {
			return end, false
		}
		s.prev, s.word = tokStart, ":"
	case "++", "--":
		if !s.link(i) {
			return end, false
		}
		// After a line break, ++ and -- are prefixes (no line
		// terminator is allowed before a postfix one).
		if (s.prev == tokOperand || s.prev == tokCloseParen || s.prev == tokCloseObject) && !s.newline {
			s.prev, s.word = tokPostfix, ""
		} else {
			s.prev, s.word = tokNoEnd, p
		}
	case ".", "?.":
		if !s.link(i) {
			return end, false
		}
		s.prev, s.word = tokDot, p
	default:
		if !s.link(i) {
			return end, false
		}
		s.prev, s.word = tokNoEnd, p
	}
	return end, true
}

// template scans template literal text from i (after ` or the } closing a
// substitution) to its closing backtick, or into a ${ substitution (a new
// level). It returns false when the scan must stop.
func (s *nestingScan) template(i int) (int, bool) {
	src := s.src
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
		case '`':
			s.prev, s.word = tokOperand, ""
			return i + 1, true
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				if !s.push('$', i) {
					return i, false
				}
				return i + 2, true
			}
			i++
		default:
			i++
		}
	}
	return i, true // unterminated: goja reports it
}

func skipBlank(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\v' || src[i] == '\f') {
		i++
	}
	return i
}

func indexFrom(src, sub string, i int) int {
	for j := i; j+len(sub) <= len(src); j++ {
		if src[j] == sub[0] && src[j:j+len(sub)] == sub {
			return j
		}
	}
	return -1
}

// skipString returns the offset after the string literal starting at i. A
// line break (LF or CR; U+2028/2029 are allowed in strings) ends an
// unterminated string, as in goja's lexer.
func skipString(src string, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
			if i < len(src) && src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
		case q:
			return i + 1
		case '\n', '\r':
			return i
		}
	}
	return i
}

// skipRegExp returns the offset after the regular expression literal
// starting at i (its flags included). An unterminated one ends at the line
// break.
func skipRegExp(src string, i int) int {
	inClass := false
	for i++; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n' || c == '\r' || isLSPS(src, i):
			return i
		case c == '\\':
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
				return i + 1
			}
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			return identEnd(src, i+1)
		}
	}
	return i
}

// skipNumber returns the offset after the numeric literal starting at i.
func skipNumber(src string, i int) int {
	hex := i+1 < len(src) && src[i] == '0' && (src[i+1]|0x20 == 'x' || src[i+1]|0x20 == 'o' || src[i+1]|0x20 == 'b')
	for i < len(src) {
		c := src[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '.':
			i++
			if !hex && (c == 'e' || c == 'E') && i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
		default:
			return i
		}
	}
	return i
}
