package jsregexp

import (
	"strings"
	"unicode"
)

// classSetContents parses a v-mode class after "[" or "[^" up to and
// including its "]": a union of operands and ranges, or an intersection
// (&&) or subtraction (--) of operands.
func (p *reParser) classSetContents() *reErr {
	if p.peek() == ']' {
		p.i++
		return nil
	}
	if p.lookingAt("&&") || p.lookingAt("--") {
		return fail("Invalid set operation in character class")
	}
	a, err := p.classSetOperand()
	if err != nil {
		return err
	}
	switch {
	case p.lookingAt("&&"), p.lookingAt("--"):
		op := string(p.s[p.i : p.i+2])
		for p.lookingAt(op) {
			p.i += 2
			if p.peek() == rune(op[0]) {
				return fail("Invalid character in character class")
			}
			if _, err := p.classSetOperand(); err != nil {
				return err
			}
		}
		if p.peek() != ']' {
			if p.eof() {
				return fail("Unterminated character class")
			}
			return fail("Invalid set operation in character class")
		}
		p.i++
		return nil
	}
	for {
		if p.peek() == '-' && p.at(1) != '-' {
			p.i++
			b, err := p.classSetOperand()
			if err != nil {
				return err
			}
			if a < 0 || b < 0 {
				return fail("Invalid character class")
			}
			if a > b {
				return fail("Range out of order in character class")
			}
		}
		switch {
		case p.eof():
			return fail("Unterminated character class")
		case p.peek() == ']':
			p.i++
			return nil
		case p.lookingAt("&&"), p.lookingAt("--"):
			return fail("Invalid set operation in character class")
		}
		if a, err = p.classSetOperand(); err != nil {
			return err
		}
	}
}

// classSetOperand parses a nested class, \q{...}, a class escape or one
// character; it returns the character, or noChar for a set.
func (p *reParser) classSetOperand() (rune, *reErr) {
	c := p.peek()
	switch {
	case p.eof():
		return 0, fail("Unterminated character class")
	case c == '[':
		p.i++
		negated := false
		if p.peek() == '^' {
			p.i++
			negated = true
		}
		outer := p.classHasStrings
		p.classHasStrings = false
		if err := p.classSetContents(); err != nil {
			return 0, err
		}
		if negated && p.classHasStrings {
			return 0, fail("Negated character class may contain strings")
		}
		p.classHasStrings = outer || (p.classHasStrings && !negated)
		return noChar, nil
	case c == '\\' && p.at(1) == 'q' && p.at(2) == '{':
		p.i += 3
		n := 0
		for {
			switch {
			case p.eof():
				return 0, fail("Invalid escape")
			case p.peek() == '}' || p.peek() == '|':
				if n != 1 {
					p.classHasStrings = true
				}
				n = 0
				if p.peek() == '}' {
					p.i++
					return noChar, nil
				}
				p.i++
				continue
			}
			if _, err := p.classSetCharacter(); err != nil {
				return 0, err
			}
			n++
		}
	case c == '\\':
		return p.classSetCharacter()
	}
	if strings.ContainsRune("&!#$%*+,.:;<=>?@^`~", c) && p.at(1) == c {
		return 0, fail("Invalid set operation in character class")
	}
	return p.classSetCharacter()
}

// classSetCharacter parses one (possibly escaped) character of a v-mode class.
func (p *reParser) classSetCharacter() (rune, *reErr) {
	c := p.peek()
	if c == '\\' {
		p.i++
		if p.eof() {
			return 0, fail("\\ at end of pattern")
		}
		return p.characterEscape(true)
	}
	if strings.ContainsRune("()[]{}/-|", c) {
		return 0, fail("Invalid character in character class")
	}
	p.i++
	return c, nil
}

// hasNamedGroup reports whether the pattern has a (?<name> group, which makes
// \k a group reference even without the u flag.
func hasNamedGroup(s []rune) bool {
	for i := 0; i+3 < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '(' && s[i+1] == '?' && s[i+2] == '<' && s[i+3] != '=' && s[i+3] != '!' {
			return true
		}
	}
	return false
}

