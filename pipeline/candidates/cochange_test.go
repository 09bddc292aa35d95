package candidates

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/cochange"
)

// historyTree is a Tree that keeps a history: pairs answered for commit
// "dest", asked paths recorded.
type historyTree struct {
	Tree
	pairs []cochange.Pair
	err   error
	asked []string
}

func (h *historyTree) CoChanged(_ context.Context, at string, paths []string) ([]cochange.Pair, error) {
	if h.err != nil {
		return nil, h.err
	}
	if at != "dest" {
		return nil, errors.New("unknown commit " + at)
	}
	h.asked = append(h.asked, paths...)
	var out []cochange.Pair
	for _, p := range h.pairs {
		for _, a := range paths {
			if p.Path == a {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// findWithHistory runs Find on a Go change of cmd/command.go's body over
// baseGo plus extra files, with pairs as the history.
func findWithHistory(t *testing.T, h *historyTree, at string, extra map[string]string) []Candidate {
	t.Helper()
	head := baseGo()
	for p, s := range extra {
		head[p] = s
	}
	changed := strings.Replace(commandGo, "\treturn c.run()", "\tif c.run == nil {\n\t\treturn nil\n\t}\n\treturn c.run()", 1)
	head["cmd/command.go"] = changed
	h.Tree = memTree(head)
	added, removed := lineDiff(commandGo, changed)
	got, err := Find(context.Background(), h, []Change{{Path: "cmd/command.go", Status: StatusModified,
		Old: []byte(commandGo), New: []byte(changed), AddedLines: added, RemovedLines: removed}}, Options{HistoryAt: at})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return got
}

func pair(with string, together, touching int) cochange.Pair {
	return cochange.Pair{Path: "cmd/command.go", With: with, Together: together, Touching: touching}
}

func TestFindCoChange(t *testing.T) {
	extra := map[string]string{
		"store/backend.go":      "package store\n\nvar Backend = 1\n",
		"store/backend_test.go": "package store\n",
		"store/other.go":        "package store\n\nvar Other = 2\n",
		"store/rare.go":         "package store\n\nvar Rare = 3\n",
		"store/gen.pb.go":       "package store\n",
		"CHANGELOG.md":          "changes\n",
	}
	h := &historyTree{pairs: []cochange.Pair{
		pair("store/backend.go", 7, 9),
		pair("store/backend_test.go", 9, 9), // a test: readers list tests
		pair("store/gone.go", 8, 9),         // not at the head
		pair("store/gen.pb.go", 8, 9),       // generated
		pair("CHANGELOG.md", 9, 9),          // not code
		pair("store/rare.go", 2, 9),         // under the confidence bound
		pair("main.go", 5, 9),               // found by the reader too
		pair("store/other.go", 3, 9),
	}}
	got := findWithHistory(t, h, "dest", extra)
	check(t, got, []want{
		{"main.go", KindImpact, MethodGo, "calls `(*Command).Execute`, whose body changed; changed together in 5 of the last 9 commits touching command.go"},
		{"store/backend.go", KindImpact, MethodCoChange, "changed together in 7 of the last 9 commits touching command.go"},
		{"store/other.go", KindImpact, MethodCoChange, "changed together in 3 of the last 9"},
		{"cmd/root_test.go", KindImpact, MethodGo, "calls `(*Command).Execute`"},
	})
	if len(h.asked) != 1 || h.asked[0] != "cmd/command.go" {
		t.Errorf("the history was asked about %v, want the changed file", h.asked)
	}
	without := findWithHistory(t, &historyTree{}, "dest", extra)
	if without[0].Path != "main.go" || got[0].Score <= without[0].Score {
		t.Errorf("the history did not raise a reader's candidate: %v with, %v without", got[0].Score, without[0].Score)
	}
	// Below what a reader resolved, above the textual fallback and the
	// identifier search.
	if s := got[1].Score; s >= scoreLowestResolved || s <= 0.4 {
		t.Errorf("a co-change candidate scores %v", s)
	}
	if got[1].Symbols[0] != "cmd/command.go" {
		t.Errorf("symbols %v, want the changed file it goes with", got[1].Symbols)
	}
}

// scoreLowestResolved is the lowest score of a name a reader resolved
// through its declaration (Java's on-demand import).
const scoreLowestResolved = 0.75

func TestFindCoChangeBounds(t *testing.T) {
	extra := map[string]string{}
	var pairs []cochange.Pair
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		p := "store/" + n + ".go"
		extra[p] = "package store\n"
		pairs = append(pairs, pair(p, 9, 9))
	}
	got := findWithHistory(t, &historyTree{pairs: pairs}, "dest", extra)
	n := 0
	for _, c := range got {
		if c.Method == MethodCoChange {
			n++
		}
	}
	if n != coChangeMax {
		t.Errorf("%d co-change candidates, want at most %d:\n%s", n, coChangeMax, dump(got))
	}
	for name, h := range map[string]struct {
		tree *historyTree
		at   string
	}{
		"no destination commit": {&historyTree{pairs: pairs}, ""},
		"history fails":         {&historyTree{pairs: pairs, err: errors.New("no such commit")}, "dest"},
	} {
		for _, c := range findWithHistory(t, h.tree, h.at, extra) {
			if c.Method == MethodCoChange {
				t.Errorf("%s: listed %s", name, c.Path)
			}
		}
	}
}

// Only a changed code file's directory raises its neighbours: a changed
// README at the root does not raise main.go.
func TestFindDirectoryOfCodeOnly(t *testing.T) {
	head := baseGo()
	changed := strings.Replace(commandGo, "\treturn c.run()", "\tif c.run == nil {\n\t\treturn nil\n\t}\n\treturn c.run()", 1)
	head["cmd/command.go"] = changed
	head["README.md"] = "# cmd\n\nmore\n"
	added, removed := lineDiff(commandGo, changed)
	code := Change{Path: "cmd/command.go", Status: StatusModified, Old: []byte(commandGo), New: []byte(changed), AddedLines: added, RemovedLines: removed}
	readme := Change{Path: "README.md", Status: StatusModified, Old: []byte("# cmd\n"), New: []byte(head["README.md"]), AddedLines: []int{2, 3}}
	find := func(cs ...Change) map[string]Candidate {
		got, err := Find(context.Background(), memTree(head), cs, Options{})
		if err != nil {
			t.Fatalf("Find: %v", err)
		}
		m := map[string]Candidate{}
		for _, c := range got {
			m[c.Path] = c
		}
		return m
	}
	alone, withReadme := find(code), find(code, readme)
	main, ok := withReadme["main.go"]
	if !ok || main.Score != alone["main.go"].Score || strings.Contains(main.Reason, "next to") {
		t.Errorf("main.go with a changed README: %+v, without: %+v", main, alone["main.go"])
	}
	if c, ok := alone["cmd/root_test.go"]; !ok || !strings.HasSuffix(c.Reason, "; next to command.go") {
		t.Errorf("cmd/root_test.go next to the change: %+v", c)
	}
}
