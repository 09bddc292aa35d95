package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const (
	candAddOld = "package pkg\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	candAddNew = "package pkg\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b + 0\n}\n"
	candDiff   = "diff --git a/pkg/add.go b/pkg/add.go\nindex 1111111..2222222 100644\n--- a/pkg/add.go\n+++ b/pkg/add.go\n" +
		"@@ -3,4 +3,4 @@\n // Add adds.\n func Add(a, b int) int {\n-\treturn a + b\n+\treturn a + b + 0\n }\n"
	candCaller = "package main\n\nimport \"example.com/app/pkg\"\n\nfunc main() { println(pkg.Add(1, 2)) }\n"
)

// candSearch is a repository where pkg/add.go's Add changes its body: main.go
// calls it, and so do a vendored copy, a secret-looking file and a changed
// file the review excludes. head and base branch off mb; reviewed is an
// earlier review's commit.
func candSearch() *pipelinetest.Fake {
	tree := func(add string) map[string]string {
		return map[string]string{
			"go.mod":             "module example.com/app\n",
			"pkg/add.go":         add,
			"main.go":            candCaller,
			"vendor/lib/use.go":  strings.Replace(candCaller, "package main", "package lib", 1),
			"gen/excluded.go":    strings.Replace(candCaller, "package main", "package gen", 1),
			"secrets/id_rsa.go":  strings.Replace(candCaller, "package main", "package secrets", 1),
			"cmd/tool/helper.go": "package main\n\nfunc helper() int { return 1 }\n",
		}
	}
	return pipelinetest.New().AddCommit("head", "mb").AddCommit("base", "mb").AddCommit("reviewed", "mb").
		AddFiles("head", tree(candAddNew)).AddFiles("mb", tree(candAddOld)).AddFiles("reviewed", tree(candAddOld)).
		SetDiff("*", candDiff)
}

// candOpened lists the commits whose trees were opened, sorted.
func candOpened(f *pipelinetest.Fake) []string {
	var out []string
	for _, c := range []string{"base", "head", "mb", "reviewed"} {
		for range f.Calls(pipelinetest.OpOpenTree, c) {
			out = append(out, c)
		}
	}
	if n := f.Calls(pipelinetest.OpOpenTree, ""); n != len(out) {
		out = append(out, fmt.Sprintf("%d other trees", n-len(out)))
	}
	return out
}

func candResult() *ContextResult {
	res := newContextResult(ContextMeta{Head: "head"}, 0)
	res.Files = []pipeline.ChangedFile{{Path: "pkg/add.go", Status: "modified", Diff: candDiff}}
	res.Excluded = []pipeline.Excluded{{Path: "gen/excluded.go", Reason: "generated"}}
	return &res
}

// candShown is candResult's file as the stage parsed it.
func candShown(t *testing.T) []diffFile {
	t.Helper()
	d, err := parseSection(candDiff)
	if err != nil {
		t.Fatal(err)
	}
	return []diffFile{d}
}

func candPaths(cs []pipeline.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path+" "+c.Kind+" "+c.Method)
	}
	return out
}

func TestFindCandidates(t *testing.T) {
	lim := pipeline.DefaultLimits()
	tests := []struct {
		name    string
		meta    ContextMeta
		want    []string
		opened  []string
		warning string
	}{
		{
			name: "full review: old side at the merge base",
			meta: ContextMeta{Mode: "full", Head: "head", Base: "base"},
			// Not the vendored copy (a default path), not the secret path,
			// not the excluded changed file.
			want:   []string{"main.go impact go"},
			opened: []string{"head", "mb"},
		},
		{
			name:   "delta review: old side at the reviewed commit",
			meta:   ContextMeta{Mode: "delta", Head: "head", Base: "base", ReviewedCommit: "reviewed"},
			want:   []string{"main.go impact go"},
			opened: []string{"head", "reviewed"},
		},
		{
			name:    "no code search",
			meta:    ContextMeta{Mode: "full", Head: "head", Base: "base", SearchOff: "the Bitbucket mirror is off (PRSCOUT_MIRROR_DIR is not set)"},
			warning: "candidates: none listed: the Bitbucket mirror is off (PRSCOUT_MIRROR_DIR is not set)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := candSearch()
			meta := tt.meta
			if tt.warning == "" {
				meta.Search = pipelinetest.NewSearchRepo(f)
			}
			res := candResult()
			res.findCandidates(context.Background(), nil, meta, lim, nil, candShown(t))
			if diff := cmp.Diff(tt.want, candPaths(res.Candidates)); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if tt.warning != "" {
				if len(res.Warnings) != 1 || res.Warnings[0] != tt.warning {
					t.Errorf("warnings = %q, want %q", res.Warnings, tt.warning)
				}
				return
			}
			if len(res.Warnings) != 0 {
				t.Errorf("warnings = %q, want none", res.Warnings)
			}
			if diff := cmp.Diff(tt.opened, candOpened(f)); diff != "" {
				t.Errorf("trees opened (-want +got):\n%s", diff)
			}
			c := res.Candidates[0]
			if !strings.Contains(c.Reason, "`Add`") || !cmp.Equal(c.Symbols, []string{"Add"}) || c.Score <= 0 {
				t.Errorf("candidate = %+v, want a reason and symbol naming Add", c)
			}
		})
	}
}

