package redact

import (
	"strings"
)

// The name/value parser: for each secret-looking name on a line (found from
// a name keyword outwards), it reads the operator and the value that
// follow, in the forms configuration and code use:
//
//	DB_PASSWORD=value           .env, shell, Dockerfile ENV, inline env
//	password: value             YAML, JSON, JS/Go/Python literals
//	password = "value"          code, TOML, INI, HCL, properties
//	"X-Api-Key": "value"        quoted keys, headers
//	setenv("DB_PASS", "value")  setenv/setProperty/put arguments
//	<password>value</password>  XML elements; <add key="Password" value="...">
//	--password value            command-line flags
//	?api_key=value&             query strings and connection strings (;)
//
// and redacts the value when the name says secret and the value is a
// literal: not code, not a placeholder, not a path, a version or prose.

// Name strength: how much a name alone says the value is secret.
const (
	notSecret = iota
	medium    // credentials, auth: the value must also look random
	strong    // password, secret, token, api key, private key, ...
)

// Value styles: where a value stands, which decides how an unquoted value
// is read.
const (
	styleCode    = iota // inside code: a bare word is a variable
	styleLiteral        // .env, YAML, query string, flag, XML: a bare word is the value
)

// maxName and maxValue bound how far the parser looks around a keyword, so
// a line full of keywords costs linear time.
const (
	maxName  = 96
	maxValue = 4096
)

// secretWords: a name word that makes the name strong by itself.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pwd": true, "passwort": true,
	"secret": true, "token": true, "apikey": true, "apitoken": true, "accesstoken": true,
	"authtoken": true, "secretkey": true, "privatekey": true, "accesskey": true, "masterkey": true,
	"signingkey": true, "encryptionkey": true, "clientsecret": true, "refreshtoken": true,
	"bearertoken": true, "sessionkey": true, "licensekey": true, "appkey": true, "authkey": true,
	"appsecret": true, "jwtsecret": true,
}

// secretSuffixes: a name word ending so is strong (dbpassword,
// keystorepassword, githubtoken, clientsecret).
var secretSuffixes = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey", "privatekey"}

// keyOwners: the word before "key" that makes "key" a secret (api key,
// private key, ...); "public key" or a bare "key" is not.
var keyOwners = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "signing": true, "sign": true,
	"encryption": true, "encrypt": true, "decryption": true, "master": true, "client": true,
	"auth": true, "account": true, "app": true, "application": true, "service": true,
	"shared": true, "storage": true, "license": true, "licence": true, "subscription": true,
	"consumer": true, "webhook": true, "hmac": true, "session": true, "cookie": true, "jwt": true,
	"aes": true, "crypto": true, "root": true, "admin": true, "merchant": true, "partner": true,
	"x": true, "developer": true, "dev": true, "server": true, "mac": true, "ingest": true,
	"preshared": true, "psk": true,
}

// mediumWords: names that hold secrets among other things (CORS
// "credentials: include", "auth: true", a review "pass").
var mediumWords = map[string]bool{
	"credentials": true, "credential": true, "creds": true, "cred": true, "auth": true,
	"basicauth": true, "npmauth": true, "httpauth": true, "pw": true, "pass": true,
}

// tokenNotSecret: the word before "token" that makes it a pagination,
// tokenizer or grammar token, not a credential.
var tokenNotSecret = map[string]bool{
	"page": true, "next": true, "prev": true, "continuation": true, "cursor": true, "pagination": true,
	"cancel": true, "cancellation": true, "sync": true, "max": true, "min": true, "eos": true,
	"bos": true, "pad": true, "unk": true, "sep": true, "cls": true, "mask": true, "special": true,
	"end": true, "start": true, "stop": true, "eof": true, "input": true, "output": true,
	"prompt": true, "completion": true, "total": true, "num": true, "lex": true, "next_": true,
	"resume": true, "idempotency": true, "change": true, "sequence": true, "delimiter": true,
}

// trailingOK: words that may follow the secret word without changing what
// the name holds (passwordValue, tokenStr, password_hash, apiKey2).
var trailingOK = map[string]bool{
	"value": true, "val": true, "str": true, "string": true, "plain": true, "plaintext": true,
	"raw": true, "literal": true, "b64": true, "base64": true, "hex": true, "encoded": true,
	"hash": true, "hashed": true, "digest": true, "new": true, "old": true, "prod": true,
	"production": true, "dev": true, "staging": true, "local": true, "default": true,
	"override": true, "bytes": true, "data": true, "text": true, "enc": true, "encrypted": true,
	"base": true, "v2": true, "v1": true,
}

