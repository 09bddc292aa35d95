package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
)

// gitRepo is the fixture's git repository, for the commits the control API
// makes after the start; base is the fixture's base commit.
type gitRepo struct {
	dir, base string
}

func (g *gitRepo) run(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Mina Park", "GIT_AUTHOR_EMAIL=mina@example.invalid",
		"GIT_COMMITTER_NAME=Mina Park", "GIT_COMMITTER_EMAIL=mina@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// commitOn makes a commit on pr's branch adding file path (or a line at
// the end of it when it exists), loads it into
// the fake with its diffs from the base and every earlier head, and makes
// it the pull request's head.
func (g *gitRepo) commitOn(fake *bitbuckettest.Server, pr bitbuckettest.PullRequest, heads []string, path string) (string, error) {
	ws, slug := fixture.Workspace, fixture.RepoSlug
	prev := pr.SourceCommit
	if _, err := g.run("checkout", "-q", "-B", pr.SourceBranch, prev); err != nil {
		return "", err
	}
	full := filepath.Join(g.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", err
	}
	content := fmt.Sprintf("# %s\n\nChange %d of %s.\n", pr.Title, len(heads), pr.SourceBranch)
	if old, err := os.ReadFile(full); err == nil {
		// An existing file gets a comment line at its end: the lines
		// above keep their numbers.
		content = string(old) + fmt.Sprintf("\n// Change %d of %s.\n", len(heads), pr.SourceBranch)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("%s (change %d)", pr.Title, len(heads))
	if _, err := g.run("add", "-A"); err != nil {
		return "", err
	}
	if _, err := g.run("commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	out, err := g.run("rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	head := strings.TrimSpace(out)
	fake.AddCommit(ws, slug, head, prev)
	fake.SetCommitMessage(ws, slug, head, msg)
	fake.SetBranch(ws, slug, pr.SourceBranch, head)
	if err := g.loadFiles(fake, head); err != nil {
		return "", err
	}
	froms := map[string]string{g.base: g.base}
	for _, h := range heads {
		froms[h] = h
	}
	if pr.DestinationCommit != g.base {
		// A destination the fake merged into (not in git): the changes
		// from the merge base, the fixture's base.
		froms[pr.DestinationCommit] = g.base
	}
	for key, from := range froms {
		if err := g.setDiffs(fake, from, key, head); err != nil {
			return "", err
		}
	}
	pr.SourceCommit = head
	fake.AddPullRequest(ws, slug, pr)
	return head, nil
}

// merge merges pull request pr as a commit on its destination branch in git
// (so prscout's mirror has it too) and in the fake: the source branch's
// versions of files are written onto the destination's head (a branch
// prscout made through the API exists only in the fake, not in git), and
// the pull request is MERGED.
func (g *gitRepo) merge(fake *bitbuckettest.Server, pr bitbuckettest.PullRequest, files []string) (string, error) {
	ws, slug := fixture.Workspace, fixture.RepoSlug
	dst, ok := fake.BranchHead(ws, slug, pr.DestinationBranch)
	if !ok {
		return "", fmt.Errorf("no branch %s", pr.DestinationBranch)
	}
	if _, err := g.run("checkout", "-q", "-B", pr.DestinationBranch, dst); err != nil {
		return "", err
	}
	for _, p := range files {
		b, ok := fake.FileAt(ws, slug, pr.SourceBranch, p)
		if !ok || strings.Contains(p, "..") {
			return "", fmt.Errorf("%s is not on %s", p, pr.SourceBranch)
		}
		full := filepath.Join(g.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return "", err
		}
	}
	msg := fmt.Sprintf("Merged in %s (pull request #%d)", pr.SourceBranch, pr.ID)
	if _, err := g.run("add", "-A"); err != nil {
		return "", err
	}
	if _, err := g.run("commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	out, err := g.run("rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	merged := strings.TrimSpace(out)
	fake.AddCommit(ws, slug, merged, dst)
	fake.SetCommitMessage(ws, slug, merged, msg)
	if err := g.loadFiles(fake, merged); err != nil {
		return "", err
	}
	fake.SetBranch(ws, slug, pr.DestinationBranch, merged)
	fake.SetPullRequestState(ws, slug, pr.ID, "MERGED")
	return merged, nil
}

// loadFiles loads every file of commit into the fake.
func (g *gitRepo) loadFiles(fake *bitbuckettest.Server, commit string) error {
	names, err := g.run("ls-tree", "-r", "--name-only", commit)
	if err != nil {
		return err
	}
	for _, p := range strings.Fields(names) {
		c, err := g.run("show", commit+":"+p)
		if err != nil {
			return err
		}
		fake.SetFile(fixture.Workspace, fixture.RepoSlug, commit, p, []byte(c))
	}
	return nil
}

// setDiffs stores git's diff and diffstat from..head in the fake as the
// diff from key (a commit id the fake knows) to head.
func (g *gitRepo) setDiffs(fake *bitbuckettest.Server, from, key, head string) error {
	diff, err := g.run("diff", "-U30", from, head)
	if err != nil {
		return err
	}
	stats, err := bitbuckettest.GitDiffstat(g.run, from, head)
	if err != nil {
		return err
	}
	fake.SetDiff(fixture.Workspace, fixture.RepoSlug, key, head, diff)
	fake.SetDiffstat(fixture.Workspace, fixture.RepoSlug, key, head, stats)
	return nil
}
