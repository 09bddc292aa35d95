package candidates

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/treesit"
)

// deadlineTree ends the searches' reading (cancel) once it has read
// after of the files whose path starts with prefix: the time for reading
// runs out in the middle of the search's reading.
type deadlineTree struct {
	Tree
	prefix string
	after  int
	cancel context.CancelFunc

	mu   sync.Mutex
	read int
}

func (d *deadlineTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	src, err := d.Tree.ReadFile(ctx, p)
	if strings.HasPrefix(p, d.prefix) {
		d.mu.Lock()
		d.read++
		if d.read == d.after {
			d.cancel()
		}
		d.mu.Unlock()
	}
	return src, err
}

// TestDeadlineListsWhatWasRead checks, for every reader, that a search
// whose time for reading runs out while it reads the files holding the
// changed names still lists the callers it read before, with a cut that
// says so: the stage answers what was found, with a warning, not nothing.
func TestDeadlineListsWhatWasRead(t *testing.T) {
	const callers, after = 40, 12
	type shape struct {
		lang, path, old, new, prefix string
		caller                       func(i int) (string, string)
		extra                        map[string]string
	}
	shapes := []shape{
		{lang: "go", path: "lib/t.go", prefix: "cmd/",
			old:   "package lib\n\nfunc Target(a int) int { return a }\n",
			new:   "package lib\n\nfunc Target(a, b int) int { return a + b }\n",
			extra: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"},
			caller: func(i int) (string, string) {
				return fmt.Sprintf("cmd/u%02d/u.go", i), fmt.Sprintf("package u%02d\n\nimport \"example.com/m/lib\"\n\nfunc F() int { return lib.Target(1) }\n", i)
			}},
		{lang: "python", path: "pkg/t.py", prefix: "pkg/u",
			old: "def target(a):\n    return a\n",
			new: "def target(a, b):\n    return a + b\n",
			caller: func(i int) (string, string) {
				return fmt.Sprintf("pkg/u%02d.py", i), "from pkg.t import target\n\n\ndef f():\n    return target(1)\n"
			}},
		{lang: "typescript", path: "src/t.ts", prefix: "src/u",
			old: "export function target(a: number): number {\n  return a;\n}\n",
			new: "export function target(a: number, b: number): number {\n  return a + b;\n}\n",
			caller: func(i int) (string, string) {
				return fmt.Sprintf("src/u%02d.ts", i), "import { target } from './t';\n\nexport const x = target(1);\n"
			}},
		{lang: "java", path: "src/main/java/p/T.java", prefix: "src/main/java/p/U",
			old: "package p;\n\npublic class T {\n  public static int target(int a) { return a; }\n}\n",
			new: "package p;\n\npublic class T {\n  public static int target(int a, int b) { return a + b; }\n}\n",
			caller: func(i int) (string, string) {
				return fmt.Sprintf("src/main/java/p/U%02d.java", i), fmt.Sprintf("package p;\n\nclass U%02d {\n  int f() { return T.target(1); }\n}\n", i)
			}},
	}
	if treesit.Built {
		shapes = append(shapes, shape{lang: "c", path: "src/t.h", prefix: "src/u",
			old: "int target(int a);\n",
			new: "int target(int a, int b);\n",
			caller: func(i int) (string, string) {
				return fmt.Sprintf("src/u%02d.c", i), "#include \"t.h\"\n\nint f(void) { return target(1); }\n"
			}})
	}
	for _, s := range shapes {
		t.Run(s.lang, func(t *testing.T) {
			files := map[string]string{s.path: s.new}
			for k, v := range s.extra {
				files[k] = v
			}
			for i := range callers {
				p, src := s.caller(i)
				files[p] = src
			}
			added, removed := lineDiff(s.old, s.new)
			tree := &deadlineTree{Tree: memTree(files), prefix: s.prefix, after: after}
			reading := func(ctx context.Context) (context.Context, context.CancelFunc) {
				rctx, cancel := context.WithCancel(ctx)
				tree.cancel = cancel
				return rctx, cancel
			}
			got, err := Find(context.Background(), tree, []Change{{Path: s.path, Status: StatusModified, Old: []byte(s.old), New: []byte(s.new),
				AddedLines: added, RemovedLines: removed}}, Options{Max: 100, reading: reading})
			if tree.read < after {
				t.Fatalf("the search read %d callers, fewer than the %d the time runs out after", tree.read, after)
			}
			var cut *CutError
			if !errors.As(err, &cut) || !strings.Contains(strings.Join(cut.What, "; "), "not read in the time of the search") {
				t.Fatalf("err = %v, want a cut saying files were not read in time", err)
			}
			listed := 0
			for _, c := range got {
				if strings.HasPrefix(c.Path, s.prefix) {
					listed++
				}
			}
			if listed == 0 {
				t.Errorf("the time ran out after %d callers were read; none is listed (%d candidates)", after, len(got))
			}
		})
	}
}
