package ctext

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/ident"
)

// BlankClassMacros is the C++ source src with the export macros of its
// class heads blanked to spaces (class YAML_CPP_API Node : ... {, struct
// GTEST_API_ TestInfo {), so that every byte keeps its offset, line and
// column; nil when src has none. A grammar that does not expand macros
// reads such a head as a class named by the macro, and the class's name,
// its bases and its members as errors.
//
// A macro is a name of capitals, digits and underscores between class,
// struct or union and another name, which is followed by a base clause,
// a body, template arguments or final: struct STAT st; keeps its name.
func BlankClassMacros(src []byte) []byte {
	var out []byte // src's copy, made at the first macro blanked
	for _, kw := range [...][]byte{[]byte("class"), []byte("struct"), []byte("union")} {
		for i := 0; ; {
			k := bytes.Index(src[i:], kw)
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(kw)
			if at > 0 && ident.Unicode.IsByte(src[at-1]) {
				continue
			}
			mFrom := skipSpace(src, i)
			mTo := endOfName(src, mFrom)
			if mFrom == i || !macroName(src[mFrom:mTo]) {
				continue
			}
			nFrom := skipSpace(src, mTo)
			nTo := endOfName(src, nFrom)
			if nFrom == mTo || nTo == nFrom || !headFollows(src, nTo) {
				continue
			}
			if string(src[nFrom:nTo]) == "final" {
				continue // class NAME final: NAME is the class
			}
			if out == nil {
				out = bytes.Clone(src)
			}
			for j := mFrom; j < mTo; j++ {
				out[j] = ' '
			}
		}
	}
	return out
}

// macroName reports whether name is written as a macro: capitals, digits
// and underscores, with at least one capital and two bytes.
func macroName(name []byte) bool {
	if len(name) < 2 || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	capital := false
	for _, c := range name {
		switch {
		case c >= 'A' && c <= 'Z':
			capital = true
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return capital
}

// headFollows reports whether what follows src[i:] continues a class
// head: a base clause, a body, template arguments or final.
func headFollows(src []byte, i int) bool {
	i = skipSpace(src, i)
	if i >= len(src) {
		return false
	}
	switch src[i] {
	case ':':
		return i+1 >= len(src) || src[i+1] != ':'
	case '{', '<':
		return true
	}
	return bytes.HasPrefix(src[i:], []byte("final")) && !ident.Unicode.IsByte(at(src, i+5))
}

func at(src []byte, i int) byte {
	if i < len(src) {
		return src[i]
	}
	return 0
}

// skipSpace is the index of the first byte at or past i that is no space.
func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// endOfName is the end of the name starting at i (i when none does).
func endOfName(src []byte, i int) int {
	for i < len(src) && ident.Unicode.IsByte(src[i]) {
		i++
	}
	return i
}
