package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// grepTree answers every file holding one of the words as text, in its
// files' order.
type grepTree struct {
	order []string
	files map[string]string
	asked [][]string // the words of each Grep
}

func (t *grepTree) Grep(_ context.Context, words, _ []string, limit int) ([]string, error) {
	t.asked = append(t.asked, words)
	var out []string
	for _, p := range t.order {
		if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(t.files[p], w) }) && len(out) < limit {
			out = append(out, p)
		}
	}
	return out, nil
}

func (t *grepTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	if s, ok := t.files[p]; ok {
		return []byte(s), nil
	}
	return nil, errors.New("missing")
}

func (t *grepTree) ListDir(context.Context, string) ([]string, error) { return nil, nil }

func TestSearchGatesAndReadsInOrder(t *testing.T) {
	tree := &grepTree{order: []string{"a.go", "changed.go", "vendor/v.go", "b.go", "skip.go", "c.go"}, files: map[string]string{
		"a.go": "Foo", "changed.go": "Foo", "vendor/v.go": "Foo", "b.go": "Foo Foo", "skip.go": "Foo", "c.go": "Bar",
	}}
	ev := NewEvidence([]*Change{{Path: "changed.go"}})
	q := Query{Words: []string{"Foo"}, Limit: 10, Skip: func(p string) bool { return p == "skip.go" }}
	paths, lens, err := Search(context.Background(), tree, ev, "Go", q, func(p string, src []byte) (int, int, bool) {
		return len(src), 0, p != "b.go"
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, []string{"a.go", "b.go"}) {
		t.Fatalf("paths = %v, want the files found outside the change, vendor and Skip", paths)
	}
	if !slices.Equal(lens, []int{3, 0}) {
		t.Fatalf("read = %v, want a.go's length and nothing for the file read refused", lens)
	}
	if paths, _ := Found(context.Background(), tree, ev, Query{}); paths != nil || len(tree.asked) != 1 {
		t.Fatalf("a query without words answered %v after %d searches", paths, len(tree.asked))
	}
}

// TestFoundSkipsVendoredCopiesOfOtherChanges: a file of a vendored copy
// (third_party/zlib/) holding a changed name is found only for a change to
// the same copy, in every reader's search.
func TestFoundSkipsVendoredCopiesOfOtherChanges(t *testing.T) {
	tree := &grepTree{order: []string{"src/use.py", "third_party/zlib/use.py", "third_party/png/use.py"}, files: map[string]string{
		"src/use.py": "target()", "third_party/zlib/use.py": "target()", "third_party/png/use.py": "target()",
	}}
	for _, c := range []struct {
		changed string
		want    []string
	}{
		{"src/t.py", []string{"src/use.py"}},
		{"third_party/zlib/t.py", []string{"src/use.py", "third_party/zlib/use.py"}},
	} {
		ev := NewEvidence([]*Change{{Path: c.changed}})
		got, err := Found(context.Background(), tree, ev, Query{Words: []string{"target"}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("change to %s: found %v, want %v", c.changed, got, c.want)
		}
	}
}
