package gate

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCorpus checks every file of the corpus once per iteration (code
// nodes only, as check_v8.mjs does); scripts/bench-gate.sh compares the
// binary with node side by side.
func BenchmarkCorpus(b *testing.B) {
	dir := corpusDir(b)
	var files []string
	var datas [][]byte
	_ = filepath.WalkDir(filepath.Join(dir, "workflows"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".json" {
			data, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			files, datas = append(files, p), append(datas, data)
		}
		return nil
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range files {
			CheckExport(files[k], datas[k], Options{})
		}
	}
}
