package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/scope"
)

const (
	ctxHeadSHA = "1111111111111111111111111111111111111111"
	ctxBaseSHA = "2222222222222222222222222222222222222222"
)

// ctxFixture is the basic change: testdata/context/basic/head is the tree
// of every commit and diff.patch every diff. Reading a secret path fails the
// test (secrets must never be read); reads records every path read, one by
// one or in a batch.
type ctxFixture struct {
	f    *pipelinetest.Fake
	diff []byte

	mu    sync.Mutex
	reads []string
}

func ctxBasicRepo(t testing.TB) *ctxFixture {
	t.Helper()
	raw, err := os.ReadFile("testdata/context/basic/diff.patch")
	if err != nil {
		t.Fatal(err)
	}
	fx := &ctxFixture{diff: raw, f: pipelinetest.New().AddRef("feature", ctxHeadSHA).AddRef("main", ctxBaseSHA).
		AddFiles("", ctxTree(t, "testdata/context/basic/head")).SetDiff("*", string(raw))}
	fx.f.Hook = func(_ context.Context, op, arg string) error {
		var paths []string
		switch op {
		case pipelinetest.OpRead:
			paths = []string{arg}
		case pipelinetest.OpReadFiles:
			paths = strings.Split(arg, ",")
		}
		fx.mu.Lock()
		defer fx.mu.Unlock()
		for _, p := range paths {
			if scope.IsSecretPath(p) {
				t.Errorf("secret path %q was read", p)
			}
			fx.reads = append(fx.reads, p)
		}
		return nil
	}
	return fx
}

// ctxTree reads the files under dir as path -> content.
func ctxTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func ctxBasicInput() ContextInput {
	return ContextInput{
		Workspace: "acme", RepoSlug: "shop", Base: "main", Head: "feature",
		Title:        "Add rounding to Add",
		Description:  "Adds a zero.\nAlso renames old.py.",
		Requirements: pipeline.RequirementsField{Text: "Add must stay pure."},
		Rules:        scope.RulesField{Text: "- Every exported function has a doc comment."},
		Jira: []pipeline.Issue{{Key: "SHOP-1", Summary: "Rounding", Status: "In Progress",
			Description: "Add rounds.", AcceptanceCriteria: "- Add(1,2) == 3"}},
	}
}

// contextGolden compares got with testdata/<name>, rewriting it under -update.
func contextGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run go test -update and review the diff):\n%s", name, ctxFirstDiff(string(want), string(got)))
	}
}

func ctxFirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return ""
}

