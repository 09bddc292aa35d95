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
// holds a small skeleton, a 64 KiB buffer and a bounded window of escaped
// strings (escapeWindow, escapeKeep). The API should answer
// /v1/context with it.
func (r ContextResult) WriteJSON(w io.Writer) error {
	// Marshal a skeleton whose large strings are unique placeholders.
	nonce := placeholderNonce()
	skel, big := r.skeleton(nonce)
	doc, err := json.Marshal(skel)
	if err != nil {
		return fmt.Errorf("encode context: %w", err)
	}
	spots, ok := findSpots(doc, nonce, len(big))
	if !ok {
		full, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode context: %w", err)
		}
		_, err = w.Write(full)
		return err
	}
	return writeSpliced(w, doc, spots, big)
}

// skeleton is r with each string of 256 bytes or more replaced by a
// placeholder naming its index in big.
func (r ContextResult) skeleton(nonce string) (ContextResult, []string) {
	var big []string
	hold := func(s *string) {
		if len(*s) < 256 {
			return
		}
		big = append(big, *s)
		*s = "\x00prscout:" + nonce + ":" + strconv.Itoa(len(big)-1) + "\x00"
	}
	holdFiles := func(fs []pipeline.ChangedFile) []pipeline.ChangedFile {
		out := append([]pipeline.ChangedFile(nil), fs...)
		if fs != nil && out == nil {
			out = []pipeline.ChangedFile{}
		}
		for i := range out {
			hold(&out[i].Diff)
			hold(&out[i].Source)
		}
		return out
	}
	skel := r
	skel.Files = holdFiles(r.Files)
	hold(&skel.ScoutPrompt.System)
	hold(&skel.ScoutPrompt.User)
	skel.Groups = append([]ContextGroup(nil), r.Groups...)
	for g := range skel.Groups {
		grp := &skel.Groups[g]
		grp.Files = holdFiles(grp.Files)
		hold(&grp.ScoutPrompt.System)
		hold(&grp.ScoutPrompt.User)
	}
	return skel, big
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

// writeSpliced writes doc with each spot replaced by its string, escaped.
// The large strings are escaped on every core, a window of them at a time
// (at most escapeWindow bytes of text, so memory stays bounded), and written
// in order. A text seen before (a group repeats its files' diffs and
// sources) is written from the escaped copy kept, within escapeKeep bytes.
func writeSpliced(w io.Writer, doc []byte, spots []spot, big []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	kept := map[string][]byte{}
	keptBytes := 0
	last := 0
	for i := 0; i < len(spots); {
		j, size := i, 0
		for j < len(spots) && (j == i || size+len(big[spots[j].k]) <= escapeWindow) {
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
			esc[x] = appendJSONString(make([]byte, 0, len(t)+len(t)/16+2), t)
		})
		for x, s := range spots[i:j] {
			bw.Write(doc[last:s.at])
			bw.Write(esc[x])
			last = s.end
			if t := big[s.k]; keptBytes+len(esc[x]) <= escapeKeep {
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

// escapeWindow bounds the text WriteJSON escapes at once; escapeKeep the
// escaped texts it keeps for their repeats (variables for the tests).
var (
	escapeWindow = 4 << 20
	escapeKeep   = 8 << 20
)

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

// appendJSONString appends s as a JSON string to dst exactly as
// encoding/json writes it with HTML escaping (its default): <, > and & as
// \u003c, \u003e and \u0026, control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
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
