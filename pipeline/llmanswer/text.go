package llmanswer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// thinkInfo says what stripThink removed.
type thinkInfo struct {
	blocks    int
	bytes     int
	cutInside bool // the text ended inside a block
}

var thinkTags = []struct{ open, close string }{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<reasoning>", "</reasoning>"},
}

// stripThink removes reasoning blocks: <think>…</think> (and <thinking>,
// <reasoning>). An opening tag counts only at the start of a line, so a tag
// quoted inside a JSON string stays. A closing tag with no opening tag
// anywhere before it ends a block the chat template opened (DeepSeek R1
// style) when it ends its line. An unclosed block runs to the end of the text: the
// model was cut off while thinking.
func stripThink(t string) (string, thinkInfo) {
	var info thinkInfo
	if !strings.Contains(t, "</") && !strings.Contains(t, "<think") && !strings.Contains(t, "<reasoning") {
		return t, info
	}
	for _, tag := range thinkTags {
		if c := indexLineEnd(t, tag.close); c >= 0 {
			if o := strings.Index(t, tag.open); o < 0 || o > c {
				end := c + len(tag.close)
				info.blocks++
				info.bytes += end
				t = t[end:]
			}
		}
		var b strings.Builder
		rest := t
		changed := false
		for {
			o := indexLineStart(rest, tag.open)
			if o < 0 {
				break
			}
			changed = true
			b.WriteString(rest[:o])
			c := strings.Index(rest[o:], tag.close)
			info.blocks++
			if c < 0 {
				info.bytes += len(rest) - o
				info.cutInside = true
				rest = ""
				break
			}
			end := o + c + len(tag.close)
			info.bytes += end - o
			rest = rest[end:]
		}
		if changed {
			b.WriteString(rest)
			t = b.String()
		}
	}
	return t, info
}

// indexLineStart returns the first index of tag in t that starts a line
// (only spaces or tabs before it on its line), or -1.
func indexLineStart(t, tag string) int {
	off := 0
	for {
		i := strings.Index(t[off:], tag)
		if i < 0 {
			return -1
		}
		i += off
		j := i
		for j > 0 && (t[j-1] == ' ' || t[j-1] == '\t') {
			j--
		}
		if j == 0 || t[j-1] == '\n' {
			return i
		}
		off = i + len(tag)
	}
}

// indexLineEnd returns the first index of tag in t that ends a line (only
// spaces before the newline or the end of the text), or -1.
func indexLineEnd(t, tag string) int {
	off := 0
	for {
		i := strings.Index(t[off:], tag)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(tag)
		for j < len(t) && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r') {
			j++
		}
		if j == len(t) || t[j] == '\n' {
			return i
		}
		off = i + len(tag)
	}
}

// segment is a part of a text: prose, or the body of a fenced block.
type segment struct {
	text   string
	fenced bool
	closed bool   // fenced: a closing fence was found
	info   string // fenced: the info string's first word, lower case
	before string // prose just before the block (for example cues)
}

// splitFences splits t into prose and fenced blocks, line by line as
// CommonMark does: an opening fence is a line of three or more backticks or
// tildes (any indentation) and an info string; the block closes at a line
// of at least as many of the same character and nothing else, so a ```
// line inside a ```` block, or a ```go line, does not close it. An unclosed
// block runs to the end of the text.
func splitFences(t string) []segment {
	var segs []segment
	pos, prose, blocks := 0, 0, 0
	for pos < len(t) && blocks < maxBlocks {
		lineEnd, next := line(t, pos)
		ch, n, info, ok := openingFence(t[pos:lineEnd])
		if !ok {
			pos = next
			continue
		}
		body, bodyEnd, after, closed := next, len(t), len(t), false
		for p := body; p < len(t); {
			le, nx := line(t, p)
			if closingFence(t[p:le], ch, n) {
				bodyEnd, after, closed = p, nx, true
				break
			}
			p = nx
		}
		before := t[prose:pos]
		if prose < pos {
			segs = append(segs, segment{text: before})
		}
		segs = append(segs, segment{text: t[body:bodyEnd], fenced: true, closed: closed, info: info, before: before})
		blocks++
		pos, prose = after, after
	}
	if prose < len(t) {
		segs = append(segs, segment{text: t[prose:]})
	}
	return segs
}

