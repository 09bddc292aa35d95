package gitmirror

import (
	"context"
	"reflect"
	"testing"

	"github.com/prscout/prscout/pipeline"
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
