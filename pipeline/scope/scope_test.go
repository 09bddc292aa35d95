package scope

import (
	"errors"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestFileGates runs one file list through every gate, with include and
// exclude globs (the reference workflow's example: exclude **/generated/**, include
// **/*_test.go, plus the interplay cases).
func TestFileGates(t *testing.T) {
	include, err := CompileGlobs("include", []string{"**/*_test.go", "docs/**/*.{csv, tsv}", "api/vendor/**", "**/secrets.yaml", "legacy/**"})
	if err != nil {
		t.Fatal(err)
	}
	exclude, err := CompileGlobs("exclude", []string{"**/generated/**", "legacy/old/**"})
	if err != nil {
		t.Fatal(err)
	}
	g := FileGates{Include: include, Exclude: exclude}
	tests := []struct {
		f    GateFile
		want string
		why  string
	}{
		{GateFile{Path: "src/api/user.go"}, "", "ordinary source: not in include, still passes (include is no allow-list)"},
		{GateFile{Path: "assets/logo.png", Binary: true}, pipeline.GateBinary, "binary comes first"},
		{GateFile{Path: "keys/id_rsa", Binary: true}, pipeline.GateBinary, "binary is checked before secret"},
		{GateFile{Path: "deploy/.env.production"}, pipeline.GateSecret, "secret path"},
		{GateFile{Path: "config/secrets.yaml"}, pipeline.GateSecret, "secret beats an include glob: never overridable"},
		{GateFile{Path: "new.go", OldPath: ".ssh/config", Status: "renamed"}, pipeline.GateSecret, "a rename away from a secret path is secret"},
		{GateFile{Path: "third_party/lib", Submodule: true}, pipeline.GateSubmodule, "submodule pointer"},
		{GateFile{Path: "src/generated/api.go"}, pipeline.GateUserExclude, "exclude glob"},
		{GateFile{Path: "src/Generated/API.go"}, pipeline.GateUserExclude, "globs match case-insensitively"},
		{GateFile{Path: "legacy/old/a.go"}, pipeline.GateUserExclude, "exclude beats include"},
		{GateFile{Path: "legacy/new/a.go"}, "", "include match that passes anyway"},
		{GateFile{Path: "data/report.csv"}, pipeline.GateUnsupportedExt, "unknown extension"},
		{GateFile{Path: "docs/x/table.csv"}, "", "include {csv, tsv} with a space matches csv"},
		{GateFile{Path: "docs/x/table.tsv"}, "", "include {csv, tsv} with a space matches tsv too"},
		{GateFile{Path: "web/app.test.ts"}, "", "tests are reviewed by default"},
		{GateFile{Path: "pkg/x_test.go"}, "", "include glob on a test file"},
		{GateFile{Path: "vendor/github.com/x/y.go"}, pipeline.GateDefaultPath, "vendored code"},
		{GateFile{Path: "api/vendor/lib.go"}, "", "include skips default_path"},
		{GateFile{Path: "api/pb/user.pb.go"}, pipeline.GateDefaultPath, "generated code"},
		{GateFile{Path: "package-lock.json"}, pipeline.GateDefaultPath, "lock file"},
		{GateFile{Path: "Cargo.lock"}, pipeline.GateUnsupportedExt, ".lock is no reviewable type: the earlier gate answers"},
		{GateFile{Path: "web/pnpm-lock.yaml"}, pipeline.GateDefaultPath, "lock file of a supported type"},
		{GateFile{Path: "pkg/testdata/case.json"}, pipeline.GateDefaultPath, "fixture"},
		{GateFile{Path: "web/dist/app.js"}, pipeline.GateDefaultPath, "build output"},
		{GateFile{Path: "src/old.go", Status: "deleted"}, pipeline.GateDeleted, "deleted file"},
		{GateFile{Path: "scripts/deploy"}, "", "no extension: a script"},
		{GateFile{Path: "Dockerfile"}, "", "known file name"},
	}
	for _, tt := range tests {
		t.Run(tt.f.Path, func(t *testing.T) {
			if got := g.Decide(tt.f); got != tt.want {
				t.Errorf("Decide(%+v) = %q, want %q (%s)", tt.f, got, tt.want, tt.why)
			}
		})
	}
}

func TestCompileGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "a/b/c.go", true}, // no slash: any depth
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/a/b.go", false},
		{"src/**/*.go", "src/a/b.go", true},
		{"src/**/*.go", "src/b.go", true},
		{"*.{ts, tsx}", "web/a.tsx", true},
		{"*.{ ts ,tsx }", "web/a.ts", true},
		{"vendor/", "vendor/x/y.go", true},
		{"./src/**", "src/x", true},
		{"SRC/**", "src/x", true},
		{"src/**", "lib/src/x", false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("CompileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.Match(tt.path); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "src/{a,b", "src/[a-"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("CompileGlob(%q) accepted a malformed pattern", bad)
		}
	}
	_, err := CompileGlobs("exclude", []string{"ok/**", "bad/{x"})
	var inv *pipeline.InvalidError
	if !errors.As(err, &inv) || inv.Field != "exclude[1]" {
		t.Fatalf("CompileGlobs error = %v, want an InvalidError on exclude[1]", err)
	}
}

// TestRuleLayers: each layer wins once, first match wins within a layer,
// merge_system_rule appends the built-in rule.
func TestRuleLayers(t *testing.T) {
	req := &RuleFile{Rules: []PathRule{{Path: "api/**/*.go", Rule: "request rule"}}}
	repo := &RuleFile{Rules: []PathRule{
		{Path: "api/**", Rule: "repository rule (shadowed for .go by the request)"},
		{Path: "web/**/*.{ts, tsx}", Rule: "repository web rule", MergeSystemRule: true},
		{Path: "web/**", Rule: "second repository rule: never wins for ts"},
	}}
	svc := &RuleFile{Rules: []PathRule{{Path: "**/*.sql", Rule: "service rule"}}}
	rs, err := NewRuleSet(req, repo, ".prscout/rules.json@base", svc, "/etc/prscout/rules.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, layer, pattern, rulePrefix string
		merged                           bool
	}{
		{"api/users/h.go", layerRequest, "api/**/*.go", "request rule", false},
		{"api/openapi.yaml", layerRepository, "api/**", "repository rule", false},
		{"web/app/a.tsx", layerRepository, "web/**/*.{ts, tsx}", "repository web rule\n\nReact/TSX", true},
		{"db/migrate/1.sql", layerService, "**/*.sql", "service rule", false},
		{"cmd/main.go", LayerBuiltin, "language:go", "Go:", false},
		{"notes.txt", LayerNone, "", "", false},
	}
	for _, tt := range tests {
		m := rs.Resolve(tt.path)
		if m.Layer != tt.layer || m.Pattern != tt.pattern || !strings.HasPrefix(m.Rule, tt.rulePrefix) || m.MergedSystemRule != tt.merged {
			t.Errorf("Resolve(%q) = %+v, want layer %s pattern %q rule %q... merged %v", tt.path, m, tt.layer, tt.pattern, tt.rulePrefix, tt.merged)
		}
	}
}

func TestParseRuleFile(t *testing.T) {
	rf, err := ParseRuleFile([]byte(`{"exclude":["**/generated/**"],"rules":[{"path":"src/api/**/*.go","rule":"validate bodies","merge_system_rule":true}]}`), "rules")
	if err != nil || len(rf.Rules) != 1 || !rf.Rules[0].MergeSystemRule || rf.Exclude[0] != "**/generated/**" {
		t.Fatalf("ParseRuleFile = %+v, %v", rf, err)
	}
	for _, tt := range []struct{ in, field string }{
		{`{"rules":[{"path":"a/**","rule":"x","merge_system_rules":true}]}`, "rules"},
		{`{"rules":[{"path":"a/{x","rule":"x"}]}`, "rules.rules[0].path"},
		{`{"rules":[{"path":"a/**","rule":" "}]}`, "rules.rules[0].rule"},
		{`{"include":["[z-"]}`, "rules.include[0]"},
	} {
		_, err := ParseRuleFile([]byte(tt.in), "rules")
		var inv *pipeline.InvalidError
		if !errors.As(err, &inv) || inv.Field != tt.field {
			t.Errorf("ParseRuleFile(%s) = %v, want InvalidError on %s", tt.in, err, tt.field)
		}
	}
	var f RulesField
	if err := f.UnmarshalJSON([]byte(`"free text"`)); err != nil || f.Text != "free text" || f.File != nil {
		t.Errorf("string rules: %+v %v", f, err)
	}
	if err := f.UnmarshalJSON([]byte(`{"rules":[{"path":"**","rule":"r"}]}`)); err != nil || f.File == nil {
		t.Errorf("object rules: %+v %v", f, err)
	}
	if err := f.UnmarshalJSON([]byte(`[1]`)); err == nil {
		t.Error("array rules accepted")
	}
}

func TestCoverage(t *testing.T) {
	c := pipeline.CoverageOf(3, []pipeline.Excluded{{Path: "a", Reason: pipeline.GateSecret}, {Path: "b", Reason: pipeline.GateDefaultPath}, {Path: "c", Reason: pipeline.GateDefaultPath}, {Path: "d", Reason: pipeline.GateTooLarge}})
	if c.Changed != 7 || c.Reviewed != 3 || c.Excluded != 3 || c.DroppedForBudget != 1 || c.ExcludedByReason[pipeline.GateDefaultPath] != 2 {
		t.Fatalf("CoverageOf = %+v", c)
	}
	c.ContextDropped = 2
	want := "3 of 7 changed files reviewed; 3 excluded (1 secret, 2 default_path); 1 dropped for budget (too_large); 2 files of additional context dropped for budget"
	if got := c.Sentence(); got != want {
		t.Errorf("Sentence() =\n%s\nwant\n%s", got, want)
	}
}

// FuzzCompileGlob: request globs are untrusted; compiling and matching must
// never panic, and a compiled glob is lower-case and anchored.
func FuzzCompileGlob(f *testing.F) {
	for _, s := range []string{"**/*.{ts, tsx}", "src/[a-z]*.go", "vendor/", "{a,{b,c}}", "\\{x}", "a/**/b/**"} {
		f.Add(s, "src/a/b.tsx")
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		if g.pattern != strings.ToLower(g.pattern) {
			t.Fatalf("pattern %q compiled to %q: not lower-case", pattern, g.pattern)
		}
		if g.Match(p) != g.Match(strings.ToUpper(p)) && strings.EqualFold(strings.ToUpper(p), p) {
			t.Fatalf("%q: case changes the match of %q", pattern, p)
		}
	})
}

