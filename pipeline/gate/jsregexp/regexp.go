// Package jsregexp checks JavaScript regular expression literals as V8 (the
// engine of node 20 that n8n 2.x runs on) compiles them: which patterns and
// flags it refuses, with its error message, and which the checker cannot
// decide. pipeline/gate calls Check on every literal goja parses.
package jsregexp

import (
	"strings"
	"unicode"

	"github.com/dop251/goja/ast"
)

// Check validates a regular expression literal as V8 (11.3, the engine
// of node 20 that n8n 2.x runs on) does at compile time, then empties it so
// that goja's compiler, whose regexp engines differ from V8's, does not judge
// it a second time.
func Check(re *ast.RegExpLiteral, src []byte) (off int, msg string, undecided, bad bool) {
	// goja's scanner does not report a regexp literal cut by the end of a
	// line (it keeps an empty pattern); V8 does.
	start := int(re.Idx) - 1
	whole := "/" + re.Pattern + "/" + re.Flags
	if start < 0 || start+len(whole) > len(src) || string(src[start:start+len(whole)]) != whole ||
		strings.ContainsAny(re.Pattern, "\n\r\u2028\u2029") {
		off, bad = int(re.Idx)-1, true
		msg = "Invalid regular expression: missing /"
	} else if m, und := validate(re.Pattern, re.Flags); m != "" {
		off, undecided, bad = int(re.Idx)-1, und, true
		if und {
			msg = "cannot decide whether V8 accepts /" + re.Pattern + "/" + re.Flags + ": " + m
		} else {
			msg = "Invalid regular expression: /" + re.Pattern + "/" + re.Flags + ": " + m
		}
	}
	re.Pattern, re.Flags = "", ""
	return off, msg, undecided, bad
}