// line returns the end of the line starting at pos (without its newline)
// and the start of the next one.
func line(t string, pos int) (end, next int) {
	i := strings.IndexByte(t[pos:], '\n')
	if i < 0 {
		return len(t), len(t)
	}
	return pos + i, pos + i + 1
}

func openingFence(l string) (ch byte, n int, info string, ok bool) {
	l = strings.TrimLeft(l, " \t")
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return 0, 0, "", false
	}
	ch = l[0]
	for n < len(l) && l[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	rest := strings.TrimSpace(l[n:])
	if ch == '`' && strings.IndexByte(rest, '`') >= 0 {
		return 0, 0, "", false
	}
	if f := strings.Fields(rest); len(f) > 0 {
		info = strings.ToLower(f[0])
	}
	return ch, n, info, true
}

func closingFence(l string, ch byte, n int) bool {
	l = strings.TrimSpace(l)
	if len(l) < n {
		return false
	}
	for i := 0; i < len(l); i++ {
		if l[i] != ch {
			return false
		}
	}
	return true
}

// jsonInfo reports whether a fence's info string allows a JSON block: JSON
// and its dialects, no language, plain text, diff, JavaScript and Python
// (whose object literals models write for JSON).
func jsonInfo(info string) bool {
	switch info {
	case "", "json", "jsonc", "json5", "jsonl", "ndjson", "text", "txt", "plaintext", "diff", "patch",
		"javascript", "js", "typescript", "ts", "python", "py", "markdown", "md", "output", "response", "answer":
		return true
	}
	return false
}

// undiff reads a diff hunk back into the text it adds: '+' and ' ' lines
// without their mark, '-' lines and headers dropped. ok is false when s
// does not look like a diff (some line is not a diff line, or no line adds).
func undiff(s string) (string, bool) {
	adds := 0
	for rest := s; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		switch l[0] {
		case '+':
			if !strings.HasPrefix(l, "+++") {
				adds++
			}
		case '-', ' ', '@', '\\':
		default:
			return "", false
		}
	}
	if adds == 0 {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s))
	for rest := s; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "\\"):
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, " "):
			b.WriteString(l[1:])
			b.WriteByte('\n')
		case strings.HasPrefix(l, "-"):
		default:
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String(), true
}

var errLexer = errors.New("the lexer could not rewrite the block into JSON")

// search finds the JSON blocks of one text and keeps those with the
// expected shape.
type search struct {
	r      *reader
	tries  int
	blocks int // JSON values decoded (objects and arrays)
	failed int // blocks that looked like JSON but did not decode, even repaired
	// attempts counts decoded blocks that read as an attempt at JSON: a
	// fenced block, a repaired one, an object with keys, an array holding
	// more than numbers. Citations such as [1] and an empty {} in prose,
	// decoded as written, are not.
	attempts int
	// truncated: the search stopped at maxTries with brackets left.
	truncated bool
	matches   []candidate
	others    []string // labels of blocks without the expected shape, for warnings
}

// candidate is a JSON block with the expected shape.
type candidate struct {
	n          int // its number among the JSON blocks (1-based)
	fenced     bool
	info       string
	whole      bool // it spans the whole text
	example    bool // the prose before it, or its values, read as an example
	value      any
	quality    Quality
	cut        bool
	unfinished []string
	fixes      []string
	library    bool
}

// scan tries the blocks of t; atEnd says that t ends where the answer ends.
func (s *search) scan(t string, atEnd bool, depth int) {
	segs := splitFences(t)
	for k, seg := range segs {
		last := k == len(segs)-1
		if seg.fenced {
			s.fenced(seg, atEnd && !seg.closed, depth)
			continue
		}
		s.prose(seg.text, atEnd && last, len(segs) == 1)
	}
}

