package modtypes

import (
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

func TestRenamedFrom(t *testing.T) {
	for _, tc := range []struct{ src, name, want string }{
		{"class Hono {}\nexport { Hono as HonoBase }\n", "HonoBase", "Hono"},
		{"import { a as b } from './a'\n", "b", "a"},
		{"import type { A as B } from './a'\n", "B", "A"},
		{"const x = y as HonoBase\n", "HonoBase", ""},
		{"export { Hono }\n", "Hono", ""},
	} {
		f := &lexed.File{Toks: lexed.Tokens([]byte(tc.src), lexed.LexJS)}
		if got := renamedFrom(f, tc.name); got != tc.want {
			t.Errorf("renamedFrom(%q, %q) = %q, want %q", tc.src, tc.name, got, tc.want)
		}
	}
}
