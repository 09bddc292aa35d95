package gitmirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// commitsRemote is a REST adapter that lists a pull request's commits.
type commitsRemote struct {
	Remote
	got int
}

func (r *commitsRemote) PullRequestCommitMessages(_ context.Context, _ pipeline.Repo, prID, limit int) ([]string, error) {
	r.got = prID
	return []string{"SHOP-12: cancel orders"}[:min(limit, 1)], nil
}

// TestProviderPassesCommitMessages: with the mirror in front, the pull
// request's commit messages (Jira keys) still come from the REST adapter;
// without one that lists them, the answer is an error, never a panic.
func TestProviderPassesCommitMessages(t *testing.T) {
	remote := &commitsRemote{}
	p := NewProvider(nil, remote, nil)
	got, err := p.PullRequestCommitMessages(context.Background(), pipeline.Repo{Workspace: "w", RepoSlug: "r"}, 7, 50)
	if err != nil || !reflect.DeepEqual(got, []string{"SHOP-12: cancel orders"}) || remote.got != 7 {
		t.Errorf("messages %v, %v (pull request %d)", got, err, remote.got)
	}
	if _, err := NewProvider(nil, struct{ Remote }{}, nil).PullRequestCommitMessages(context.Background(), pipeline.Repo{}, 7, 50); err == nil {
		t.Error("a remote without commit listing: no error")
	}
}

// countingLocal is a local git reader that counts the calls reaching it.
type countingLocal struct {
	Local
	calls int
}

func (l *countingLocal) ResolveCommit(context.Context, pipeline.Repo, string) (string, error) {
	l.calls++
	return "", pipeline.ErrNotFound
}

func (l *countingLocal) MergeBase(context.Context, pipeline.Repo, string, string) (string, error) {
	l.calls++
	return "", pipeline.ErrNotFound
}

func (l *countingLocal) OpenTree(context.Context, pipeline.Repo, string) (pipeline.CodeTree, error) {
	l.calls++
	return nil, pipeline.ErrNotFound
}

// TestProviderRefusesRepoNamesOutsideTheMirror: a workspace or slug that
// is not one path element under the mirror's directory ("..", a slash, an
// absolute path, an empty name) is refused by every method as a bad
// request naming the field, before any path is built or git runs: a git
// repository next to the mirror's directory (reachable as ../victim) is
// never read, and neither the local reader nor REST is asked.
func TestProviderRefusesRepoNamesOutsideTheMirror(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, victim, "init", "-q", "-b", "main")
	writeFile(t, victim, "secret.txt", "not the mirror's\n")
	git(t, victim, "add", "-A")
	git(t, victim, "commit", "-q", "-m", "victim")
	sha := git(t, victim, "rev-parse", "HEAD")
	// The mirror's directory sits next to the victim: Dir/../victim is it,
	// and Dir/x/../../victim too.
	m, err := New(Config{Dir: filepath.Join(root, "mirror"), BaseURL: "http://127.0.0.1:1", ReadWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	bad := []pipeline.Repo{
		{Workspace: "..", RepoSlug: "victim"},
		{Workspace: "x", RepoSlug: "../../victim"},
		{Workspace: "x/..", RepoSlug: "../victim"},
		{Workspace: root, RepoSlug: "victim"},
		{Workspace: "acme", RepoSlug: victim},
		{Workspace: "acme", RepoSlug: ""},
		{Workspace: "", RepoSlug: "app"},
		{Workspace: "acme", RepoSlug: ".git"},
		{Workspace: "acme", RepoSlug: "-c"},
		{Workspace: "acme", RepoSlug: strings.Repeat("a", 200)},
	}
	methods := map[string]func(p *Provider, r pipeline.Repo) error{
		"ResolveCommit": func(p *Provider, r pipeline.Repo) error {
			_, err := p.ResolveCommit(context.Background(), r, sha)
			return err
		},
		"IsAncestor": func(p *Provider, r pipeline.Repo) error {
			_, err := p.IsAncestor(context.Background(), r, sha, sha)
			return err
		},
		"MergeBase": func(p *Provider, r pipeline.Repo) error {
			_, err := p.MergeBase(context.Background(), r, sha, sha)
			return err
		},
		"ReadFile": func(p *Provider, r pipeline.Repo) error {
			_, err := p.ReadFile(context.Background(), r, sha, "secret.txt", 1<<20)
			return err
		},
		"ListDir": func(p *Provider, r pipeline.Repo) error {
			_, _, err := p.ListDir(context.Background(), r, sha, "", 10)
			return err
		},
		"ReadFiles": func(p *Provider, r pipeline.Repo) error {
			return p.ReadFiles(context.Background(), r, sha, []string{"secret.txt"}, 1<<20, func(int, []byte, error) {})
		},
		"OpenTree": func(p *Provider, r pipeline.Repo) error {
			tree, err := p.OpenTree(context.Background(), r, sha)
			if tree != nil {
				tree.Close()
			}
			return err
		},
		"PullRequest": func(p *Provider, r pipeline.Repo) error {
			_, err := p.PullRequest(context.Background(), r, 1)
			return err
		},
		"PullRequestCommitMessages": func(p *Provider, r pipeline.Repo) error {
			_, err := p.PullRequestCommitMessages(context.Background(), r, 1, 10)
			return err
		},
	}
	for name, call := range methods {
		t.Run(name, func(t *testing.T) {
			rest, local := pipelinetest.New(), &countingLocal{}
			commits := &commitsRemote{Remote: rest}
			p := NewProvider(m, commits, local)
			for _, r := range bad {
				err := call(p, r)
				var inv *pipeline.InvalidError
				if !errors.As(err, &inv) || (inv.Field != "workspace" && inv.Field != "repoSlug") {
					t.Errorf("%s(%q/%q) = %v, want a bad request naming workspace or repoSlug", name, r.Workspace, r.RepoSlug, err)
				}
			}
			if n := rest.TotalCalls() + local.calls + commits.got; n != 0 {
				t.Errorf("%s: %d call(s) reached REST or the local reader", name, n)
			}
		})
	}
	// The mirror's own entry points refuse the names too, and nothing was
	// created outside (or inside) the mirror's directory.
	for _, r := range bad {
		if err := m.Fetch(context.Background(), r, Want{Commits: []string{sha}}); err == nil {
			t.Errorf("Fetch(%q/%q) accepted", r.Workspace, r.RepoSlug)
		}
		if err := m.Ensure(context.Background(), r, sha); err == nil {
			t.Errorf("Ensure(%q/%q) accepted", r.Workspace, r.RepoSlug)
		}
		if m.Has(context.Background(), r, sha, 0) || m.exists(r) {
			t.Errorf("Has/exists(%q/%q) answered from outside the mirror", r.Workspace, r.RepoSlug)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "mirror")); len(entries) != 0 {
		t.Errorf("the mirror's directory holds %v", entries)
	}
}
