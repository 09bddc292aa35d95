package golang

import (
	"bytes"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/ident"
)

// The search for references reads every file git grep names for the
// changed names (some two thousand on a large range) to learn which of the
// names each holds and how (after a dot, before a colon). A file's distinct
// identifiers, and how each occurs, depend on its content only: they are
// listed once and kept across requests, and each request then checks the
// short list against its names instead of reading the file again.

// fileIdents is the distinct identifiers of a file (those wordSet.in
// reads: runs of goChars not starting with a digit) with how each occurs,
// and whether the file has a '$' byte anywhere.
type fileIdents struct {
	text   string   // the identifiers, one after another
	ends   []uint32 // the end of each identifier in text
	occ    []uint8  // how each occurs (occAny, occSelector, occKey)
	dollar bool
}

// identsOf returns the identifiers of the file at p with content src.
func identsOf(p string, src []byte) *fileIdents {
	return lexed.Cached("go/idents", p, src, func() (*fileIdents, int64) {
		fi := listIdents(src)
		return fi, int64(len(fi.text)+len(fi.ends)*5) + 64
	})
}

func listIdents(src []byte) *fileIdents {
	at := map[string]int{}
	var text strings.Builder
	fi := &fileIdents{dollar: bytes.IndexByte(src, '$') >= 0}
	for i := 0; ; {
		s, e, ok := ident.Next(src, i, goChars)
		if !ok {
			break
		}
		i = e
		occ := occurrence(src, s, e)
		if k, ok := at[string(src[s:e])]; ok {
			fi.occ[k] |= occ
			continue
		}
		at[string(src[s:e])] = len(fi.occ)
		text.Write(src[s:e])
		fi.ends = append(fi.ends, uint32(text.Len()))
		fi.occ = append(fi.occ, occ)
	}
	fi.text = text.String()
	return fi
}

// occurrence says how the identifier src[i:j] occurs: after a dot
// (occSelector), before a colon that is not := (occKey).
func occurrence(src []byte, i, j int) uint8 {
	occ := occAny
	if i > 0 && src[i-1] == '.' {
		occ |= occSelector
	}
	k := j
	for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	if k < len(src) && src[k] == ':' && (k+1 == len(src) || src[k+1] != '=') {
		occ |= occKey
	}
	return occ
}

// has reports whether w is one of the identifiers.
func (fi *fileIdents) has(w string) bool {
	from := uint32(0)
	for _, to := range fi.ends {
		if int(to-from) == len(w) && fi.text[from:to] == w {
			return true
		}
		from = to
	}
	return false
}

// inIdents is in(src, false) over a file's identifiers.
func (ws *wordSet) inIdents(fi *fileIdents) map[string]uint8 {
	var found map[string]uint8
	from := uint32(0)
	for k, to := range fi.ends {
		n := int(to - from)
		if n <= maxWord {
			w := fi.text[from:to]
			b := screenAt(n, w[0], w[n-1])
			if ws.screen[b/64]&(1<<(b%64)) != 0 && ws.words[w] {
				if found == nil {
					found = map[string]uint8{}
				}
				found[w] = fi.occ[k]
			}
		}
		from = to
	}
	return found
}

// containsIdent is ident.Contains(src, w, ident.Dollar|ident.Unicode) for
// an identifier w of head file p with content src: without a '$' in the
// file, the runs of identifier bytes are the same with '$' or without.
func (e *goEngine) containsIdent(p string, src []byte, w string) bool {
	if w == "" || w[0] >= '0' && w[0] <= '9' || ident.End(w, 0, goChars) != len(w) {
		return ident.Contains(src, w, ident.Dollar|ident.Unicode)
	}
	fi, ok := e.idents[p]
	if !ok {
		fi = identsOf(p, src)
		e.idents[p] = fi
	}
	if fi.dollar {
		return ident.Contains(src, w, ident.Dollar|ident.Unicode)
	}
	return fi.has(w)
}
