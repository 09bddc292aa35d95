package localgit

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLsCacheAnswersAgainWithoutGit: reads at a commit give the same
// answers as a provider that keeps nothing, and reading them again runs no
// ls-tree.
func TestLsCacheAnswersAgainWithoutGit(t *testing.T) {
	p, f := rootRepo(t)
	plain := &Provider{Root: p.Root} // keeps nothing
	ctx := context.Background()
	reads := func(p *Provider) []string {
		var out []string
		for _, path := range []string{"a.go", "gone.txt", "dir", "dir/sub/c.txt"} {
			data, err := p.ReadFile(ctx, anyRepo, f.headSHA, path, 0)
			out = append(out, fmt.Sprintf("read %s: %q %v", path, data, err))
		}
		for _, dir := range []string{"", "dir", "a.go", "missing"} {
			entries, more, err := p.ListDir(ctx, anyRepo, f.headSHA, dir, 100)
			out = append(out, fmt.Sprintf("list %q: %d entries %v %v", dir, len(entries), more, err))
			for _, e := range entries {
				out = append(out, fmt.Sprintf("  %s %s %v", e.Path, e.Type, deref(e.Size)))
			}
		}
		err := p.ReadFiles(ctx, anyRepo, f.forkSHA, []string{"a.go", "dir/b.txt", "nope.txt", "dir"}, 0, func(i int, data []byte, err error) {
			out = append(out, fmt.Sprintf("batch %d: %q %v", i, data, err))
		})
		return append(out, fmt.Sprint("batch:", err))
	}
	want := reads(plain)
	if diff := cmp.Diff(want, reads(p)); diff != "" {
		t.Fatalf("first reads differ from a provider keeping nothing (-want +got):\n%s", diff)
	}
	runs := p.ls.runs.Load()
	if runs == 0 {
		t.Fatal("no ls-tree run counted")
	}
	if diff := cmp.Diff(want, reads(p)); diff != "" {
		t.Errorf("reads again differ (-want +got):\n%s", diff)
	}
	if again := p.ls.runs.Load() - runs; again != 0 {
		t.Errorf("reading again ran ls-tree %d times, want 0", again)
	}
}