// validate returns V8's error message for pattern/flags, or "" when V8
// accepts it. und reports that the gate cannot decide (message says why).
func validate(pattern, flags string) (message string, und bool) {
	seen := map[rune]bool{}
	for _, f := range flags {
		if !strings.ContainsRune("dgimsuyv", f) || seen[f] {
			return "Invalid regular expression flags", false
		}
		seen[f] = true
	}
	if seen['u'] && seen['v'] {
		return "Invalid regular expression flags", false
	}
	p := &reParser{u: seen['u'] || seen['v'], v: seen['v']}
	if p.u {
		p.s = []rune(pattern)
	} else {
		// Without u/v, V8 reads the pattern as UTF-16 code units.
		for _, r := range pattern {
			if r > 0xFFFF {
				r -= 0x10000
				p.s = append(p.s, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				p.s = append(p.s, r)
			}
		}
	}
	p.named = strings.Contains(pattern, "(?<") && hasNamedGroup(p.s)
	p.ncap = countCaptures(p.s)
	p.names = map[string]bool{}
	if err := p.parse(); err != nil {
		return err.msg, err.und
	}
	return "", false
}

type reErr struct {
	msg string
	und bool
}

type reParser struct {
	s        []rune
	i        int
	u, v     bool
	named    bool // the pattern has named groups: \k must be a group reference
	ncap     int
	names    map[string]bool
	refNames []string
	// classHasStrings: the v-mode class being parsed may match strings.
	classHasStrings bool
}

func (p *reParser) eof() bool  { return p.i >= len(p.s) }
func (p *reParser) peek() rune { return p.at(0) }
func (p *reParser) at(k int) rune {
	if p.i+k < len(p.s) && p.i+k >= 0 {
		return p.s[p.i+k]
	}
	return -1
}
func (p *reParser) lookingAt(t string) bool {
	k := 0
	for _, r := range t {
		if p.at(k) != r {
			return false
		}
		k++
	}
	return true
}

func fail(m string) *reErr { return &reErr{msg: m} }

func (p *reParser) parse() *reErr {
	if err := p.disjunction(); err != nil {
		return err
	}
	if !p.eof() {
		if p.peek() == ')' {
			return fail("Unmatched ')'")
		}
		return fail("Unexpected character")
	}
	for _, n := range p.refNames {
		if !p.names[n] {
			return fail("Invalid named capture referenced")
		}
	}
	return nil
}

func (p *reParser) disjunction() *reErr {
	for {
		if err := p.alternative(); err != nil {
			return err
		}
		if p.peek() != '|' {
			return nil
		}
		p.i++
	}
}

func (p *reParser) alternative() *reErr {
	for !p.eof() && p.peek() != '|' && p.peek() != ')' {
		if err := p.term(); err != nil {
			return err
		}
	}
	return nil
}

// term parses an assertion or an atom with an optional quantifier.
func (p *reParser) term() *reErr {
	quantifiable := true
	c := p.peek()
	switch {
	case c == '^' || c == '$':
		p.i++
		quantifiable = false
	case c == '\\' && (p.at(1) == 'b' || p.at(1) == 'B'):
		p.i += 2
		quantifiable = false
	case c == '(':
		q, err := p.group()
		if err != nil {
			return err
		}
		quantifiable = q
	case c == '*' || c == '+' || c == '?':
		return fail("Nothing to repeat")
	case c == '{':
		if p.u {
			if _, ok := p.bracedQuantifier(); ok {
				return fail("Nothing to repeat")
			}
			return fail("Lone quantifier brackets")
		}
		if _, ok := p.bracedQuantifier(); ok {
			return fail("Nothing to repeat")
		}
		p.i++
	case c == '}' || c == ']':
		if p.u {
			return fail("Lone quantifier brackets")
		}
		p.i++
	case c == '[':
		if err := p.class(); err != nil {
			return err
		}
	case c == '\\':
		if err := p.atomEscape(); err != nil {
			return err
		}
	default:
		p.i++
	}
	return p.quantifier(quantifiable)
}

// quantifier parses an optional quantifier after an atom.
func (p *reParser) quantifier(quantifiable bool) *reErr {
	c := p.peek()
	var isQ bool
	switch c {
	case '*', '+', '?':
		p.i++
		isQ = true
	case '{':
		if n, ok := p.bracedQuantifier(); ok {
			if n.min > n.max && n.max >= 0 {
				return fail("numbers out of order in {} quantifier")
			}
			p.i += n.len
			isQ = true
		}
	}
	if !isQ {
		return nil
	}
	if !quantifiable {
		return fail("Nothing to repeat")
	}
	if p.peek() == '?' {
		p.i++
	}
	switch p.peek() {
	case '*', '+', '?':
		return fail("Nothing to repeat")
	case '{':
		if _, ok := p.bracedQuantifier(); ok {
			return fail("Nothing to repeat")
		}
	}
	return nil
}

type braced struct{ min, max, len int }

// bracedQuantifier reads {n}, {n,} or {n,m} at the current position without
// consuming it. max is -1 for {n,}. Big numbers saturate.
func (p *reParser) bracedQuantifier() (braced, bool) {
	k := 1
	num := func() (int, bool) {
		start, v := k, 0
		for d := p.at(k); d >= '0' && d <= '9'; d = p.at(k) {
			if v < 1<<30 {
				v = v*10 + int(d-'0')
			}
			k++
		}
		return v, k > start
	}
	min, ok := num()
	if !ok {
		return braced{}, false
	}
	max := min
	if p.at(k) == ',' {
		k++
		if m, ok := num(); ok {
			max = m
		} else {
			max = -1
		}
	}
	if p.at(k) != '}' {
		return braced{}, false
	}
	return braced{min, max, k + 1}, true
}

// group parses ( ... ); it reports whether the group may be quantified.
func (p *reParser) group() (bool, *reErr) {
	p.i++ // (
	quantifiable := true
	if p.peek() == '?' {
		switch {
		case p.at(1) == ':':
			p.i += 2
		case p.at(1) == '=' || p.at(1) == '!':
			p.i += 2
			quantifiable = !p.u
		case p.at(1) == '<' && (p.at(2) == '=' || p.at(2) == '!'):
			p.i += 3
			quantifiable = false
		case p.at(1) == '<':
			p.i += 2
			name, err := p.groupName()
			if err != nil {
				return false, err
			}
			if p.names[name] {
				return false, fail("Duplicate capture group name")
			}
			p.names[name] = true
		default:
			return false, fail("Invalid group")
		}
	}
	if err := p.disjunction(); err != nil {
		return false, err
	}
	if p.peek() != ')' {
		return false, fail("Unterminated group")
	}
	p.i++
	return quantifiable, nil
}

// groupName reads an identifier name and the closing '>'.
func (p *reParser) groupName() (string, *reErr) {
	var b strings.Builder
	for first := true; ; first = false {
		c := p.peek()
		if c == '>' && !first {
			p.i++
			return b.String(), nil
		}
		if c == '\\' {
			if p.at(1) != 'u' {
				return "", fail("Invalid capture group name")
			}
			p.i += 2
			r, ok := p.unicodeEscapeBody(true)
			if !ok {
				return "", fail("Invalid Unicode escape sequence")
			}
			c = r
			p.i--
		} else if c >= 0xD800 && c <= 0xDBFF && p.at(1) >= 0xDC00 && p.at(1) <= 0xDFFF {
			c = 0x10000 + (c-0xD800)<<10 + (p.at(1) - 0xDC00)
			p.i++
		}
		if c < 0 || !(isIDStart(c) || (!first && isIDPart(c))) {
			return "", fail("Invalid capture group name")
		}
		b.WriteRune(c)
		p.i++
	}
}

func isIDStart(r rune) bool {
	return r == '$' || r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIDPart(r rune) bool {
	return isIDStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) || r == 0x200C || r == 0x200D
}

// unicodeEscapeBody reads after "\u": XXXX, a surrogate pair \uXXXX\uXXXX
// (in u mode or in names) or {X...} (in u mode or in names).
func (p *reParser) unicodeEscapeBody(braces bool) (rune, bool) {
	if p.peek() == '{' && braces {
		k, v := 1, rune(0)
		for ; isHex(p.at(k)); k++ {
			v = v*16 + hexVal(p.at(k))
			if v > 0x10FFFF {
				return 0, false
			}
		}
		if k == 1 || p.at(k) != '}' {
			return 0, false
		}
		p.i += k + 1
		return v, true
	}
	v, ok := p.hex(4)
	if !ok {
		return 0, false
	}
	if braces && v >= 0xD800 && v <= 0xDBFF && p.at(0) == '\\' && p.at(1) == 'u' {
		save := p.i
		p.i += 2
		if lo, ok := p.hex(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), true
		}
		p.i = save
	}
	return v, true
}

