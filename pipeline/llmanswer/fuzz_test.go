package llmanswer

import (
	"os"
	"path/filepath"
	"reflect"
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

// FuzzLex: the lexer never panics, ends within its input, and leaves valid
// JSON as it is (its repairs touch only what JSON does not allow).
//
//	go test -run '^$' -fuzz FuzzLex -fuzztime 20s ./pipeline/llmanswer
func FuzzLex(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x\"y", true, null, {"b": -1.5e3}]}`, `[]`, `{'a': None,}`, "{a: 1 // c\n}", `{"a": "f("x")"}`, `[1, 2, ...]`, `{"a": "cut`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || (s[0] != '{' && s[0] != '[') {
			return
		}
		l := lexValue(s, true)
		if l.end() > len(s) {
			t.Fatalf("end %d past the input's %d bytes", l.end(), len(s))
		}
		find := lexValue(s, false)
		if find.end() != l.end() || find.balanced != l.balanced {
			t.Fatalf("find mode ends at %d (%v), emit mode at %d (%v)", find.end(), find.balanced, l.end(), l.balanced)
		}
		want, err := decodeWhole([]byte(s))
		if err != nil || l.tooDeep {
			return
		}
		got, err := decodeWhole(l.out)
		if err != nil || l.bad || l.fixes != 0 {
			t.Fatalf("valid JSON %q rewritten into %q (bad %v, fixes %q): %v", s, l.out, l.bad, l.fixes.names(), err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("valid JSON %q read as %v, want %v", s, got, want)
		}
	})
}
