//go:build cgo

package treesit

import (
	"context"
	"errors"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// mapTree is a tree of files in memory.
type mapTree map[string]string

func (m mapTree) Grep(_ context.Context, words, _ []string, limit int) ([]string, error) {
	re := regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
	var out []string
	for p, s := range m {
		if re.MatchString(s) && len(out) < limit {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m mapTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	if s, ok := m[p]; ok {
		return []byte(s), nil
	}
	return nil, errors.New("no such file")
}

func (m mapTree) ListDir(_ context.Context, dir string) ([]string, error) {
	var out []string
	for p := range m {
		if d := path.Dir(p); d == dir || (d == "." && dir == "") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// TestConfigsDecodedOncePerContent: composer.json, the Cargo.toml files
// and the compilation database are decoded by the first request that
// needs them; a second request over the same contents decodes none, and
// one after composer.json changed decodes it alone.
func TestConfigsDecodedOncePerContent(t *testing.T) {
	tree := mapTree{
		"composer.json":          `{"autoload": {"psr-4": {"App\\": "src/"}}}`,
		"src/Models/User.php":    "<?php\nnamespace App\\Models;\n\nclass User {\n    public function fullName() {\n        return 1;\n    }\n}\n",
		"src/Run.php":            "<?php\nnamespace App;\n\nuse App\\Models\\User;\n\nfunction run(User $u) {\n    return $u->fullName();\n}\n",
		"Cargo.toml":             "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/core/Cargo.toml": "[package]\nname = \"calc-core\"\n",
		"crates/core/src/lib.rs": "pub fn add_two(a: i32) -> i32 {\n    a + 2\n}\n",
		"crates/app/Cargo.toml":  "[package]\nname = \"app\"\n",
		"crates/app/src/main.rs": "use calc_core::add_two;\n\nfn main() {\n    add_two(1);\n}\n",
		"compile_commands.json":  `[{"directory": "/p", "file": "/p/src/main.c", "command": "cc -Iapi -c src/main.c"}]`,
		"api/bar.h":              "int bar_open(int n);\n",
		"src/main.c":             "#include \"bar.h\"\n\nint bar_open(int n) {\n    return n + 1;\n}\n",
		"src/use.c":              "#include \"bar.h\"\n\nint run(void) {\n    return bar_open(1);\n}\n",
	}
	changed := map[string][2]string{
		"src/Models/User.php":    {"return 1;", "return 2;"},
		"crates/core/src/lib.rs": {"a + 2", "a + 3"},
		"src/main.c":             {"n + 1", "n + 2"},
	}
	find := func(cache *engine.Cache) int64 {
		var cs []*engine.Change
		for p, edit := range changed {
			cs = append(cs, &engine.Change{Path: p, Old: []byte(tree[p]), New: []byte(strings.Replace(tree[p], edit[0], edit[1], 1)),
				Added: map[int]bool{strings.Count(tree[p][:strings.Index(tree[p], edit[0])], "\n") + 1: true}})
			cs[len(cs)-1].Removed = cs[len(cs)-1].Added
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
		ev := engine.NewEvidence(cs)
		ev.Cache = cache
		before := configsDecoded.Load()
		if err := Reader.Find(context.Background(), tree, cs, cs, ev); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"src/Run.php", "crates/app/src/main.rs", "src/use.c"} {
			if ev.Files[want] == nil {
				t.Errorf("%s not found", want)
			}
		}
		return configsDecoded.Load() - before
	}
	cache := engine.NewCache(1 << 20)
	if n := find(cache); n < 4 {
		t.Errorf("first request decoded %d configuration files, want composer.json, 2+ Cargo.toml and the database", n)
	}
	if n := find(cache); n != 0 {
		t.Errorf("second request decoded %d configuration files, want 0", n)
	}
	tree["composer.json"] = strings.Replace(tree["composer.json"], "}}}", "}, \"psr-0\": {}}}", 1)
	if n := find(cache); n != 1 {
		t.Errorf("after composer.json changed: %d decoded, want 1", n)
	}
}

// TestVendoredCopiesSearchedForTheirOwnChanges: a file of a vendored copy
// (deps/zlib/) naming a changed declaration is not even parsed for a
// change to the project's own files, and is searched for a change to the
// same copy.
func TestVendoredCopiesSearchedForTheirOwnChanges(t *testing.T) {
	t.Cleanup(func() { parseFile = parse })
	var mu sync.Mutex
	var parsed []string
	parseFile = func(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, error) {
		mu.Lock()
		parsed = append(parsed, p)
		mu.Unlock()
		return parse(ctx, l, p, src, spans)
	}
	const def = "int crc_step(int n) {\n    return n + 1;\n}\n"
	const caller = "int crc_step(int n);\n\nint run(void) {\n    return crc_step(1);\n}\n"
	tree := mapTree{
		"src/crc.c": def, "src/run.c": caller,
		"deps/zlib/crc.c": def, "deps/zlib/use.c": caller,
	}
	for _, c := range []struct {
		path       string
		found, not string
	}{
		{"src/crc.c", "src/run.c", "deps/zlib/use.c"},
		{"deps/zlib/crc.c", "deps/zlib/use.c", ""},
	} {
		parsed = nil
		cs := []*engine.Change{{Path: c.path, Old: []byte(def), New: []byte(strings.Replace(def, "n + 1", "n + 2", 1)),
			Added: map[int]bool{2: true}, Removed: map[int]bool{2: true}}}
		ev := engine.NewEvidence(cs)
		if err := Reader.Find(context.Background(), tree, cs, cs, ev); err != nil {
			t.Fatal(err)
		}
		if ev.Files[c.found] == nil {
			t.Errorf("change to %s: %s not found", c.path, c.found)
		}
		if c.not != "" && slices.Contains(parsed, c.not) {
			t.Errorf("change to %s: %s parsed (%v)", c.path, c.not, parsed)
		}
	}
	if got := engine.VendoredCopy("deps/zlib/x/y.c"); got != "deps/zlib/" {
		t.Errorf("VendoredCopy(deps/zlib/x/y.c) = %q", got)
	}
	if got := engine.VendoredCopy("deps/x.c"); got != "deps/" {
		t.Errorf("VendoredCopy(deps/x.c) = %q", got)
	}
}