func (p *reParser) hex(n int) (rune, bool) {
	v := rune(0)
	for k := 0; k < n; k++ {
		if !isHex(p.at(k)) {
			return 0, false
		}
		v = v*16 + hexVal(p.at(k))
	}
	p.i += n
	return v, true
}

func isHex(r rune) bool {
	return ('0' <= r && r <= '9') || ('a' <= r && r <= 'f') || ('A' <= r && r <= 'F')
}

func hexVal(r rune) rune {
	switch {
	case r <= '9':
		return r - '0'
	case r >= 'a':
		return r - 'a' + 10
	}
	return r - 'A' + 10
}

const noChar = -2 // a class atom that is a set (\d, \p{..}), not one character

// atomEscape parses \ ... outside a class.
func (p *reParser) atomEscape() *reErr {
	p.i++ // backslash
	if p.eof() {
		return fail("\\ at end of pattern")
	}
	c := p.peek()
	switch {
	case c >= '1' && c <= '9':
		start := p.i
		n := 0
		for d := p.peek(); d >= '0' && d <= '9'; d = p.peek() {
			if n < 1<<20 {
				n = n*10 + int(d-'0')
			}
			p.i++
		}
		if n <= p.ncap {
			return nil
		}
		if p.u {
			return fail("Invalid escape")
		}
		p.i = start // Annex B: legacy octal or identity escape
		return p.legacyOctal()
	case c == 'k':
		if p.u || p.named {
			p.i++
			if p.peek() != '<' {
				return fail("Invalid named reference")
			}
			p.i++
			name, err := p.groupName()
			if err != nil {
				return fail("Invalid named reference")
			}
			p.refNames = append(p.refNames, name)
			return nil
		}
		p.i++
		return nil
	}
	_, err := p.characterEscape(false)
	return err
}

// legacyOctal consumes an Annex B octal escape (up to \377) or one character.
func (p *reParser) legacyOctal() *reErr {
	if p.peek() >= '0' && p.peek() <= '7' {
		v := 0
		for k := 0; k < 3 && p.peek() >= '0' && p.peek() <= '7'; k++ {
			if v*8+int(p.peek()-'0') > 0377 {
				break
			}
			v = v*8 + int(p.peek()-'0')
			p.i++
		}
		return nil
	}
	p.i++ // \8, \9: identity
	return nil
}