// words splits an identifier into lower-case words at separators, case
// changes and digit runs: "dbPassword" -> db password, "DB_PASS" -> db
// pass, "SecretAccessKey" -> secret access key, "x-api-key" -> x api key.
// buf holds the lower-cased bytes; the words are slices of it.
func words(name string, buf []byte, out []string) []string {
	buf = buf[:0]
	for i := 0; i < len(name); i++ {
		buf = append(buf, foldTable[name[i]])
	}
	lower := string(buf) // one allocation per name
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, lower[start:end])
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case !isIdentByte(c) || c == '_':
			flush(i)
			continue
		case start < 0:
			start = i
			continue
		}
		prev := name[i-1]
		switch {
		case c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z', // camelCase
			c >= 'A' && c <= 'Z' && prev >= 'A' && prev <= 'Z' && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z', // DBPassword
			isDigit(c) != isDigit(prev): // password2
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return out
}

// nameStrength classifies a name by its words: strong or medium when its
// last secret word is followed only by trailingOK words.
func nameStrength(ws []string) (strength int, authorization bool) {
	last, lastStrength := -1, notSecret
	for i, w := range ws {
		s := wordStrength(ws, i)
		if s != notSecret {
			last, lastStrength = i, s
		}
		if w == "authorization" {
			last, lastStrength, authorization = i, strong, true
		}
	}
	if last < 0 {
		return notSecret, false
	}
	for _, w := range ws[last+1:] {
		if !trailingOK[w] && !(len(w) <= 2 && isDigit(w[0])) {
			return notSecret, false
		}
	}
	return lastStrength, authorization && last == len(ws)-1
}

func wordStrength(ws []string, i int) int {
	w := ws[i]
	prev := ""
	if i > 0 {
		prev = ws[i-1]
	}
	switch {
	case w == "key":
		if keyOwners[prev] {
			return strong
		}
		return notSecret
	case w == "token":
		if tokenNotSecret[prev] {
			return notSecret
		}
		return strong
	case secretWords[w]:
		return strong
	case mediumWords[w]:
		return medium
	}
	for _, suf := range secretSuffixes {
		if len(w) > len(suf) && strings.HasSuffix(w, suf) {
			return strong
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "key") && keyOwners[w[:len(w)-3]] {
		return strong
	}
	return notSecret
}

func isNameByte(c byte) bool {
	return isIdentByte(c) || c == '.' || c == '-'
}

// bodyStart returns where a line's content starts: after a diff prefix,
// indentation, a YAML list dash, a comment marker and "export "/"set "/
// "ENV " (so "+  - DB_PASS=x" and "export TOKEN=x" start at the name).
func bodyStart(line string) int {
	i := 0
	if i < len(line) && (line[i] == '+' || line[i] == '-' || line[i] == ' ') {
		i++
	}
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, "- "):
			i += 2
		case strings.HasPrefix(rest, "export "), strings.HasPrefix(rest, "set "), strings.HasPrefix(rest, "SET "),
			strings.HasPrefix(rest, "ENV "), strings.HasPrefix(rest, "ARG "), strings.HasPrefix(rest, "env "):
			i += 4
			if rest[0] == 'e' && rest[1] == 'x' {
				i += 3
			}
		case strings.HasPrefix(rest, "# "), strings.HasPrefix(rest, "// "), strings.HasPrefix(rest, "; "):
			i += strings.IndexByte(rest, ' ') + 1
		default:
			return i
		}
	}
}

// setter reports a setter-like name (SetPassword, withToken, useApiKey),
// whose call argument is the value.
func setter(ws []string) bool {
	for _, w := range ws[:len(ws)-1] {
		if w == "set" || w == "with" || w == "use" {
			return true
		}
	}
	return false
}

// authCall reports a name that takes a user and a password (BasicAuth,
// HTTPBasicAuth, SetBasicAuth, credentials(...)).
func authCall(ws []string) bool {
	last := ws[len(ws)-1]
	return last == "auth" || last == "credentials" || last == "creds" || strings.HasSuffix(last, "auth")
}