func (s *search) fenced(seg segment, atEnd bool, depth int) {
	if !jsonInfo(seg.info) {
		return
	}
	if s.tries >= maxTries {
		s.truncated = true
		return
	}
	body := seg.text
	if d, ok := undiff(body); ok {
		body = d
		s.r.warn("read the JSON out of a diff block (its added lines)")
	}
	trimmed := strings.TrimSpace(body)
	if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") || seg.info == "markdown" || seg.info == "md" {
		if depth < maxFenceDepth {
			s.scan(trimmed, atEnd, depth+1)
		}
		return
	}
	i := strings.IndexAny(body, "{[")
	if i < 0 {
		return
	}
	s.tries++
	c := candidate{fenced: true, info: seg.info, example: exampleCue(seg.before)}
	s.try(body[i:], atEnd, false, c)
}

// prose tries each '{' or '[' of prose that may start a JSON value. A value
// that closes is skipped whole (what is inside it is not tried again); one
// that runs to the end is skipped whole only when it was taken.
func (s *search) prose(t string, atEnd, only bool) {
	for i := 0; i < len(t); {
		k := strings.IndexAny(t[i:], "{[")
		if k < 0 {
			return
		}
		if s.tries >= maxTries {
			s.truncated = true
			return
		}
		i += k
		s.tries++
		before := t[max(0, i-200):i]
		c := candidate{example: exampleCue(before), whole: only && strings.TrimSpace(t[:i]) == ""}
		n, taken := s.try(t[i:], atEnd, true, c)
		switch {
		case n > 0:
			i += n
		case taken:
			return
		default:
			i++
		}
	}
}

// try reads one block starting at src[0] ('{' or '['); prose blocks are
// repaired only when they look like JSON. It returns the length of the
// value when it closed (0 when it ran to the end or did not read), and
// whether it had the expected shape.
func (s *search) try(src string, atEnd, prose bool, c candidate) (int, bool) {
	r := s.r
	if r.work <= 0 {
		return 0, false
	}
	v, n, err := decodePrefix(src)
	if !r.spend(n) {
		return 0, false
	}
	if err == nil {
		if !isContainer(v) {
			return n, false
		}
		c.quality = Clean
		if c.whole && strings.TrimSpace(src[n:]) != "" {
			c.whole = false
		}
		return n, s.consider(c, v)
	}
	if prose && !looksLikeJSON(src) {
		return 0, false
	}
	if r.work <= 0 {
		return 0, false
	}
	l := lexValue(src, true)
	r.spend(l.end())
	var out string // the repair library's output, when it was used
	if l.tooDeep {
		s.failed++
		r.warn(fmt.Sprintf("a block nests deeper than %d levels: not read", maxDepth))
		return 0, false
	}
	end := l.end()
	closed := 0
	if l.balanced {
		closed = end
		if c.whole && strings.TrimSpace(src[end:]) != "" {
			c.whole = false
		}
	}
	c.cut = !l.balanced && atEnd
	if l.bad {
		// The lexer met what it does not repair, so its view of the
		// nesting may be wrong; the block is then taken as cut when it
		// ends at the end of the answer on anything but a closing
		// bracket ("he sa", "line": 4, a comma).
		tail := strings.TrimRight(src[:end], " \t\r\n")
		c.cut = atEnd && tail != "" && !strings.HasSuffix(tail, "}") && !strings.HasSuffix(tail, "]")
	}
	c.quality = Repaired
	err = errLexer
	if !l.bad {
		v, err = decodeWhole(l.out)
	}
	if err != nil {
		block := strings.TrimSpace(src[:end])
		if len(block) > maxLibraryBytes || r.library+len(block) > maxLibraryTotal {
			s.failed++
			return closed, false
		}
		r.library += len(block)
		var ok bool
		out, ok = libraryRepair(block)
		if !ok {
			s.failed++
			return closed, false
		}
		if v, err = decodeWhole([]byte(out)); err != nil || !isContainer(v) {
			s.failed++
			return closed, false
		}
		c.library = true
	} else {
		c.fixes = l.fixes.names()
	}
	if !isContainer(v) {
		return closed, false
	}
	if c.cut {
		path := l.path
		if c.library {
			path = lastValuePath(out)
		}
		c.unfinished = resolve(v, path)
	}
	return closed, s.consider(c, v)
}

