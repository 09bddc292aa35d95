package sarif

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON tree with byte offsets, to find where a workflow node's code
// is written in an export: encoding/json's Decoder gives the tokens and the
// offset after each one.

type jsonKind int

const (
	kindOther jsonKind = iota // number, true, false, null
	kindString
	kindObject
	kindArray
)

type jsonNode struct {
	kind       jsonKind
	start, end int    // byte offsets of the value in the source; a string includes its quotes
	str        string // a string's decoded value
	keys       []string
	vals       []*jsonNode
	elems      []*jsonNode
}

// maxTreeDepth bounds nesting, so a hostile export cannot exhaust the stack.
const maxTreeDepth = 2000

var errTooDeep = errors.New("too deeply nested")

// parseTree parses src, or returns nil when it is not one JSON value.
func parseTree(src []byte) *jsonNode {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	n, err := parseValue(dec, src, 0)
	if err != nil {
		return nil
	}
	return n
}

// skipSeparators returns the offset of the next token at or after off.
func skipSeparators(src []byte, off int) int {
	for off < len(src) {
		switch src[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func parseValue(dec *json.Decoder, src []byte, depth int) (*jsonNode, error) {
	if depth > maxTreeDepth {
		return nil, errTooDeep
	}
	prev := int(dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jsonNode{start: skipSeparators(src, prev)}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = kindObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := parseValue(dec, src, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
		case '[':
			n.kind = kindArray
			for dec.More() {
				v, err := parseValue(dec, src, depth+1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		default:
			return nil, errors.New("unexpected delimiter")
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = kindString, t
	}
	n.end = int(dec.InputOffset())
	return n, nil
}

// get returns an object's value for key (the last one when repeated, as
// encoding/json decodes it).
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

// path follows a gate parameter path: keys joined by '.', array indexes as
// "[i]" ("options.body[0].value"). Keys may themselves hold dots: every
// key that is a prefix of the rest is tried.
func (n *jsonNode) path(p string) *jsonNode {
	if n == nil {
		return nil
	}
	if p == "" {
		return n
	}
	switch n.kind {
	case kindObject:
		for i := len(n.keys) - 1; i >= 0; i-- {
			k := n.keys[i]
			rest, ok := strings.CutPrefix(p, k)
			if !ok {
				continue
			}
			switch {
			case rest == "":
				return n.vals[i]
			case rest[0] == '.':
				if v := n.vals[i].path(rest[1:]); v != nil {
					return v
				}
			case rest[0] == '[':
				if v := n.vals[i].path(rest); v != nil {
					return v
				}
			}
		}
	case kindArray:
		if !strings.HasPrefix(p, "[") {
			return nil
		}
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return nil
		}
		i, err := strconv.Atoi(p[1:end])
		if err != nil || i < 0 || i >= len(n.elems) {
			return nil
		}
		return n.elems[i].path(strings.TrimPrefix(p[end+1:], "."))
	}
	return nil
}

// rawOffset maps a 1-based line and column (in code points) of a JSON
// string's decoded text, after its first skip code points, to the offset in
// raw (the string literal with its quotes) where that character is written.
// Lines break at \n, \r\n, \r, U+2028 and U+2029, as the gate counts them.
// The position just after the text maps to the closing quote.
func rawOffset(raw []byte, line, col, skip int) (int, bool) {
	if len(raw) < 2 || raw[0] != '"' || line < 1 || col < 1 {
		return 0, false
	}
	curLine, curCol := 1, 1
	i := 1
	for i < len(raw)-1 {
		r, size := decodeAt(raw, i)
		if skip > 0 {
			skip--
			i += size
			continue
		}
		if curLine == line && curCol == col {
			return i, true
		}
		switch r {
		case '\n', '\u2028', '\u2029':
			curLine, curCol = curLine+1, 1
		case '\r':
			if i+size < len(raw)-1 {
				if r2, size2 := decodeAt(raw, i+size); r2 == '\n' {
					size += size2
				}
			}
			curLine, curCol = curLine+1, 1
		default:
			curCol++
		}
		i += size
	}
	if curLine == line && curCol == col {
		return len(raw) - 1, true
	}
	return 0, false
}

// decodeAt decodes the character of a JSON string literal at raw[i]: an
// escape (a surrogate pair as one code point) or one UTF-8 sequence.
func decodeAt(raw []byte, i int) (rune, int) {
	if raw[i] != '\\' || i+1 >= len(raw) {
		r, size := utf8.DecodeRune(raw[i:])
		return r, size
	}
	switch raw[i+1] {
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'u':
		r1, ok := hex4(raw, i+2)
		if !ok {
			return utf8.RuneError, 2
		}
		if utf16.IsSurrogate(r1) && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			if r2, ok := hex4(raw, i+8); ok {
				if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
					return r, 12
				}
			}
		}
		return r1, 6
	}
	return rune(raw[i+1]), 2 // \" \\ \/
}

func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

// filePosition is the 1-based line and column (in code points) of byte
// offset off in src.
func filePosition(src []byte, off int) (int, int) {
	off = min(max(off, 0), len(src))
	before := src[:off]
	line := 1 + bytes.Count(before, []byte{'\n'})
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(src[lineStart:off]) + 1
}
