package engine

// Bits is a set of small non-negative integers (a file's token indexes or
// lines), a bit each: asking it costs less than asking a map, as a reader
// does of every token or line.
type Bits []uint64

// NewBits is an empty set with room for 0 to n-1.
func NewBits(n int) Bits { return make(Bits, (n+63)/64) }

// Add adds i, growing the set past its room; a negative i is not kept.
func (b *Bits) Add(i int) {
	if i < 0 {
		return
	}
	for i>>6 >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[i>>6] |= 1 << (i & 63)
}

// Has reports whether i is in the set.
func (b Bits) Has(i int) bool {
	w := i >> 6
	return i >= 0 && w < len(b) && b[w]&(1<<(i&63)) != 0
}