// consider counts a decoded block and keeps it when it has the shape.
func (s *search) consider(c candidate, v any) bool {
	s.blocks++
	if c.fenced || c.quality != Clean || jsonAttempt(v) {
		s.attempts++
	}
	c.n = s.blocks
	if !s.r.shape(v) {
		s.others = append(s.others, strconv.Itoa(c.n))
		return false
	}
	if !c.example && hasPlaceholders(v, 64) {
		c.example = true
	}
	c.value = v
	s.matches = append(s.matches, c)
	return true
}

// jsonAttempt reports whether a value decoded from prose reads as an
// attempt at JSON rather than a citation ([1], [2, 3]) or an empty {}.
func jsonAttempt(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) > 0
	case []any:
		for _, e := range x {
			switch e.(type) {
			case string, map[string]any, []any:
				return true
			}
		}
	}
	return false
}

// choose takes the last match that does not read as an example (the last
// of all when each does): a model that shows the format first, or corrects
// itself, ends with its answer, and a cut answer is cut at its end.
func (s *search) choose() {
	if len(s.matches) == 0 {
		return
	}
	pick := len(s.matches) - 1
	for k := len(s.matches) - 1; k >= 0; k-- {
		if !s.matches[k].example {
			pick = k
			break
		}
	}
	c := s.matches[pick]
	label := "block " + strconv.Itoa(c.n) + " of " + strconv.Itoa(s.blocks) + ", in prose"
	switch {
	case c.whole && s.blocks == 1:
		label = "whole answer"
	case c.fenced:
		label = "fenced block " + strconv.Itoa(c.n) + " of " + strconv.Itoa(s.blocks)
		if c.info != "" {
			label += " (" + c.info + ")"
		}
	}
	r := s.r
	if s.blocks > 1 {
		var why string
		var examples []string
		for _, m := range s.matches {
			if m.example && m.n != c.n {
				examples = append(examples, strconv.Itoa(m.n))
			}
		}
		switch {
		case len(s.matches) == 1:
			why = "the only one with the expected shape"
		case c.example:
			why = "the last with the expected shape; every one reads as an example"
		case pick < len(s.matches)-1:
			why = "the last with the expected shape that does not read as an example (block " + strings.Join(examples, ", ") + " does)"
		case len(examples) > 0:
			why = "the last with the expected shape (block " + strings.Join(examples, ", ") + " reads as an example)"
		default:
			why = "the last with the expected shape"
		}
		r.warn(fmt.Sprintf("the answer held %d JSON blocks; took block %d, %s", s.blocks, c.n, why))
	}
	if len(c.fixes) > 0 {
		r.warn("the JSON was repaired: " + strings.Join(c.fixes, ", "))
	}
	if c.library {
		r.warn("the JSON was repaired by the repair library")
	}
	if c.cut {
		msg := "the answer was cut off inside its JSON"
		if k := len(c.unfinished); k > 1 {
			msg += ", in " + c.unfinished[k-1]
		}
		r.warn(msg)
	}
	r.taken = &match{value: c.value, quality: c.quality, cut: c.cut, unfinished: c.unfinished, block: label}
}

