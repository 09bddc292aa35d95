package engine

// A file's distinct identifiers, listed once per content and kept (Cache):
// a search that reads every file grep names for a request's names checks
// each file's short list against its names instead of reading the file
// again.

import (
	"bytes"

	"github.com/prscout/prscout/pipeline/ident"
)

// How an identifier occurs (Occurrence).
const (
	OccAny      uint8 = 1 << iota
	OccSelector       // after a dot: x.Name or pkg.Name
	OccKey            // before a colon: a composite literal key Name: v
)

// Idents is the distinct identifiers of a file (runs of its reader's
// identifier bytes not starting with a digit, ident.Next).
type Idents struct {
	text string   // the identifiers, one after another
	ends []uint32 // the end of each identifier in text
	// slots is an open-addressing table of the identifiers (index+1, by
	// identHash; 0: free), for has.
	slots []uint32
}

// ListIdents lists the distinct identifiers of src, made of chars.
func ListIdents(src []byte, chars ident.Chars) *Idents {
	fi := &Idents{slots: make([]uint32, 64)}
	var text []byte
	word := func(k uint32) []byte {
		from := uint32(0)
		if k > 0 {
			from = fi.ends[k-1]
		}
		return text[from:fi.ends[k]]
	}
	for i := 0; ; {
		s, e, ok := ident.Next(src, i, chars)
		if !ok {
			break
		}
		i = e
		w := src[s:e]
		mask := uint32(len(fi.slots) - 1)
		j := identHash(w) & mask
		for fi.slots[j] != 0 && !bytes.Equal(word(fi.slots[j]-1), w) {
			j = (j + 1) & mask
		}
		if fi.slots[j] != 0 {
			continue
		}
		text = append(text, w...)
		fi.ends = append(fi.ends, uint32(len(text)))
		fi.slots[j] = uint32(len(fi.ends))
		if 2*len(fi.ends) > len(fi.slots) {
			fi.grow(word)
		}
	}
	fi.text = string(text)
	return fi
}

// grow doubles the table of slots.
func (fi *Idents) grow(word func(uint32) []byte) {
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

// identHash is FNV-1a of w.
func identHash[T ~string | ~[]byte](w T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

// Occurrence says how the identifier src[i:j] occurs: after a dot
// (OccSelector), before a colon that is not := (OccKey).
func Occurrence(src []byte, i, j int) uint8 {
	occ := OccAny
	if i > 0 && src[i-1] == '.' {
		occ |= OccSelector
	}
	k := j
	for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	if k < len(src) && src[k] == ':' && (k+1 == len(src) || src[k+1] != '=') {
		occ |= OccKey
	}
	return occ
}

// Has reports whether w is one of the identifiers.
func (fi *Idents) Has(w string) bool {
	mask := uint32(len(fi.slots) - 1)
	for i := identHash(w) & mask; fi.slots[i] != 0; i = (i + 1) & mask {
		k := fi.slots[i] - 1
		from := uint32(0)
		if k > 0 {
			from = fi.ends[k-1]
		}
		if fi.text[from:fi.ends[k]] == w {
			return true
		}
	}
	return false
}

// Weight is the bytes fi holds, for a cache's accounting.
func (fi *Idents) Weight() int64 { return int64(len(fi.text)+len(fi.ends)*4+len(fi.slots)*4) + 64 }
