package collect

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// ctxNumbered returns n lines "1\n2\n...".
func ctxNumbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestShapeSource(t *testing.T) {
	tests := []struct {
		name       string
		data       string
		ranges     []pipeline.LineRange
		pad, full  int
		wantRange  *pipeline.SourceRange
		wantSource string
	}{
		{name: "small file is whole", data: ctxNumbered(5), ranges: []pipeline.LineRange{{From: 3, To: 3}}, pad: 1, full: 900,
			wantRange: &pipeline.SourceRange{From: 1, To: 5, Total: 5}, wantSource: ctxNumbered(5)},
		{name: "empty file", data: "", ranges: []pipeline.LineRange{{From: 1, To: 1}}, full: 900},
		{name: "no final newline", data: "a\nb", ranges: []pipeline.LineRange{{From: 1, To: 1}}, full: 900,
			wantRange: &pipeline.SourceRange{From: 1, To: 2, Total: 2}, wantSource: "a\nb"},
		{name: "the reference workflow's tail window", data: ctxNumbered(1031), ranges: []pipeline.LineRange{{From: 940, To: 1031}}, pad: 30, full: 900,
			wantRange:  &pipeline.SourceRange{From: 910, To: 1031, Total: 1031, Windows: []pipeline.LineRange{{From: 910, To: 1031}}},
			wantSource: "--- lines 910-1031 of 1031 ---\n" + strings.TrimPrefix(ctxNumbered(1031), ctxNumbered(909))},
		{name: "two windows", data: ctxNumbered(20), ranges: []pipeline.LineRange{{From: 2, To: 2}, {From: 15, To: 16}}, pad: 1, full: 10,
			wantRange:  &pipeline.SourceRange{From: 1, To: 17, Total: 20, Windows: []pipeline.LineRange{{From: 1, To: 3}, {From: 14, To: 17}}},
			wantSource: "--- lines 1-3 of 20 ---\n1\n2\n3\n--- lines 14-17 of 20 ---\n14\n15\n16\n17\n"},
		{name: "touching windows merge", data: ctxNumbered(20), ranges: []pipeline.LineRange{{From: 2, To: 3}, {From: 6, To: 7}}, pad: 1, full: 10,
			wantRange:  &pipeline.SourceRange{From: 1, To: 8, Total: 20, Windows: []pipeline.LineRange{{From: 1, To: 8}}},
			wantSource: "--- lines 1-8 of 20 ---\n" + ctxNumbered(8)},
		{name: "windows covering all are whole", data: ctxNumbered(12), ranges: []pipeline.LineRange{{From: 1, To: 6}, {From: 7, To: 12}}, pad: 0, full: 10,
			wantRange: &pipeline.SourceRange{From: 1, To: 12, Total: 12}, wantSource: ctxNumbered(12)},
		{name: "range past the end is clipped", data: "1\n2\n3\n4\n5", ranges: []pipeline.LineRange{{From: 5, To: 9}}, pad: 0, full: 2,
			wantRange:  &pipeline.SourceRange{From: 5, To: 5, Total: 5, Windows: []pipeline.LineRange{{From: 5, To: 5}}},
			wantSource: "--- lines 5-5 of 5 ---\n5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, rng := shapeSource([]byte(tt.data), tt.ranges, tt.pad, tt.full)
			if !reflect.DeepEqual(rng, tt.wantRange) {
				t.Errorf("range = %+v, want %+v", rng, tt.wantRange)
			}
			if src != tt.wantSource {
				t.Errorf("source = %q, want %q", src, tt.wantSource)
			}
		})
	}
}

func TestLanguage(t *testing.T) {
	for p, want := range map[string]string{"a/b.go": "go", "x.TSX": "tsx", "Dockerfile": "dockerfile",
		"build.gradle": "groovy", "README": "", "a.min.js": "javascript", "deploy/Dockerfile.prod": "dockerfile"} {
		if got := scope.Language(p); got != want {
			t.Errorf("Language(%q) = %q, want %q", p, got, want)
		}
	}
}

// FuzzAssemble feeds arbitrary diffs to the stage: it may refuse them,
// but must not panic, and what it shows must be verbatim diff sections with
// consistent source ranges.
func FuzzAssemble(f *testing.F) {
	repo := ctxBasicRepo(f)
	f.Add(string(repo.diff), 30)
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n+b\n c\n", 0)
	f.Add("diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", 3)
	f.Add("diff --git \"a/\\tq\" \"b/\\tq\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/\\tq\"\n@@ -0,0 +1 @@\n+x\n", 1)
	f.Fuzz(func(t *testing.T, raw string, pad int) {
		fake := ctxBasicRepo(t)
		meta := ContextMeta{Head: ctxHeadSHA, ContextLines: pad % 50}
		lim := pipeline.DefaultLimits()
		lim.FullSourceLines = 3
		res, err := assemble(context.Background(), fake.f, meta, []byte(raw), lim)
		if err != nil {
			return
		}
		for _, file := range res.Files {
			if scope.IsSecretPath(file.Path) {
				t.Errorf("secret path shown: %q", file.Path)
			}
			if !strings.Contains(raw, file.Diff) {
				t.Errorf("%q: diff is not a section of the input", file.Path)
			}
			if r := file.SourceRange; r != nil {
				if r.From < 1 || r.From > r.To || r.To > r.Total {
					t.Errorf("%q: bad range %+v", file.Path, r)
				}
				for i, w := range r.Windows {
					if w.From < 1 || w.From > w.To || w.To > r.Total || (i > 0 && w.From <= r.Windows[i-1].To+1) {
						t.Errorf("%q: bad windows %+v", file.Path, r.Windows)
					}
				}
			}
		}
	})
}