// openBefore reports an opening parenthesis before line[at] (spaces
// skipped): the quoted name is a call's first argument. (In a list,
// {"reviewPass", "additionalContext"}, the next string is no value.)
func openBefore(line string, at int) bool {
	for at > 0 && line[at-1] == ' ' {
		at--
	}
	return at > 0 && line[at-1] == '('
}

// declared reports a declaration keyword before the name at ns ("var ",
// "const ", "let ", "val "): the form "var name Type = value".
func declared(line string, ns int) bool {
	head := strings.TrimRight(line[:ns], " ")
	for _, k := range []string{"var", "const", "let", "val"} {
		if strings.HasSuffix(head, k) && (len(head) == len(k) || !isIdentByte(head[len(head)-len(k)-1])) {
			return true
		}
	}
	return false
}

// nextNameKeyword finds the next name keyword in line at or after from.
func nextNameKeyword(line string, from int) int {
	for i := from; i+1 < len(line); i++ {
		ks := genericByFirst[foldTable[line[i]]]
		if ks == nil {
			continue
		}
		second := foldTable[line[i+1]]
		for _, k := range ks {
			if len(line)-i >= len(k) && second == k[1] && containsFold(line[i:i+len(k)], k) {
				return i
			}
		}
	}
	return -1
}

// genericByFirst lists the genericKeywords by their first byte.
var genericByFirst = func() (t [256][]string) {
	for _, k := range genericKeywords {
		t[k[0]] = append(t[k[0]], k)
	}
	return t
}()

// assignment is one name/value pair found on a line.
type assignment struct {
	valFrom, valTo int
	quoted         bool
	style          int
}

// assignments adds the secret values assigned to secret names on line.
func (sc *scanner) assignments(line string, reps []replacement) []replacement {
	body := bodyStart(line)
	var buf [maxName]byte
	var wsBuf [16]string
	for pos := 0; pos < len(line) && len(reps) < maxReplacements; {
		k := nextNameKeyword(line, pos)
		if k < 0 {
			break
		}
		ns, ne := k, k
		for ns > 0 && k-ns < maxName && isNameByte(line[ns-1]) {
			ns--
		}
		for ne < len(line) && ne-k < maxName && isNameByte(line[ne]) {
			ne++
		}
		pos = ne
		flag := false
		for ns < ne && (line[ns] == '-' || line[ns] == '.') {
			flag = flag || line[ns] == '-'
			ns++
		}
		for ne > ns && (line[ne-1] == '-' || line[ne-1] == '.') {
			ne--
		}
		if ne-ns > maxName || ne <= ns {
			continue
		}
		name := line[ns:ne]
		if strings.HasSuffix(strings.TrimRight(line[:ns], " "), "type") || strings.HasSuffix(line[:ns], Marker) {
			continue // type PrivateKey = ed25519.PrivateKey; a kind in a marker
		}
		ws := words(name, buf[:0], wsBuf[:0])
		strength, authz := nameStrength(ws)
		if strength == notSecret {
			continue
		}
		a, ok := readAssignment(line, ns, ne, body, flag, strength, ws)
		if !ok {
			continue
		}
		from, to := a.valFrom, a.valTo
		kind := KindAssignment
		scheme := ""
		if authz || strings.HasSuffix(ws[len(ws)-1], "auth") {
			from, scheme = skipScheme(line, from, to)
			switch scheme {
			case "basic":
				kind = KindBasicAuth
			case "bearer", "token":
				kind = KindBearer
			}
		}
		if authz && (scheme == "" && strings.IndexByte(line[from:to], ' ') >= 0) {
			continue // "Bearer " + token, a scheme without credentials
		}
		v := line[from:to]
		if !acceptValue(v, a.quoted, strength, a.style, ws) || overlaps(reps, from, to) {
			continue
		}
		reps = append(reps, replacement{from, to, kind})
		pos = max(pos, to)
	}
	return reps
}

// skipScheme skips an Authorization scheme ("Basic ", "Bearer ", "token ")
// at the start of a value.
func skipScheme(line string, from, to int) (int, string) {
	for _, s := range []string{"basic", "bearer", "token", "digest"} {
		if to-from > len(s)+1 && containsFold(line[from:from+len(s)], s) && line[from+len(s)] == ' ' {
			i := from + len(s)
			for i < to && line[i] == ' ' {
				i++
			}
			return i, s
		}
	}
	return from, ""
}

