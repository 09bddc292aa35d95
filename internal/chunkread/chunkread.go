// Package chunkread reads an output of unknown size, a process's diff
// say, into chunks that grow from 64 KiB to 256 KiB, to be joined once into
// a slice of the exact size: for a 20 MB output this touches about half the
// memory a doubling buffer does (no 32 MB backing array, no copy at each
// doubling), and several outputs are joined with one copy. The last chunk
// leaves at most 256 KiB unused; a larger chunk saves no read (a read of a
// Linux pipe returns at most its 64 KiB buffer).
package chunkread

import "io"

// Read reads r to its end. It returns at least one chunk unless r fails.
func Read(r io.Reader) ([][]byte, error) {
	var chunks [][]byte
	for size := 64 << 10; ; size = min(size*2, 256<<10) {
		chunk := make([]byte, size)
		n, err := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return chunks, nil
		} else if err != nil {
			return nil, err
		}
	}
}

// Len is the bytes the chunks hold.
func Len(chunks [][]byte) (n int) {
	for _, c := range chunks {
		n += len(c)
	}
	return n
}

// Join returns the chunks as one slice: nil for none, the only one as it
// is, else one copy of the exact size.
func Join(chunks [][]byte) []byte {
	switch len(chunks) {
	case 0:
		return nil
	case 1:
		return chunks[0]
	}
	out := make([]byte, 0, Len(chunks))
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}
