package redact

import (
	"math"
	"strconv"
	"strings"
)

// Checks on a candidate secret value: placeholders, templates, code and
// prose are not secrets; a secret looks random.

// fillerWords mark a value as a placeholder or fixture wherever they occur
// in it (matched regardless of case). A random token holds one of them by
// chance with a probability below one in a million.
var fillerWords = []string{
	"replace", "changeme", "change_me", "change-me", "changeit", "your", "placeholder", "example",
	"dummy", "sample", "fake", "mock", "redacted", "insert", "todo", "fixme", "notreal", "not_real",
	"not-real", "here", "foobar", "lorem", "password", "passwd", "secret", "token", "apikey",
	"api_key", "api-key", "...",
}

// fixtureValues are whole values (lower case, separators removed) that are
// defaults or fixtures, not secrets.
var fixtureValues = map[string]bool{
	"admin": true, "root": true, "guest": true, "user": true, "pass": true, "test": true,
	"testing": true, "letmein": true, "qwerty": true, "123456": true, "12345678": true,
	"123456789": true, "abc123": true, "default": true, "none": true, "null": true, "nil": true,
	"empty": true, "undefined": true, "true": true, "false": true, "required": true,
	"optional": true, "string": true, "str": true, "bool": true, "boolean": true, "int": true,
	"number": true, "any": true, "object": true, "bytes": true, "postgres": true, "mysql": true,
	"demo": true, "sa": true, "unknown": true, "hidden": true, "masked": true, "foo": true, "bar": true,
}

// isPlaceholder reports a value that stands for a secret rather than being
// one: a template or variable reference, a format verb, an angle-bracket
// hole, a masked or repeated run, a filler word, a known fixture, or a
// value that was already redacted.
func isPlaceholder(v string) bool {
	if v == "" || strings.Contains(v, Marker) {
		return true
	}
	for _, t := range []string{"${", "{{", "}}", "$(", "#{", "%(", "<%", "@{", "{%"} {
		if strings.Contains(v, t) {
			return true
		}
	}
	switch c := v[0]; {
	case c == '$' && len(v) > 1 && (isIdentStart(v[1]) || v[1] == '{'):
		return true // $DB_PASSWORD, $env:TOKEN
	case c == '%' && len(v) > 2 && v[len(v)-1] == '%' && isIdentifier(v[1:len(v)-1]):
		return true // %DB_PASSWORD%
	case c == '<' || c == '{' && v[len(v)-1] == '}':
		return true // <token>, {password}
	}
	if strings.IndexByte(v, '<') >= 0 && strings.IndexByte(v, '>') > strings.IndexByte(v, '<') {
		return true
	}
	if hasFormatVerb(v) || masked(v) || hasFillerWord(v) {
		return true
	}
	if fixtureValues[normalize(v)] {
		return true
	}
	return hasWordTest(v)
}

// hasFillerWord reports one of fillerWords in s, written in lower case,
// upper case or capitalised, as placeholders are ("your-api-key-here",
// "REPLACE_ME", "Example"): in mixed case ("TmoCKn") it is chance.
func hasFillerWord(s string) bool {
	for i, w := range fillerWords {
		if containsWord(s, w, fillerUpper[i]) {
			return true
		}
	}
	return false
}

// fillerUpper holds fillerWords in upper case.
var fillerUpper = func() []string {
	up := make([]string, len(fillerWords))
	for i, w := range fillerWords {
		up[i] = strings.ToUpper(w)
	}
	return up
}()

// containsWord reports word (lower case) in s in lower case, upper case
// (upper) or with a capital first letter.
func containsWord(s, word, upper string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if foldTable[s[i]] != word[0] {
			continue
		}
		sub := s[i : i+len(word)]
		if sub == word || upper == sub || sub[1:] == word[1:] {
			return true
		}
	}
	return false
}

// hasWordTest reports "test" in a short value (test123, my-test-pw): a
// fixture. Long random values are left to chance (below one in ten
// thousand for 40 characters).
func hasWordTest(s string) bool {
	return len(s) <= 24 && containsFold(s, "test")
}

