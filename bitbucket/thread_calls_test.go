package bitbucket

import (
	"context"
	"fmt"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/thread"
)

// TestCommentEventCalls counts the Bitbucket calls of one comment event on
// the fake, for a pull request of 10 and of 400 comments: an ordinary
// comment (top level, or a reply in a person's thread) and prscout's own
// comment cost the same handful whatever the comment count; nothing lists
// the pull request's comments for them. Run with -v for the figures
// docs/bitbucket-jira.md quotes.
func TestCommentEventCalls(t *testing.T) {
	type figures struct{ top, reply, own int }
	measure := func(n int) figures {
		s := newFake(t)
		c, _ := newClient(t, s, nil)
		ctx := context.Background()
		self := bitbuckettest.DefaultAccountID
		s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Body: "summary\n\n" + marker.ReviewMarker(headFull)})
		var last int64
		for i := 0; i < n; i++ {
			last = s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Mina Park", Body: fmt.Sprintf("comment %d", i)})
		}
		d := thread.Deps{Comments: c, PRs: c, Repo: c}
		o := thread.Options{MaxAnswersPerHour: 3}
		event := func(id int64) int {
			before := len(s.Requests())
			res, err := thread.Thread(ctx, d, thread.Input{Workspace: "acme", RepoSlug: "uploader", PRID: 42, CommentID: id}, o)
			if err != nil || res.Action != thread.ActionNone {
				t.Fatalf("event for comment %d: %+v, %v", id, res, err)
			}
			calls := 0
			for _, rq := range s.Requests()[before:] {
				if rq.Op != bitbuckettest.OpGetUser { // asked once per process, not per event
					calls++
				}
				if rq.Op == bitbuckettest.OpListComments {
					t.Errorf("an ignored comment event listed the pull request's comments")
				}
			}
			return calls
		}
		parent := last
		reply := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Ola", Parent: &parent, Body: "I agree"})
		own := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Body: "an inline comment"})
		f := figures{top: event(last), reply: event(reply), own: event(own)}
		// A command is answered from the listing (and its reply claimed
		// with a second one): logged, for the call table.
		cmd := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Mina Park", Body: "prscout help"})
		before := len(s.Requests())
		if res, err := thread.Thread(ctx, d, thread.Input{Workspace: "acme", RepoSlug: "uploader", PRID: 42, CommentID: cmd}, o); err != nil || res.Action != thread.ActionAnswered {
			t.Fatalf("prscout help: %+v, %v", res, err)
		}
		t.Logf("%d comments: a command costs %d calls", n, len(s.Requests())-before)
		return f
	}
	small, large := measure(10), measure(400)
	t.Logf("calls per comment event, 10 comments: %+v; 400 comments: %+v", small, large)
	if small != large || large.top > 2 || large.reply > 3 || large.own > 2 {
		t.Errorf("calls per event grow with the comment count or exceed a handful: 10 comments %+v, 400 comments %+v", small, large)
	}
}
