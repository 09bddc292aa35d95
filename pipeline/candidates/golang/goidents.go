package golang

import (
	"bytes"
	"slices"
	"unsafe"

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
	// slots is an open-addressing table of the identifiers (index+1, by
	// identHash; 0: free), for has.
	slots []uint32
}

// identsOf returns the identifiers of the file at p with content src.
func (e *goEngine) identsOf(p string, src []byte) *fileIdents {
	return lexed.CachedAt(lexed.KeyAt("go/idents", p, e.sumOf(src)), func() (*fileIdents, int64) {
		fi := listIdents(src)
		return fi, int64(len(fi.text)+len(fi.ends)*5+len(fi.slots)*4) + 64
	})
}

func listIdents(src []byte) *fileIdents {
	fi := &fileIdents{dollar: bytes.IndexByte(src, '$') >= 0, slots: make([]uint32, 64)}
	var text []byte
	word := func(k uint32) []byte {
		from := uint32(0)
		if k > 0 {
			from = fi.ends[k-1]
		}
		return text[from:fi.ends[k]]
	}
	for i := 0; ; {
		s, e, ok := ident.Next(src, i, goChars)
		if !ok {
			break
		}
		i = e
		occ := occurrence(src, s, e)
		if fi.dollar && (s == 0 || src[s-1] != '$') && (e == len(src) || src[e] != '$') {
			occ |= occNoDollar
		}
		w := src[s:e]
		mask := uint32(len(fi.slots) - 1)
		j := identHash(w) & mask
		for fi.slots[j] != 0 && !bytes.Equal(word(fi.slots[j]-1), w) {
			j = (j + 1) & mask
		}
		if fi.slots[j] != 0 {
			fi.occ[fi.slots[j]-1] |= occ
			continue
		}
		text = append(text, w...)
		fi.ends = append(fi.ends, uint32(len(text)))
		fi.occ = append(fi.occ, occ)
		fi.slots[j] = uint32(len(fi.ends))
		if 2*len(fi.ends) > len(fi.slots) {
			fi.grow(word)
		}
	}
	fi.text = string(text)
	return fi
}

// grow doubles the table of slots.
func (fi *fileIdents) grow(word func(uint32) []byte) {
	fi.slots = make([]uint32, 2*len(fi.slots))
	mask := uint32(len(fi.slots) - 1)
	for k := range fi.ends {
		j := identHash(word(uint32(k))) & mask
		for fi.slots[j] != 0 {
			j = (j + 1) & mask
		}
		fi.slots[j] = uint32(k + 1)
	}
}

// identAt is where a file's identifiers occur: the offsets of identifier
// k of its fileIdents are at[first[k]:first[k+1]], ascending. It is listed
// for the files a search walks, once per content, so that the offsets of a
// request's names are a few lookups instead of a reading of the file.
type identAt struct {
	first []uint32
	at    []uint32
}

// identAtOf returns where the identifiers fi lists occur in src, the
// content of the file at p.
func (e *goEngine) identAtOf(p string, src []byte, fi *fileIdents) *identAt {
	return lexed.CachedAt(lexed.KeyAt("go/identat", p, e.sumOf(src)), func() (*identAt, int64) {
		ia := listIdentAt(src, fi)
		return ia, int64(len(ia.first)+len(ia.at))*4 + 48
	})
}

func listIdentAt(src []byte, fi *fileIdents) *identAt {
	var ks, offs []uint32
	first := make([]uint32, len(fi.ends)+1)
	for i := 0; ; {
		s, e, ok := ident.Next(src, i, goChars)
		if !ok {
			break
		}
		i = e
		k, ok := fi.index(unsafe.String(&src[s], e-s))
		if !ok {
			continue // not a listing of this content
		}
		ks, offs = append(ks, k), append(offs, uint32(s))
		first[k+1]++
	}
	for k := 1; k < len(first); k++ {
		first[k] += first[k-1]
	}
	ia := &identAt{first: first, at: make([]uint32, len(offs))}
	next := slices.Clone(first[:len(first)-1])
	for j, k := range ks {
		ia.at[next[k]] = offs[j]
		next[k]++
	}
	return ia
}

// offsets returns the sorted offsets at which one of names occurs as an
// identifier in the content fi and ia list: one reading of the file
// answers, for every part of it that starts and ends at a token's edge,
// whether wordSet.in would find a name there (namedIn).
func (fi *fileIdents) offsets(names map[string]bool, ia *identAt) []int {
	var out []int
	for name := range names {
		if len(name) == 0 || len(name) > maxWord {
			continue // never one of a wordSet's words
		}
		if k, ok := fi.index(name); ok {
			for _, o := range ia.at[ia.first[k]:ia.first[k+1]] {
				out = append(out, int(o))
			}
		}
	}
	slices.Sort(out)
	return out
}

// srcID names a content by where it is in memory: a request reads each
// file once and never changes what it read.
type srcID struct {
	data *byte
	n    int
}

// sumOf returns lexed.SumOf(src), computed once a request for each
// content however many readers key it.
func (e *goEngine) sumOf(src []byte) lexed.Sum {
	if len(src) == 0 {
		return lexed.SumOf(src)
	}
	id := srcID{unsafe.SliceData(src), len(src)}
	e.sumMu.Lock()
	s, ok := e.sums[id]
	e.sumMu.Unlock()
	if !ok {
		s = lexed.SumOf(src)
		e.sumMu.Lock()
		e.sums[id] = s
		e.sumMu.Unlock()
	}
	return s
}

// identHash is FNV-1a of w.
func identHash[T ~string | ~[]byte](w T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
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
	_, ok := fi.index(w)
	return ok
}

// index returns where w is in the list of identifiers.
func (fi *fileIdents) index(w string) (uint32, bool) {
	mask := uint32(len(fi.slots) - 1)
	for i := identHash(w) & mask; fi.slots[i] != 0; i = (i + 1) & mask {
		k := fi.slots[i] - 1
		from := uint32(0)
		if k > 0 {
			from = fi.ends[k-1]
		}
		if fi.text[from:fi.ends[k]] == w {
			return k, true
		}
	}
	return 0, false
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
				found[w] = fi.occ[k] &^ occNoDollar
			}
		}
		from = to
	}
	return found
}

// containsIdent is ident.Contains(src, w, ident.Dollar|ident.Unicode) for
// an identifier w of head file p with content src: without a '$' in the
// file, the runs of identifier bytes are the same with '$' or without;
// with one, w must occur once with no '$' beside it.
func (e *goEngine) containsIdent(p string, src []byte, w string) bool {
	if w == "" || w[0] >= '0' && w[0] <= '9' || ident.End(w, 0, goChars) != len(w) {
		return ident.Contains(src, w, ident.Dollar|ident.Unicode)
	}
	fi, ok := e.idents[p]
	if !ok {
		fi = e.identsOf(p, src)
		e.idents[p] = fi
	}
	k, ok := fi.index(w)
	return ok && (!fi.dollar || fi.occ[k]&occNoDollar != 0)
}