func TestFindCandidatesOff(t *testing.T) {
	lim := pipeline.DefaultLimits()
	lim.CandidatesMax = 0
	res := candResult()
	res.findCandidates(context.Background(), nil, ContextMeta{Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(candSearch())}, lim, nil, candShown(t))
	if len(res.Candidates) != 0 || len(res.Warnings) != 0 {
		t.Errorf("CandidatesMax 0: candidates %v, warnings %v; want none", res.Candidates, res.Warnings)
	}
}

// TestFindCandidatesBudget: a search that cannot start within the budget
// lists nothing and says why; the request goes on.
func TestFindCandidatesBudget(t *testing.T) {
	lim := pipeline.DefaultLimits()
	lim.CandidatesBudget = 30 * time.Millisecond
	f := candSearch()
	f.Hook = func(ctx context.Context, op, _ string) error {
		if op == pipelinetest.OpOpenTree {
			<-ctx.Done()
			return fmt.Errorf("mirror not ready: %w", ctx.Err())
		}
		return nil
	}
	res := candResult()
	// The hook holds the tree until the budget's context ends: only the
	// budget returns.
	res.findCandidates(context.Background(), nil, ContextMeta{Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(f)}, lim, nil, candShown(t))
	if len(res.Candidates) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "not searchable within 30ms (PRSCOUT_CANDIDATES_BUDGET)") {
		t.Errorf("candidates %v, warnings %q; want none and one budget warning", res.Candidates, res.Warnings)
	}
}

// TestScoutPromptListsCandidates: the scout sees each candidate with its
// reason, and the weaker identifier search is labelled.
func TestScoutPromptListsCandidates(t *testing.T) {
	res := candResult()
	res.Candidates = []pipeline.Candidate{
		{Path: "main.go", Kind: "impact", Reason: "calls `Add`, whose body changed", Method: "go"},
		{Path: "lib/add.c", Kind: "impact", Reason: "mentions `add`", Method: "identifier-search"},
	}
	p := scoutPrompt(*res, pipeline.DefaultLimits()).User
	for _, want := range []string{
		"# Candidates (2)", "You may ask for these",
		"- main.go (impact): calls `Add`, whose body changed\n",
		"- lib/add.c (impact, identifier search): mentions `add`\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("scout prompt lacks %q:\n%s", want, p)
		}
	}
	res.Candidates = nil
	if p := scoutPrompt(*res, pipeline.DefaultLimits()).User; strings.Contains(p, "# Candidates") {
		t.Errorf("scout prompt without candidates has a candidates section")
	}
}

// TestCollectListsCandidates runs the whole context stage with a repository
// that can search code: the answer carries the candidates.
func TestCollectListsCandidates(t *testing.T) {
	f := candSearch()
	res, err := Collect(context.Background(), ContextSources{Repo: pipelinetest.NewSearchRepo(f), Diffs: f},
		ContextInput{Workspace: "acme", RepoSlug: "app", Base: "base", Head: "head"}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"main.go impact go"}, candPaths(res.Candidates)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.ScoutPrompt.User, "- main.go (impact): calls `Add`") {
		t.Errorf("scout prompt lacks the candidate")
	}
}

// TestFindCandidatesBatchReads: with a repository that reads files in
// batches and the head sources the stage already read, the old side comes
// in one batch read and no tree is opened but the head's.
func TestFindCandidatesBatchReads(t *testing.T) {
	f := candSearch()
	res := candResult()
	meta := ContextMeta{Mode: "full", Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(f)}
	heads := map[string][]byte{"pkg/add.go": []byte(candAddNew)}
	res.findCandidates(context.Background(), pipelinetest.FilesRepo{Fake: f}, meta, pipeline.DefaultLimits(), heads, candShown(t))
	if diff := cmp.Diff([]string{"main.go impact go"}, candPaths(res.Candidates)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"head"}, candOpened(f)); diff != "" {
		t.Errorf("trees opened (-want +got):\n%s", diff)
	}
	if n := f.Calls(pipelinetest.OpReadFiles, "pkg/add.go"); n != 1 {
		t.Errorf("old side read in %d batches, want 1", n)
	}
}