// readAssignment reads the operator and value after the name line[ns:ne].
func readAssignment(line string, ns, ne, body int, flag bool, strength int, ws []string) (assignment, bool) {
	n := siteOf(line, ns, ne, body, flag)
	if n.next >= len(line) {
		return assignment{style: styleCode}, false
	}
	if n.authCallLiteral(ws) {
		return readSecondLiteral(line, n.next+1)
	}
	op, j, ok := n.operator(strength, ws)
	if !ok {
		return assignment{style: styleCode}, false
	}
	xml := op == ">" // <password>value</password>
	if op != " " {
		j += len(op)
	}
	vs := j
	j = skipBlanks(line, j)
	a := assignment{style: n.valueStyle(op, n.spaced || j > vs)}
	if op == ":" {
		if k, ok := skipTypeAnnotation(line, j); ok {
			j, a.style = k, styleCode
		}
	}
	if authz := len(ws) > 0 && ws[len(ws)-1] == "authorization"; authz && !xml && j < len(line) && strings.IndexByte("\"'`", line[j]) < 0 {
		// Authorization: <scheme> <credentials>, unquoted.
		if k, scheme := skipScheme(line, j, len(line)); scheme != "" {
			a, ok := readValue(line, k, false, n.prev, n.quote, a)
			a.valFrom = j
			return a, ok
		}
	}
	return readValue(line, j, xml, n.prev, n.quote, a)
}

// nameSite is where a secret name line[ns:ne] stands on its line and what
// follows it up to the operator.
type nameSite struct {
	line        string
	ns, ne      int
	body        int    // where the line's content starts (bodyStart)
	flag        bool   // a command-line flag: --password
	quote       string // the quote before the name: "", `"`, `'`, "`", `\"`, ...
	quotedName  bool   // the quote closes after the name too
	spaced      bool   // blanks stand between the name and the operator
	nameAtStart bool   // the name (or its quote) leads the line's content
	prev        byte   // the byte before the name and its quote ('-' for a flag); 0 at the start
	next        int    // where the operator starts: past the name, its quote, a ']' or '?'/'!' and blanks
}

