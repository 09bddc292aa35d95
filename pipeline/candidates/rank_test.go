package candidates

import (
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/cochange"
)

func TestRankOrderAndLimits(t *testing.T) {
	e := engine.NewEvidence(nil)
	add := func(p string, score float64, m engine.Method) {
		e.Add(p, engine.Item{Kind: engine.KindImpact, Symbol: "f", Reason: "calls `f`", Score: score, Method: m})
	}
	// A test with stronger evidence still follows every production file.
	add("pkg/strong_test.go", 0.95, engine.MethodGo)
	add("tests/test_api.py", 0.9, engine.MethodTokens)
	add("pkg/weak.go", 0.3, engine.MethodGo)
	add("pkg/strong.go", 0.85, engine.MethodGo)
	// Generated copies are never listed, by name or by content.
	add("api/v1/api.pb.go", 0.99, engine.MethodGo)
	add("proto/api_pb2.py", 0.99, engine.MethodTokens)
	add("web/app.min.js", 0.99, engine.MethodTokens)
	add("pkg/zz_deepcopy.go", 0.99, engine.MethodGo)
	e.MarkGenerated("pkg/zz_deepcopy.go")
	// A hand-written declaration file is the API of a JavaScript package.
	add("types/index.d.ts", 0.5, engine.MethodTokens)
	// Textual fallbacks: at most engine.MaxTextual of them.
	for _, p := range []string{"t/a.py", "t/b.py", "t/c.py", "t/d.py", "t/e.py"} {
		add(p, 0.2, engine.MethodTextual)
	}
	got := rank(e, 12, ties{})
	var paths []string
	textual := 0
	for _, c := range got {
		paths = append(paths, c.Path)
		if c.Method == MethodTextual {
			textual++
		}
		if c.Test != isTestPath(c.Path) {
			t.Errorf("%s: Test = %v", c.Path, c.Test)
		}
	}
	want := []string{"pkg/strong.go", "types/index.d.ts", "pkg/weak.go", "t/a.py", "t/b.py", "t/c.py", "pkg/strong_test.go", "tests/test_api.py"}
	if !slices.Equal(paths, want) {
		t.Errorf("rank = %v\nwant   %v", paths, want)
	}
	if textual != engine.MaxTextual {
		t.Errorf("%d textual candidates, want %d", textual, engine.MaxTextual)
	}
	if got := rank(e, 2, ties{}); len(got) != 2 || got[0].Path != "pkg/strong.go" {
		t.Errorf("rank(max 2) = %v", got)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/a_test.go": true, "tests/test_api.py": true, "src/a.spec.ts": true, "src/test/java/a/ATest.java": true,
		"Src/Newtonsoft.Json.Tests/JsonConvertTest.cs": true, "Src/Lib.Tests/Helpers.cs": true, "src/Lib/ContestTest.cs": true,
		"okio/src/jvmTest/kotlin/okio/BufferTest.kt": true, "okio/src/commonTest/kotlin/okio/Util.kt": true,
		"spec/sinatra/base_spec.rb": true, "lib/a_spec.rb": true, "tests/Unit/ClientTest.php": true,
		"pkg/a.go": false, "Src/Newtonsoft.Json/JsonConvert.cs": false, "lib/latest.rb": false, "src/Contest.cs": false,
		"okio/src/jvmMain/kotlin/okio/Buffer.kt": false, "src/Attest/a.php": false, "lib/test_helpers.rb": false, "tools/LoadTest": false,
	} {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// Each further tie raises a reader's candidate and is named in its reason:
// the history from coChangeHintMin on, the directory of a changed file.
func TestRankFusesTies(t *testing.T) {
	cs := []*engine.Change{{Path: "cmd/command.go"}}
	e := engine.NewEvidence(cs)
	for _, p := range []string{"cmd/next.go", "store/paired.go", "store/rare.go", "store/plain.go"} {
		e.Add(p, engine.Item{Kind: engine.KindImpact, Symbol: "f", Reason: "calls `f`", Score: 0.8, Method: engine.MethodGo})
	}
	tie := newTies(cs, []cochange.Pair{
		{Path: "cmd/command.go", With: "store/paired.go", Together: 2, Touching: 9}, // 0.2: below the listing bound
		{Path: "cmd/command.go", With: "store/rare.go", Together: 2, Touching: 30},  // 0.06: below coChangeHintMin
		{Path: "cmd/command.go", With: "store/paired.go", Together: 2, Touching: 40},
	})
	got := map[string]Candidate{}
	var order []string
	for _, c := range rank(e, 12, tie) {
		got[c.Path] = c
		order = append(order, c.Path)
	}
	plain := got["store/plain.go"].Score
	if got["store/rare.go"].Score != plain || got["store/rare.go"].Reason != "calls `f`" {
		t.Errorf("a pair below %v raised %+v", coChangeHintMin, got["store/rare.go"])
	}
	if c := got["cmd/next.go"]; c.Score <= plain || !strings.HasSuffix(c.Reason, "; next to command.go") {
		t.Errorf("the directory did not raise %+v over %v", c, plain)
	}
	if c := got["store/paired.go"]; c.Score <= got["cmd/next.go"].Score ||
		!strings.HasSuffix(c.Reason, "; changed together in 2 of the last 9 commits touching command.go") {
		t.Errorf("the history (its best pair) did not raise %+v", c)
	}
	if want := []string{"store/paired.go", "cmd/next.go", "store/plain.go", "store/rare.go"}; !slices.Equal(order, want) {
		t.Errorf("rank = %v, want %v", order, want)
	}
	// A file the history lists alone keeps its confidence's score, raised by
	// the directory only, below what a reader resolved.
	e = engine.NewEvidence(cs)
	p := cochange.Pair{Path: "cmd/command.go", With: "cmd/flags.go", Together: 9, Touching: 9}
	e.Add("cmd/flags.go", coChangeItem(p))
	c := rank(e, 12, newTies(cs, []cochange.Pair{p}))[0]
	if c.Score <= coChangeItem(p).Score || c.Score >= scoreLowestResolved || strings.Count(c.Reason, "changed together") != 1 {
		t.Errorf("a co-change candidate in the changed directory: %+v", c)
	}
}

// TestRankReasonNamesTheMostBreakingChange: of a file's items of one score,
// the reason is the one that follows the most breaking change, and the
// file's score and rank stay those of its evidence.
func TestRankReasonNamesTheMostBreakingChange(t *testing.T) {
	e := engine.NewEvidence(nil)
	e.Add("a.go", engine.Item{Kind: engine.KindImpact, Symbol: "f", Reason: "calls `f`, whose body changed", Score: 0.85, Method: engine.MethodGo, Call: true, Change: engine.ChangedBody})
	e.Add("a.go", engine.Item{Kind: engine.KindImpact, Symbol: "g", Reason: "uses `g`, whose signature changed", Score: 0.85, Method: engine.MethodGo, Change: engine.ChangedSignature})
	e.Add("a.go", engine.Item{Kind: engine.KindImpact, Symbol: "h", Reason: "calls `h`, whose body changed", Score: 0.8, Method: engine.MethodGo, Call: true, Change: engine.ChangedBody})
	e.Add("b.go", engine.Item{Kind: engine.KindImpact, Symbol: "k", Reason: "calls `k`, whose body changed", Score: 0.85, Method: engine.MethodGo, Change: engine.ChangedBody})
	e.Add("b.go", engine.Item{Kind: engine.KindImpact, Symbol: "f", Reason: "calls `f`, whose body changed", Score: 0.85, Method: engine.MethodGo, Call: true, Change: engine.ChangedBody})
	got := rank(e, 12, ties{})
	if len(got) != 2 || got[0].Path != "a.go" || got[1].Path != "b.go" {
		t.Fatalf("rank = %s", dump(got))
	}
	if a := got[0]; !strings.HasPrefix(a.Reason, "uses `g`, whose signature changed") || a.Symbols[0] != "g" {
		t.Errorf("a.go: reason %q, symbols %v: want the signature change's", a.Reason, a.Symbols)
	}
	if b := got[1]; !strings.HasPrefix(b.Reason, "calls `f`") {
		t.Errorf("b.go: reason %q: among body changes, want the call", b.Reason)
	}
	// The score is the evidence's: the best item raised by 15% of what it
	// lacks for each further name (two for a.go, one for b.go).
	if want := round3(1 - 0.15*0.85*0.85); got[0].Score != want {
		t.Errorf("a.go scores %v, want %v", got[0].Score, want)
	}
}
