package ident

// Lens is a table of names' first bytes and lengths: l[c] has bit n set
// when a name of n bytes (n < 63; bit 63 for longer ones) starts with byte
// c. Most identifiers of a text are none of a few names, and the table
// turns them away before a map hashes them: May false means the name is
// none of those added, true that it may be one.
type Lens [256]uint64

func lenBit(n int) uint64 { return 1 << min(n, 63) }

// Add adds name to the table.
func (l *Lens) Add(name string) {
	if name != "" {
		l[name[0]] |= lenBit(len(name))
	}
}

// May reports whether name may be one of the names added.
func (l *Lens) May(name string) bool { return name != "" && l[name[0]]&lenBit(len(name)) != 0 }

// MayBytes is May for a name of n bytes starting with first.
func (l *Lens) MayBytes(first byte, n int) bool { return l[first]&lenBit(n) != 0 }

// Set maps a few names to values, to be asked of many identifiers: its
// Lens turns most of them away before its map hashes them. The zero Set
// is empty.
type Set[V any] struct {
	lens Lens
	m    map[string]V
}

// Put maps name to v.
func (s *Set[V]) Put(name string, v V) {
	if s.m == nil {
		s.m = map[string]V{}
	}
	s.m[name] = v
	s.lens.Add(name)
}

// Get returns the value of name, if it was put.
func (s *Set[V]) Get(name string) (V, bool) {
	if !s.lens.May(name) {
		var zero V
		return zero, false
	}
	v, ok := s.m[name]
	return v, ok
}
