package collect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// WriteJSON writes r to w as exactly the bytes json.Marshal(r) gives, but
// streams the large strings (each file's diff and source, the scout prompt)
// straight into w instead of first building the whole document in memory.
// On a 20 MB change json.Marshal holds a buffer of about twice the answer
// (escaping and growth by doubling) on top of the result itself; WriteJSON
// holds only a small skeleton and a 64 KiB buffer. The API should answer
// /v1/context with it.
func (r ContextResult) WriteJSON(w io.Writer) error {
	// Marshal a skeleton whose large strings are unique placeholders.
	nonce := placeholderNonce()
	var big []string
	hold := func(s *string) {
		if len(*s) < 256 {
			return
		}
		big = append(big, *s)
		*s = "\x00prscout:" + nonce + ":" + strconv.Itoa(len(big)-1) + "\x00"
	}
	skel := r
	skel.Files = append([]pipeline.ChangedFile(nil), r.Files...)
	if r.Files != nil && skel.Files == nil {
		skel.Files = []pipeline.ChangedFile{}
	}
	for i := range skel.Files {
		hold(&skel.Files[i].Diff)
		hold(&skel.Files[i].Source)
	}
	hold(&skel.ScoutPrompt.System)
	hold(&skel.ScoutPrompt.User)
	skel.Groups = append([]ContextGroup(nil), r.Groups...)
	for g := range skel.Groups {
		grp := &skel.Groups[g]
		grp.Files = append([]pipeline.ChangedFile(nil), grp.Files...)
		if r.Groups[g].Files != nil && grp.Files == nil {
			grp.Files = []pipeline.ChangedFile{}
		}
		for i := range grp.Files {
			hold(&grp.Files[i].Diff)
			hold(&grp.Files[i].Source)
		}
		hold(&grp.ScoutPrompt.System)
		hold(&grp.ScoutPrompt.User)
	}
	doc, err := json.Marshal(skel)
	if err != nil {
		return fmt.Errorf("encode context: %w", err)
	}

	// Find every placeholder (as json.Marshal escaped it) in one pass; each
	// must occur exactly once, or a small field happened to hold the same
	// text and streaming gives up.
	type spot struct{ at, end, k int }
	spots := make([]spot, 0, len(big))
	seen := make([]bool, len(big))
	prefix := []byte(`"\u0000prscout:` + nonce + ":")
	ok := true
	for from := 0; ok; {
		at := bytes.Index(doc[from:], prefix)
		if at < 0 {
			break
		}
		at += from
		numStart := at + len(prefix)
		numEnd := numStart
		for numEnd < len(doc) && doc[numEnd] >= '0' && doc[numEnd] <= '9' {
			numEnd++
		}
		k, err := strconv.Atoi(string(doc[numStart:numEnd]))
		const tail = `\u0000"`
		if err != nil || k < 0 || k >= len(big) || seen[k] || !bytes.HasPrefix(doc[numEnd:], []byte(tail)) {
			ok = false
			break
		}
		seen[k] = true
		spots = append(spots, spot{at: at, end: numEnd + len(tail), k: k})
		from = numEnd + len(tail)
	}
	if !ok || len(spots) != len(big) {
		full, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode context: %w", err)
		}
		_, err = w.Write(full)
		return err
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	last := 0
	for _, s := range spots {
		bw.Write(doc[last:s.at])
		writeJSONString(bw, big[s.k])
		last = s.end
	}
	bw.Write(doc[last:])
	return bw.Flush()
}

// placeholderNonce makes WriteJSON's placeholders unguessable, so content
// cannot imitate them (tests replace it).
var placeholderNonce = func() string { return strconv.FormatUint(rand.Uint64(), 36) }

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes writeJSONString copies as they are: printable
// ASCII but for '"', '\\' and the HTML-sensitive '<', '>', '&' (escaped as
// encoding/json escapes them). One table lookup per byte, not six
// comparisons: a context answer is megabytes of diff and source text.
var jsonPlain = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// writeJSONString writes s as a JSON string exactly as encoding/json does
// with HTML escaping (its default): <, > and & as \u003c, \u003e and \u0026,
// control characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped. Write errors surface at Flush.
func writeJSONString(w *bufio.Writer, s string) {
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if jsonPlain[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			w.WriteString(s[start:i])
			switch b {
			case '\\', '"':
				w.WriteByte('\\')
				w.WriteByte(b)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hexDigits[b>>4])
				w.WriteByte(hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			w.WriteString(s[start:i])
			w.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			w.WriteString(s[start:i])
			w.WriteString(`\u202`)
			w.WriteByte(hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}
