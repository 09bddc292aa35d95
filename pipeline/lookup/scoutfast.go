package lookup

import "encoding/json"

// The fast path of /v1/needs. A scout answer passed as parsed JSON in the
// common shape
//
//	{"files":[{"path":"<changed file>","needs":[{"op":"...","path":"..."} | "<path>", ...]}, ...]}
//
// is read straight from its bytes into proposals: no map per object, no
// interface value per string, nothing kept of the fields a need does not
// use ("reason"). On a 3.5 MB answer of 40,000 needs the generic reading
// (a decode into map[string]any, then the walk) cost more than all the
// checks together.
//
// The fast path reads exactly what the generic path reads, or nothing: any
// other shape, a duplicate key it uses, a value of another type (a numeric
// path, a null), invalid JSON or nesting deeper than fastMaxDepth makes it
// undo what it emitted and report false, and the answer goes through
// llmanswer.Read. It runs only when nothing was proposed before the scout
// answer (no files[].needs), so undoing is starting afresh.
// FuzzNeedsFastPath holds the two paths to the same answer.

// fastMaxDepth bounds the nesting the fast path skips over.
const fastMaxDepth = 64

// fast reads the answer when it has the common shape; see above. It
// emits each file's needs as soon as its object is read; when the answer
// turns out to have another shape, reset undoes what was emitted.
func (r *scoutReader) fast(raw []byte) bool {
	p := &fastParser{b: raw, emit: r.propose, reserve: r.reserve}
	if p.scout() {
		return true
	}
	r.kept = 0
	r.reset()
	return false
}

// fastParser reads one JSON document strictly (RFC 8259), byte by byte.
// b is the document; s is the same bytes as one string, so a plain string
// value is a slice of it, not a copy of its own (40,000 paths cost one
// copy of the answer instead of 40,000 allocations).
type fastParser struct {
	b []byte
	s string
	i int
	// emit takes each need; reserve is told, after the first file, how
	// many needs the answer may hold.
	emit    func(proposal)
	reserve func(n int)
	emitted int
}

// fastNeed is a need as written, before its file is known.
type fastNeed struct {
	op, path, file string
}

