package candidates

import (
	"slices"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
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
		"okio/src/jvmMain/kotlin/okio/Buffer.kt": false, "src/Attest/a.php": false, "lib/test_helpers.rb": false,
	} {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
