package localgit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
)

// The code tree must serve the candidate engine.
var _ candidates.Tree = pipeline.CodeTree(nil)

func openTree(t *testing.T, p *Provider, commit string) pipeline.CodeTree {
	t.Helper()
	tree, err := p.OpenTree(context.Background(), anyRepo, commit)
	if err != nil {
		t.Fatalf("OpenTree(%s): %v", commit, err)
	}
	t.Cleanup(func() { _ = tree.Close() })
	return tree
}

func TestCodeTreeReads(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	tree := openTree(t, p, "feature")
	tests := []struct {
		path    string
		want    string
		wantErr error
		invalid bool
	}{
		// The commit's content, not the working tree's uncommitted edit.
		{path: "a.go", want: "package a\n\nfunc A() int { return 2 }\n"},
		{path: "dir/b.txt", want: "b\n"},
		{path: "./dir/b.txt", invalid: true}, // the engine passes clean paths
		{path: "untracked.txt", wantErr: pipeline.ErrNotFound},
		{path: "gone.txt", wantErr: pipeline.ErrNotFound},
		{path: "dir", wantErr: pipeline.ErrNotFound},
		{path: "link", wantErr: pipeline.ErrNotFound}, // never followed
		{path: "sub", wantErr: pipeline.ErrNotFound},  // submodule
		{path: "bin.dat", wantErr: pipeline.ErrBinary},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := tree.ReadFile(ctx, tt.path)
			var inv *pipeline.InvalidError
			if tt.invalid && !errors.As(err, &inv) {
				t.Fatalf("ReadFile(%q) = %v, want an InvalidError", tt.path, err)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadFile(%q) = %q, %v; want error %v", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if tt.invalid {
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
	if _, err := tree.ReadFile(ctx, "../outside.txt"); err == nil {
		t.Error("ReadFile(../outside.txt) succeeded")
	}

	// The base of the fork still has gone.txt and the old a.go.
	old := openTree(t, p, f.forkSHA)
	if b, err := old.ReadFile(ctx, "gone.txt"); err != nil || string(b) != "to be deleted\n" {
		t.Errorf("base gone.txt = %q, %v", b, err)
	}

	for dir, want := range map[string][]string{
		"":        {"a.go", "big.txt", "bin.dat"}, // no link, no submodule, no directory
		".":       {"a.go", "big.txt", "bin.dat"},
		"dir":     {"dir/b.txt"},
		"dir/sub": {"dir/sub/c.txt"},
		"nope":    nil,
	} {
		got, err := tree.ListDir(ctx, dir)
		sort.Strings(got)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ListDir(%q) = %v, %v; want %v", dir, got, err, want)
		}
	}
}

func TestCodeTreeTooLarge(t *testing.T) {
	p, _ := rootRepo(t)
	tree := openTree(t, p, "feature")
	tree.(*codeTree).maxBytes = 100
	if _, err := tree.ReadFile(context.Background(), "big.txt"); !errors.Is(err, pipeline.ErrTooLarge) {
		t.Fatalf("ReadFile(big.txt) over the limit: %v, want ErrTooLarge", err)
	}
}

// TestCodeTreeBlobID names each file ReadFile serves by git's blob id of
// its content at the commit, and no other path.
func TestCodeTreeBlobID(t *testing.T) {
	p, f := rootRepo(t)
	ctx := context.Background()
	tree := openTree(t, p, "feature").(*codeTree)
	for _, path := range []string{"a.go", "dir/b.txt", "bin.dat", "big.txt"} {
		want := git(t, f.dir, "rev-parse", "feature:"+path)
		if id, ok := tree.BlobID(ctx, path); !ok || id != want {
			t.Errorf("BlobID(%q) = %q, %v; want %q", path, id, ok, want)
		}
	}
	if a, _ := tree.BlobID(ctx, "a.go"); a == git(t, f.dir, "rev-parse", f.forkSHA+":a.go") {
		t.Errorf("BlobID(a.go) names the base's content")
	}
	tree.maxBytes = 100
	for _, path := range []string{"untracked.txt", "gone.txt", "dir", "link", "sub", "../outside.txt", "big.txt"} {
		if id, ok := tree.BlobID(ctx, path); ok {
			t.Errorf("BlobID(%q) = %q, want none", path, id)
		}
	}
}

func TestCodeTreeGrep(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "cmd/main.go"), []byte("package main\n\nfunc main() { Run(); x.Execute() }\n"))
	write(t, filepath.Join(dir, "pkg/run.go"), []byte("package pkg\n\nfunc Run() {}\n"))
	write(t, filepath.Join(dir, "pkg/runner.go"), []byte("package pkg\n\nfunc Runner() {}\n")) // Run only as a prefix
	write(t, filepath.Join(dir, "web/app.ts"), []byte("export function Run() {}\n"))
	write(t, filepath.Join(dir, "dollar.js"), []byte("const $el = 1\n"))
	write(t, filepath.Join(dir, "bin.go"), []byte("Run\x00binary"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "c")
	// A later commit the tree at the first one must not see.
	write(t, filepath.Join(dir, "later.go"), []byte("package later\n\nvar _ = Run\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "later")
	p := New(dir)
	tree := openTree(t, p, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1")))
	ctx := context.Background()
	tests := []struct {
		name  string
		words []string
		globs []string
		limit int
		want  []string
	}{
		{name: "whole words, all files", words: []string{"Run"}, want: []string{"cmd/main.go", "pkg/run.go", "web/app.ts"}},
		{name: "glob at any depth", words: []string{"Run"}, globs: []string{"*.go"}, want: []string{"cmd/main.go", "pkg/run.go"}},
		{name: "several words", words: []string{"Runner", "Execute"}, globs: []string{"*.go"}, want: []string{"cmd/main.go", "pkg/runner.go"}},
		{name: "metacharacters quoted", words: []string{"$el"}, want: []string{"dollar.js"}},
		{name: "no match", words: []string{"Nothing"}, want: nil},
		{name: "no words", words: nil, want: nil},
		{name: "limit", words: []string{"Run"}, limit: 1, want: []string{"cmd/main.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tree.Grep(ctx, tt.words, tt.globs, tt.limit)
			sort.Strings(got)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Grep(%v, %v) = %v, %v; want %v", tt.words, tt.globs, got, err, tt.want)
			}
		})
	}
	// Many words are split into several patterns.
	many := make([]string, 3*grepChunk)
	for i := range many {
		many[i] = fmt.Sprintf("Word%d", i)
	}
	many[len(many)-1] = "Runner"
	if got, err := tree.Grep(ctx, many, nil, 0); err != nil || !reflect.DeepEqual(got, []string{"pkg/runner.go"}) {
		t.Errorf("Grep(%d words) = %v, %v", len(many), got, err)
	}
	parent := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1"))
	if mb, err := p.MergeBase(ctx, anyRepo, "HEAD", parent); err != nil || mb != parent {
		t.Errorf("MergeBase = %q, %v", mb, err)
	}
}

// TestCodeTreeConcurrent reads from many goroutines at once (go test -race),
// closes the tree and checks that later reads fail instead of blocking.
func TestCodeTreeConcurrent(t *testing.T) {
	p, _ := rootRepo(t)
	tree := openTree(t, p, "feature")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := []string{"a.go", "dir/b.txt", "dir/sub/c.txt"}[i%3]
			b, err := tree.ReadFile(ctx, path)
			if err != nil || len(b) == 0 {
				errs <- fmt.Errorf("%s: %q, %v", path, b, err)
			}
			if _, err := tree.Grep(ctx, []string{"A"}, []string{"*.go"}, 0); err != nil && i%8 == 0 {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.ReadFile(ctx, "a.go"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("ReadFile after Close = %v, want a closed error", err)
	}
	if err := tree.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestCodeTreeCancelledRead(t *testing.T) {
	p, _ := rootRepo(t)
	tree := openTree(t, p, "feature")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tree.ReadFile(ctx, "a.go"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with a cancelled context = %v", err)
	}
	// The tree still works for a live context.
	if b, err := tree.ReadFile(context.Background(), "a.go"); err != nil || !strings.Contains(string(b), "return 2") {
		t.Errorf("ReadFile after a cancelled one = %q, %v", b, err)
	}
}

func TestOpenTreeUnknownCommit(t *testing.T) {
	p, _ := rootRepo(t)
	if _, err := p.OpenTree(context.Background(), anyRepo, strings.Repeat("a", 40)); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("OpenTree(unknown) = %v, want ErrNotFound", err)
	}
}

// grepRepo builds a repository of four commits whose files mix the words
// TestGrepIndexMatchesGitGrep searches with identifiers that hold them
// (FindAll, ctx_err, x1), punctuation, non-ASCII letters and a binary file,
// over more files than a search indexes inline, so that the first search of
// each commit leaves the rest to the background fill. It returns the
// repository and its commits, newest first.
func grepRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	rng := rand.New(rand.NewPCG(7, 21))
	words := []string{"Find", "FindAll", "Grep", "grep", "ctx", "ctx_err", "err", "errs", "x", "x1", "_", "1", "10",
		"package", "func", "Prompt", "PromptText", "the", "The", "CodeTree", "OpenTree", "héllo", "naïve",
		"$el", "el", "$", "a$b", "$$el", "el$"}
	seps := []string{" ", " ", ".", "(", ")", ":", "-", "\t", ", ", "!=", "\"", "$"}
	line := func() string {
		var b strings.Builder
		for k := 1 + rng.IntN(7); k > 0; k-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		return b.String()
	}
	file := func(p string) {
		var b strings.Builder
		if strings.HasSuffix(p, ".go") {
			b.WriteString("package " + filepath.Base(filepath.Dir(p)) + "\n\n")
		}
		for k := 2 + rng.IntN(10); k > 0; k-- {
			b.WriteString(line() + "\n")
		}
		write(t, filepath.Join(dir, p), []byte(b.String()))
	}
	var paths []string
	for _, d := range []string{"", "pipeline/", "pipeline/sub/", "localgit/", "docs/"} {
		for i := range 16 {
			paths = append(paths, fmt.Sprintf("%sf%02d.go", d, i))
		}
		paths = append(paths, d+"f_test.go", d+"README.md", d+"notes.MD", d+"data.txt")
	}
	for _, p := range paths {
		file(p)
	}
	write(t, filepath.Join(dir, "logo.bin"), []byte("GIF89a\x00x Find Grep ctx the\x00"))
	var commits []string
	for c := range 4 {
		if c > 0 {
			for range 12 { // rewrite, delete and add files
				switch p := paths[rng.IntN(len(paths))]; rng.IntN(3) {
				case 0:
					_ = os.Remove(filepath.Join(dir, p))
				default:
					file(p)
				}
			}
			file(fmt.Sprintf("pipeline/new%d.go", c))
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
		commits = append([]string{git(t, dir, "rev-parse", "HEAD")}, commits...)
	}
	return dir, commits
}

// TestGrepIndexMatchesGitGrep compares the identifier index's answers with
// git grep's on a repository built for it, for words and globs of the kinds
// the candidate engine searches.
// withInlineMax sets identInlineMax for one test.
func withInlineMax(t *testing.T, n int) {
	old := identInlineMax
	identInlineMax = n
	t.Cleanup(func() { identInlineMax = old })
}

func TestGrepIndexMatchesGitGrep(t *testing.T) {
	// Few blobs are indexed inline: the first searches go to git grep and
	// the background fill.
	withInlineMax(t, 16)
	root, commits := grepRepo(t)
	p := New(root)
	ctx := context.Background()
	tests := []struct {
		words []string
		globs []string
		limit int
	}{
		{words: []string{"Find", "Grep"}, globs: []string{"*.go"}},
		{words: []string{"ctx", "err"}, globs: []string{"*.go"}, limit: 25},
		{words: []string{"x"}, globs: nil},
		{words: []string{"CodeTree", "OpenTree", "NoSuchIdentifierAnywhere"}, globs: []string{"*.go", "*.md"}},
		{words: []string{"package"}, globs: []string{"pipeline"}},
		{words: []string{"func"}, globs: []string{"*_test.go"}},
		{words: []string{"Prompt"}, globs: []string{"pipeline/*.go"}},
		{words: []string{"the"}, globs: []string{"*.[mM][dD]"}},
		{words: []string{"_", "ok"}, globs: []string{"*.go"}},
		// Words with a '$' are looked for in the blobs holding their
		// runs of word characters.
		{words: []string{"$el"}, globs: []string{"*.go"}},
		{words: []string{"a$b", "NoSuchIdentifierAnywhere"}, globs: []string{"*.go", "*.md"}},
		{words: []string{"el$", "$el", "Prompt"}, globs: nil, limit: 30},
		{words: []string{"x$", "b$a"}, globs: []string{"*.go"}},
	}
	waited := 0
	for _, commit := range []string{commits[0], commits[3]} {
		tree, err := p.OpenTree(ctx, anyRepo, commit)
		if err != nil {
			t.Fatal(err)
		}
		ct := tree.(*codeTree)
		for _, tt := range tests {
			want, err := ct.gitGrep(ctx, tt.words, tt.globs, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := ct.grepIndexed(ctx, tt.words, tt.globs, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				// The first search of a large tree runs git grep and
				// fills the index in the background. Once that fill
				// ended the search is answered from the index; when
				// another search's fill was running instead, this one
				// starts its own fill, and the next try is answered.
				waited++
				for i := 0; i < 2 && !ok && err == nil; i++ {
					ct.idents.fills.Wait()
					got, ok, err = ct.grepIndexed(ctx, tt.words, tt.globs, tt.limit)
				}
				if !ok || err != nil {
					t.Fatalf("the index never covered %v %v: %v", tt.words, tt.globs, err)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: Grep(%v, %v, %d) from the index = %d paths, git grep = %d paths; first difference: %s",
					commit, tt.words, tt.globs, tt.limit, len(got), len(want), firstDiff(got, want))
			}
			if len(want) == 0 && tt.words[0] != "CodeTree" && tt.words[0] != "the" && tt.words[0] != "x$" {
				t.Errorf("%s: %v %v matched nothing: the comparison proves little", commit, tt.words, tt.globs)
			}
		}
		// Numbers are not indexed: a search for one is left to git grep.
		for _, words := range [][]string{{"_", "1"}, {"$1"}, {"x", "$"}} {
			if _, ok, err := ct.grepIndexed(ctx, words, []string{"*.go"}, 0); ok || err != nil {
				t.Errorf("%s: the index answered a search for %q (ok %v, err %v)", commit, words, ok, err)
			}
		}
		_ = tree.Close()
	}
	if waited == 0 {
		t.Error("every search was answered inline: the background fill went untested")
	}
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("index %q vs git %q at %d", x, y, i)
		}
	}
	return "none"
}

// A blob the object store lacks (a partial clone) has no identifiers: the
// index covers it as empty, so searches stay answered from the index and
// the other files are still found.
func TestGrepIndexCoversMissingBlob(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Find() {}\n"))
	write(t, filepath.Join(dir, "img.png"), []byte("\x89PNG Find"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "one")
	oid := git(t, dir, "rev-parse", "HEAD:img.png")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatal(err)
	}
	tree, err := New(dir).OpenTree(context.Background(), anyRepo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	got, ok, err := tree.(*codeTree).grepIndexed(context.Background(), []string{"Find"}, nil, 0)
	if err != nil || !ok {
		t.Fatalf("grepIndexed: ok %v, err %v; want the index to answer", ok, err)
	}
	if strings.Join(got, ",") != "a.go" {
		t.Errorf("grepIndexed = %v, want [a.go]", got)
	}
}

// needleRepo starts a repository of files Go files and returns commit:
// commit(rev, changed) writes revision rev of the first changed files (all
// of them for rev 0), where one file in seven calls Needle, commits them
// and returns the commit's id.
func needleRepo(t *testing.T, files int) (string, func(rev, changed int) string) {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	content := func(i, rev int) []byte {
		word := "Other"
		if i%7 == rev%7 {
			word = "Needle"
		}
		return fmt.Appendf(nil, "package p\n\n// rev %d\nfunc F%d() { %s() }\n", rev, i, word)
	}
	return dir, func(rev, changed int) string {
		for i := range files {
			if rev == 0 || i < changed {
				write(t, filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), content(i, rev))
			}
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", fmt.Sprint("rev ", rev))
		return git(t, dir, "rev-parse", "HEAD")
	}
}

// TestGrepIndexInline: a fresh server's first search of a repository of a
// few hundred files, and a search at a head whose blobs all changed, are
// answered from the index, their blobs indexed inline, with git grep's
// answer.
func TestGrepIndexInline(t *testing.T) {
	const files = 300
	dir, commit := needleRepo(t, files)
	first := commit(0, files)
	allChanged := commit(1, files)
	p := New(dir)
	ctx := context.Background()
	for _, c := range []string{first, allChanged} {
		tree, err := p.OpenTree(ctx, anyRepo, c)
		if err != nil {
			t.Fatal(err)
		}
		ct := tree.(*codeTree)
		got, ok, err := ct.grepIndexed(ctx, []string{"Needle"}, []string{"*.go"}, 0)
		if err != nil || !ok {
			t.Fatalf("%s: the search was not answered from the index (ok %v, %v)", c, ok, err)
		}
		want, err := ct.gitGrep(ctx, []string{"Needle"}, []string{"*.go"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: the index answered %d paths, git grep %d", c, len(got), len(want))
		}
		_ = tree.Close()
	}
}

// TestGrepIndexNewHeadInline: once a repository is indexed, a new head
// whose changed blobs are more than identInlineMax but at most a quarter of
// what the search covers is answered from the index, its changed blobs
// indexed inline, and the answer is git grep's; with more changed than
// that, the search goes to git grep.
func TestGrepIndexNewHeadInline(t *testing.T) {
	withInlineMax(t, 64)
	const files = 400
	dir, commit := needleRepo(t, files)
	base := commit(0, files)
	inline := commit(1, files/4)    // 100 changed blobs: more than identInlineMax, a quarter
	tooMany := commit(2, files/4+1) // 101 changed against inline's head
	if inlineLimit(files) != files/4 || files/4 <= identInlineMax {
		t.Fatalf("the test needs a quarter of %d files (%d) above identInlineMax (%d)", files, files/4, identInlineMax)
	}
	p := New(dir)
	ctx := context.Background()
	grep := func(commit string) (paths []string, ok bool, want []string) {
		t.Helper()
		tree, err := p.OpenTree(ctx, anyRepo, commit)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		ct := tree.(*codeTree)
		paths, ok, err = ct.grepIndexed(ctx, []string{"Needle"}, []string{"*.go"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want, err = ct.gitGrep(ctx, []string{"Needle"}, []string{"*.go"}, 0); err != nil {
			t.Fatal(err)
		}
		return paths, ok, want
	}
	if _, ok, _ := grep(base); ok {
		t.Fatalf("the first search of an empty index was answered from it; want git grep and a background fill")
	}
	p.idents.fills.Wait()
	if got, ok, want := grep(base); !ok || !slices.Equal(got, want) {
		t.Fatalf("after the fill, base: ok %v, %d paths; git grep %d paths", ok, len(got), len(want))
	}
	got, ok, want := grep(inline)
	if !ok {
		t.Fatalf("a new head with %d changed blobs of %d was not answered from the index", files/4, files)
	}
	if !slices.Equal(got, want) {
		t.Errorf("new head: the index answered %d paths, git grep %d", len(got), len(want))
	}
	if _, ok, _ := grep(tooMany); ok {
		t.Errorf("a new head with %d changed blobs of %d was answered from the index; want git grep", files/4+1, files)
	}
}