// containsFold is strings.Contains ignoring ASCII case; word is lower case.
func containsFold(s, word string) bool {
	if len(word) == 0 {
		return true
	}
	first := word[0]
	for i := 0; i+len(word) <= len(s); i++ {
		if foldTable[s[i]] != first {
			continue
		}
		j := 1
		for j < len(word) && foldTable[s[i+j]] == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// hasFormatVerb reports a printf verb such as %s, %v or %-10d standing
// as a word of its own (at the start or after a separator, before the end
// or punctuation), as in "%s" or "user:%s@": inside a random password
// "r?%sPX" the same bytes are chance.
func hasFormatVerb(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '%' || i > 0 && strings.IndexByte(" :/=@([,\"'", s[i-1]) < 0 {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("-+# 0123456789.", s[j]) >= 0 {
			j++
		}
		if j < len(s) && strings.IndexByte("sdvqxf", s[j]) >= 0 && (j+1 == len(s) || strings.IndexByte(":/@\"' ,;)]}.", s[j+1]) >= 0) {
			return true
		}
	}
	return false
}

// masked reports a value that is a mask or filler rather than random: a
// long run of one byte ("xxxxxxxx", "****"), a run making up a quarter of
// it, or a short unit repeated ("abcabcabc", "\u2022\u2022\u2022").
func masked(v string) bool {
	if r := maxRun(v); r >= 6 || r >= 4 && 4*r >= len(v) {
		return true
	}
	for p := 2; p <= 8 && 3*p <= len(v); p++ {
		periodic := true
		for i := p; i < len(v); i++ {
			if v[i] != v[i-p] {
				periodic = false
				break
			}
		}
		if periodic {
			return true
		}
	}
	return false
}

// maxRun is the longest run of one byte in s.
func maxRun(s string) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] == s[i-1] {
			run++
		} else {
			run = 1
		}
		best = max(best, run)
	}
	return best
}

// normalize lower-cases s and drops everything but letters and digits.
func normalize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := foldTable[s[i]]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if len(s) == 0 {
		return 0
	}
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// classes counts the character classes in s: lower case, upper case,
// digits, and other symbols ('_', '-' and '.' separate words and do not
// count).
func classes(s string) int {
	var lower, upper, digit, sym bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '_' || c == '-' || c == '.':
		default:
			sym = true
		}
	}
	n := 0
	for _, b := range []bool{lower, upper, digit, sym} {
		if b {
			n++
		}
	}
	return n
}

func hasUpper(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0
}
func hasLower(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentByte(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// digitInside reports a digit between two letters ("s3cr3t", "Xk9f"):
// typical of generated and human passwords, rare in identifiers, which put
// digits at the end ("user2", "sha256").
func digitInside(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if !isDigit(s[i]) {
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if isLetter(s[i-1]) && j < len(s) && isLetter(s[j]) {
			return true
		}
		i = j
	}
	return false
}

// caseFlips counts lower-to-upper transitions ("camelCase" has one).
func caseFlips(s string) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			n++
		}
	}
	return n
}

// identifierShaped reports a bare identifier written the way code names
// things (userPassword, RequireAndVerifyClientCert, sha256Sum, cfg2), as
// opposed to a random string (Xk9fLm2pQr): split at case changes, digits
// and underscores, its letter segments average three letters or more and
// each long one holds a vowel, and its digit runs are few and short.
func identifierShaped(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	if len(s) <= 4 {
		// c, db, cfg, tok2: short names are names.
		for i := 1; i < len(s); i++ {
			if !isIdentByte(s[i]) || isDigit(s[i-1]) && !isDigit(s[i]) {
				return false
			}
		}
		return true
	}
	letters, segs, shortSegs, digitRuns := 0, 0, 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '_':
			i++
		case isDigit(c):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j-i > 4 {
				return false
			}
			if i > 1 && isLetter(s[i-1]) && j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				return false // dS1wm, s3cr3t: names put a capital after digits (utf8Decoder, x509Cert)
			}
			digitRuns++
			i = j
		case isLetter(c):
			// A segment: an upper-case run, or one capital (or none)
			// followed by lower-case letters.
			j := i + 1
			if c >= 'A' && c <= 'Z' && j < len(s) && s[j] >= 'A' && s[j] <= 'Z' {
				for j < len(s) && s[j] >= 'A' && s[j] <= 'Z' && !(j+1 < len(s) && s[j+1] >= 'a' && s[j+1] <= 'z') {
					j++
				}
			} else {
				for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
					j++
				}
			}
			seg := s[i:j]
			if len(seg) >= 4 && !strings.ContainsAny(strings.ToLower(seg), "aeiouy") {
				return false
			}
			if len(seg) > 6 && seg[1] >= 'A' && seg[1] <= 'Z' && !isUpperName(s) {
				return false // a long capital run inside mixed case: random, not an acronym
			}
			letters += len(seg)
			segs++
			if len(seg) <= 2 {
				shortSegs++
			}
			i = j
		default:
			return false
		}
	}
	// Random mixed case splits into many one- and two-letter segments
	// (kq EGVI Hmn H Xtqqosz D Ov PL Nd); names into words.
	return segs > 0 && letters >= 3*segs && digitRuns <= 2 && (segs < 4 || 3*shortSegs <= segs)
}