// countCaptures counts capturing groups (for telling back references from
// legacy octal escapes), skipping escapes and classes.
func countCaptures(s []rune) int {
	n, inClass := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			inClass++
		case ']':
			if inClass > 0 {
				inClass--
			}
		case '(':
			if inClass > 0 {
				continue
			}
			if i+1 < len(s) && s[i+1] == '?' {
				if i+3 < len(s) && s[i+2] == '<' && s[i+3] != '=' && s[i+3] != '!' {
					n++
				}
				continue
			}
			n++
		}
	}
	return n
}

const (
	propUnknown = iota
	propInvalid
	propValid
)

// unicodePropertyKnown judges \p{name} or \p{name=value}: valid, invalid, or
// unknown (a Script value the gate's tables do not know: the verdict is then
// undecided, as script names grow with Unicode versions).
func unicodePropertyKnown(name, value string, hasValue bool) (state int, ofStrings bool) {
	if hasValue {
		switch name {
		case "General_Category", "gc":
			if generalCategories[value] {
				return propValid, false
			}
			return propInvalid, false
		case "Script", "sc", "Script_Extensions", "scx":
			if _, ok := unicode.Scripts[value]; ok || scriptAliases[value] {
				return propValid, false
			}
			return propUnknown, false
		}
		return propInvalid, false
	}
	switch {
	case generalCategories[name], binaryProperties[name]:
		return propValid, false
	case stringProperties[name]:
		return propValid, true
	}
	// The lone names ECMAScript allows are exactly the tables above (they do
	// not grow with Unicode versions); anything else, including a bare script
	// name, is an error in V8.
	return propInvalid, false
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Tables from ECMA-262 (table-binary-unicode-properties,
// table-nonbinary-unicode-properties, table-binary-unicode-properties-of-strings).
var (
	generalCategories = set(`Cased_Letter LC Close_Punctuation Pe Connector_Punctuation Pc Control Cc cntrl
		Currency_Symbol Sc Dash_Punctuation Pd Decimal_Number Nd digit Enclosing_Mark Me Final_Punctuation Pf
		Format Cf Initial_Punctuation Pi Letter L Letter_Number Nl Line_Separator Zl Lowercase_Letter Ll
		Mark M Combining_Mark Math_Symbol Sm Modifier_Letter Lm Modifier_Symbol Sk Nonspacing_Mark Mn
		Number N Open_Punctuation Ps Other C Other_Letter Lo Other_Number No Other_Punctuation Po
		Other_Symbol So Paragraph_Separator Zp Private_Use Co Punctuation P punct Separator Z
		Space_Separator Zs Spacing_Mark Mc Surrogate Cs Symbol S Titlecase_Letter Lt Unassigned Cn
		Uppercase_Letter Lu`)
	binaryProperties = set(`ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C
		Bidi_Mirrored Bidi_M Case_Ignorable CI Cased Changes_When_Casefolded CWCF Changes_When_Casemapped CWCM
		Changes_When_Lowercased CWL Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT
		Changes_When_Uppercased CWU Dash Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia
		Emoji Emoji_Component EComp Emoji_Modifier EMod Emoji_Modifier_Base EBase Emoji_Presentation EPres
		Extended_Pictographic ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext Hex_Digit Hex
		IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC ID_Start IDS Ideographic Ideo
		Join_Control Join_C Logical_Order_Exception LOE Lowercase Lower Math Noncharacter_Code_Point NChar
		Pattern_Syntax Pat_Syn Pattern_White_Space Pat_WS Quotation_Mark QMark Radical Regional_Indicator RI
		Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation Term Unified_Ideograph UIdeo
		Uppercase Upper Variation_Selector VS White_Space space XID_Continue XIDC XID_Start XIDS`)
	stringProperties = set(`Basic_Emoji Emoji_Keycap_Sequence RGI_Emoji_Modifier_Sequence
		RGI_Emoji_Flag_Sequence RGI_Emoji_Tag_Sequence RGI_Emoji_ZWJ_Sequence RGI_Emoji`)
	scriptAliases = set(`Arab Armn Beng Bopo Cyrl Deva Geor Grek Gujr Guru Hang Hani Hebr Hira Kana Khmr
		Knda Laoo Latn Mlym Mong Mymr Orya Sinh Taml Telu Thaa Thai Tibt Zinh Zyyy Zzzz Qaai Qaac Ethi`)
)
