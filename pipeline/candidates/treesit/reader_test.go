//go:build cgo

package treesit

import (
	"context"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// TestRefusalsKeptOnlyWhenTheContentDecides: a file refused as too large
// or too deep is not parsed again for the same content; one refused for
// its parse's time (or an ended context) is parsed again on the next
// request, and read then.
func TestRefusalsKeptOnlyWhenTheContentDecides(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	src := []byte("int f(int x) { return x; }\n")
	for _, c := range []struct {
		refusal  error
		parses   int  // parses over two requests
		readNext bool // whether the second request reads the file
	}{
		{errTooLarge, 1, false},
		{errTooDeep, 1, false},
		{errTooSlow, 2, true},
		{context.Canceled, 2, true},
	} {
		calls := 0
		parseFile = func(ctx context.Context, l *language, p string, src []byte) (*file, error) {
			if calls++; calls == 1 {
				return nil, c.refusal
			}
			return parse(ctx, l, p, src)
		}
		cache := engine.NewCache(1 << 20)
		first := cachedFile(context.Background(), cache, "src/a.c", src)
		second := cachedFile(context.Background(), cache, "src/a.c", src)
		if first != nil || calls != c.parses || (second != nil) != c.readNext {
			t.Errorf("%v: first %v, %d parses, second read %v; want nil, %d, %v", c.refusal, first, calls, second != nil, c.parses, c.readNext)
		}
	}
}
