package redact

import (
	"strings"
)

// conversions wrap a literal without changing it: encryptionKey :=
// []byte("..."), Buffer.from('...'), SecretStr("...").
var conversions = []string{"[]byte(", "[]rune(", "Buffer.from(", "bytes(", "str(", "String(", "string(", "SecretStr(", "SecretString(", "Secret(", "b64decode(", "new String("}

// readValue reads the value starting at line[j:]: a quoted string (with
// escapes and a Python/C# prefix), a literal inside a conversion or after
// an "||"/"??" fallback, or an unquoted run whose end depends on where it
// stands.
func readValue(line string, j int, xml bool, prev byte, nameQuote string, a assignment) (assignment, bool) {
	if j >= len(line) {
		return a, false
	}
	j = skipConversion(line, j)
	if q := openingQuote(line, j); q != "" && !xml {
		return readQuoted(line, j+len(q), q, a)
	}
	return readUnquoted(line, j, xml, prev, nameQuote, a)
}

// skipConversion skips a conversion around a literal ([]byte("..."))
// and a string prefix (b"...", r'...', @"...") at line[j:].
func skipConversion(line string, j int) int {
	for _, c := range conversions {
		if strings.HasPrefix(line[j:], c) && j+len(c) < len(line) && strings.IndexByte("\"'`", line[j+len(c)]) >= 0 {
			j += len(c)
			break
		}
	}
	if j+1 < len(line) && strings.IndexByte("bBrRfFuU@", line[j]) >= 0 && strings.IndexByte("\"'", line[j+1]) >= 0 {
		j++
	}
	return j
}

// openingQuote is the quote opening a value at line[j] (`"`, `'`, "`",
// or an escaped `\"` or `\'`), or "".
func openingQuote(line string, j int) string {
	switch line[j] {
	case '"', '\'', '`':
		return line[j : j+1]
	case '\\':
		if j+1 < len(line) && (line[j+1] == '"' || line[j+1] == '\'') {
			return line[j : j+2]
		}
	}
	return ""
}

// readQuoted reads a value quoted with q from line[from:] to the closing
// quote, past backslash escapes and the ” that YAML and SQL write for a
// quote in a single-quoted string; an empty or unclosed one is no value.
func readQuoted(line string, from int, q string, a assignment) (assignment, bool) {
	for i := from; i < len(line) && i-from <= maxValue; i++ {
		if len(q) == 1 && line[i] == '\\' {
			i++
			continue
		}
		if q == "'" && strings.HasPrefix(line[i:], "''") && i+2 < len(line) && line[i+2] != ',' && line[i+2] != ')' {
			i++
			continue
		}
		if strings.HasPrefix(line[i:], q) {
			a.valFrom, a.valTo, a.quoted = from, i, true
			return a, i > from
		}
	}
	return a, false
}

// readUnquoted reads an unquoted value from line[from:] up to a byte
// that ends it where it stands, or the literal after it (a fallback, the
// second of a pair).
func readUnquoted(line string, from int, xml bool, prev byte, nameQuote string, a assignment) (assignment, bool) {
	stops := unquotedStops(xml, prev, a.style, nameQuote)
	i := from
	for i < len(line) && i-from <= maxValue {
		c := line[i]
		if !xml && (c == ' ' || c == '\t') || strings.IndexByte(stops, c) >= 0 {
			break
		}
		i++
	}
	if i > from && line[i-1] == '\r' {
		i--
	}
	if xml && !strings.HasPrefix(line[i:], "</") {
		return a, false // <token> in prose, not an element with its closing tag
	}
	if a.style == styleLiteral && !xml && i > from && (line[i-1] == ',' || line[i-1] == ';') && strings.TrimSpace(line[i:]) == "" {
		// "password: userPassword," ends a JS object property, not a YAML
		// scalar.
		i--
		a.style = styleCode
	}
	a.valFrom, a.valTo = from, i
	if i < len(line) && line[i] == ',' && a.style == styleLiteral && !xml && prev != ';' {
		a.style = styleCode
	}
	if strings.HasPrefix(line[from:], Marker) {
		return a, false // redacted already: no fallback after it either
	}
	if k, ok := literalAfter(line, from, i); ok {
		return readValue(line, k, false, prev, "", a)
	}
	return a, i > from
}

