package llmanswer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strictReviewShape accepts a review only when every finding has a path and
// a title: the fuzz test checks that Read never hands over a value this
// test rejected, whatever it repaired.
func strictReviewShape(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	fs, ok := m["findings"].([]any)
	if !ok {
		return false
	}
	for _, f := range fs {
		fm, ok := f.(map[string]any)
		if !ok {
			return false
		}
		p, _ := fm["path"].(string)
		t, _ := fm["title"].(string)
		if p == "" || t == "" {
			return false
		}
	}
	return true
}

// FuzzRead: no answer panics, and a value is only ever one the shape
// accepted, with pointers that resolve in it.
//
//	go test -run '^$' -fuzz FuzzRead -fuzztime 30s ./pipeline/llmanswer
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") || !(strings.HasSuffix(file, ".txt") || strings.HasSuffix(file, ".json")) {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"findings":[{"path":"a.go","title":"T"},{"path":"b.go"}]}`))
	f.Add([]byte("```json\n{'findings': [{'path': 'a.go', 'title': None}]}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := Read(raw, strictReviewShape)
		checkAnswer(t, a, strictReviewShape)
		b := Read(raw, reviewShape)
		checkAnswer(t, b, reviewShape)
	})
}
