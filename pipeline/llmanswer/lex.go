package llmanswer

import (
	"encoding/json"
	"strings"
)

// The lexer reads one JSON value as a model writes it, from a '{' or '['
// to the bracket that balances it or to the end of the text, in one pass.
// It serves two purposes:
//
//   - finding where a value in prose ends (strings, comments and the quotes
//     models use respected), without building anything;
//   - rewriting the value into JSON, repairing what is lexical: single,
//     smart and Python quotes, Python and JavaScript literals, unquoted keys
//     and bare-word values, comments, missing or extra commas, missing
//     closers, raw control characters, invalid escapes and unescaped quotes
//     in strings, and an end cut off mid-way (the cut string is closed, a cut
//     key or literal dropped, open containers closed). It records which
//     containers and value the cut left unfinished.
//
// Anything else it copies as is, so the JSON decoder rejects the rewrite and
// the caller can try the repair library on the original text.

// maxDepth bounds the nesting the lexer follows: no model answer nests this
// deep, and the repair library recurses once per level.
const maxDepth = 64

// repairs is a set of the repairs the lexer made.
type repairs uint32

const (
	fixSingleQuotes repairs = 1 << iota
	fixSmartQuotes
	fixPython
	fixNonJSONLiterals
	fixUnquotedKeys
	fixUnquotedValues
	fixComments
	fixTrailingCommas
	fixExtraCommas
	fixMissingCommas
	fixMissingValues
	fixMissingClosers
	fixStrayClosers
	fixControlChars
	fixEscapes
	fixInnerQuotes
	fixEllipsis
	fixCut
)

var repairNames = []struct {
	r    repairs
	name string
}{
	{fixSingleQuotes, "single quotes"},
	{fixSmartQuotes, "smart quotes"},
	{fixPython, "Python None/True/False"},
	{fixNonJSONLiterals, "NaN/Infinity/undefined"},
	{fixUnquotedKeys, "unquoted keys"},
	{fixUnquotedValues, "unquoted values"},
	{fixComments, "comments"},
	{fixTrailingCommas, "trailing commas"},
	{fixExtraCommas, "extra commas"},
	{fixMissingCommas, "missing commas"},
	{fixMissingValues, "keys without a value"},
	{fixMissingClosers, "missing closing brackets"},
	{fixStrayClosers, "stray closing brackets"},
	{fixControlChars, "raw control characters in strings"},
	{fixEscapes, "invalid escapes"},
	{fixInnerQuotes, "unescaped quotes inside strings"},
	{fixEllipsis, "ellipses"},
}

// names lists the repairs in a fixed order; the closing of a cut end is
// reported separately.
func (r repairs) names() []string {
	var out []string
	for _, n := range repairNames {
		if r&n.r != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

type lexState uint8

const (
	expectKey   lexState = iota // object: after '{' or ','
	expectColon                 // object: after a key
	expectValue                 // object: after ':'; array: after '[' or ','
	afterValue                  // after a complete value
)

// frame is one container open at the lexer's position.
type frame struct {
	close byte // '}' or ']'
	state lexState
	elems int // members (object) or elements (array) started
	// memberStart is len(out) before the member or element in progress,
	// its comma included, so a cut member can be dropped whole.
	memberStart int
	// keyStart, keyEnd delimit the JSON text of the member's key in out.
	keyStart, keyEnd int
}

// step is one step of a JSON pointer below a container: a key or, for an
// array, its last element.
type step struct {
	key     string
	isIndex bool
}

type lexer struct {
	src   string
	i     int
	emit  bool // build out; otherwise only find the end
	out   []byte
	stack []frame

	pendingComma bool
	sawNewline   bool // a line break since the last token
	fixes        repairs
	bad          bool // copied something the lexer does not repair
	tooDeep      bool // nesting over maxDepth: stopped
	balanced     bool // the value closed before the end of src
	cutScalar    bool // src ended inside a value that was kept (string, number)
	// path holds, when src ended inside the value, the steps from the root
	// to the innermost unfinished value (see frame keys); taken before the
	// open containers are closed.
	path []step
}

// lexValue reads the value starting at src[0] ('{' or '['). With emit it
// builds the repaired text in l.out.
func lexValue(src string, emit bool) *lexer {
	l := &lexer{src: src, emit: emit}
	if emit {
		// A value in prose usually ends long before the text does.
		l.out = make([]byte, 0, min(len(src)+16, 64<<10))
	}
	l.run()
	return l
}

// end is the offset in src just after the value (len(src) when it ran out).
func (l *lexer) end() int { return l.i }

func (l *lexer) put(b byte) {
	if l.emit {
		l.out = append(l.out, b)
	}
}

func (l *lexer) puts(s string) {
	if l.emit {
		l.out = append(l.out, s...)
	}
}

func (l *lexer) truncate(n int) {
	if l.emit && n <= len(l.out) {
		l.out = l.out[:n]
	}
}

func (l *lexer) top() *frame {
	if len(l.stack) == 0 {
		return nil
	}
	return &l.stack[len(l.stack)-1]
}

func (l *lexer) run() {
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if c == '\n' {
				l.sawNewline = true
			}
			l.put(c)
			l.i++
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '/':
			l.fixes |= fixComments
			if j := strings.IndexByte(src[l.i:], '\n'); j >= 0 {
				l.i += j
			} else {
				l.i = len(src)
			}
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '*':
			l.fixes |= fixComments
			if j := strings.Index(src[l.i+2:], "*/"); j >= 0 {
				l.i += j + 4
			} else {
				l.i = len(src)
			}
		case c == '{' || c == '[':
			if len(l.stack) >= maxDepth {
				l.tooDeep = true
				return
			}
			if len(l.stack) > 0 {
				if l.startToken() {
					// A container where a key belongs: not repairable here.
					l.bad = true
				}
			}
			l.put(c)
			l.i++
			cl := byte('}')
			st := expectKey
			if c == '[' {
				cl, st = ']', expectValue
			}
			l.stack = append(l.stack, frame{close: cl, state: st})
		case c == '}' || c == ']':
			l.i++
			l.closeTo(c)
			if len(l.stack) == 0 {
				l.balanced = true
				return
			}
		case c == ',':
			l.i++
			l.comma()
		case c == ':':
			l.i++
			if f := l.top(); f != nil && f.close == '}' && f.state == expectColon {
				l.put(':')
				f.state = expectValue
			} else {
				l.bad = true
				l.put(':')
			}
		case c == '"' || c == '\'':
			l.str()
		case c == 0xE2 && l.i+2 < len(src) && src[l.i+1] == 0x80 && (src[l.i+2] == 0x9C || src[l.i+2] == 0x9D || src[l.i+2] == 0x98 || src[l.i+2] == 0x99):
			l.str()
		case isWordByte(c):
			l.word()
		default:
			// A byte JSON has no place for here: copied, so the decoder
			// rejects the rewrite.
			l.bad = true
			l.put(c)
			l.i++
		}
	}
	l.finish()
}

