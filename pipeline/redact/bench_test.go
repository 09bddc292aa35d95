package redact_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/redact"
)

// realSource returns n bytes of this module's own Go sources (testdata
// left out), concatenated in a stable order.
func realSource(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || b.Len() >= n {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	s := b.String()
	for len(s) < n { // a small tree: repeat it
		s += s
	}
	return s[:n]
}

// BenchmarkSecrets512KiB measures the redactor on 512 KiB of real Go
// source (issue 12's target: under 10 ms).
func BenchmarkSecrets512KiB(b *testing.B) {
	src := realSource(b, 512<<10)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		redact.Secrets(src, nil)
	}
}