// characterEscape parses the escape after a backslash (already consumed) and
// returns the character it denotes, or noChar for a set escape.
func (p *reParser) characterEscape(inClass bool) (rune, *reErr) {
	c := p.peek()
	p.i++
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W':
		return noChar, nil
	case 'p', 'P':
		if !p.u {
			return c, nil
		}
		return noChar, p.property(c == 'P')
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'b':
		if inClass {
			return '\b', nil
		}
	case 'c':
		l := p.peek()
		if ('a' <= l && l <= 'z') || ('A' <= l && l <= 'Z') {
			p.i++
			return l % 32, nil
		}
		if !p.u && inClass && (('0' <= l && l <= '9') || l == '_') {
			p.i++
			return l % 32, nil
		}
		if p.u {
			return 0, fail("Invalid Unicode escape")
		}
		p.i-- // Annex B: "\c" is a backslash followed by c
		return '\\', nil
	case '0':
		if d := p.peek(); d >= '0' && d <= '9' {
			if p.u {
				if inClass {
					return 0, fail("Invalid class escape")
				}
				return 0, fail("Invalid decimal escape")
			}
			p.i--
			return 0, p.legacyOctal()
		}
		return 0, nil
	case 'x':
		if v, ok := p.hex(2); ok {
			return v, nil
		}
		if p.u {
			return 0, fail("Invalid escape")
		}
		return 'x', nil
	case 'u':
		if v, ok := p.unicodeEscapeBody(p.u); ok {
			return v, nil
		}
		if p.u {
			return 0, fail("Invalid Unicode escape")
		}
		return 'u', nil
	case '-':
		if p.u && !inClass {
			return 0, fail("Invalid escape")
		}
		return '-', nil
	}
	if c >= '1' && c <= '9' && inClass {
		if p.u {
			return 0, fail("Invalid class escape")
		}
		p.i--
		return 0, p.legacyOctal()
	}
	if p.u {
		if strings.ContainsRune(`^$\.*+?()[]{}|/`, c) {
			return c, nil
		}
		if p.v && inClass && strings.ContainsRune("&-!#%,:;<=>@`~", c) {
			return c, nil
		}
		if inClass {
			return 0, fail("Invalid class escape")
		}
		return 0, fail("Invalid escape")
	}
	if c == 'k' && p.named {
		return 0, fail("Invalid named reference")
	}
	return c, nil
}

// property parses {Name} or {Name=Value} after \p or \P (u or v mode).
func (p *reParser) property(negated bool) *reErr {
	if p.peek() != '{' {
		return fail("Invalid property name")
	}
	end := -1
	for k := p.i + 1; k < len(p.s); k++ {
		if p.s[k] == '}' {
			end = k
			break
		}
	}
	if end < 0 {
		return fail("Invalid property name")
	}
	body := string(p.s[p.i+1 : end])
	p.i = end + 1
	for _, r := range body {
		if !(r == '_' || r == '=' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')) {
			return fail("Invalid property name")
		}
	}
	name, value, hasValue := strings.Cut(body, "=")
	if name == "" || (hasValue && (value == "" || strings.Contains(value, "="))) {
		return fail("Invalid property name")
	}
	known, ofStrings := unicodePropertyKnown(name, value, hasValue)
	switch {
	case known == propUnknown:
		return &reErr{msg: "Unicode property \\p{" + body + "} is not in the gate's tables", und: true}
	case known == propInvalid:
		return fail("Invalid property name")
	case ofStrings && (!p.v || negated):
		return fail("Invalid property name")
	}
	if ofStrings {
		p.classHasStrings = true
	}
	return nil
}

// class parses [ ... ] (ClassRanges, or ClassSetExpression in v mode).
func (p *reParser) class() *reErr {
	p.i++ // [
	negated := false
	if p.peek() == '^' {
		p.i++
		negated = true
	}
	if p.v {
		p.classHasStrings = false
		if err := p.classSetContents(); err != nil {
			return err
		}
		if negated && p.classHasStrings {
			return fail("Negated character class may contain strings")
		}
		return nil
	}
	for {
		if p.eof() {
			return fail("Unterminated character class")
		}
		if p.peek() == ']' {
			p.i++
			return nil
		}
		a, err := p.classAtom()
		if err != nil {
			return err
		}
		if p.peek() == '-' && p.at(1) != ']' && p.at(1) != -1 {
			p.i++
			b, err := p.classAtom()
			if err != nil {
				return err
			}
			if a == noChar || b == noChar {
				if p.u {
					return fail("Invalid character class")
				}
				continue
			}
			if a > b {
				return fail("Range out of order in character class")
			}
		}
	}
}

func (p *reParser) classAtom() (rune, *reErr) {
	c := p.peek()
	if c != '\\' {
		p.i++
		return c, nil
	}
	p.i++
	if p.eof() {
		return 0, fail("\\ at end of pattern")
	}
	return p.characterEscape(true)
}