// startToken prepares the output for a key or value token in the top frame
// (comma, colon) and reports whether the token is an object key. A missing
// comma is inserted only at a line break (models forget the comma at the
// end of a line); a token right after a value on the same line, or a
// missing colon, is more often an unescaped quote inside a string, which
// the repair library reads better: the lexer then gives up (bad).
func (l *lexer) startToken() bool {
	f := l.top()
	newline := l.sawNewline
	l.sawNewline = false
	if f.state == afterValue {
		if newline {
			l.fixes |= fixMissingCommas
			l.pendingComma = true
		} else {
			l.bad = true
		}
		if f.close == '}' {
			f.state = expectKey
		}
	}
	if f.close == '}' {
		switch f.state {
		case expectKey:
			f.memberStart = len(l.out)
			l.flushComma()
			f.elems++
			return true
		case expectColon:
			l.bad = true
		}
		return false
	}
	f.memberStart = len(l.out)
	l.flushComma()
	f.state = expectValue
	f.elems++
	return false
}

func (l *lexer) flushComma() {
	if l.pendingComma {
		l.put(',')
		l.pendingComma = false
	}
}

// valueDone marks the top frame's value (or key) complete.
func (l *lexer) valueDone(isKey bool) {
	if f := l.top(); f != nil {
		if isKey {
			f.state = expectColon
		} else {
			f.state = afterValue
		}
	}
}

// dropMember removes the member in progress of the top frame (a cut key, a
// key without value, a cut literal).
func (l *lexer) dropMember() {
	f := l.top()
	l.truncate(f.memberStart)
	l.pendingComma = false
	f.elems--
	switch {
	case f.elems > 0:
		// The member before it ends the container so far: a comma
		// that follows is read as usual.
		f.state = afterValue
	case f.close == '}':
		f.state = expectKey
	default:
		f.state = expectValue
	}
}

func (l *lexer) comma() {
	f := l.top()
	if f.state != afterValue {
		// [,1] {,"a":1} [1,,2]
		l.fixes |= fixExtraCommas
		return
	}
	l.pendingComma = true
	if f.close == '}' {
		f.state = expectKey
	} else {
		f.state = expectValue
	}
}

// closeTo handles a closing bracket: it closes the frame it matches and any
// left open inside it, or is dropped when no open frame matches.
func (l *lexer) closeTo(c byte) {
	k := len(l.stack) - 1
	for k >= 0 && l.stack[k].close != c {
		k--
	}
	if k < 0 {
		l.fixes |= fixStrayClosers
		return
	}
	if k < len(l.stack)-1 {
		l.fixes |= fixMissingClosers
	}
	for len(l.stack)-1 > k {
		l.closeTop()
	}
	l.closeTop()
}

