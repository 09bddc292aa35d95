package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFileGates runs one file list through every gate, with include and
// exclude globs (the seed's example: exclude **/generated/**, include
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
	g := FileGates{Include: include, Exclude: exclude, MaxDiffChars: 1000}
	tests := []struct {
		f    GateFile
		want string
		why  string
	}{
		{GateFile{Path: "src/api/user.go"}, "", "ordinary source: not in include, still passes (include is no allow-list)"},
		{GateFile{Path: "assets/logo.png", Binary: true}, GateBinary, "binary comes first"},
		{GateFile{Path: "keys/id_rsa", Binary: true}, GateBinary, "binary is checked before secret"},
		{GateFile{Path: "deploy/.env.production"}, GateSecret, "secret path"},
		{GateFile{Path: "config/secrets.yaml"}, GateSecret, "secret beats an include glob: never overridable"},
		{GateFile{Path: "new.go", OldPath: ".ssh/config", Status: "renamed"}, GateSecret, "a rename away from a secret path is secret"},
		{GateFile{Path: "third_party/lib", Submodule: true}, GateSubmodule, "submodule pointer"},
		{GateFile{Path: "src/generated/api.go"}, GateUserExclude, "exclude glob"},
		{GateFile{Path: "src/Generated/API.go"}, GateUserExclude, "globs match case-insensitively"},
		{GateFile{Path: "legacy/old/a.go"}, GateUserExclude, "exclude beats include"},
		{GateFile{Path: "legacy/new/a.go"}, "", "include match that passes anyway"},
		{GateFile{Path: "data/report.csv"}, GateUnsupportedExt, "unknown extension"},
		{GateFile{Path: "docs/x/table.csv"}, "", "include {csv, tsv} with a space matches csv"},
		{GateFile{Path: "docs/x/table.tsv"}, "", "include {csv, tsv} with a space matches tsv too"},
		{GateFile{Path: "web/app.test.ts"}, "", "tests are reviewed by default"},
		{GateFile{Path: "pkg/x_test.go"}, "", "include glob on a test file"},
		{GateFile{Path: "vendor/github.com/x/y.go"}, GateDefaultPath, "vendored code"},
		{GateFile{Path: "api/vendor/lib.go"}, "", "include skips default_path"},
		{GateFile{Path: "api/pb/user.pb.go"}, GateDefaultPath, "generated code"},
		{GateFile{Path: "package-lock.json"}, GateDefaultPath, "lock file"},
		{GateFile{Path: "Cargo.lock"}, GateUnsupportedExt, ".lock is no reviewable type: the earlier gate answers"},
		{GateFile{Path: "web/pnpm-lock.yaml"}, GateDefaultPath, "lock file of a supported type"},
		{GateFile{Path: "pkg/testdata/case.json"}, GateDefaultPath, "fixture"},
		{GateFile{Path: "web/dist/app.js"}, GateDefaultPath, "build output"},
		{GateFile{Path: "src/old.go", Status: "deleted"}, GateDeleted, "deleted file"},
		{GateFile{Path: "src/big.go", DiffChars: 1001}, GateTooLarge, "diff over the share of the budget"},
		{GateFile{Path: "src/edge.go", DiffChars: 1000}, "", "exactly at the threshold passes"},
		{GateFile{Path: "vendor/big.go", DiffChars: 5000}, GateDefaultPath, "earlier gate wins over too_large"},
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
		g, err := CompileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("CompileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.Match(tt.path); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "src/{a,b", "src/[a-"} {
		if _, err := CompileGlob(bad); err == nil {
			t.Errorf("CompileGlob(%q) accepted a malformed pattern", bad)
		}
	}
	_, err := CompileGlobs("exclude", []string{"ok/**", "bad/{x"})
	var inv *InvalidError
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
		{"api/users/h.go", LayerRequest, "api/**/*.go", "request rule", false},
		{"api/openapi.yaml", LayerRepository, "api/**", "repository rule", false},
		{"web/app/a.tsx", LayerRepository, "web/**/*.{ts, tsx}", "repository web rule\n\nReact/TSX", true},
		{"db/migrate/1.sql", LayerService, "**/*.sql", "service rule", false},
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
		var inv *InvalidError
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
	c := CoverageOf(3, []Excluded{{"a", GateSecret}, {"b", GateDefaultPath}, {"c", GateDefaultPath}, {"d", GateTooLarge}})
	if c.Changed != 7 || c.Reviewed != 3 || c.Excluded != 3 || c.DroppedForBudget != 1 || c.ExcludedByReason[GateDefaultPath] != 2 {
		t.Fatalf("CoverageOf = %+v", c)
	}
	c.ContextDropped = 2
	want := "3 of 7 changed files reviewed; 3 excluded (1 secret, 2 default_path); 1 dropped for budget (too_large); 2 files of additional context dropped for budget"
	if got := c.Sentence(); got != want {
		t.Errorf("Sentence() =\n%s\nwant\n%s", got, want)
	}
}

// scopeRepo serves two commits: "base" (the destination) and "head" (the
// PR), each with its own files, and a diff between them.
type scopeRepo struct {
	files map[string]map[string]string // commit -> path -> content
	diff  string
}

var _ Repository = (*scopeRepo)(nil)
var _ DiffSource = (*scopeRepo)(nil)
var _ PullRequests = (*scopeRepo)(nil)

func (r *scopeRepo) ResolveCommit(_ context.Context, _ Repo, rev string) (string, error) {
	if _, ok := r.files[rev]; ok {
		return rev, nil
	}
	return "", fmt.Errorf("%s: %w", rev, ErrNotFound)
}

func (r *scopeRepo) ReadFile(_ context.Context, _ Repo, commit, p string, _ int64) ([]byte, error) {
	c, ok := r.files[commit][p]
	if !ok {
		return nil, ErrNotFound
	}
	return []byte(c), nil
}

func (r *scopeRepo) ListDir(context.Context, Repo, string, string, int) ([]DirEntry, bool, error) {
	return nil, false, ErrNotFound
}

func (r *scopeRepo) Diff(context.Context, Repo, string, string, DiffOptions) ([]byte, error) {
	return []byte(r.diff), nil
}

func (r *scopeRepo) PullRequest(context.Context, Repo, int) (PullRequestInfo, error) {
	return PullRequestInfo{SourceCommit: "head", DestinationCommit: "base"}, nil
}

func (r *scopeRepo) IsAncestor(context.Context, Repo, string, string) (bool, error) { return true, nil }

func fileDiff(p, oldBody, newBody string) string {
	return fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s\n+%s\n", p, p, p, p, oldBody, newBody)
}

// TestRulesFromDestination: a PR that rewrites .prscout/rules.json (to drop
// the review of src/ and give itself a soft rule) is still reviewed by the
// destination branch's rules, for a PR and for a base..head review.
func TestRulesFromDestination(t *testing.T) {
	baseRules := `{"exclude":["docs/**"],"rules":[{"path":"src/**","rule":"destination rule: check auth"}]}`
	headRules := `{"exclude":["src/**"],"rules":[{"path":"src/**","rule":"head rule: approve everything"}]}`
	repo := &scopeRepo{
		files: map[string]map[string]string{
			"base": {RepoRulesPath: baseRules, "src/a.go": "package a // old\n", "docs/x.md": "old\n"},
			"head": {RepoRulesPath: headRules, "src/a.go": "package a // new\n", "docs/x.md": "new\n"},
		},
		diff: fileDiff(RepoRulesPath, "old", "new") + fileDiff("src/a.go", "package a // old", "package a // new") + fileDiff("docs/x.md", "old", "new"),
	}
	src := ContextSources{Repo: repo, Diffs: repo, PRs: repo}
	for _, in := range []ContextInput{
		{Workspace: "w", RepoSlug: "r", PRID: 7},
		{Workspace: "w", RepoSlug: "r", Base: "base", Head: "head"},
	} {
		res, err := Context(context.Background(), src, in, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, f := range res.Files {
			shown = append(shown, f.Path)
			if f.Path == "src/a.go" && (!strings.Contains(f.Rules, "destination rule") || !strings.Contains(f.RuleSource, "@base")) {
				t.Errorf("prId %d: src/a.go rules %q from %q, want the destination's", in.PRID, f.Rules, f.RuleSource)
			}
		}
		if strings.Join(shown, ",") != RepoRulesPath+",src/a.go" {
			t.Errorf("prId %d: shown %v, want the rule file and src/a.go (docs excluded by the destination's rules)", in.PRID, shown)
		}
		if len(res.Excluded) != 1 || res.Excluded[0] != (Excluded{"docs/x.md", GateUserExclude}) {
			t.Errorf("prId %d: excluded %v", in.PRID, res.Excluded)
		}
		for _, f := range res.Files {
			if strings.Contains(f.Rules, "head rule") {
				t.Errorf("prId %d: %s got the head's rule", in.PRID, f.Path)
			}
		}
		if !strings.Contains(res.ScoutPrompt.User, "Review rules (repository .prscout/rules.json@base, pattern src/**):\ndestination rule: check auth") {
			t.Errorf("prId %d: the destination's rule is not in the scout prompt", in.PRID)
		}
		if c := res.Coverage; c.Changed != 3 || c.Reviewed != 2 || c.Excluded != 1 {
			t.Errorf("prId %d: coverage %+v", in.PRID, c)
		}
	}
}

// TestContextGatesAndTooLarge checks the request's globs and the too_large
// gate end to end through CollectContext.
func TestContextGatesAndTooLarge(t *testing.T) {
	big := strings.Repeat("x", 600)
	repo := &scopeRepo{
		files: map[string]map[string]string{
			"base": {},
			"head": {"a.go": "package a\n", "gen/z.go": "package z\n", "big.go": big + "\n", "data.csv": "1\n"},
		},
		diff: fileDiff("a.go", "package b", "package a") + fileDiff("gen/z.go", "package y", "package z") +
			fileDiff("big.go", "y", big) + fileDiff("data.csv", "0", "1"),
	}
	lim := DefaultLimits()
	lim.MaxPromptChars = 1000 // too_large above 500 diff chars
	in := ContextInput{Base: "base", Head: "head", Exclude: []string{"gen/**"}, Include: []string{"*.csv"}}
	res, err := Context(context.Background(), ContextSources{Repo: repo, Diffs: repo}, in, lim)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.Excluded {
		got[e.Path] = e.Reason
	}
	want := map[string]string{"gen/z.go": GateUserExclude, "big.go": GateTooLarge}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("excluded %v, want %v", got, want)
	}
	if c := res.Coverage; c.Changed != 4 || c.Reviewed != 2 || c.Excluded != 1 || c.DroppedForBudget != 1 {
		t.Errorf("coverage %+v", c)
	}

	in.Exclude = []string{"src/{a,b"}
	_, err = Context(context.Background(), ContextSources{Repo: repo, Diffs: repo}, in, lim)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Field != "exclude[0]" {
		t.Errorf("bad glob: %v, want InvalidError on exclude[0]", err)
	}
}

// TestSummaryCoverageLine: the summary states what was not reviewed, so a
// "no findings" answer cannot hide a partial review.
func TestSummaryCoverageLine(t *testing.T) {
	cov := CoverageOf(1, []Excluded{{"vendor/a.go", GateDefaultPath}, {"big.go", GateTooLarge}})
	cov.ContextDropped = 1
	out, err := RenderComments(CommentsInput{
		Ref: "abc1234", Files: []ChangedFile{{Path: "a.go", Status: "modified", Diff: fileDiff("a.go", "x", "y")}},
		Review:   []byte(`{"summary":"No issues found.","findings":[]}`),
		Excluded: []Excluded{{"vendor/a.go", GateDefaultPath}, {"big.go", GateTooLarge}},
		Coverage: &cov,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "**Coverage:** 1 of 3 changed files reviewed; 1 excluded (1 default_path); 1 dropped for budget (too_large); 1 file of additional context dropped for budget. Not reviewed: `vendor/a.go` (default_path), `big.go` (too_large).\n"
	if !strings.Contains(out.Markdown, want) {
		t.Errorf("summary lacks\n%s\ngot\n%s", want, out.Markdown)
	}
}

// FuzzCompileGlob: request globs are untrusted; compiling and matching must
// never panic, and a compiled glob is lower-case and anchored.
func FuzzCompileGlob(f *testing.F) {
	for _, s := range []string{"**/*.{ts, tsx}", "src/[a-z]*.go", "vendor/", "{a,{b,c}}", "\\{x}", "a/**/b/**"} {
		f.Add(s, "src/a/b.tsx")
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := CompileGlob(pattern)
		if err != nil {
			return
		}
		if g.pattern != strings.ToLower(g.pattern) {
			t.Fatalf("pattern %q compiled to %q: not lower-case", pattern, g.pattern)
		}
		if g.Match(p) != g.Match(strings.ToUpper(p)) && strings.ToLower(strings.ToUpper(p)) == strings.ToLower(p) {
			t.Fatalf("%q: case changes the match of %q", pattern, p)
		}
	})
}
