// Package identhash hashes the identifiers of a text into a sorted set: the
// code search's index of which blobs hold which words. An identifier is a
// maximal run of the bytes [A-Za-z0-9_] not led by a digit, as
// ident.Next finds it with no optional bytes and as git grep -w reads
// words.
package identhash

import (
	"hash/maphash"
	"math/bits"

	"github.com/prscout/prscout/pipeline/ident"
)

// seed hashes identifiers; one seed per process, as the indexes are.
var seed = maphash.MakeSeed()

// String is the hash of one identifier.
func String(s string) uint64 { return maphash.String(seed, s) }

// class is 2 for the bytes that start an identifier, 1 for those that only
// continue one (digits: a run led by one is a number) and 0 for the others.
var class = func() (t [256]uint8) {
	for b := range 256 {
		if ident.Chars(0).IsByte(byte(b)) {
			t[b] = 2
			if '0' <= b && b <= '9' {
				t[b] = 1
			}
		}
	}
	return t
}()

// Of returns the hashes of the identifiers of data, sorted, without
// duplicates; one table look-up a byte finds them.
func Of(data []byte) []uint64 {
	var seen set
	for i := 0; i < len(data); {
		c := class[data[i]]
		if c == 0 {
			i++
			continue
		}
		start := i
		for i++; i < len(data) && class[data[i]] != 0; i++ {
		}
		if c == 2 {
			seen.add(maphash.Bytes(seed, data[start:i]))
		}
	}
	return seen.sorted()
}

// set is an open-addressing set of identifier hashes, placed by their
// (random) high bits where a map would hash them again: the slots then
// hold the hashes nearly in order, each at most its run of taken slots
// from its place (or wrapped to the start), which an insertion sort puts
// right in about one pass. 0 marks an empty slot, so the hash 0 is kept
// aside.
type set struct {
	slots []uint64 // a power of two long, at most half full
	shift uint     // 64 - log2(len(slots)): a hash's place is h>>shift
	n     int      // the hashes in slots
	zero  bool     // the hash 0 was added
}

func (s *set) add(h uint64) {
	if h == 0 {
		s.zero = true
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow(2 * len(s.slots))
	}
	mask := uint64(len(s.slots) - 1)
	for i := h >> s.shift; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return
		case h:
			return
		}
	}
}

// grow moves the set to at least n slots (512 at least).
func (s *set) grow(n int) {
	old := s.slots
	s.slots, s.n = make([]uint64, max(512, 1<<bits.Len(uint(n-1)))), 0
	s.shift = 64 - uint(bits.TrailingZeros(uint(len(s.slots))))
	for _, o := range old {
		if o != 0 {
			s.add(o)
		}
	}
}

// sorted returns the hashes of the set in order.
func (s *set) sorted() []uint64 {
	out := make([]uint64, 0, s.n+1)
	if s.zero {
		out = append(out, 0)
	}
	for _, h := range s.slots {
		if h != 0 {
			out = append(out, h)
		}
	}
	for i := 1; i < len(out); i++ {
		h, j := out[i], i
		for ; j > 0 && out[j-1] > h; j-- {
			out[j] = out[j-1]
		}
		out[j] = h
	}
	return out
}
