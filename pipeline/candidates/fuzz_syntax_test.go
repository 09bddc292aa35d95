//go:build cgo

package candidates

import "testing"

// FuzzReaderSyntax bounds the tree-sitter reader's work in each of its
// languages: deep nesting, long lines and unterminated constructs parse
// with work bounded by their size.
func FuzzReaderSyntax(f *testing.F) {
	fuzzReader(f, nil, "src/A.cs", "src/B.cs", "src/a.kt", "src/b.kt", "src/a.php", "src/b.php", "lib/a.rb", "lib/b.rb",
		"src/a.rs", "src/b.rs", "src/a.c", "src/b.h", "src/a.cpp", "src/b.hpp", "Sources/a.swift", "Sources/b.swift",
		"src/a.scala", "src/b.scala")
}