// TestReadOldOnlyWhatEnginesRead: the old sides are read for the changes
// an engine reads, not for a renamed file no engine reads.
func TestReadOldOnlyWhatEnginesRead(t *testing.T) {
	f := candSearch().AddFiles("mb", map[string]string{"proto/old.proto": "syntax = \"proto3\";\n"})
	meta := ContextMeta{Mode: "full", Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(f)}
	changes := []candidates.Change{
		{Path: "pkg/add.go", Status: candidates.StatusModified, AddedLines: []int{5}},
		{Path: "proto/new.proto", OldPath: "proto/old.proto", Status: candidates.StatusRenamed},
	}
	readOld(context.Background(), pipelinetest.FilesRepo{Fake: f}, meta, changes)
	if string(changes[0].Old) != candAddOld {
		t.Errorf("pkg/add.go old side %q, want the merge base's", changes[0].Old)
	}
	if n := f.Calls(pipelinetest.OpReadFiles, "proto/old.proto"); n != 0 || changes[1].Old != nil {
		t.Errorf("proto/old.proto read %d times (old side %q): no engine reads it", n, changes[1].Old)
	}
}

// TestFindCandidatesFromParsedDiff: the changes come from the diff as the
// stage parsed it from git's text, not from the answer's diff (redacted,
// so it may differ).
func TestFindCandidatesFromParsedDiff(t *testing.T) {
	f := candSearch()
	res := candResult()
	res.Files[0].Diff = ""
	meta := ContextMeta{Mode: "full", Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(f)}
	res.findCandidates(context.Background(), nil, meta, pipeline.DefaultLimits(), nil, candShown(t))
	if diff := cmp.Diff([]string{"main.go impact go"}, candPaths(res.Candidates)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	res = candResult()
	res.findCandidates(context.Background(), nil, meta, pipeline.DefaultLimits(), nil, nil)
	if len(res.Candidates) != 0 {
		t.Errorf("candidates %v without parsed diffs, want none", candPaths(res.Candidates))
	}
}

// TestFindCandidatesSyntaxLanguages: a Rust change is read by the
// tree-sitter reader when the build has cgo; without it, by the
// identifier search, and the warnings say so.
func TestFindCandidatesSyntaxLanguages(t *testing.T) {
	const (
		oldLib = "pub fn compute(n: i32) -> i32 {\n    n * 2\n}\n"
		newLib = "pub fn compute(n: i32) -> i32 {\n    n * 3\n}\n"
		caller = "use crate::calc::compute;\n\npub fn run() -> i32 {\n    compute(3)\n}\n"
		diff   = "diff --git a/src/calc.rs b/src/calc.rs\nindex 1111111..2222222 100644\n--- a/src/calc.rs\n+++ b/src/calc.rs\n" +
			"@@ -1,3 +1,3 @@\n pub fn compute(n: i32) -> i32 {\n-    n * 2\n+    n * 3\n }\n"
	)
	f := pipelinetest.New().AddCommit("head", "mb").AddCommit("base", "mb").
		AddFiles("head", map[string]string{"src/calc.rs": newLib, "src/run.rs": caller}).
		AddFiles("mb", map[string]string{"src/calc.rs": oldLib, "src/run.rs": caller}).
		SetDiff("*", diff)
	d, err := parseSection(diff)
	if err != nil {
		t.Fatal(err)
	}
	res := newContextResult(ContextMeta{Head: "head"}, 0)
	res.Files = []pipeline.ChangedFile{{Path: "src/calc.rs", Status: "modified", Diff: diff}}
	res.findCandidates(context.Background(), nil, ContextMeta{Mode: "full", Head: "head", Base: "base", Search: pipelinetest.NewSearchRepo(f)},
		pipeline.DefaultLimits(), nil, []diffFile{d})
	want, warnings := []string{"src/run.rs impact syntax"}, 0
	if candidates.SyntaxReaderOff() != "" {
		want, warnings = []string{"src/run.rs impact identifier-search"}, 1
	}
	if diff := cmp.Diff(want, candPaths(res.Candidates)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != warnings || (warnings == 1 && !strings.Contains(res.Warnings[0], "rust files were searched by identifiers only")) {
		t.Errorf("warnings = %q, want %d saying rust files were searched by identifiers only", res.Warnings, warnings)
	}
}
