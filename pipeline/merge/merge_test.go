package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

// mergeCase is a testdata/merge/<case>.json file: the /v1/merge body and
// the budget to merge it with.
type mergeCase struct {
	MaxPromptChars int             `json:"maxPromptChars"`
	Input          json.RawMessage `json:"input"`
}

// TestMergeGolden merges every testdata/merge/*.json and compares the
// answer with <case>.golden.json and the review prompt with <case>.golden.md.
func TestMergeGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/merge/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range cases {
		if strings.HasSuffix(path, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var c mergeCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			var in MergeInput
			if err := json.Unmarshal(c.Input, &in); err != nil {
				t.Fatalf("decode input: %v", err)
			}
			lim := pipeline.DefaultLimits()
			lim.MaxPromptChars = c.MaxPromptChars
			got, err := Merge(in, lim)
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if !got.Stats.OverBudget && got.Stats.PromptChars > c.MaxPromptChars {
				t.Errorf("promptChars %d over the budget %d", got.Stats.PromptChars, c.MaxPromptChars)
			}
			js, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			js = append(js, '\n')
			md := []byte("<!-- system -->\n" + got.ReviewPrompt.System + "\n<!-- user -->\n" + got.ReviewPrompt.User)
			checkGolden(t, strings.TrimSuffix(path, ".json")+".golden.json", js)
			checkGolden(t, strings.TrimSuffix(path, ".json")+".golden.md", md)
		})
	}
	if n == 0 {
		t.Fatal("no cases under testdata/merge")
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMergeGolden ./pipeline -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func strp(s string) *string { return &s }

// mergeFixture is a context with one changed file and the given results.
func mergeFixture(results ...pipeline.LookupResult) MergeInput {
	return MergeInput{
		Context: MergeContext{
			Mode: "full", Workspace: "acme", RepoSlug: "shop", PRID: 7, Ref: mergeCommit,
			PR: pipeline.PullRequest{Title: "Fix rounding", Author: "Kim"},
			Files: []pipeline.ChangedFile{{
				Path: "pay/round.go", Status: "modified", Language: "go",
				Diff:   "--- a/pay/round.go\n+++ b/pay/round.go\n@@ -1,2 +1,2 @@\n package pay\n-var x = 1\n+var x = 2\n",
				Source: "package pay\nvar x = 2\n", SourceRange: &pipeline.SourceRange{From: 1, To: 2, Total: 2},
			}},
		},
		Results: results,
	}
}

func fileResult(path string, lines int) pipeline.LookupResult {
	return pipeline.LookupResult{OK: true, Op: pipeline.OpGetFile, Path: path, Content: strp("// " + path + "\n" + strings.Repeat("// a line of context\n", lines))}
}

func TestMergeBudget(t *testing.T) {
	a := fileResult("a/first_big.go", 200)   // ~3800 chars
	b := fileResult("b/second_small.go", 25) // ~600 chars
	c := fileResult("c/third_mid.go", 60)    // ~1150 chars
	notFound := pipeline.LookupResult{Op: pipeline.OpGetFile, Path: "d/gone.go", Error: "not found at 0123456789ab", Reason: pipeline.LookupNotFound}
	in := mergeFixture(a, notFound, b, c)
	unlimited := pipeline.DefaultLimits()
	unlimited.MaxPromptChars = 0
	sec := func(r pipeline.LookupResult) int {
		return utf8.RuneCountInString(contextSection(contextItem{ContextItem: pipeline.ContextItem{OK: true, Op: r.Op, Path: r.Path, Content: *r.Content}}))
	}
	full, err := Merge(in, unlimited)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		budget      int
		wantDropped []string
		overBudget  bool
	}{
		{"everything fits", full.Stats.PromptChars, nil, false},
		{"no budget", 0, nil, false},
		// A dropped item leaves a note of about 130 chars instead of its section.
		{"the last file that no longer fits is dropped", full.Stats.PromptChars - 100, []string{"c/third_mid.go"}, false},
		{"the big first file is dropped, later smaller ones still fit", full.Stats.PromptChars - sec(a) + 150, []string{"a/first_big.go"}, false},
		{"room for the small file only", full.Stats.PromptChars - sec(a) - sec(c) + 250, []string{"a/first_big.go", "c/third_mid.go"}, false},
		{"room for no context file", full.Stats.PromptChars - sec(a) - sec(b) - sec(c) + 420, []string{"a/first_big.go", "b/second_small.go", "c/third_mid.go"}, false},
		{"changed files alone over budget", 200, []string{"a/first_big.go", "b/second_small.go", "c/third_mid.go"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := pipeline.DefaultLimits()
			lim.MaxPromptChars = tt.budget
			got, err := Merge(in, lim)
			if err != nil {
				t.Fatal(err)
			}
			var dropped []string
			for _, d := range got.Stats.Dropped {
				dropped = append(dropped, d.Path)
				wantReason := dropBudget
				if tt.overBudget {
					wantReason = dropOverBudget
				}
				if d.Reason != wantReason || d.Chars <= 0 {
					t.Errorf("dropped %+v, want reason %s and chars > 0", d, wantReason)
				}
			}
			if diff := cmp.Diff(tt.wantDropped, dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if got.Stats.OverBudget != tt.overBudget {
				t.Errorf("overBudget = %v", got.Stats.OverBudget)
			}
			if tt.overBudget != (len(got.Warnings) == 1) {
				t.Errorf("warnings = %q", got.Warnings)
			}
			if tt.budget > 0 && !tt.overBudget && got.Stats.PromptChars > tt.budget {
				t.Errorf("promptChars %d > budget %d", got.Stats.PromptChars, tt.budget)
			}
			if n := utf8.RuneCountInString(got.ReviewPrompt.System + got.ReviewPrompt.User); n != got.Stats.PromptChars {
				t.Errorf("stats.promptChars %d, prompt has %d", got.Stats.PromptChars, n)
			}
			// The changed file is never dropped or cut.
			for _, part := range []string{in.Context.Files[0].Diff, in.Context.Files[0].Source} {
				if !strings.Contains(got.ReviewPrompt.User, part) {
					t.Errorf("changed file content missing from the prompt")
				}
			}
			// Items are whole or absent; dropped ones are ok:false with the reason.
			if len(got.AdditionalContext) != 4 {
				t.Fatalf("additionalContext has %d items, want 4", len(got.AdditionalContext))
			}
			isDropped := map[string]bool{}
			for _, p := range dropped {
				isDropped[p] = true
			}
			for i, it := range got.AdditionalContext {
				src := in.Results[i]
				switch {
				case src.Path == "d/gone.go":
					if it.OK || it.Error != src.Error || !strings.Contains(got.ReviewPrompt.User, "Could not read get_file d/gone.go: not found at 0123456789ab") {
						t.Errorf("error item not kept: %+v", it)
					}
				case isDropped[src.Path]:
					if it.OK || it.Content != "" || !strings.HasPrefix(it.Error, "not included: ") || strings.Contains(got.ReviewPrompt.User, *src.Content) {
						t.Errorf("dropped item %s still shown or without reason: %+v", src.Path, it)
					}
				default:
					if !it.OK || it.Content != *src.Content || !strings.Contains(got.ReviewPrompt.User, *src.Content) {
						t.Errorf("kept item %s not whole in the prompt", src.Path)
					}
				}
			}
		})
	}
}

func TestMergeInputShapes(t *testing.T) {
	results := `[{"ok":true,"op":"get_file","path":"x.go","content":"package x\n","size":10},{"ok":false,"op":"list_dir","path":"nope","error":"not found at 0123456789ab"}]`
	rejected := `[{"ok":false,"op":"get_file","path":".env","error":"secret path refused","reason":"secret"}]`
	ctx := `{"mode":"full","workspace":"w","repoSlug":"r","prId":3,"ref":"` + mergeCommit + `","pr":{"title":"T"},"files":[{"path":"a.go","status":"modified","diff":"@@ -1 +1 @@\n-a\n+b\n","source":"b\n"}],"excluded":[],"stats":{"promptChars":1},"warnings":["w1"]}`
	shapes := map[string]string{
		"nested":        `{"context":` + ctx + `,"results":` + results + `,"rejected":` + rejected + `}`,
		"flat":          ctx[:len(ctx)-1] + `,"results":` + results + `,"rejected":` + rejected + `}`,
		"nested, batch": `{"context":` + ctx + `,"batch":{"results":` + results + `,"rejected":` + rejected + `,"stats":{}}}`,
		"flat, batch":   ctx[:len(ctx)-1] + `,"batch":{"results":` + results + `,"rejected":` + rejected + `}}`,
	}
	var want *MergeResult
	for name, body := range shapes {
		t.Run(name, func(t *testing.T) {
			var in MergeInput
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			got, err := Merge(in, pipeline.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if got.PRID != 3 || len(got.Files) != 1 || len(got.AdditionalContext) != 3 || got.ReviewPass != 2 {
				t.Fatalf("merge of %s = %+v", name, got)
			}
			if got.Files[0].Source != "" || got.Files[0].Diff == "" {
				t.Errorf("echoed files must carry the diff and no source: %+v", got.Files[0])
			}
			if want == nil {
				want = &got
			} else if diff := cmp.Diff(*want, got, cmp.AllowUnexported(MergeInput{})); diff != "" {
				t.Errorf("shapes differ (-first +%s):\n%s", name, diff)
			}
		})
	}
}

func TestMergeJSONShape(t *testing.T) {
	got, err := Merge(MergeInput{}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	for _, want := range []string{`"reviewPass":2`, `"additionalContext":[]`, `"files":[]`, `"excluded":[]`, `"dropped":[]`, `"warnings":[]`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	got, _ = Merge(mergeFixture(pipeline.LookupResult{Op: pipeline.OpGetFile, Path: "gone.go", Error: "not found at abc"}), pipeline.DefaultLimits())
	b, _ = json.Marshal(got.AdditionalContext)
	if want := `[{"ok":false,"op":"get_file","path":"gone.go","content":"","error":"not found at abc"}]`; string(b) != want {
		t.Errorf("additionalContext = %s, want the reference workflow's shape %s", b, want)
	}
}

func TestMergeItems(t *testing.T) {
	in := mergeFixture(
		pipeline.LookupResult{OK: true, Op: "get_file", Path: "ok.go", Content: strp("package ok\n")},
		pipeline.LookupResult{Op: "get_file", Path: "nocontent.go"}, // ok:false without error
		pipeline.LookupResult{Op: "", Path: "reference-style.go", Content: strp("x\n")},
		pipeline.LookupResult{OK: true, Op: "get_file", Path: "config/.env", Content: strp("TOKEN=1\n")},
		pipeline.LookupResult{OK: true, Op: "list_dir", Path: "", Entries: []pipeline.DirEntry{{Path: "pay", Type: "dir"}}, Truncated: true},
		pipeline.LookupResult{Op: "frobnicate", Path: "x", Error: `unsupported op "frobnicate": use get_file or list_dir`},
	)
	in.Rejected = []pipeline.Rejected{
		{Op: "get_file", Path: "pay/round.go", Error: "is a changed file"},
		{Op: "get_file", Path: "ok.go", Error: "duplicate", Reason: "duplicate"},
		{Op: "get_file", Path: "more.go", Error: "total limit of 12 reached", Reason: "total_cap"},
	}
	got, err := Merge(in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.ContextItem{
		{OK: true, Op: "get_file", Path: "ok.go", Content: "package ok\n"},
		{Op: "get_file", Path: "nocontent.go", Error: "could not be read (no error given)"},
		{OK: true, Op: "get_file", Path: "reference-style.go", Content: "x\n"},
		{Op: "get_file", Path: "config/.env", Error: "secret path refused: .env files are never read"},
		{OK: true, Op: "list_dir", Path: "", Content: "dir       pay/\n(listing cut at 1 entries: more exist)\n"},
		{Op: "frobnicate", Path: "x", Error: `unsupported op "frobnicate": use get_file or list_dir`},
		{Op: "get_file", Path: "more.go", Error: "total limit of 12 reached"},
	}
	if diff := cmp.Diff(want, got.AdditionalContext); diff != "" {
		t.Errorf("additionalContext (-want +got):\n%s", diff)
	}
	if strings.Contains(got.ReviewPrompt.User, "TOKEN=1") {
		t.Error("a secret path's content reached the prompt")
	}
	for _, s := range []string{"## Directory / (repository root) (1 entries, cut: more exist)", "Could not read get_file more.go: total limit of 12 reached"} {
		if !strings.Contains(got.ReviewPrompt.User, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	if got.Stats.Included != 3 || got.Stats.Failed != 4 || got.Stats.ContextItems != 7 || got.Stats.ContextChars <= 0 {
		t.Errorf("stats = %+v", got.Stats)
	}
}

func TestMergeInvalid(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"unknown op on a success", `{"files":[{"path":"a"}],"results":[{"ok":true,"op":"get_file","path":"a","content":""},{"ok":true,"op":"x","path":"b","content":"c"}]}`, "results[1].op"},
		{"success without a path", `{"results":[{"ok":true,"op":"get_file","content":"c"}]}`, "results[0].path"},
		{"changed file without a path", `{"context":{"files":[{"path":"a"},{"status":"added"}]}}`, "context.files[1].path"},
		{"flat changed file without a path", `{"files":[{"path":" "}]}`, "files[0].path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in MergeInput
			if err := json.Unmarshal([]byte(tt.body), &in); err != nil {
				t.Fatal(err)
			}
			_, err := Merge(in, pipeline.DefaultLimits())
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) || ie.Field != tt.field {
				t.Errorf("err = %v, want an InvalidError on %s", err, tt.field)
			}
		})
	}
	var in MergeInput
	err := json.Unmarshal([]byte(`{"context":{"files":"nope"}}`), &in)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "context.files" {
		t.Errorf("type error = %v, want field context.files", err)
	}
}

func TestReviewSourceLabel(t *testing.T) {
	for _, tt := range []struct {
		sr   *pipeline.SourceRange
		want string
	}{
		{nil, "2 lines"},
		{&pipeline.SourceRange{From: 1, To: 9, Total: 9}, "whole file, 9 lines"},
		{&pipeline.SourceRange{From: 910, To: 1031, Total: 1031}, "only lines 910~1031 of 1031 shown"},
		{&pipeline.SourceRange{From: 1, To: 1031, Total: 1031, Windows: []pipeline.LineRange{{From: 1, To: 40}, {From: 910, To: 1031}}}, "only lines 1~40, 910~1031 of 1031 shown"},
	} {
		if got := reviewSourceLabel(tt.sr, "a\nb"); got != tt.want {
			t.Errorf("label(%+v) = %q, want %q", tt.sr, got, tt.want)
		}
	}
	var b strings.Builder
	WriteFenced(&b, "go", "x := \"```\"")
	if want := "````go\nx := \"```\"\n````\n"; b.String() != want {
		t.Errorf("fence = %q, want %q", b.String(), want)
	}
}

func FuzzMergeInput(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/merge/*.json")
	for _, p := range inputs {
		if strings.HasSuffix(p, ".golden.json") {
			continue
		}
		raw, _ := os.ReadFile(p)
		var c mergeCase
		if json.Unmarshal(raw, &c) == nil {
			f.Add([]byte(c.Input), 2000)
		}
	}
	f.Add([]byte(`{"files":[{"path":"a","diff":"+x"}],"results":[{"ok":true,"op":"list_dir","path":"","entries":[{"path":"b"}]}]}`), 10)
	f.Add([]byte(`{"context":null,"batch":{"results":[{}]}}`), 0)
	f.Fuzz(func(t *testing.T, data []byte, budget int) {
		var in MergeInput
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		lim := pipeline.DefaultLimits()
		lim.MaxPromptChars = budget % 200_000
		got, err := Merge(in, lim)
		if err != nil {
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InvalidError", err)
			}
			return
		}
		if lim.MaxPromptChars > 0 && !got.Stats.OverBudget && got.Stats.PromptChars > lim.MaxPromptChars {
			t.Fatalf("promptChars %d over budget %d", got.Stats.PromptChars, lim.MaxPromptChars)
		}
		if n := utf8.RuneCountInString(got.ReviewPrompt.System + got.ReviewPrompt.User); n != got.Stats.PromptChars {
			t.Fatalf("promptChars %d, prompt has %d", got.Stats.PromptChars, n)
		}
		if len(got.AdditionalContext) != got.Stats.ContextItems || got.Stats.Included+got.Stats.Failed != got.Stats.ContextItems {
			t.Fatalf("stats %+v do not add up", got.Stats)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatal(fmt.Errorf("marshal: %w", err))
		}
	})
}

func TestMergeWarnsOnSkip(t *testing.T) {
	in := mergeFixture()
	in.Context.Skip = true
	got, err := Merge(in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "says skip") {
		t.Errorf("warnings = %q", got.Warnings)
	}
}

const mergeCommit = "0123456789abcdef0123456789abcdef01234567"

// TestAuditMergeZeroBudgetIsDefault: a zero MaxPromptChars means the
// default budget in Merge as in every other stage, never "no budget".
func TestAuditMergeZeroBudgetIsDefault(t *testing.T) {
	big := strings.Repeat("x := 1\n", 40_000) // 280 k characters
	res, err := Merge(MergeInput{
		Context: MergeContext{Ref: mergeCommit, Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: "@@ -1 +1 @@\n-a\n+b\n"}}},
		Results: []pipeline.LookupResult{{OK: true, Op: pipeline.OpGetFile, Path: "big.go", Content: &big}},
	}, pipeline.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := pipeline.DefaultLimits().MaxPromptChars; res.Stats.Budget != want || len(res.Stats.Dropped) != 1 {
		t.Errorf("budget %d, dropped %v: want the default budget %d and big.go dropped", res.Stats.Budget, res.Stats.Dropped, want)
	}
}

// TestLongestRun: the longest run of a byte, at the start, in the middle,
// at the end and nowhere.
func TestLongestRun(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 0}, {"`", 1}, {"``a```", 3}, {"a`b``", 2}, {"````x`", 4}, {"x``` ``` `", 3}, {"```````", 7},
	} {
		if got := longestRun(tt.s, '`'); got != tt.want {
			t.Errorf("longestRun(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
