package java

// tokSet is a set of token indexes of one file, a bit per token: the
// impact walk asks it of every identifier, and a bit costs less to ask
// than a map.
type tokSet []uint64

// newTokSet is an empty set for a file of n tokens.
func newTokSet(n int) tokSet { return make(tokSet, (n+63)/64) }

// add adds index i; an index past the room newTokSet made is not kept.
func (t tokSet) add(i int) {
	if w := i >> 6; i >= 0 && w < len(t) {
		t[w] |= 1 << (i & 63)
	}
}

// has reports whether index i is in the set.
func (t tokSet) has(i int) bool {
	w := i >> 6
	return i >= 0 && w < len(t) && t[w]&(1<<(i&63)) != 0
}
