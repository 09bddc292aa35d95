package chunkread

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/prscout/prscout/internal/testalloc"
)

func TestReadJoin(t *testing.T) {
	for _, n := range []int{0, 1, 64 << 10, 64<<10 + 1, 5<<20 + 7} {
		in := bytes.Repeat([]byte("diff\n"), n/5+1)[:n]
		chunks, err := Read(iotest.HalfReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if Len(chunks) != n || !bytes.Equal(Join(chunks), in) {
			t.Errorf("%d bytes: read %d in %d chunks, joined differ", n, Len(chunks), len(chunks))
		}
		if out := Join(chunks); out == nil {
			t.Errorf("%d bytes: joined nil, want an empty slice for an empty output", n)
		}
	}
	if Join(nil) != nil {
		t.Error("Join(nil) is not nil")
	}
	boom := errors.New("boom")
	if _, err := Read(io.MultiReader(bytes.NewReader(make([]byte, 100<<10)), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v, want its error", err)
	}
}

// TestJoinOneCopy: reading and joining a large output allocates the
// chunks and one copy of the output, a little over two copies of it
// (io.ReadAll's doubling allocates about four, measured in the same run).
func TestJoinOneCopy(t *testing.T) {
	in := bytes.Repeat([]byte("+\tx := Shared(y)\n"), 700_000) // 12 MB
	var out []byte
	chunked := testalloc.Bytes(func() {
		chunks, _ := Read(bytes.NewReader(in))
		out = Join(chunks)
	})
	if !bytes.Equal(out, in) {
		t.Fatal("joined output differs")
	}
	doubling := testalloc.Bytes(func() { out, _ = io.ReadAll(struct{ io.Reader }{bytes.NewReader(in)}) })
	perByte := float64(chunked) / float64(len(in))
	t.Logf("%d bytes: chunked %.2f bytes allocated per byte, io.ReadAll %.2f", len(in), perByte, float64(doubling)/float64(len(in)))
	if perByte > 2.1 || chunked >= doubling {
		t.Errorf("chunked read allocates %.2f bytes per byte (io.ReadAll %d bytes in all, chunked %d), want at most 2.1 and less", perByte, doubling, chunked)
	}
}