func (l *lexer) closeTop() {
	f := l.top()
	if l.pendingComma {
		l.fixes |= fixTrailingCommas
		l.pendingComma = false
	}
	if f.close == '}' && (f.state == expectColon || f.state == expectValue) {
		l.fixes |= fixMissingValues
		l.dropMember()
	}
	l.put(f.close)
	l.stack = l.stack[:len(l.stack)-1]
	l.valueDone(false)
}

// finish handles the end of src inside the value: the answer was cut there
// (or the model never closed it).
func (l *lexer) finish() {
	if len(l.stack) == 0 {
		return
	}
	l.fixes |= fixCut
	if l.emit {
		// The path to the innermost unfinished value, before closing.
		for k, f := range l.stack {
			innermost := k == len(l.stack)-1
			if innermost && !l.cutScalar {
				break
			}
			if f.close == ']' {
				l.path = append(l.path, step{isIndex: true})
				continue
			}
			var key string
			if err := json.Unmarshal(l.out[f.keyStart:f.keyEnd], &key); err != nil {
				break
			}
			l.path = append(l.path, step{key: key})
		}
	}
	f := l.top()
	if f.close == '}' && (f.state == expectColon || f.state == expectValue) {
		l.dropMember()
	}
	l.pendingComma = false
	for len(l.stack) > 0 {
		l.closeTop()
	}
}

// smartQuote returns the quote character at src[i] and its width: '"' or
// '\” for ASCII quotes, 'D' for a smart double quote, 'S' for a smart
// single quote; 0 when there is none.
func smartQuote(src string, i int) (byte, int) {
	switch src[i] {
	case '"', '\'':
		return src[i], 1
	case 0xE2:
		if i+2 < len(src) && src[i+1] == 0x80 {
			switch src[i+2] {
			case 0x9C, 0x9D:
				return 'D', 3
			case 0x98, 0x99:
				return 'S', 3
			}
		}
	}
	return 0, 0
}

// str reads a string opened by ", ', “ or ‘ and writes it as a JSON string.
func (l *lexer) str() {
	q, w := smartQuote(l.src, l.i)
	switch q {
	case '\'':
		l.fixes |= fixSingleQuotes
	case 'D', 'S':
		l.fixes |= fixSmartQuotes
	}
	isKey := l.startToken()
	f := l.top()
	start := len(l.out)
	l.put('"')
	l.i += w
	src := l.src
	for l.i < len(src) {
		// A run of plain bytes is copied at once.
		if j := plainEnd(src, l.i); j > l.i {
			l.puts(src[l.i:j])
			l.i = j
			continue
		}
		if cq, cw := smartQuote(src, l.i); cq != 0 {
			if l.strQuote(q, cq, cw) {
				l.strDone(isKey, f, start)
				return
			}
			continue
		}
		switch c := src[l.i]; {
		case c == '\\':
			l.strEscape(q)
		case c < 0x20:
			l.strControl(c)
		default:
			// 0xE2 that is no quote
			l.put(c)
			l.i++
		}
	}
	// The text ended inside the string.
	if isKey {
		l.dropMember()
		return
	}
	l.put('"')
	l.cutScalar = true
	l.valueDone(false)
}

// plainEnd returns the end of the run of bytes from src[i] that a JSON
// string holds as they are: no quote, backslash, control byte or 0xE2
// (the first byte of a smart quote).
func plainEnd(src string, i int) int {
	for i < len(src) {
		b := src[i]
		if b == '"' || b == '\\' || b < 0x20 || b == '\'' || b == 0xE2 {
			break
		}
		i++
	}
	return i
}

// strQuote reads the quote cq (as smartQuote reports it, cw bytes wide) in
// a string opened by q: it reports whether the quote closes the string,
// else writes it escaped as needed.
func (l *lexer) strQuote(q, cq byte, cw int) bool {
	if cq == q || (q == 'D' && cq == '"') {
		if closesString(l.src, l.i+cw) {
			l.i += cw
			l.put('"')
			return true
		}
		// A quote inside the string that the model did not
		// escape: fmt.Println("hi"), the "debug" print.
		l.fixes |= fixInnerQuotes
	}
	if cq == '"' {
		l.puts(`\"`)
	} else {
		l.puts(l.src[l.i : l.i+cw])
	}
	l.i += cw
	return false
}

