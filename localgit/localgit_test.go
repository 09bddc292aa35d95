package localgit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// git runs a git command in dir for test setup and returns its trimmed output.
var git = pipelinetest.Git

func write(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a repository with a base branch "main" and a branch "feature",
// plus content that must never leak: a symlink to a file outside the
// repository, an uncommitted file and uncommitted edits.
type fixture struct {
	dir      string // repository
	outside  string // file outside the repository holding outsideSecret
	forkSHA  string // commit feature and main share
	mainSHA  string // tip of main (one commit after the fork)
	headSHA  string // tip of feature
	submodID string
}

const outsideSecret = "OUTSIDE-SECRET-CONTENT"

func newFixture(t testing.TB, dir string) fixture {
	t.Helper()
	f := fixture{dir: dir}
	f.outside = filepath.Join(filepath.Dir(dir), "outside.txt")
	write(t, f.outside, []byte(outsideSecret+"\n"))
	git(t, "", "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int { return 1 }\n"))
	write(t, filepath.Join(dir, "dir", "b.txt"), []byte("b\n"))
	write(t, filepath.Join(dir, "dir", "sub", "c.txt"), []byte("c\n"))
	write(t, filepath.Join(dir, "gone.txt"), []byte("to be deleted\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	f.forkSHA = git(t, dir, "rev-parse", "HEAD")

	git(t, dir, "checkout", "-q", "-b", "feature")
	write(t, filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int { return 2 }\n"))
	write(t, filepath.Join(dir, "bin.dat"), []byte("GIF89a\x00\x01\x02binary"))
	write(t, filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("0123456789\n"), 200))
	if err := os.Symlink(f.outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	f.submodID = f.forkSHA
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+f.submodID+",sub")
	git(t, dir, "commit", "-q", "-m", "feature")
	f.headSHA = git(t, dir, "rev-parse", "HEAD")

	git(t, dir, "checkout", "-q", "main")
	write(t, filepath.Join(dir, "main-only.txt"), []byte("main moved on\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "main moves on")
	f.mainSHA = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "feature")
	git(t, dir, "tag", "v1", f.forkSHA)

	// Never committed: must not be readable.
	write(t, filepath.Join(dir, "untracked.txt"), []byte("WORKTREE-ONLY\n"))
	write(t, filepath.Join(dir, "a.go"), []byte("package a\n\n// WORKTREE-ONLY edit\n"))
	return f
}

// rootRepo returns a provider whose root is the fixture repository itself.
func rootRepo(t *testing.T) (*Provider, fixture) {
	t.Helper()
	base := t.TempDir()
	f := newFixture(t, filepath.Join(base, "repo"))
	return New(f.dir), f
}

var anyRepo = pipeline.Repo{Workspace: "ws", RepoSlug: "slug"}

func TestResolveCommit(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		rev     string
		want    string
		wantErr error
		field   string
	}{
		{name: "branch", rev: "feature", want: f.headSHA},
		{name: "main", rev: "main", want: f.mainSHA},
		{name: "short sha", rev: f.headSHA[:8], want: f.headSHA},
		{name: "tag", rev: "v1", want: f.forkSHA},
		{name: "full tag name", rev: "refs/tags/v1", want: f.forkSHA},
		{name: "full branch name", rev: "refs/heads/main", want: f.mainSHA},
		{name: "HEAD", rev: "HEAD", want: f.headSHA},
		{name: "upper-case short sha", rev: strings.ToUpper(f.headSHA[:10]), want: f.headSHA},
		{name: "expression", rev: "feature~1", field: "ref"},
		{name: "unknown", rev: "no-such-branch", wantErr: pipeline.ErrNotFound},
		{name: "missing full id", rev: strings.Repeat("1", 40), wantErr: pipeline.ErrNotFound},
		{name: "option", rev: "--output=/tmp/x", field: "ref"},
		{name: "empty", rev: "", field: "ref"},
		{name: "newline", rev: "main\nHEAD", field: "ref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.ResolveCommit(ctx, anyRepo, tt.rev)
			switch {
			case tt.field != "":
				var inv *pipeline.InvalidError
				if !errors.As(err, &inv) || inv.Field != tt.field {
					t.Fatalf("err = %v, want InvalidError on %q", err, tt.field)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.rev) {
					t.Errorf("error %q does not name the revision", err)
				}
			default:
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		commit   string
		path     string
		max      int64
		want     string
		wantErr  error
		errField string
	}{
		{name: "committed content, not the work tree", commit: f.headSHA, path: "a.go", want: "package a\n\nfunc A() int { return 2 }\n"},
		{name: "older commit", commit: f.forkSHA, path: "a.go", want: "package a\n\nfunc A() int { return 1 }\n"},
		{name: "branch name as commit", commit: "feature", path: "dir/b.txt", want: "b\n"},
		{name: "nested", commit: f.headSHA, path: "dir/sub/c.txt", want: "c\n"},
		{name: "uncommitted file", commit: f.headSHA, path: "untracked.txt", wantErr: pipeline.ErrNotFound},
		{name: "deleted at head", commit: f.headSHA, path: "gone.txt", wantErr: pipeline.ErrNotFound},
		{name: "symlink is not followed", commit: f.headSHA, path: "link", wantErr: errSymlink},
		{name: "directory", commit: f.headSHA, path: "dir", wantErr: pipeline.ErrIsDir},
		{name: "binary", commit: f.headSHA, path: "bin.dat", wantErr: pipeline.ErrBinary},
		{name: "too large", commit: f.headSHA, path: "big.txt", max: 1000, wantErr: pipeline.ErrTooLarge},
		{name: "within limit", commit: f.headSHA, path: "big.txt", max: 2200, want: strings.Repeat("0123456789\n", 200)},
		{name: "submodule", commit: f.headSHA, path: "sub", wantErr: errSubmodule},
		{name: "git dir", commit: f.headSHA, path: ".git/config", wantErr: pipeline.ErrNotFound},
		{name: "parent escape", commit: f.headSHA, path: "../outside.txt", errField: "path"},
		{name: "absolute", commit: f.headSHA, path: f.outside, errField: "path"},
		{name: "empty", commit: f.headSHA, path: "", errField: "path"},
		{name: "unknown commit", commit: "nope", path: "a.go", wantErr: pipeline.ErrNotFound},
		{name: "missing full id", commit: strings.Repeat("2", 40), path: "a.go", wantErr: pipeline.ErrNotFound},
		{name: "option as commit", commit: "-p", path: "a.go", errField: "ref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.ReadFile(ctx, anyRepo, tt.commit, tt.path, tt.max)
			if strings.Contains(string(got), "OUTSIDE-SECRET") || strings.Contains(string(got), "WORKTREE-ONLY") {
				t.Fatalf("leaked content: %q", got)
			}
			switch {
			case tt.errField != "":
				var inv *pipeline.InvalidError
				if !errors.As(err, &inv) || inv.Field != tt.errField {
					t.Fatalf("err = %v, want InvalidError on %q", err, tt.errField)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			default:
				if err != nil || string(got) != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
			}
		})
	}
}

func TestReadFilesMatchesReadFile(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	paths := []string{"a.go", "untracked.txt", "link", "dir", "bin.dat", "big.txt", "sub", "dir/sub/c.txt", "../x", "a.go"}
	type answer struct {
		Data []byte
		Err  error
	}
	var got []answer
	err := p.ReadFiles(ctx, anyRepo, f.headSHA, paths, 1000, func(i int, data []byte, err error) {
		if i != len(got) {
			t.Errorf("answer for path %d after %d answers", i, len(got))
		}
		got = append(got, answer{data, err})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(paths) {
		t.Fatalf("%d answers for %d paths", len(got), len(paths))
	}
	for i, path := range paths {
		want, wantErr := p.ReadFile(ctx, anyRepo, f.headSHA, path, 1000)
		if !bytes.Equal(got[i].Data, want) {
			t.Errorf("%s: data %q, ReadFile %q", path, got[i].Data, want)
		}
		if (got[i].Err == nil) != (wantErr == nil) || (wantErr != nil && got[i].Err.Error() != wantErr.Error()) {
			t.Errorf("%s: err %v, ReadFile %v", path, got[i].Err, wantErr)
		}
	}
}

func TestListDir(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	size := func(n int64) *int64 { return &n }
	tests := []struct {
		name      string
		path      string
		limit     int
		want      []pipeline.DirEntry
		truncated bool
		wantErr   error
	}{
		{name: "root", path: "", want: []pipeline.DirEntry{
			{Path: "a.go", Type: "file", Size: size(37)},
			{Path: "big.txt", Type: "file", Size: size(2200)},
			{Path: "bin.dat", Type: "file", Size: size(15)},
			{Path: "dir", Type: "dir"},
			{Path: "link", Type: "symlink"},
			{Path: "sub", Type: "submodule"},
		}},
		{name: "subdirectory", path: "dir", want: []pipeline.DirEntry{
			{Path: "dir/b.txt", Type: "file", Size: size(2)},
			{Path: "dir/sub", Type: "dir"},
		}},
		{name: "trailing slash", path: "dir/sub/", want: []pipeline.DirEntry{{Path: "dir/sub/c.txt", Type: "file", Size: size(2)}}},
		{name: "limited", path: "", limit: 2, truncated: true, want: []pipeline.DirEntry{
			{Path: "a.go", Type: "file", Size: size(37)},
			{Path: "big.txt", Type: "file", Size: size(2200)},
		}},
		{name: "file", path: "a.go", wantErr: pipeline.ErrNotDir},
		{name: "symlink", path: "link", wantErr: pipeline.ErrNotDir},
		{name: "missing", path: "nope", wantErr: pipeline.ErrNotFound},
		{name: "uncommitted", path: "untracked.txt", wantErr: pipeline.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated, err := p.ListDir(ctx, anyRepo, f.headSHA, tt.path, tt.limit)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", truncated, tt.truncated)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries %+v, want %+v", len(got), got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Path != w.Path || g.Type != w.Type || (g.Size == nil) != (w.Size == nil) || (g.Size != nil && *g.Size != *w.Size) {
					t.Errorf("entry %d = %+v (size %v), want %+v (size %v)", i, g, deref(g.Size), w, deref(w.Size))
				}
			}
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestDiffUsesMergeBase(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	raw, err := p.Diff(ctx, anyRepo, "main", "feature", pipeline.DiffOptions{ContextLines: 30})
	if err != nil {
		t.Fatal(err)
	}
	diff := string(raw)
	for _, want := range []string{"diff --git a/a.go b/a.go", "-func A() int { return 1 }", "+func A() int { return 2 }",
		"deleted file mode", "Binary files", "new file mode 120000", "+" + f.outside, "Subproject commit " + f.submodID} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	for _, leak := range []string{"main-only.txt", "WORKTREE-ONLY", outsideSecret} {
		if strings.Contains(diff, leak) {
			t.Errorf("three-dot diff shows %q", leak)
		}
	}

	two, err := p.Diff(ctx, anyRepo, f.mainSHA, f.headSHA, pipeline.DiffOptions{TwoDot: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(two), "main-only.txt") {
		t.Errorf("two-dot diff lacks main's own change:\n%s", two)
	}

	if _, err := p.Diff(ctx, anyRepo, "nope", "feature", pipeline.DiffOptions{}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown base: err = %v, want ErrNotFound", err)
	}
	small := *p
	small.MaxDiffBytes = 100
	if _, err := small.Diff(ctx, anyRepo, "main", "feature", pipeline.DiffOptions{}); !errors.Is(err, pipeline.ErrTooLarge) {
		t.Errorf("over MaxDiffBytes: err = %v, want ErrTooLarge", err)
	}
}

func TestRepoSelection(t *testing.T) {
	root := t.TempDir()
	f := newFixture(t, filepath.Join(root, "acme", "shop"))
	// A workspace that is a symlink out of the root.
	elsewhere := t.TempDir()
	newFixture(t, filepath.Join(elsewhere, "evil"))
	if err := os.Symlink(elsewhere, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "acme", "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := New(root)
	ctx := context.Background()
	tests := []struct {
		name    string
		repo    pipeline.Repo
		wantErr error
		field   string
	}{
		{name: "selected", repo: pipeline.Repo{Workspace: "acme", RepoSlug: "shop"}},
		{name: "missing repo", repo: pipeline.Repo{Workspace: "acme", RepoSlug: "nope"}, wantErr: pipeline.ErrNotFound},
		{name: "not a repository", repo: pipeline.Repo{Workspace: "acme", RepoSlug: "plain"}, wantErr: pipeline.ErrNotFound},
		{name: "parent workspace", repo: pipeline.Repo{Workspace: "..", RepoSlug: "shop"}, field: "workspace"},
		{name: "slash in slug", repo: pipeline.Repo{Workspace: "acme", RepoSlug: "../acme/shop"}, field: "repoSlug"},
		{name: "empty workspace", repo: pipeline.Repo{RepoSlug: "shop"}, field: "workspace"},
		{name: "empty slug", repo: pipeline.Repo{Workspace: "acme"}, field: "repoSlug"},
		{name: "symlink out of root", repo: pipeline.Repo{Workspace: "escape", RepoSlug: "evil"}, wantErr: pipeline.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.ResolveCommit(ctx, tt.repo, "feature")
			switch {
			case tt.field != "":
				var inv *pipeline.InvalidError
				if !errors.As(err, &inv) || inv.Field != tt.field {
					t.Fatalf("err = %v, want InvalidError on %q", err, tt.field)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			default:
				if err != nil || got != f.headSHA {
					t.Fatalf("got %q, %v; want %q", got, err, f.headSHA)
				}
			}
		})
	}

	// A root that is itself a repository is served for any names.
	rp := New(f.dir)
	for _, r := range []pipeline.Repo{{}, {Workspace: "x", RepoSlug: "y"}} {
		if got, err := rp.ResolveCommit(ctx, r, "feature"); err != nil || got != f.headSHA {
			t.Errorf("root repository, names %+v: %q, %v", r, got, err)
		}
	}
	if _, err := rp.ResolveCommit(ctx, pipeline.Repo{Workspace: ".."}, "feature"); err == nil {
		t.Error("root repository accepted workspace \"..\"")
	}
}

func TestCancelledContext(t *testing.T) {
	p, f := rootRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.ReadFile(ctx, anyRepo, f.headSHA, "a.go", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile: err = %v, want context.Canceled", err)
	}
	if err := p.ReadFiles(ctx, anyRepo, f.headSHA, []string{"a.go"}, 0, func(int, []byte, error) {}); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFiles: err = %v, want context.Canceled", err)
	}
	if _, err := p.Diff(ctx, anyRepo, f.forkSHA, f.headSHA, pipeline.DiffOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Diff: err = %v, want context.Canceled", err)
	}
}

// FuzzCheckPath: whatever a model sends, an accepted path is a clean relative
// path that git can only read inside the repository.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a.go", "dir/", "../x", "/etc/passwd", "a//b", "a/./b", "", ".", "a\x00b", "-p", ":(glob)*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := checkPath(p, true)
		if err != nil {
			return
		}
		if got == "" {
			if p != "" && p != "." {
				t.Errorf("%q accepted as the root", p)
			}
			return
		}
		if strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") {
			t.Errorf("%q -> %q not relative", p, got)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Errorf("%q -> %q has segment %q", p, got, seg)
			}
		}
		if strings.IndexByte(got, 0) >= 0 {
			t.Errorf("%q -> %q has a NUL", p, got)
		}
	})
}

// TestCommitMessages reads base..head's messages newest first: the
// feature's commits, not main's own, nor those before the fork.
func TestCommitMessages(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	git(t, f.dir, "commit", "-q", "--allow-empty", "-m", "SHOP-12: second\n\nFixes SHOP-13.")
	got, err := p.CommitMessages(ctx, anyRepo, "main", "feature", 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"SHOP-12: second\n\nFixes SHOP-13.", "feature"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if got, err := p.CommitMessages(ctx, anyRepo, f.forkSHA, "feature", 1); err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "SHOP-12") {
		t.Errorf("limit 1: %q, %v", got, err)
	}
	if _, err := p.CommitMessages(ctx, anyRepo, "nope", "feature", 5); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown base: err = %v, want ErrNotFound", err)
	}
	if _, err := p.CommitMessages(ctx, anyRepo, "main", "--output=/tmp/x", 5); err == nil {
		t.Errorf("an option as a revision was accepted")
	}
}

func TestParseTreeEntry(t *testing.T) {
	for _, tc := range []struct {
		rec     string
		size    int64
		wantErr bool
	}{
		{"100644 blob 0123abcd      42\ta/b.go", 42, false},
		{"040000 tree 0123abcd       -\ta", -1, false},
		// A blob a partial clone lacks: its size is unknown, the rest of
		// the listing stands.
		{"100644 blob 0123abcd     BAD\ta/penguin.png", -1, false},
		{"100644 blob 0123abcd     4x2\ta/b.go", 0, true},
		{"100644 blob 0123abcd 42 a/b.go", 0, true},
	} {
		e, err := parseTreeEntry([]byte(tc.rec))
		if (err != nil) != tc.wantErr {
			t.Errorf("parseTreeEntry(%q) error %v, want error %v", tc.rec, err, tc.wantErr)
			continue
		}
		if err == nil && e.Size != tc.size {
			t.Errorf("parseTreeEntry(%q).Size = %d, want %d", tc.rec, e.Size, tc.size)
		}
	}
}