func TestCollectRangeGolden(t *testing.T) {
	repo := ctxBasicRepo(t)
	res, err := collectRange(context.Background(), repo.f, repo.f, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	contextGolden(t, "context/basic.golden.json", append(js, '\n'))
	contextGolden(t, "context/basic.scout.golden.md", []byte("SYSTEM\n\n"+res.ScoutPrompt.System+"\n\nUSER\n\n"+res.ScoutPrompt.User))

	// Properties the golden files must keep, asserted on their own.
	if res.Ref != ctxHeadSHA || res.Base != ctxBaseSHA || res.Mode != "full" || res.Skip {
		t.Errorf("ref/base/mode = %s %s %s %v", res.Ref, res.Base, res.Mode, res.Skip)
	}
	wantExcluded := map[string]string{".env": "secret", "config/secrets.yaml": "secret", "data.bin": "binary",
		"logo.png": "binary", "dist/app.js": "default_path", "removed.py": "deleted"}
	for _, e := range res.Excluded {
		if wantExcluded[e.Path] != e.Reason {
			t.Errorf("excluded %s as %q, want %q", e.Path, e.Reason, wantExcluded[e.Path])
		}
		delete(wantExcluded, e.Path)
	}
	if len(wantExcluded) != 0 {
		t.Errorf("not excluded: %v", wantExcluded)
	}
	status := map[string]string{}
	for _, f := range res.Files {
		status[f.Path] = f.Status
		if !strings.HasPrefix(f.Diff, "diff --git ") || !strings.Contains(string(repo.diff), f.Diff) {
			t.Errorf("%s: diff is not a verbatim section of the raw diff", f.Path)
		}
	}
	for p, s := range map[string]string{"new.py": "renamed", "pure2.txt": "renamed", "added.ts": "added",
		"pkg/add.go": "modified", "pkg/long.txt": "modified", "link": "added", "README.md": "modified"} {
		if status[p] != s {
			t.Errorf("%s: status %q, want %q", p, status[p], s)
		}
	}
	for _, leak := range []string{"SECRET=", "token:", "diff --git a/.env"} {
		if strings.Contains(res.ScoutPrompt.User, leak) {
			t.Errorf("prompt shows %q", leak)
		}
	}
	if !strings.Contains(res.ScoutPrompt.User, "--- lines 940-1031 of 1031 ---") ||
		!strings.Contains(strings.Join(res.Stats.ShownRanges, "\n"), "pkg/long.txt: 1-70, 940-1031 of 1031") {
		t.Errorf("long file windows missing; ranges %v", res.Stats.ShownRanges)
	}
	if !strings.Contains(res.ScoutPrompt.User, "````markdown\n") {
		t.Error("README with a ``` fence is not fenced with four backticks")
	}
	if res.Stats.PromptChars != len([]rune(res.ScoutPrompt.System+res.ScoutPrompt.User)) || res.Stats.SourceShare <= 0 || res.Stats.SourceShare >= 1 {
		t.Errorf("stats %+v", res.Stats)
	}
}

func TestFilesReaderGivesSameContext(t *testing.T) {
	repo := ctxBasicRepo(t)
	plain, err := collectRange(context.Background(), repo.f, repo.f, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	batched, err := collectRange(context.Background(), pipelinetest.FilesRepo{Fake: repo.f}, repo.f, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(batched)
	if !bytes.Equal(a, b) {
		t.Errorf("FilesReader result differs:\n%s", ctxFirstDiff(string(a), string(b)))
	}
}

func TestCollectRangeInvalid(t *testing.T) {
	repo := ctxBasicRepo(t)
	intp := func(n int) *int { return &n }
	tests := []struct {
		name    string
		edit    func(*ContextInput)
		field   string
		wantErr error
		names   string
	}{
		{name: "missing head", edit: func(in *ContextInput) { in.Head = "" }, field: "head"},
		{name: "missing base", edit: func(in *ContextInput) { in.Base = " " }, field: "base"},
		{name: "negative context", edit: func(in *ContextInput) { in.ContextLines = intp(-1) }, field: "contextLines"},
		{name: "huge context", edit: func(in *ContextInput) { in.ContextLines = intp(1001) }, field: "contextLines"},
		{name: "unknown head", edit: func(in *ContextInput) { in.Head = "nope" }, wantErr: pipeline.ErrNotFound, names: "nope"},
		{name: "unknown base", edit: func(in *ContextInput) { in.Base = "gone" }, wantErr: pipeline.ErrNotFound, names: "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := ctxBasicInput()
			tt.edit(&in)
			_, err := collectRange(context.Background(), repo.f, repo.f, in, pipeline.DefaultLimits())
			if tt.field != "" {
				var inv *pipeline.InvalidError
				if !errors.As(err, &inv) || inv.Field != tt.field {
					t.Fatalf("err = %v, want InvalidError on %q", err, tt.field)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.names) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.wantErr, tt.names)
			}
		})
	}
}

func TestAssembleSkipAndEmpty(t *testing.T) {
	repo := ctxBasicRepo(t)
	res, err := assemble(context.Background(), repo.f, ContextMeta{Mode: "skip", Head: ctxHeadSHA}, repo.diff, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Skip || len(res.Files) != 0 || res.ScoutPrompt.User != "" {
		t.Errorf("skip: %+v", res)
	}
	res, err = assemble(context.Background(), repo.f, ContextMeta{Head: ctxHeadSHA}, nil, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(res)
	for _, null := range []string{`"files":null`, `"excluded":null`, `"jira":null`, `"warnings":null`, `"shownRanges":null`} {
		if strings.Contains(string(js), null) {
			t.Errorf("JSON holds %s", null)
		}
	}
	// An empty diff is nothing to review: skipped with its own code, no
	// prompt to pay a model for.
	if !res.Skip || res.Mode != "skip" || res.SkipCode != SkipEmpty || res.SkipReason == "" || res.ScoutPrompt.User != "" {
		t.Errorf("empty change: skip %v mode %q code %q reason %q prompt %q", res.Skip, res.Mode, res.SkipCode, res.SkipReason, res.ScoutPrompt.User)
	}
}

func TestAssembleCancelled(t *testing.T) {
	repo := ctxBasicRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := assemble(ctx, repo.f, ContextMeta{Head: ctxHeadSHA}, repo.diff, pipeline.DefaultLimits()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestSourceTooLargeKeepsDiff(t *testing.T) {
	repo := ctxBasicRepo(t)
	res, err := assemble(context.Background(), repo.f, ContextMeta{Head: ctxHeadSHA, MaxSourceBytes: 1000, ContextLines: 30}, repo.diff, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Path == "pkg/long.txt" {
			if f.Source != "" || f.SourceRange != nil || f.Diff == "" {
				t.Errorf("too large source: source %d chars, range %v", len(f.Source), f.SourceRange)
			}
		}
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "pkg/long.txt: source not shown (over 1000 bytes)") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestSourceMemoryGuard(t *testing.T) {
	for _, tc := range []struct {
		name string
		repo pipeline.Repository
	}{{"ReadFile", ctxBasicRepo(t).f}, {"FilesReader", pipelinetest.FilesRepo{Fake: ctxBasicRepo(t).f}}} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := os.ReadFile("testdata/context/basic/diff.patch")
			// README.md (31 bytes) fits; every later source would pass 40 bytes.
			res, err := assemble(context.Background(), tc.repo,
				ContextMeta{Head: ctxHeadSHA, ContextLines: 30, MaxTotalSourceBytes: 40}, raw, pipeline.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			shown := 0
			for _, f := range res.Files {
				if f.SourceRange != nil {
					shown++
				}
			}
			warned := strings.Count(strings.Join(res.Warnings, "\n"), "source not shown (sources of this change over 40 bytes)")
			if shown == 0 || warned == 0 || shown+warned != 5 {
				t.Errorf("shown %d, warned %d; warnings %q", shown, warned, res.Warnings)
			}
		})
	}
}

func TestPrefetchGivesSameContext(t *testing.T) {
	repo := ctxBasicRepo(t)
	plain, err := collectRange(context.Background(), repo.f, repo.f, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// The listing names every new path of the change, secret and noise ones
	// included: the stage must skip them.
	repo.reads = nil
	pre, err := collectRange(context.Background(), pipelinetest.FilesRepo{Fake: repo.f}, pipelinetest.ListingDiffs{Fake: repo.f}, ctxBasicInput(), pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(pre)
	if !bytes.Equal(a, b) {
		t.Errorf("read-ahead result differs:\n%s", ctxFirstDiff(string(a), string(b)))
	}
	// Each file is read once: ahead of the diff, never again.
	seen := map[string]int{}
	if len(repo.reads) == 0 {
		t.Fatal("no source was read")
	}
	for _, p := range repo.reads {
		seen[p]++
		if seen[p] > 1 {
			t.Errorf("%s read twice", p)
		}
	}
}