// unquotedStops are the bytes that end an unquoted value besides blanks:
// they depend on where it stands.
func unquotedStops(xml bool, prev byte, style int, nameQuote string) string {
	switch {
	case xml:
		return "<"
	case prev == '?' || prev == '&':
		return "&#\"'`<>"
	case prev == ';':
		return ";\"'`"
	case style == styleLiteral:
		if nameQuote != "" {
			return nameQuote[len(nameQuote)-1:] // "API_KEY=value"
		}
		return "\"'`" // YAML and .env values hold any punctuation
	}
	return ",;\"'`)]}"
}

// literalAfter finds a quoted literal that holds the value instead of
// the code line[from:to]: a fallback (process.env.X || "literal") or the
// second of a (user, password) pair (auth = ("svc", "...")).
func literalAfter(line string, from, to int) (int, bool) {
	if rest := strings.TrimLeft(line[to:], " "); to > from && looksLikeCode(line[from:to]) && (strings.HasPrefix(rest, "|| ") || strings.HasPrefix(rest, "?? ")) {
		k := len(line) - len(rest) + 3
		for k < len(line) && line[k] == ' ' {
			k++
		}
		if k < len(line) && strings.IndexByte("\"'`", line[k]) >= 0 {
			return k, true
		}
	}
	if to-from <= 1 && from < len(line) && (line[from] == '(' || line[from] == '[') {
		if k := strings.Index(line[from:], ", "); k > 0 && k < 64 {
			k += from + 2
			if k < len(line) && (line[k] == '"' || line[k] == '\'') {
				return k, true
			}
		}
	}
	return 0, false
}

// acceptValue decides whether the value of a secret name is a secret.
func acceptValue(v string, quoted bool, strength, style int, ws []string) bool {
	minLen := 6
	if strength == medium {
		minLen = 8
	}
	if len(v) < minLen || isPlaceholder(v) || isVersion(v) || isPathOrURL(v) || sameAsName(v, ws) || isNumber(v) || isPattern(v) {
		return false
	}
	if strength == medium && strings.IndexByte(v, ' ') >= 0 {
		// credentials, auth, pass: a value with spaces is a secret only
		// when every part of it is.
		for _, f := range strings.Fields(v) {
			if !looksRandom(f) || codeLike(f) {
				return false
			}
		}
	}
	if quoted {
		if isProse(v) || isEnvName(v) || isConcatenation(v) {
			return false
		}
		if strength == medium {
			return looksRandom(v) && !codeLike(v)
		}
		// A password mixes classes (hunter2, Summer2024!); a single
		// class needs length and entropy (not "abracadabra", "no-check").
		return titleClasses(v) >= 2 || len(v) >= 16 && entropy(v) >= 3.8
	}
	if style == styleLiteral && strength == strong {
		// YAML, .env, query strings: a bare word is the value; only what
		// no literal is counts as code.
		if literalCode(v) {
			return false
		}
		if isEnvName(v) {
			return false // TOKEN=GITHUB_TOKEN names another variable
		}
		return titleClasses(v) >= 2 || len(v) >= 16 && entropy(v) >= 3.8
	}
	if looksLikeCode(v) {
		return false
	}
	// In code a bare value is an expression unless it holds what no
	// expression does (Marble189*, b0D?~xBJ): words joined by
	// separators ("NextState:Flag") are not a secret.
	return looksRandom(v) && !codeLike(v)
}

// codeLike reports words joined by separators ("NextState:Flag",
// "en_001") unless the value holds a symbol no expression or name does
// (Marble189*, b0D?~xBJ).
func codeLike(v string) bool {
	return wordsOnly(v) && !strings.ContainsAny(v, "!#%&*?@^~$+=")
}

// sameAsName reports a value that repeats its name or a secret word: a
// label ("password": "Password", "apiKey": "API key").
func sameAsName(v string, ws []string) bool {
	n := normalize(v)
	if n == "" {
		return true
	}
	if n == strings.Join(ws, "") || secretWords[n] {
		return true
	}
	return len(ws) > 0 && n == ws[len(ws)-1]
}

// isConcatenation reports the inside of `" + x + "`: the text between two
// string literals that a concatenation joins, read as if it were one.
func isConcatenation(v string) bool {
	t := strings.TrimSpace(v)
	return t != v && (strings.HasPrefix(t, "+") || strings.HasSuffix(t, "+") || strings.HasPrefix(t, ".") || strings.HasSuffix(t, "."))
}
