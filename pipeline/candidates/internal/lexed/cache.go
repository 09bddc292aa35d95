package lexed

import "unsafe"

// tokenWeight is what one token takes: itself and its bracket pair.
const tokenWeight = int64(unsafe.Sizeof(Tok{}) + unsafe.Sizeof(int32(0)))

// Weight estimates the memory f takes, read from n bytes of source: its
// tokens (whose texts are cut from a copy of the source), declarations,
// imports and index.
func Weight(f *File, n int) int64 {
	w := int64(n) + int64(len(f.Toks))*tokenWeight + int64(len(f.Decls))*96 + int64(len(f.Imports))*128
	if f.idx != nil && f.idx.x != nil {
		w += int64(len(f.idx.x.Idents)+len(f.idx.x.DeclAt)) * 48
	} else {
		// Not built yet (built on first use): a distinct identifier a
		// dozen tokens, more than the benchmarks' files hold (hono one
		// per ~40).
		w += int64(len(f.Toks)/12+len(f.Decls)) * 48
	}
	return w
}
