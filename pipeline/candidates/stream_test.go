package candidates

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// A server meets a stream of distinct pull requests against one
// destination: the next one's base side of a file is what an earlier one
// read (its head side, or a file its search found). Each reader lexes the
// changed files through the readers' cache, so a content it lexed once is
// never lexed again: the second pull request below lexes only its new
// side of the changed file.
func TestStreamLexesEachContentOnce(t *testing.T) {
	for _, tc := range []struct {
		lang, path, user string
		v0, v1, v2, uses string
	}{
		{"typescript", "src/run.ts", "src/main.ts",
			"export function run(s: string): string {\n  return s;\n}\n",
			"export function run(s: string): string {\n  return s + '!';\n}\n",
			"export function run(s: string): string {\n  return s + '?';\n}\n",
			"import {run} from './run';\n\nrun('x');\n"},
		{"python", "pkg/run.py", "pkg/main.py",
			"def run(s):\n    return s\n",
			"def run(s):\n    return s + '!'\n",
			"def run(s):\n    return s + '?'\n",
			"from pkg.run import run\n\nrun('x')\n"},
		{"java", "src/p/Run.java", "src/p/Main.java",
			"package p;\n\npublic class Run {\n  public static String run(String s) {\n    return s;\n  }\n}\n",
			"package p;\n\npublic class Run {\n  public static String run(String s) {\n    return s + \"!\";\n  }\n}\n",
			"package p;\n\npublic class Run {\n  public static String run(String s) {\n    return s + \"?\";\n  }\n}\n",
			"package p;\n\nclass Main {\n  void go() {\n    Run.run(\"x\");\n  }\n}\n"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			cache := NewCache(64 << 20)
			ask := func(old, new string) []Candidate {
				t.Helper()
				c := Change{Path: tc.path, Status: StatusModified, Old: []byte(old), New: []byte(new)}
				c.AddedLines, c.RemovedLines = lineDiff(old, new)
				tree := memTree(map[string]string{tc.path: new, tc.user: tc.uses})
				got, err := Find(context.Background(), tree, []Change{c}, Options{Cache: cache})
				if err != nil {
					t.Fatalf("Find: %v", err)
				}
				return got
			}
			first := ask(tc.v0, tc.v1)
			before := lexed.Reads()
			second := ask(tc.v1, tc.v2)
			if n := lexed.Reads() - before; n != 1 {
				t.Errorf("the second pull request lexed %d files, want 1 (its head side of %s; its base side and %s were lexed before)", n, tc.path, tc.user)
			}
			for _, got := range [][]Candidate{first, second} {
				if len(got) == 0 || got[0].Path != tc.user {
					t.Fatalf("candidates %s, want %s first", dump(got), tc.user)
				}
			}
			if !strings.Contains(second[0].Reason, "run") {
				t.Errorf("reason %q names no run", second[0].Reason)
			}
		})
	}
}