// TestAbuseExponentialGlob: patterns whose matching backtracks
// exponentially are refused when they are compiled, with a reason, while
// every pattern a real rule file uses still compiles.
func TestAbuseExponentialGlob(t *testing.T) {
	refused := map[string]string{
		strings.Repeat("{,}", 24) + "a":                   "alternatives",
		strings.Repeat("{a,b}", 7):                        "alternatives",
		"{" + strings.Repeat("a,", 70) + "b}":             "alternatives",
		"{{a,b},{c,{d,e,f,g,h,i,j,k}}}/{a,b,c,d,e,f,g,h}": "alternatives",
		strings.Repeat("*a", 9):                           "wildcards",
		strings.Repeat("x", 300):                          "too long",
	}
	for p, why := range refused {
		if _, err := compileGlob(p); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("compileGlob(%.40q) = %v, want an error about %s", p, err, why)
		}
	}
	for _, p := range []string{"**/*.{ts,tsx,js,jsx}", "src/**/*_test.go", "{a,b}/{c,d}/{e,f}/*.go", "vendor/", "**/gen/**/*.{pb,pb.gw}.go", "\\{,}x"} {
		if _, err := compileGlob(p); err != nil {
			t.Errorf("compileGlob(%q): %v", p, err)
		}
	}
	if _, err := CompileGlobs("include", []string{"*.go", strings.Repeat("{,}", 26)}); err == nil || !strings.Contains(err.Error(), "include[1]") {
		t.Errorf("CompileGlobs error %v does not name include[1]", err)
	}
}