// wordsOnly reports a value whose alphanumeric parts are all
// identifier-shaped ("NextState:Flag", "read-write"): words, not a secret.
func wordsOnly(v string) bool {
	parts := 0
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r > 127 || !isIdentByte(byte(r)) || r == '_' }) {
		if !identifierShaped(p) && !(len(p) <= 3 && isDigit(p[0])) {
			return false
		}
		parts++
	}
	return parts > 0
}

// titleClasses is classes with a capitalised word ("Infinity",
// "Password") counted as lower case only.
func titleClasses(v string) int {
	if len(v) > 1 && v[0] >= 'A' && v[0] <= 'Z' {
		if strings.IndexFunc(v[1:], func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			return 1
		}
	}
	return classes(v)
}

// isIdentifier reports a name of letters, digits and '_' not starting
// with a digit.
func isIdentifier(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// isNumber reports a numeric literal (42, -2.8e+01, 0x0102ff, -0x3f87).
func isNumber(v string) bool {
	v = strings.TrimLeft(v, "+-")
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		return len(v) > 2 && isHex(v[2:])
	}
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// isPattern reports a regular expression or a string of escape sequences
// ("[0-9]{5}", "^\d+$", "\x1b[32m"): code, not a secret.
func isPattern(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		switch v[i+1] {
		case 'd', 'w', 's', 'x', 'b', '0':
			return true // \d, \w, \x1b, \033 (an escaped backslash "\\w" is not)
		}
		i++
	}
	for _, m := range []string{`[0-9]`, `[a-z]`, `[A-Z]`, `(?:`, `.*`, `.+`} {
		if strings.Contains(v, m) {
			return true
		}
	}
	if i := strings.Index(v, `\u`); i >= 0 && i+6 <= len(v) && isHex(v[i+2:i+6]) {
		return true // "\u3299\ufe0f": an escaped character
	}
	return len(v) > 2 && v[0] == '^' && v[len(v)-1] == '$'
}

// looksRandom reports a value that reads as generated or as a password
// rather than as a word or a name: long enough and mixing character
// classes, or long with high entropy.
func looksRandom(v string) bool {
	if len(v) < 8 {
		return false
	}
	c := classes(v)
	switch {
	case c >= 3:
		return true
	case c == 2 && (digitInside(v) || caseFlips(v) >= 3):
		return true
	case len(v) >= 16 && c >= 2 && entropy(v) >= 3.5:
		return true
	case len(v) >= 16 && isHex(v) && entropy(v) >= 3:
		return true
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// codeWords are language keywords, literals and type names: a value that
// is one of them is code, not a secret.
var codeWords = map[string]bool{
	"nil": true, "null": true, "none": true, "true": true, "false": true, "undefined": true,
	"this": true, "self": true, "new": true, "await": true, "function": true, "func": true,
	"lambda": true, "def": true, "return": true, "string": true, "str": true, "int": true,
	"bool": true, "boolean": true, "byte": true, "bytes": true, "char": true, "object": true,
	"any": true, "unknown": true, "number": true, "buffer": true, "securestring": true,
	"secretstr": true, "secret": true, "password": true, "token": true, "optional": true,
	"option": true, "void": true, "var": true, "let": true, "const": true, "nothing": true,
}

// looksLikeCode reports an unquoted value that is an expression: a call,
// a field or module path, an index, a pointer or reference, a YAML tag or
// alias, a keyword or a type.
func looksLikeCode(v string) bool {
	if codeWords[strings.ToLower(v)] {
		return true
	}
	switch v[0] {
	case '&', '*', '!':
		if len(v) > 1 && (identifierShaped(v[1:]) || strictPath(v[1:])) {
			return true // &cfg, *alias, !Ref, &cfg.Password
		}
	}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(':
			if i > 0 && isIdentByte(v[i-1]) {
				return true
			}
		case '[', '{':
			return true
		}
	}
	return dottedPath(v)
}

// literalCode reports an unquoted value that is code even where a bare
// word would be a literal: a keyword or type, a call, an index, a YAML tag
// or alias, or a path of names (process.env.X).
func literalCode(v string) bool {
	if codeWords[strings.ToLower(v)] || strictPath(v) {
		return true
	}
	switch v[0] {
	case '&', '*', '!':
		if len(v) > 1 && identifierShaped(v[1:]) {
			return true
		}
	}
	// A name directly followed by a bracket: a call, an index or a
	// composite literal (ENC(...), func(key, map[string]any{,
	// &Authorization{).
	i := 0
	if v[0] == '&' || v[0] == '*' {
		i++
	}
	start := i
	for i < len(v) && (isIdentByte(v[i]) || v[i] == '.') {
		i++
	}
	if i > start && i < len(v) && strings.IndexByte("([{", v[i]) >= 0 && isIdentStart(v[start]) {
		return true
	}
	return strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{")
}

// dottedPath reports a.b.c with identifier-shaped parts (req.Password,
// process.env.TOKEN, settings.SECRET_KEY, $scope.token); a random
// password with dots ("Xylc.hm.gt9a4") has a part that is not.
func dottedPath(v string) bool {
	parts := 0
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] != '.' {
			continue
		}
		p := strings.TrimPrefix(v[start:i], "$")
		if !identifierShaped(p) && !(isIdentifier(p) && !digitInside(p) && caseFlips(p) <= 3) {
			return false
		}
		parts++
		start = i + 1
	}
	return parts >= 2
}

