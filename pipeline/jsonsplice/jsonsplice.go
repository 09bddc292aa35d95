// Package jsonsplice writes a value as exactly the bytes json.Marshal gives,
// but streams its large strings straight into the writer instead of first
// building the whole document in memory: the caller marshals a skeleton in
// which each large string is a placeholder (Hold), and Write splices the
// strings back, escaped on every core a bounded window at a time.
package jsonsplice

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// MinLen is the length from which Hold replaces a string.
const MinLen = 256

// Splicer holds the large strings of one document.
type Splicer struct {
	// Window bounds the text escaped at once; Keep the escaped texts kept
	// for their repeats (a text seen before is written from its copy).
	Window, Keep int
	nonce        string
	big          []string
}

// New starts a document whose placeholders carry nonce, which content must
// not be able to guess.
func New(nonce string) *Splicer { return &Splicer{Window: 4 << 20, Keep: 8 << 20, nonce: nonce} }

// Hold replaces *p by a placeholder when it has MinLen bytes or more.
func (s *Splicer) Hold(p *string) {
	if len(*p) < MinLen {
		return
	}
	s.big = append(s.big, *p)
	*p = "\x00prscout:" + s.nonce + ":" + strconv.Itoa(len(s.big)-1) + "\x00"
}

// Write writes skel, whose large strings s holds, with each placeholder
// replaced by its string: whole's json.Marshal bytes. When a placeholder is
// not found exactly once (a small field happened to hold the same text), it
// writes json.Marshal(whole) instead.
func (s *Splicer) Write(w io.Writer, skel, whole any) error {
	doc, err := json.Marshal(skel)
	if err != nil {
		return err
	}
	spots, ok := findSpots(doc, s.nonce, len(s.big))
	if !ok {
		full, err := json.Marshal(whole)
		if err != nil {
			return err
		}
		_, err = w.Write(full)
		return err
	}
	return s.splice(w, doc, spots)
}

// spot is where a placeholder sits in the marshalled skeleton: doc[at:end]
// stands for big[k].
type spot struct{ at, end, k int }

// findSpots finds every placeholder (as json.Marshal escaped it) in one
// pass; each of the n must occur exactly once, or a small field happened to
// hold the same text and streaming gives up (false).
func findSpots(doc []byte, nonce string, n int) ([]spot, bool) {
	spots := make([]spot, 0, n)
	seen := make([]bool, n)
	prefix := []byte(`"\u0000prscout:` + nonce + ":")
	const tail = `\u0000"`
	for from := 0; ; {
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
		if err != nil || k < 0 || k >= n || seen[k] || !bytes.HasPrefix(doc[numEnd:], []byte(tail)) {
			return nil, false
		}
		seen[k] = true
		spots = append(spots, spot{at: at, end: numEnd + len(tail), k: k})
		from = numEnd + len(tail)
	}
	return spots, len(spots) == n
}

// splice writes doc with each spot replaced by its string, escaped.
// The large strings are escaped on every core, a window of them at a time
// (at most Window bytes of text, so memory stays bounded), and written
// in order. A text seen before (a group repeats its files' diffs and
// sources) is written from the escaped copy kept, within Keep bytes.
func (s *Splicer) splice(w io.Writer, doc []byte, spots []spot) error {
	big := s.big
	bw := bufio.NewWriterSize(w, 64<<10)
	kept := map[string][]byte{}
	keptBytes := 0
	last := 0
	for i := 0; i < len(spots); {
		j, size := i, 0
		for j < len(spots) && (j == i || size+len(big[spots[j].k]) <= s.Window) {
			size += len(big[spots[j].k])
			j++
		}
		esc := make([][]byte, j-i)
		pipeline.Parallel(j-i, func(x int) {
			t := big[spots[i+x].k]
			if b, ok := kept[t]; ok {
				esc[x] = b
				return
			}
			// Room for a quarter more: source escapes each tab and line
			// end (Go code grows ~9 %, past the sixteenth it had).
			esc[x] = AppendString(make([]byte, 0, len(t)+len(t)/4+2), t)
		})
		for x, sp := range spots[i:j] {
			bw.Write(doc[last:sp.at])
			bw.Write(esc[x])
			last = sp.end
			if t := big[sp.k]; keptBytes+len(esc[x]) <= s.Keep {
				if _, ok := kept[t]; !ok {
					kept[t] = esc[x]
					keptBytes += len(esc[x])
				}
			}
		}
		i = j
	}
	bw.Write(doc[last:])
	return bw.Flush()
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes AppendString copies as they are: printable
// ASCII but for '"', '\\' and the HTML-sensitive '<', '>', '&' (escaped as
// encoding/json escapes them). One table lookup per byte, not six
// comparisons: a context answer is megabytes of diff and source text.
var jsonPlain = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// AppendString appends s as a JSON string to dst exactly as
// encoding/json writes it with HTML escaping (its default): <, > and & as
// \u003c, \u003e and \u0026, control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if jsonPlain[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