// exampleCue reports whether the prose just before a block introduces it
// as an example or a format to follow.
func exampleCue(before string) bool {
	if i := strings.LastIndex(before, "\n\n"); i >= 0 {
		before = before[i+2:]
	}
	if len(before) > 200 {
		before = before[len(before)-200:]
	}
	b := strings.ToLower(before)
	for _, cue := range []string{"example", "e.g.", "for instance", "template", "schema", "sample"} {
		if strings.Contains(b, cue) {
			return true
		}
	}
	return false
}

// hasPlaceholders reports whether v holds template values ("<path>", "...",
// "path/to/file", "string"), looking at no more than budget strings.
func hasPlaceholders(v any, budget int) bool {
	found := false
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if found || budget <= 0 || depth > 8 {
			return
		}
		switch x := v.(type) {
		case string:
			budget--
			t := strings.TrimSpace(x)
			if t == "..." || t == "string" || t == "<string>" || strings.Contains(t, "path/to/") ||
				(len(t) > 2 && t[0] == '<' && t[len(t)-1] == '>' && strings.Count(t, "<") == 1 && !strings.Contains(t, "\n")) {
				found = true
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case map[string]any:
			for _, e := range x {
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return found
}

// looksLikeJSON reports whether prose at a '{' or '[' may start a JSON
// value: the next non-space byte begins a key, a string, a value or a
// closing bracket ("{see below}" does not; "{'a': 1}", "{a: 1}" do).
func looksLikeJSON(s string) bool {
	i := 1
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i >= len(s) {
		return true // cut right after the bracket
	}
	c := s[i]
	if q, _ := smartQuote(s, i); q != 0 {
		return true
	}
	if c == '\\' && i+1 < len(s) && s[i+1] == '"' {
		return true // JSON escaped once too often: {\"a\": 1}
	}
	switch c {
	case '{', '[', '}', ']':
		return true
	}
	if s[0] == '[' {
		return c == '-' || '0' <= c && c <= '9' || strings.HasPrefix(s[i:], "true") ||
			strings.HasPrefix(s[i:], "false") || strings.HasPrefix(s[i:], "null")
	}
	// An unquoted key: a word, then a colon.
	j := i
	for j < len(s) && (isWordByte(s[j]) && s[j] != '.') {
		j++
	}
	if j == i {
		return false
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j < len(s) && s[j] == ':'
}

// resolve turns the lexer's path into JSON pointers into v: for each step
// the container reached, outermost first, then the innermost unfinished
// value when it is in v.
func resolve(v any, path []step) []string {
	out := []string{""}
	ptr := ""
	cur := v
	for _, st := range path {
		switch x := cur.(type) {
		case []any:
			if !st.isIndex || len(x) == 0 {
				return out
			}
			ptr += "/" + strconv.Itoa(len(x)-1)
			cur = x[len(x)-1]
		case map[string]any:
			e, ok := x[st.key]
			if st.isIndex || !ok {
				return out
			}
			ptr += "/" + escapePointer(st.key)
			cur = e
		default:
			return out
		}
		out = append(out, ptr)
	}
	return out
}

// lastValuePath returns the path to the value that starts last in the JSON
// text js: where the repair library closed a cut answer. It stands in for
// the lexer's path when the lexer could not follow the block.
func lastValuePath(js string) []step {
	type level struct {
		obj       bool
		expectKey bool
		key       string
	}
	var stack []level
	var path, last []step
	dec := json.NewDecoder(strings.NewReader(js))
	for {
		tok, err := dec.Token()
		if err != nil {
			return last
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].expectKey = true
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
			stack[n-1].key, _ = tok.(string)
			stack[n-1].expectKey = false
			continue
		}
		// A value starts: its path is the containers' steps and its own.
		var st []step
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				st = append(append(st, path...), step{key: stack[n-1].key})
			} else {
				st = append(append(st, path...), step{isIndex: true})
			}
			last = st
		}
		if d, ok := tok.(json.Delim); ok {
			path = st
			stack = append(stack, level{obj: d == '{', expectKey: d == '{'})
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expectKey = true
		}
	}
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
