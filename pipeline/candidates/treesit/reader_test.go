//go:build cgo

package treesit

import (
	"context"
	"slices"
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
		parseFile = func(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, error) {
			if calls++; calls == 1 {
				return nil, c.refusal
			}
			return parse(ctx, l, p, src, spans)
		}
		cache := engine.NewCache(1 << 20)
		first := cachedFile(context.Background(), cache, "src/a.c", src)
		second := cachedFile(context.Background(), cache, "src/a.c", src)
		if first != nil || calls != c.parses || (second != nil) != c.readNext {
			t.Errorf("%v: first %v, %d parses, second read %v; want nil, %d, %v", c.refusal, first, calls, second != nil, c.parses, c.readNext)
		}
	}
}

// TestSpansOnlyForHeads: a searched file's reading keeps no bracket
// spans; a changed file's head is read with them (a changed argument
// line reaches its call's callee), and that reading serves both after
// (two parses over four requests).
func TestSpansOnlyForHeads(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	parses := 0
	parseFile = func(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, error) {
		parses++
		return parse(ctx, l, p, src, spans)
	}
	src := []byte("int run(int a) {\n    return add_all(\n        a,\n        1);\n}\n")
	cache := engine.NewCache(1 << 20)
	f := cachedFile(context.Background(), cache, "src/a.c", src)
	if f == nil || f.spans != nil || f.callees != nil {
		t.Fatalf("searched file: %+v, want a reading without spans", f)
	}
	h := cachedHead(context.Background(), cache, "src/a.c", src)
	if h == nil || len(h.spans) == 0 {
		t.Fatalf("head: %+v, want its spans", h)
	}
	called := false
	for _, r := range h.refsOn(map[int]bool{3: true}) {
		called = called || r.name == "add_all"
	}
	if !called {
		t.Errorf("head: line 3 reaches no add_all: %+v", h.refsOn(map[int]bool{3: true}))
	}
	if g := cachedFile(context.Background(), cache, "src/a.c", src); g != h {
		t.Errorf("searched after head: a new reading")
	}
	if g := cachedHead(context.Background(), cache, "src/a.c", src); g != h || parses != 2 {
		t.Errorf("head again: same %v, %d parses, want 2", g == h, parses)
	}
}

// TestConditionalBranches: a C file whose branches each open a block
// (an if per platform sharing one body) is read as one configuration of
// its conditional directives, and its declarations are found; one that
// parses as written keeps the declarations of every branch.
func TestConditionalBranches(t *testing.T) {
	split := []byte("int pick(int a, int b) {\n#ifdef WIN32\n  if (a) {\n#else\n  if (b) {\n#endif\n    return 1;\n  }\n  return 0;\n}\n\n" +
		"int after(int n) {\n  return n;\n}\n\nint more(int n) {\n  return after(n);\n}\n")
	whole := []byte("#ifdef _WIN32\nint on_windows(void) { return 1; }\n#else\nint elsewhere(void) { return 0; }\n#endif\n")
	for _, c := range []struct {
		src  []byte
		want []string
	}{
		{split, []string{"pick", "after", "more"}},
		{whole, []string{"on_windows", "elsewhere"}},
	} {
		f, err := parse(context.Background(), languages["c"], "src/util.c", c.src, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range c.want {
			if !f.declares[n] {
				t.Errorf("%s not declared: %+v", n, f.decls)
			}
		}
	}
}

// TestCppPointerAndReferenceReturns: C++ methods and prototypes returning
// a pointer or a reference are declarations, in their class and out of it.
func TestCppPointerAndReferenceReturns(t *testing.T) {
	src := []byte("class Foo {\npublic:\n  Foo* Get();\n  std::string const& Name() const;\n  Foo* Inline() { return this; }\n};\n\n" +
		"Foo* Foo::Get()\n{\n  return this;\n}\n\nstd::string const& Foo::Name() const\n{\n  return name;\n}\n\nconst char *value_of(int j);\n")
	f, err := parse(context.Background(), languages["cpp"], "src/foo.h", src, false)
	if err != nil {
		t.Fatal(err)
	}
	type at struct {
		name     string
		from, to int
	}
	var got []at
	for _, d := range f.decls {
		if callableKinds[d.kind] {
			got = append(got, at{d.container + "." + d.name, d.from, d.to})
		}
	}
	want := []at{{"Foo.Get", 3, 3}, {"Foo.Name", 4, 4}, {"Foo.Inline", 5, 5}, {"Foo.Get", 8, 11}, {"Foo.Name", 13, 16}, {".value_of", 18, 18}}
	if !slices.Equal(got, want) {
		t.Errorf("callables %v, want %v", got, want)
	}
}