// strictPath is dottedPath with every part identifier-shaped
// (process.env.DB_PASSWORD, cfg.Password): what an unquoted value is in
// a JS object literal, where YAML would hold a literal.
func strictPath(v string) bool {
	if !dottedPath(v) {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if !identifierShaped(strings.TrimPrefix(p, "$")) {
			return false
		}
	}
	return true
}

// isVersion reports a version or range ("^9.0.0", "v1.2", ">=2.1",
// "1.4.2-rc1").
func isVersion(v string) bool {
	v = strings.TrimLeft(v, "~^=<>v")
	i, dots := 0, 0
	for i < len(v) && (isDigit(v[i]) || v[i] == '.' && i > 0 && isDigit(v[i-1])) {
		if v[i] == '.' {
			dots++
		}
		i++
	}
	if i == 0 || dots == 0 || !isDigit(v[i-1]) {
		return false
	}
	return i == len(v) || v[i] == '-' || v[i] == '+'
}

// isPathOrURL reports a file path or a URL: the place of a secret, not the
// secret (a URL with a password is the URL rule's).
func isPathOrURL(v string) bool {
	if strings.Contains(v, "://") {
		return true
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") {
		if strings.ContainsAny(v, "+=") || strings.Count(v, "/") < 2 && !strings.Contains(v, ".") {
			return false
		}
		for _, seg := range strings.Split(v, "/") {
			if len(seg) >= 8 && (caseFlips(seg) >= 3 || digitInside(seg) && classes(seg) >= 3) {
				return false // base64 that starts with '/', not a path
			}
		}
		return true
	}
	return len(v) > 3 && isLetter(v[0]) && v[1] == ':' && v[2] == '\\'
}

// isEnvName reports an environment variable name (DB_PASSWORD): a value
// that names where the secret is.
func isEnvName(v string) bool {
	if strings.IndexByte(v, '_') < 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

// isProse reports text with two or more words of letters only ("Enter the
// token", "Password"-like labels with spaces): a message, not a secret.
func isProse(v string) bool {
	if strings.IndexByte(v, ' ') < 0 {
		return false
	}
	words := 0
	for _, w := range strings.Fields(v) {
		w = strings.TrimRight(w, ".,!?:;")
		if len(w) < 2 {
			continue
		}
		alpha := true
		for i := 0; i < len(w); i++ {
			if !isLetter(w[i]) && w[i] != '\'' {
				alpha = false
				break
			}
		}
		if alpha {
			words++
		}
	}
	return words >= 2
}

// isUpperName reports an upper-case variable name (PGPASSWORD, DB_PASS).
func isUpperName(v string) bool {
	if v == "" || !(v[0] >= 'A' && v[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}