// globCostSeeds are patterns at and past the cost bounds.
var globCostSeeds = []string{"{,}{,}{,}", "**/*.{a,b}", "*a*a*a*a", "{a,{b,{c,{d}}}}", "[a-z]*{x,y}", strings.Repeat("{,}", 26) + "*.go", strings.Repeat("*a", 12)}

// FuzzGlobCost: any pattern that compiles is within the cost model matching
// relies on (length, wildcards, brace alternatives), counted on the
// compiled pattern, never timed; BenchmarkGlobCost times the worst ones.
func FuzzGlobCost(f *testing.F) {
	for _, s := range globCostSeeds {
		f.Add(s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b")
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := compileGlob(pattern)
		if err != nil || len(p) > 512 {
			return
		}
		stars := 0
		for i := 0; i < len(g.pattern); i++ {
			if g.pattern[i] == '*' && (i == 0 || g.pattern[i-1] != '*') {
				stars++
			}
		}
		if len(g.pattern) > maxGlobChars || stars > maxGlobStars || braceAlternatives(g.pattern) > maxGlobAlternatives {
			t.Fatalf("%q compiled to %q: %d characters, %d wildcards, %d alternatives", pattern, g.pattern, len(g.pattern), stars, braceAlternatives(g.pattern))
		}
		g.Match(p)
	})
}

// TestLiteralGlobCoversOnlyItself: a file's path made a pattern (a rule
// proposed from a finding) matches that file and no other, whatever
// wildcard characters its name holds, at the root or deeper.
func TestLiteralGlobCoversOnlyItself(t *testing.T) {
	paths := []string{"src/*.go", "src/a.go", "src/b.go", "main.go", "cmd/main.go", "q?.go", "qa.go", "a[1].go", "a1.go",
		"b{x,y}.go", "bx.go", "by.go", "src/**/x.go", "src/d/x.go", "c,d.go", "s/ }{ .go", "s/}{.go"}
	for _, p := range paths {
		lit, err := LiteralGlob(p)
		if err != nil {
			t.Fatalf("LiteralGlob(%q): %v", p, err)
		}
		gs, err := CompileGlobs("path", []string{lit})
		if err != nil {
			t.Fatalf("LiteralGlob(%q) = %q does not compile: %v", p, lit, err)
		}
		for _, q := range paths {
			if got := gs[0].Match(q); got != (q == p) {
				t.Errorf("LiteralGlob(%q) = %q matches %q: %v", p, lit, q, got)
			}
		}
	}
	if _, err := LiteralGlob(`a\b.go`); err == nil {
		t.Error("a path with a backslash got a pattern")
	}
}

// BenchmarkGlobCost times matching a long path with the costliest patterns
// that compile.
func BenchmarkGlobCost(b *testing.B) {
	p := strings.Repeat("a", 46) + "/b"
	var gs []Glob
	for _, s := range globCostSeeds {
		if g, err := compileGlob(s); err == nil {
			gs = append(gs, g)
		}
	}
	for b.Loop() {
		for _, g := range gs {
			g.Match(p)
		}
	}
}
