package readahead

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

func addedFile(p, content string) string {
	return "diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p +
		"\n@@ -0,0 +1 @@\n+" + strings.TrimSuffix(content, "\n") + "\n"
}

// TestReadAheadServesTheChange: the change's sources are read in one
// batch while the diff runs and then served without another read; a
// secret path is never read ahead, a file over the per-file limit is read
// as usual, and a read at another commit goes to the repository.
func TestReadAheadServesTheChange(t *testing.T) {
	ctx := context.Background()
	repo := pipeline.Repo{Workspace: "w", RepoSlug: "r"}
	f := pipelinetest.New()
	f.AddFiles("head", map[string]string{"a.go": "package a\n", "b.go": "package b // longer than the limit\n", ".env": "TOKEN=x\n"})
	f.AddFiles("base", map[string]string{"a.go": "package a\n"})
	f.SetDiff("base...head", addedFile("a.go", "package a")+addedFile("b.go", "package b // longer than the limit")+addedFile(".env", "TOKEN=x"))
	pf := Start(ctx, pipelinetest.FilesRepo{Fake: f}, pipelinetest.ListingDiffs{Fake: f}, repo, "base", "head", pipeline.DiffOptions{}, 16, 1<<20)
	if pf == nil {
		t.Fatal("no read-ahead for a repository that reads in batches and a diff source that lists its files")
	}
	r := pf.Wait()
	if n := f.Calls(pipelinetest.OpReadFiles, ""); n != 1 {
		t.Fatalf("%d batch reads ahead, want 1", n)
	}
	if got, err := r.ReadFile(ctx, repo, "head", "a.go", 0); err != nil || string(got) != "package a\n" {
		t.Fatalf("a.go = %q, %v", got, err)
	}
	if n := f.Calls(pipelinetest.OpRead, "a.go"); n != 0 {
		t.Errorf("a.go read %d more times: the read-ahead did not serve it", n)
	}
	if _, err := r.ReadFile(ctx, repo, "head", "b.go", 1<<10); err != nil || f.Calls(pipelinetest.OpRead, "b.go") != 1 {
		t.Errorf("b.go, over the read-ahead's limit, was not read as usual (%v)", err)
	}
	if _, err := r.ReadFile(ctx, repo, "head", ".env", 0); err != nil || f.Calls(pipelinetest.OpRead, ".env") != 1 {
		t.Errorf("a secret path was served from the read-ahead (%v)", err)
	}
	if _, err := r.ReadFile(ctx, repo, "base", "a.go", 0); err != nil || f.Calls(pipelinetest.OpRead, "a.go") != 1 {
		t.Errorf("a read at another commit did not go to the repository (%v)", err)
	}
}
