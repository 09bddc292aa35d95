package scope

// keyFilter answers "may s be a key of this set?" without hashing s: it
// keeps, for each byte value at position at of the keys, the set of key
// lengths (bit 63 standing for 63 and longer). A string whose byte there
// and length no key shares is not a key. /v1/needs checks every path of an
// answer against several such sets, and most paths are in none.
type keyFilter struct {
	at      int
	lengths [256]uint64
}

func newKeyFilter[V any](m map[string]V, at int) *keyFilter {
	f := &keyFilter{at: at}
	for k := range m {
		if len(k) > at {
			f.lengths[k[at]] |= lengthBit(len(k))
		}
	}
	return f
}

func lengthBit(n int) uint64 {
	return 1 << min(n, 63)
}

// may reports whether s may be a key; false means it is not one.
func (f *keyFilter) may(s string) bool {
	return len(s) > f.at && f.lengths[s[f.at]]&lengthBit(len(s)) != 0
}