// scout reads the whole answer.
func (p *fastParser) scout() bool {
	p.ws()
	if !p.eat('{') {
		return false
	}
	p.s = string(p.b)
	files := false
	for first := true; ; first = false {
		p.ws()
		if first && p.eat('}') {
			return false // {}: not the files shape
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		if key == "files" {
			if files || !p.at('[') || !p.files() {
				return false
			}
			files = true
		} else if !p.skip(0) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if !p.eat('}') {
			return false
		}
		break
	}
	p.ws()
	return p.i == len(p.b) && files
}

// files reads the files array: file objects only.
func (p *fastParser) files() bool {
	p.i++ // '['
	p.ws()
	if p.eat(']') {
		return true
	}
	var needs []fastNeed
	for {
		p.ws()
		if !p.at('{') {
			return false
		}
		var file string
		var ok bool
		if file, needs, ok = p.fileObject(needs[:0]); !ok {
			return false
		}
		if p.emitted == 0 && p.reserve != nil {
			// Room for as many needs per byte as the first file had.
			est := len(needs) * (len(p.b)/max(p.i, 1) + 1)
			p.reserve(min(est, len(p.b)/8+1))
		}
		for _, n := range needs {
			f := file
			if f == "" {
				f = n.file
			}
			p.emit(proposal{file: f, op: n.op, path: n.path})
			p.emitted++
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat(']')
	}
}

// fileObject reads {"path"|"file"|"for": "<changed file>", "needs": [...]}:
// the file is the first of path, file and for that is present (a string),
// normalized as the generic path does.
func (p *fastParser) fileObject(needs []fastNeed) (string, []fastNeed, bool) {
	p.i++              // '{'
	var attr [3]string // path, file, for
	var seen [4]bool   // path, file, for, needs
	p.ws()
	if p.eat('}') {
		return "", nil, false // no needs: not a file object
	}
	for {
		p.ws()
		key, ok := p.key()
		if !ok {
			return "", nil, false
		}
		k := -1
		switch key {
		case "path":
			k = 0
		case "file":
			k = 1
		case "for":
			k = 2
		case "needs":
			k = 3
		}
		switch {
		case k < 0:
			if !p.skip(0) {
				return "", nil, false
			}
		case seen[k]:
			return "", nil, false
		case k == 3:
			seen[3] = true
			if needs, ok = p.needList(needs); !ok {
				return "", nil, false
			}
		default:
			seen[k] = true
			if !p.at('"') {
				return "", nil, false
			}
			if attr[k], ok = p.str(); !ok {
				return "", nil, false
			}
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if !p.eat('}') || !seen[3] {
			return "", nil, false
		}
		break
	}
	file := ""
	for k := range 3 {
		if seen[k] {
			file = normalizeAttribution(attr[k])
			break
		}
	}
	return file, needs, true
}

// needList reads a needs array of paths and {op, path, file?, for?} objects.
func (p *fastParser) needList(needs []fastNeed) ([]fastNeed, bool) {
	if !p.eat('[') {
		return nil, false
	}
	p.ws()
	if p.eat(']') {
		return needs, true
	}
	for {
		p.ws()
		switch {
		case p.at('"'):
			s, ok := p.str()
			if !ok {
				return nil, false
			}
			needs = append(needs, fastNeed{path: s})
		case p.at('{'):
			n, ok := p.needObject()
			if !ok {
				return nil, false
			}
			needs = append(needs, n)
		default:
			return nil, false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if !p.eat(']') {
			return nil, false
		}
		return needs, true
	}
}

// needObject reads {"op": "...", "path": "...", "file"|"for": "..."}: op
// may be missing, path may not.
func (p *fastParser) needObject() (fastNeed, bool) {
	p.i++ // '{'
	var n fastNeed
	var val [4]string // op, path, file, for
	var seen [4]bool
	p.ws()
	if p.eat('}') {
		return n, false
	}
	for {
		p.ws()
		key, ok := p.key()
		if !ok {
			return n, false
		}
		k := -1
		switch key {
		case "op":
			k = 0
		case "path":
			k = 1
		case "file":
			k = 2
		case "for":
			k = 3
		}
		if k < 0 {
			if !p.skip(0) {
				return n, false
			}
		} else {
			if seen[k] || !p.at('"') {
				return n, false
			}
			seen[k] = true
			if val[k], ok = p.str(); !ok {
				return n, false
			}
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if !p.eat('}') || !seen[1] {
			return n, false
		}
		break
	}
	n.op, n.path = val[0], val[1]
	switch {
	case seen[2]:
		n.file = normalizeAttribution(val[2])
	case seen[3]:
		n.file = normalizeAttribution(val[3])
	}
	return n, true
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) at(c byte) bool { return p.i < len(p.b) && p.b[p.i] == c }

func (p *fastParser) eat(c byte) bool {
	if p.at(c) {
		p.i++
		return true
	}
	return false
}

// key reads an object key and its colon.
func (p *fastParser) key() (string, bool) {
	if !p.at('"') {
		return "", false
	}
	k, ok := p.str()
	if !ok {
		return "", false
	}
	p.ws()
	if !p.eat(':') {
		return "", false
	}
	p.ws()
	return k, true
}

// str reads a string. Plain ASCII is copied as it stands; a string with
// escapes or other bytes is decoded by encoding/json, as the generic path
// decodes it (invalid UTF-8 becomes U+FFFD).
func (p *fastParser) str() (string, bool) {
	start := p.i
	end, plain, ok := p.scanString()
	if !ok {
		return "", false
	}
	if plain {
		return p.s[start+1 : end-1], true
	}
	var s string
	if json.Unmarshal(p.b[start:end], &s) != nil {
		return "", false
	}
	return s, true
}

// scanString moves past the string at p.i, checking its escapes; plain is
// false when it holds an escape or a byte outside printable ASCII.
func (p *fastParser) scanString() (end int, plain, ok bool) {
	b := p.b
	i := p.i + 1
	plain = true
	for i < len(b) {
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			return p.i, plain, true
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			if c >= 0x80 {
				plain = false
			}
			i++
		}
	}
	return 0, false, false
}

// plainByte marks the bytes a string holds as they stand: printable
// ASCII other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skip moves past one value, checking it.
func (p *fastParser) skip(depth int) bool {
	if depth > fastMaxDepth || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, _, ok := p.scanString()
		return ok
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if !p.at('"') {
				return false
			}
			if _, _, ok := p.scanString(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat('}')
		}
	case c == '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

func (p *fastParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

// number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) number() bool {
	b := p.b
	i := p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	p.i = i
	return true
}
