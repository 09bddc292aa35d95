package lexed

// Weight estimates the memory f takes, read from n bytes of source: its
// tokens (whose texts are cut from a copy of the source), declarations,
// imports and index.
func Weight(f *File, n int) int64 {
	w := int64(n) + int64(len(f.Toks))*52 + int64(len(f.Decls))*96 + int64(len(f.Imports))*128
	if f.idx != nil {
		w += int64(len(f.idx.Idents)+len(f.idx.DeclAt)) * 48
	}
	return w
}
