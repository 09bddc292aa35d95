package goscan

import (
	"go/scanner"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// scannerCodeLines is ScanLines done with go/scanner: every line a
// token other than an inserted semicolon covers (the file's own lines,
// line directives not applied).
func scannerCodeLines(src []byte) engine.Bits {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out engine.Bits
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		first := file.PositionFor(pos, false).Line
		for l := first; l <= first+strings.Count(lit, "\n"); l++ {
			out.Add(l)
		}
	}
}

// sameLines compares two line sets, trailing empty words aside.
func sameLines(a, b engine.Bits) bool {
	for len(a) > 0 && a[len(a)-1] == 0 {
		a = a[:len(a)-1]
	}
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return reflect.DeepEqual([]uint64(a), []uint64(b))
}

var codeLineCases = []string{
	"package p\n\n// doc\nvar s = `a\nb\n`\n\n/* x\n y */\nfunc F() {}\n",
	"\xef\xbb\xbf// only a comment\n\npackage p",
	"x /* a\n b */ y\n",
	"s := \"a\\\"b // not a comment\"\n// c\n",
	"r := '\\''; q := '\"'\n/* */\n",
	"s := \"unterminated\nnext\n",
	"s := \"esc at end \\\nnext\n",
	"r := `raw\r\n\r\nend`\n\n",
	"r := `open to the end\n\n",
	"/* open to the end\nx\n",
	"a / b\n//\n/\n",
	"x\x00y\n\n\xff\n\f\n",
	"//line other.go:100\nvar x = 1\n\n/*line a.go:1:1*/y\n",
	"var s = \"\xef\xbb\xbf\"\n\xef\xbb\xbf\n",
}

// ScanLines finds the lines go/scanner finds, in the shapes that tell
// a comment, a literal and a blank apart.
func TestScanCodeLines(t *testing.T) {
	for _, src := range codeLineCases {
		if got, want := ScanLines([]byte(src)), scannerCodeLines([]byte(src)); !sameLines(got, want) {
			t.Errorf("%q: got %b, want %b", src, got, want)
		}
	}
}

func FuzzScanCodeLines(f *testing.F) {
	for _, src := range codeLineCases {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := ScanLines(src), scannerCodeLines(src); !sameLines(got, want) {
			t.Fatalf("%q: got %b, want %b", src, got, want)
		}
	})
}

// BenchmarkScanCodeLines times the lexer against go/scanner on this
// package's own sources.
func BenchmarkScanCodeLines(b *testing.B) {
	var src []byte
	for _, name := range []string{"../golang.go", "../gowalk.go", "../gotypes.go", "../goindex.go"} {
		s, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		src = append(src, s...)
	}
	for _, bc := range []struct {
		name string
		fn   func([]byte) engine.Bits
	}{{"lexer", ScanLines}, {"goscanner", scannerCodeLines}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				bc.fn(src)
			}
		})
	}
}
