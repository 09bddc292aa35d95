package localgit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
)

// Example collects the /v1/context answer of a branch in a repository on
// disk: the local provider serves both the reads and the diff.
func Example() {
	root, _ := os.MkdirTemp("", "prscout-example")
	defer os.RemoveAll(root)
	repo := filepath.Join(root, "acme", "shop")
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v: %s", args, err, out))
		}
	}
	_ = os.MkdirAll(repo, 0o755)
	run("init", "-q", "-b", "main")
	_ = os.WriteFile(filepath.Join(repo, "add.go"), []byte("package shop\n\nfunc Add(a, b int) int { return a - b }\n"), 0o644)
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	run("checkout", "-q", "-b", "fix")
	_ = os.WriteFile(filepath.Join(repo, "add.go"), []byte("package shop\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	_ = os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN=x\n"), 0o644)
	run("add", "-A")
	run("commit", "-q", "-m", "fix Add")

	p := localgit.New(root)
	res, err := collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p}, collect.ContextInput{
		Workspace: "acme", RepoSlug: "shop", Base: "main", Head: "fix", Title: "Fix Add",
	}, pipeline.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Files {
		fmt.Println(f.Status, f.Path, f.Language)
	}
	for _, e := range res.Excluded {
		fmt.Println("excluded", e.Path, e.Reason)
	}
	fmt.Println(res.Stats.ShownRanges)
	// Output:
	// modified add.go go
	// excluded .env secret
	// [add.go: 1-3 of 3]
}
