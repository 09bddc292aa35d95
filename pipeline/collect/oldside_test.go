package collect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/diff"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// TestRebuiltOldSidesAreRead: the old sides the candidates rebuild from a
// merge-base diff are the bytes a read at the merge base gives, and those
// the diff cannot say are left for that read.
func TestRebuiltOldSidesAreRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "app")
	pipelinetest.Git(t, "", "init", "-q", "-b", "main", dir)
	long := strings.Repeat("// a line long enough for the rename to be found\n", 30)
	pipelinetest.WriteFiles(t, dir, map[string]string{
		"go.mod":         "module example.com/app\n",
		"pkg/add.go":     candAddOld,
		"pkg/sub.go":     "package pkg\n\n" + long + "func Sub(a, b int) int { return a - b }\n",
		"pkg/gone.go":    "package pkg\n\n// Gone goes.\nfunc Gone() {}",
		"pkg/crlf.go":    "package pkg\r\n\r\nvar A = 1\r\nvar B = 2\r\n",
		"pkg/nofinal.go": "package pkg\n\nvar C = 1",
		"pkg/nul.go":     "package pkg\n\nvar D = \"\x00\"\n",
		"pkg/big.go":     "package pkg\n\n" + strings.Repeat("var _ = 1\n", 1000),
		"main.go":        candCaller,
	})
	for _, l := range []string{"link.go", "was_link.go"} {
		if err := os.Symlink("add.go", filepath.Join(dir, "pkg", l)); err != nil {
			t.Fatal(err)
		}
	}
	pipelinetest.WriteFiles(t, dir, map[string]string{".gitattributes": "pkg/nul.go diff\n"})
	pipelinetest.Git(t, dir, "add", "-A")
	pipelinetest.Git(t, dir, "commit", "-q", "-m", "base")
	pipelinetest.Git(t, dir, "checkout", "-q", "-b", "feature")
	pipelinetest.WriteFiles(t, dir, map[string]string{
		"pkg/add.go":     candAddNew,
		"pkg/crlf.go":    "package pkg\r\n\r\nvar A = 3\r\nvar B = 2\r\n",
		"pkg/nofinal.go": "package pkg\n\nvar C = 2\n",
		"pkg/nul.go":     "package pkg\n\nvar D = \"x\"\n",
		"pkg/big.go":     "package pkg\n\n" + strings.Repeat("var _ = 1\n", 500) + "var _ = 2\n" + strings.Repeat("var _ = 1\n", 499),
		"pkg/new.go":     "package pkg\n\nvar N = 1\n",
	})
	pipelinetest.Git(t, dir, "rm", "-q", "pkg/gone.go", "pkg/was_link.go")
	pipelinetest.WriteFiles(t, dir, map[string]string{"pkg/was_link.go": "package pkg\n\nvar L = 1\n"})
	pipelinetest.Git(t, dir, "mv", "pkg/sub.go", "pkg/minus.go")
	pipelinetest.WriteFiles(t, dir, map[string]string{"pkg/minus.go": "package pkg\n\n" + long + "func Sub(a, b int) int { return b - a }\n"})
	if err := os.Remove(filepath.Join(dir, "pkg", "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("minus.go", filepath.Join(dir, "pkg", "link.go")); err != nil {
		t.Fatal(err)
	}
	pipelinetest.Git(t, dir, "add", "-A")
	pipelinetest.Git(t, dir, "commit", "-q", "-m", "feature")

	p := localgit.New(dir)
	ctx := context.Background()
	r := pipeline.Repo{Workspace: "acme", RepoSlug: "app"}
	raw, err := p.Diff(ctx, r, "main", "feature", pipeline.DiffOptions{ContextLines: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, secs := diff.Split(string(raw))
	var sections []string
	var rebuilt, read []candidates.Change
	for _, sec := range secs {
		cs, err := candidates.ChangesFromDiff(sec)
		if err != nil || len(cs) != 1 {
			continue
		}
		c := cs[0]
		sections = append(sections, sec)
		if c.Status != candidates.StatusDeleted {
			// As the stage keeps them: text sources up to candidateSourceMax.
			if data, err := p.ReadFile(ctx, r, "feature", c.Path, candidateSourceMax); err == nil {
				c.New = data
			}
		}
		rebuilt, read = append(rebuilt, c), append(read, c)
	}
	if !strings.Contains(string(raw), "deleted file mode 120000") || !strings.Contains(string(raw), "\n-var D = \"\x00\"") {
		t.Fatalf("the diff lacks a symbolic link turned file or a NUL byte as text:\n%s", raw)
	}
	if len(rebuilt) < 8 {
		t.Fatalf("%d changes, want every kind of file", len(rebuilt))
	}
	meta := ContextMeta{Mode: "full", Repo: r, Base: "main", Head: "feature", Search: p}
	rebuildOld(rebuilt, sections)
	n := 0
	for _, c := range rebuilt {
		if c.Old != nil {
			n++
		}
	}
	if n < 5 {
		t.Errorf("%d old sides rebuilt, want the modified, renamed and deleted text files'", n)
	}
	readOld(ctx, p, meta, rebuilt)
	readOld(ctx, p, meta, read)
	for i := range read {
		if string(rebuilt[i].Old) != string(read[i].Old) || (rebuilt[i].Old == nil) != (read[i].Old == nil) {
			t.Errorf("%s: rebuilt old side %q, read %q", read[i].Path, rebuilt[i].Old, read[i].Old)
		}
	}
}
