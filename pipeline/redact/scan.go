package redact

// The keyword pre-filter: one pass over the text finds, for each line, the
// literal keywords that occur in it and so the rules worth running on it
// (as gitleaks does per rule, but for all rules in one pass and without
// lower-casing a copy of the text). Keywords are located through a table of
// their first two bytes, folded to lower case, so most bytes cost one table
// look-up.

// lineMatch says which rules a line's keywords select.
type lineMatch struct {
	tokens  uint64 // bit i: tokenRules[i]
	generic bool   // a name keyword of the name/value parser
	longRun bool   // a run of longRunMin base64url characters (keyword-less token rules)
}

// longRunMin is the shortest run of [A-Za-z0-9_-] that selects the token
// rules without a keyword (Discord, Telegram): both hold a run this long.
const longRunMin = 24

// keyword is one literal of the pre-filter.
type keyword struct {
	text    string // lower case when fold
	fold    bool   // match regardless of ASCII case
	tokens  uint64 // token rules it selects
	generic bool   // selects the name/value parser
}

// genericKeywords select the name/value parser and the rules for
// credentials in URLs and headers (matched regardless of case).
var genericKeywords = []string{"pass", "pwd", "pw", "secret", "token", "key", "cred", "auth"}

var (
	keywords []keyword
	// bigram maps the folded first two bytes of a keyword to 1 + an index
	// into bigramKeys (0: no keyword starts so).
	bigram     [1 << 16]uint16
	bigramKeys [][]int32
	// bigramNext, per bigramKeys slot, has bit c set when a keyword of the
	// slot has the folded third byte c (every bit for a two-byte keyword):
	// most bigram hits ("se" of "set", "at" of "attr") end there.
	bigramNext [][4]uint64
	// bigramSet has bit a<<8|b set when bigram[a<<8|b] != 0: 8 KiB that
	// stay in the L1 cache, where bigram itself does not.
	bigramSet [1 << 13]byte
	foldTable [256]byte
	runByte   [256]bool
	// scanTable is foldTable[c] in its low byte and, in its sign bit,
	// whether c is a run byte: one load per byte in the scan loop.
	scanTable [256]int32
)

func init() {
	for c := range 256 {
		foldTable[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			foldTable[c] = byte(c + 'a' - 'A')
		}
		runByte[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		scanTable[c] = int32(foldTable[c])
		if runByte[c] {
			scanTable[c] |= -1 << 31
		}
	}
	index := map[string]int{} // keyword text+fold -> index in keywords
	addKeyword := func(text string, fold bool, tokens uint64, generic bool) {
		if fold {
			text = foldASCII(text)
		}
		id := text
		if fold {
			id = "\x00" + text
		}
		if i, ok := index[id]; ok {
			keywords[i].tokens |= tokens
			keywords[i].generic = keywords[i].generic || generic
			return
		}
		index[id] = len(keywords)
		keywords = append(keywords, keyword{text: text, fold: fold, tokens: tokens, generic: generic})
	}
	for i, r := range tokenRules {
		for _, k := range r.keywords {
			addKeyword(k, false, 1<<uint(i), false)
		}
	}
	for _, k := range genericKeywords {
		addKeyword(k, true, 0, true)
	}
	for i, k := range keywords {
		if len(k.text) < 2 {
			panic("redact: keyword shorter than two bytes: " + k.text)
		}
		key := uint16(foldTable[k.text[0]])<<8 | uint16(foldTable[k.text[1]])
		if bigram[key] == 0 {
			bigramKeys = append(bigramKeys, nil)
			bigramNext = append(bigramNext, [4]uint64{})
			bigram[key] = uint16(len(bigramKeys))
		}
		slot := bigram[key] - 1
		bigramKeys[slot] = append(bigramKeys[slot], int32(i))
		if len(k.text) == 2 {
			bigramNext[slot] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		} else {
			c := foldTable[k.text[2]]
			bigramNext[slot][c>>6] |= 1 << (c & 63)
		}
		bigramSet[key>>3] |= 1 << (key & 7)
	}
}

// foldASCII lower-cases ASCII letters only, keeping byte offsets.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = foldTable[c]
	}
	return string(b)
}

// hasAt reports whether k occurs in s at i.
func (k *keyword) hasAt(s string, i int) bool {
	if len(s)-i < len(k.text) {
		return false
	}
	if !k.fold {
		return s[i:i+len(k.text)] == k.text
	}
	for j := 0; j < len(k.text); j++ {
		if foldTable[s[i+j]] != k.text[j] {
			return false
		}
	}
	return true
}

// scanner holds the per-call buffers of Secrets.
type scanner struct {
	reps []replacement
}

// lines calls fn for each line of s (without its '\n') in which a keyword
// or a long base64url run occurs, with the rules they select.
func (sc *scanner) lines(s string, fn func(from, to int, m lineMatch)) {
	var m lineMatch
	hit := false
	start, run := 0, 0
	prev := uint16('\n') // the folded byte before i; no keyword starts with '\n'
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			if hit {
				fn(start, i, m)
				m, hit = lineMatch{}, false
			}
			start, run, prev = i+1, 0, '\n'
			continue
		}
		e := scanTable[c]
		run = (run + 1) & int(e>>31) // e>>31 is -1 for run bytes, 0 for others
		if run >= longRunMin && !m.longRun {
			m.longRun, hit = true, true
		}
		f := uint16(e & 0xff)
		key := prev<<8 | f
		prev = f
		if bigramSet[key>>3]&(1<<(key&7)) == 0 {
			continue
		}
		slot := bigram[key] - 1
		if i+1 < len(s) {
			if c := foldTable[s[i+1]]; bigramNext[slot][c>>6]&(1<<(c&63)) == 0 {
				continue
			}
		}
		for _, ki := range bigramKeys[slot] {
			k := &keywords[ki]
			if k.hasAt(s, i-1) {
				m.tokens |= k.tokens
				m.generic = m.generic || k.generic
				hit = true
			}
		}
	}
	if hit {
		fn(start, len(s), m)
	}
}