// strEscape reads the backslash escape at src[i] in a string opened by q:
// a JSON escape is kept, \' becomes ', and any other backslash is literal.
func (l *lexer) strEscape(q byte) {
	src := l.src
	if l.i+1 >= len(src) {
		l.i++
		return
	}
	switch n := src[l.i+1]; n {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		l.put('\\')
		l.put(n)
		l.i += 2
	case 'u':
		if l.i+6 <= len(src) && isHex4(src[l.i+2:l.i+6]) {
			l.puts(src[l.i : l.i+6])
			l.i += 6
		} else {
			l.fixes |= fixEscapes
			l.puts(`\\`)
			l.i++
		}
	case '\'':
		if q != '\'' {
			l.fixes |= fixEscapes
		}
		l.put('\'')
		l.i += 2
	default:
		// \x, \d (a regexp), C:\Users: the backslash is literal.
		l.fixes |= fixEscapes
		l.puts(`\\`)
		l.i++
	}
}

// strControl writes the raw control byte c at src[i] in a string as its
// JSON escape.
func (l *lexer) strControl(c byte) {
	l.fixes |= fixControlChars
	switch c {
	case '\n':
		l.puts(`\n`)
	case '\r':
		l.puts(`\r`)
	case '\t':
		l.puts(`\t`)
	default:
		l.puts(`\u00`)
		l.put(hexDigits[c>>4])
		l.put(hexDigits[c&15])
	}
	l.i++
}

const hexDigits = "0123456789abcdef"

// closesString reports whether a quote just before src[i] ends its string:
// only spaces stand between it and a delimiter (, : } ]), a line break, a
// comment, a '+' (concatenation) or the end of the text. Otherwise it is a quote inside the string
// that the model did not escape.
func closesString(src string, i int) bool {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i == len(src) {
		return true
	}
	switch src[i] {
	case ',', ':', '}', ']', '\n', '\r':
		return true
	case '+':
		// "a " + "b": a concatenation, which the repair library joins.
		return true
	case '/':
		return i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*')
	}
	return false
}

func (l *lexer) strDone(isKey bool, f *frame, start int) {
	if isKey {
		f.keyStart, f.keyEnd = start, len(l.out)
	}
	l.valueDone(isKey)
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '$' || c == '-' || c == '+' || c == '.'
}

// word reads a bare word: a number, a literal, an unquoted key or value.
func (l *lexer) word() {
	j := l.i
	for j < len(l.src) && isWordByte(l.src[j]) {
		j++
	}
	w := l.src[l.i:j]
	atEnd := j == len(l.src)
	l.i = j
	isKey := l.startToken()
	f := l.top()
	if strings.Trim(w, ".") == "" {
		// An ellipsis ("[1, 2, ...]"): the model left items out.
		l.fixes |= fixEllipsis
		l.dropMember()
		return
	}
	if isKey {
		if atEnd {
			l.dropMember()
			return
		}
		l.fixes |= fixUnquotedKeys
		start := len(l.out)
		l.put('"')
		l.puts(w)
		l.put('"')
		l.strDone(true, f, start)
		return
	}
	switch w {
	case "true", "false", "null":
		l.puts(w)
	case "True":
		l.fixes |= fixPython
		l.puts("true")
	case "False":
		l.fixes |= fixPython
		l.puts("false")
	case "None":
		l.fixes |= fixPython
		l.puts("null")
	case "NaN", "Infinity", "-Infinity", "+Infinity", "undefined":
		l.fixes |= fixNonJSONLiterals
		l.puts("null")
	default:
		switch {
		case isJSONNumber(w):
			l.puts(w)
		case atEnd:
			// A literal or number cut mid-way ("tru", "1.").
			l.dropMember()
			return
		case l.endsValue(j):
			l.fixes |= fixUnquotedValues
			l.put('"')
			l.puts(w)
			l.put('"')
		default:
			l.bad = true
			l.puts(w)
		}
	}
	if atEnd {
		l.cutScalar = true
	}
	l.valueDone(false)
}

// endsValue reports whether only spaces stand between src[j] and a
// delimiter that may end a value (or the end of the line or text).
func (l *lexer) endsValue(j int) bool {
	for j < len(l.src) && (l.src[j] == ' ' || l.src[j] == '\t') {
		j++
	}
	if j == len(l.src) {
		return true
	}
	switch l.src[j] {
	case ',', '}', ']', '\n', '\r':
		return true
	}
	return false
}

// isJSONNumber reports whether w is a number as JSON writes it.
func isJSONNumber(w string) bool {
	i := 0
	if i < len(w) && w[i] == '-' {
		i++
	}
	if i >= len(w) {
		return false
	}
	switch {
	case w[i] == '0':
		i++
	case '1' <= w[i] && w[i] <= '9':
		for i < len(w) && '0' <= w[i] && w[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(w) && w[i] == '.' {
		i++
		d := i
		for i < len(w) && '0' <= w[i] && w[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(w) && (w[i] == 'e' || w[i] == 'E') {
		i++
		if i < len(w) && (w[i] == '+' || w[i] == '-') {
			i++
		}
		d := i
		for i < len(w) && '0' <= w[i] && w[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(w)
}
