package cinclude

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// listTree is a tree of the files named, listed by directory.
type listTree []string

func (t listTree) Grep(context.Context, []string, []string, int) ([]string, error) { return nil, nil }

func (t listTree) ReadFile(context.Context, string) ([]byte, error) {
	return nil, errors.New("not read")
}

func (t listTree) ListDir(_ context.Context, dir string) ([]string, error) {
	var out []string
	for _, p := range t {
		if engine.DirOf(p) == strings.TrimPrefix(dir, ".") {
			out = append(out, p)
		}
	}
	return out, nil
}

// TestResolveAndReaches: an include resolves in the including file's
// directory, then in the include folders up to the root, then in the
// search path a compilation database names when there is one, else in
// the nearest folder of headers learnt; a header stands for the source
// file of its name beside it, or elsewhere when none is beside it.
func TestResolveAndReaches(t *testing.T) {
	tree := listTree{"src/a.c", "src/a.h", "include/lib/b.h", "src/b.c", "third/c.h", "util/d.h", "util/deep/x.c",
		"include/fmt/format.h", "src/format.cc"}
	for _, c := range []struct {
		name      string
		dirs      []string
		from, inc string
		learn     bool
		want      string
	}{
		{"beside", nil, "src/a.c", "a.h", false, "src/a.h"},
		{"include folder", nil, "src/a.c", "lib/b.h", false, "include/lib/b.h"},
		{"not found", nil, "src/a.c", "c.h", false, ""},
		{"learnt", nil, "util/deep/x.c", "d.h", true, "util/d.h"},
		{"search path", []string{"third"}, "src/a.c", "c.h", false, "third/c.h"},
		{"search path only", []string{"third"}, "src/a.c", "lib/b.h", true, ""},
	} {
		in := New(engine.NewListing(context.Background(), tree), c.dirs)
		if c.learn {
			in.Learn(tree, func(p string) bool { return strings.HasSuffix(p, ".h") })
		}
		if got, ok := in.Resolve(c.from, c.inc); got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, got, ok, c.want)
		}
	}
	in := New(engine.NewListing(context.Background(), tree), nil)
	for _, c := range []struct {
		h, p string
		want bool
	}{
		{"src/a.h", "src/a.c", true},
		{"include/fmt/format.h", "src/format.cc", true},
		{"include/lib/b.h", "src/b.c", true},
		{"src/a.h", "src/b.c", false},
		{"src/a.c", "src/a.h", false},
	} {
		if got := in.Reaches(c.h, c.p); got != c.want {
			t.Errorf("Reaches(%s, %s) = %v, want %v", c.h, c.p, got, c.want)
		}
	}
}