// siteOf reads the quote around the name line[ns:ne] and skips to the
// operator after it.
func siteOf(line string, ns, ne, body int, flag bool) nameSite {
	n := nameSite{line: line, ns: ns, ne: ne, body: body, flag: flag}
	// A quoted name: "password": / 'X-Api-Key' / \"token\".
	if ns > 0 {
		switch c := line[ns-1]; c {
		case '"', '\'', '`':
			n.quote = string(c)
			if ns > 1 && line[ns-2] == '\\' {
				n.quote = `\` + n.quote
			}
		}
	}
	j := ne
	if n.quote != "" && strings.HasPrefix(line[j:], n.quote) {
		j += len(n.quote)
		n.quotedName = true
	}
	if j < len(line) && line[j] == ']' {
		j++ // env["DB_PASSWORD"] = ..., headers['X-Api-Key'] = ...
	} else if j < len(line) && (line[j] == '?' || line[j] == '!') && j+1 < len(line) && line[j+1] == ':' {
		j++ // TypeScript password?: string
	}
	n.next = skipBlanks(line, j)
	n.spaced = n.next > j
	n.nameAtStart = ns-len(n.quote) == body || ns == body
	if p := ns - len(n.quote) - 1; p >= 0 {
		n.prev = line[p]
		if flag {
			n.prev = '-'
		}
	}
	return n
}

// skipBlanks skips spaces and tabs from line[j:].
func skipBlanks(line string, j int) int {
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	return j
}

// authCallLiteral reports a call whose second literal argument is a
// password: HTTPBasicAuth('svc', '...'), SetBasicAuth("user", "...").
func (n *nameSite) authCallLiteral(ws []string) bool {
	line, j := n.line, n.next
	return line[j] == '(' && authCall(ws) && j+1 < len(line) && strings.IndexByte("\"'`", line[j+1]) >= 0
}

// readSecondLiteral reads the second of two literal arguments, the first
// starting at line[k].
func readSecondLiteral(line string, k int) (assignment, bool) {
	a := assignment{style: styleCode}
	if a2, ok := readValue(line, k, false, 0, "", a); ok && a2.quoted {
		k = a2.valTo + 1
		if strings.HasPrefix(line[k:], ", ") && k+2 < len(line) && strings.IndexByte("\"'`", line[k+2]) >= 0 {
			return readValue(line, k+2, false, 0, "", a)
		}
	}
	return a, false
}

// operator reads the operator after the name: "=", ":", ":=", "=>", "?=",
// "," (an argument after a quoted name), ">" (an XML element), "(" (a
// setter), "value=", `, "value":` or " " (a value after blanks), and
// where it starts; false when no value of the name follows (a comparison,
// a path, a name in prose).
func (n *nameSite) operator(strength int, ws []string) (string, int, bool) {
	line, j := n.line, n.next
	name := line[n.ns:n.ne]
	rest := line[j:]
	switch {
	case strings.HasPrefix(rest, "==") && (n.spaced || !isUpperName(name)) && !n.flag && !n.nameAtStart,
		strings.HasPrefix(rest, "=~ "):
		return "", j, false // a comparison or match; PGPASSWORD==x and --pw==x are values starting with '='
	case rest[0] == '=' && (!n.spaced && (isUpperName(name) || n.nameAtStart) || n.flag):
		return "=", j, true
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"), strings.HasPrefix(rest, "?="):
		return rest[:2], j, true
	case rest[0] == '=':
		return "=", j, true
	case rest[0] == ':':
		if strings.HasPrefix(rest, "::") || name == "PASS" {
			return "", j, false // C++/Rust paths; "--- PASS: TestName" in test output
		}
		return ":", j, true
	case rest[0] == ',' && n.quotedName && openBefore(line, n.ns-len(n.quote)):
		return ",", j, true // setenv("DB_PASSWORD", "..."), Map.of("password", "...")
	case rest[0] == '>' && n.ns > 0 && line[n.ns-1] == '<':
		return ">", j, true
	case rest[0] == '(' && setter(ws) && j+1 < len(line) && strings.IndexByte("\"'`", line[j+1]) >= 0:
		return "(", j, true // setPassword("..."), WithToken("..."): a literal argument only
	case n.quotedName && strings.HasPrefix(rest, "value="):
		return "value=", j, true // <add key="Password" value="..."/>
	case n.quotedName && (strings.HasPrefix(rest, `, "value":`) || strings.HasPrefix(rest, `,"value":`)):
		return rest[:strings.IndexByte(rest, ':')+1], j, true // {"name": "DB_PASSWORD", "value": "..."}
	case (rest[0] == '"' || rest[0] == '\'') && n.spaced && !n.quotedName && strength == strong && len(ws) >= 2 && n.nameAtStart:
		return " ", j, true // Gradle: storePassword "..."
	case n.flag && n.spaced && n.ns >= 2 && line[n.ns-2:n.ns] == "--":
		return " ", j, true // --password value
	case n.spaced && (strings.HasPrefix(line[n.body:], "machine ") || strings.HasPrefix(line[n.body:], "default ")):
		return " ", j, true // .netrc: machine host login user password value
	}
	// var password string = "...", const token Token = "..."
	if u, ok := n.typedInit(); ok {
		return "=", u, true
	}
	return "", j, false
}

// typedInit finds the "=" after the type of a declared name (var password
// string = "...").
func (n *nameSite) typedInit() (int, bool) {
	line, j := n.line, n.next
	if !declared(line, n.ns) {
		return 0, false
	}
	t := j
	for t < len(line) && (isIdentByte(line[t]) || line[t] == '.' || line[t] == '*' || line[t] == '[' || line[t] == ']') {
		t++
	}
	u := t
	for u < len(line) && line[u] == ' ' {
		u++
	}
	if t == j || !n.spaced || !strings.HasPrefix(line[u:], "= ") {
		return 0, false
	}
	return u, true
}

// valueStyle says where the value after op stands: a literal (YAML, .env,
// a query or connection string, a flag, an XML element) or code; opSpaced
// reports blanks around op.
func (n *nameSite) valueStyle(op string, opSpaced bool) int {
	switch {
	case op == ">", n.flag, op == "value=":
		return styleLiteral
	case n.prev == '?' || n.prev == '&' || n.prev == ';':
		return styleLiteral // query string, connection string
	case n.nameAtStart && op != "(" && op != ",":
		if op == ":" || op == "?=" || !opSpaced {
			return styleLiteral // YAML, .env, properties
		}
	case op == "=" && !opSpaced && isEnvName(n.line[n.ns:n.ne]) || op == "=" && !opSpaced && n.prev == '"':
		return styleLiteral // PGPASSWORD=x cmd, -e DB_PASS=x, putenv("DB_PASS=x")
	}
	return styleCode
}

// skipTypeAnnotation skips a type annotation before a value at line[j:]
// (password: str = "...") and returns where the value starts.
func skipTypeAnnotation(line string, j int) (int, bool) {
	if j >= len(line) || !isIdentStart(line[j]) {
		return j, false
	}
	t := j
	for t < len(line) && (isIdentByte(line[t]) || strings.IndexByte("[]<>.&*|?, ", line[t]) >= 0) && line[t] != '=' {
		t++
	}
	if t < len(line) && line[t] == '=' && line[t-1] == ' ' && !strings.HasPrefix(line[t:], "==") && strings.IndexByte(line[j:t], ',') < 0 {
		j = t + 1
		for j < len(line) && line[j] == ' ' {
			j++
		}
		return j, true
	}
	return j, false
}

// valueBelow handles a secret name and its value on separate lines: a
// Kubernetes env entry ("- name: DB_PASSWORD", then "value: ...") or an
// HCL variable (`variable "db_password" {`, then `default = "..."`).
// When line (ending at to in s) declares a secret name this way, it looks
// at the next three lines for the value line and returns its bounds in s
// and the line with the value redacted (vt == vf when there is none).
func valueBelow(s string, to int, line string) (vf, vt int, out, kind string) {
	ws, strength := nameLine(line)
	if strength == notSecret {
		return 0, 0, "", ""
	}
	at := to
	for n := 0; n < 3 && at < len(s); n++ {
		from := at + 1
		end := strings.IndexByte(s[from:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += from
		}
		at = end
		next := s[from:end]
		if len(next) > maxLine {
			break
		}
		body := bodyStart(next)
		rest := next[body:]
		j := -1
		switch {
		case strings.HasPrefix(rest, "value:"):
			j = body + len("value:")
		case strings.HasPrefix(rest, "default"):
			k := body + len("default")
			for k < len(next) && next[k] == ' ' {
				k++
			}
			if k < len(next) && next[k] == '=' {
				j = k + 1
			}
		}
		if j < 0 {
			if strings.HasPrefix(rest, "name:") || strings.HasPrefix(rest, "variable ") {
				break // the next declaration
			}
			continue
		}
		for j < len(next) && next[j] == ' ' {
			j++
		}
		a, ok := readValue(next, j, false, 0, "", assignment{style: styleLiteral})
		if !ok || !acceptValue(next[a.valFrom:a.valTo], a.quoted, strength, styleLiteral, ws) {
			break
		}
		return from, end, next[:a.valFrom] + Marker + KindAssignment + "]" + next[a.valTo:], KindAssignment
	}
	return 0, 0, "", ""
}

// nameLine reports a line that only declares a name, "- name: X",
// "key: X" or HCL's `variable "x" {`, with the strength of X.
func nameLine(line string) ([]string, int) {
	rest := strings.TrimSpace(line[bodyStart(line):])
	var name string
	switch {
	case strings.HasPrefix(rest, "name:"), strings.HasPrefix(rest, "key:"):
		name = strings.TrimSpace(rest[strings.IndexByte(rest, ':')+1:])
		name = strings.Trim(name, `"'`)
	case strings.HasPrefix(rest, "variable ") && strings.HasSuffix(rest, "{"):
		name = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, "variable "), "{"))
		name = strings.Trim(name, `"`)
	default:
		return nil, notSecret
	}
	if name == "" || len(name) > maxName || strings.IndexFunc(name, func(r rune) bool { return r > 127 || !isNameByte(byte(r)) }) >= 0 {
		return nil, notSecret
	}
	var buf [maxName]byte
	ws := words(name, buf[:0], nil)
	strength, _ := nameStrength(ws)
	return ws, strength
}
