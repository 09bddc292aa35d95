//go:build cgo

package treesit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// hostile are sources of about n bytes that make parsers work hard: deep
// nesting, one long line, unterminated strings and comments.
func hostile(n int) map[string]string {
	d := n / 4
	return map[string]string{
		"nested calls":  "x = " + strings.Repeat("f(", d) + strings.Repeat(")", d) + "\n",
		"nested blocks": "fn f() {\n" + strings.Repeat("{", d) + strings.Repeat("}", d) + "\n}\n",
		"one long line": "x = a" + strings.Repeat(".m(b)", n/5) + "\n",
		"unterminated":  "class A {\n  void m() {\n    s = \"" + strings.Repeat("word ", n/5),
		"open comment":  "/* " + strings.Repeat("x ", n/2),
		"open brackets": strings.Repeat("class C { fn m() { if (a[", n/26),
	}
}

// TestParseWorkBounded: in every language, a hostile source's parse
// walks and captures a number of nodes bounded by its size (counted, not
// timed), and at twice the size about twice as many.
func TestParseWorkBounded(t *testing.T) {
	for _, name := range Languages() {
		l := languages[name]
		for shape, small := range hostile(2 << 10) {
			large := hostile(4 << 10)[shape]
			if name == "php" {
				small, large = "<?php "+small, "<?php "+large
			}
			_, w1, err1 := parseCounted(context.Background(), l, "a", []byte(small), true)
			_, w2, err2 := parseCounted(context.Background(), l, "a", []byte(large), true)
			if !bounded(err1) || !bounded(err2) {
				t.Fatalf("%s %s: %v %v", name, shape, err1, err2)
			}
			if w1 > 2*len(small) || w2 > 2*len(large) {
				t.Errorf("%s %s: %d and %d captures for %d and %d bytes", name, shape, w1, w2, len(small), len(large))
			}
			if err1 == nil && err2 == nil && w2 > 3*w1+64 {
				t.Errorf("%s %s: %d captures at twice the size of %d", name, shape, w2, w1)
			}
		}
	}
}

// bounded reports whether a parse ended well or by one of its bounds.
func bounded(err error) bool {
	return err == nil || errors.Is(err, errTooDeep) || errors.Is(err, errTooSlow)
}

// TestParseOneMegabyteLine: a file of one flat 1 MB line is read within
// the byte bound, and one of a 1 MB chain of operators is refused as too
// deep after walking its nodes once (work counted, not timed); a larger
// file is not parsed at all; a parse whose context has ended stops with
// its error and leaves the parser reusable.
func TestParseOneMegabyteLine(t *testing.T) {
	flat := "x = [a" + strings.Repeat(", b", (maxParseBytes-16)/3) + "]\n"
	deep := "x = a" + strings.Repeat(" + b", (maxParseBytes-16)/4) + "\n"
	for _, name := range Languages() {
		l := languages[name]
		prefix := ""
		if name == "php" {
			prefix = "<?php " // else the line is text around PHP
		}
		if name == "c" || name == "csharp" { // each language's flat line costs seconds under -race
			f, work, err := parseCounted(context.Background(), l, "a", []byte(prefix+flat), true)
			if err != nil && !errors.Is(err, errTooSlow) || work > 2*len(flat) {
				t.Errorf("%s: flat 1 MB line: err %v, %d nodes and captures", name, err, work)
			}
			if err == nil && len(f.refs) == 0 {
				t.Errorf("%s: flat 1 MB line: no references read", name)
			}
		}
		_, work, err := parseCounted(context.Background(), l, "a", []byte(prefix+deep), true)
		if !bounded(err) || work > 2*len(deep) {
			t.Errorf("%s: deep 1 MB line: err %v, %d nodes and captures", name, err, work)
		}
		if _, err := parse(context.Background(), l, "a", []byte(flat+flat), false); !errors.Is(err, errTooLarge) {
			t.Errorf("%s: 2 MB: err %v, want errTooLarge", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l := languages["cpp"]
	if _, err := parse(ctx, l, "a", []byte(flat), false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled parse: err %v, want context.Canceled", err)
	}
	if f, err := parse(context.Background(), l, "a", []byte("int f(int x) { return x; }\n"), false); err != nil || len(f.decls) != 1 {
		t.Errorf("the parse after a cancelled one: %v, %+v", err, f)
	}
}
