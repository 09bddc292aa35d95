package thread

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// TestFullReviewOncePerHead: "prscout full review" written again and again
// on an unchanged head starts one review, not one per comment; a push
// makes the next one start again.
func TestFullReviewOncePerHead(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 5; i++ {
		res := r.run(t, r.say("prscout full review", 0))
		if res.Action != ActionAnswered || res.Reply == nil {
			t.Fatalf("full review %d: %+v", i, res)
		}
	}
	if len(r.started) != 1 {
		t.Fatalf("5 full review comments on one head started %d reviews: %v", len(r.started), r.started)
	}
	// Once the review of that head is done (the summary says so), asking
	// again an hour later says it was reviewed in full.
	r.o.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	r.f.AddComment(prID, pipeline.Comment{Body: "summary\n\n" + marker.ReviewMarker(head)})
	if res := r.run(t, r.say("prscout full review", 0)); len(r.started) != 1 || !strings.Contains(res.Reply.Body, "already reviewed in full") {
		t.Errorf("a full review of a head reviewed in full: %q, %d started", res.Reply.Body, len(r.started))
	}
	// A push: the new head is reviewed in full on request.
	r.f.AddCommit("3333333333333333333333333333333333333333", head)
	r.f.AddPullRequest(pipeline.PullRequestInfo{ID: prID, State: "OPEN", SourceCommit: "3333333333333333333333333333333333333333", DestinationCommit: base})
	r.run(t, r.say("prscout full review", 0))
	if len(r.started) != 2 {
		t.Errorf("a full review after a push: %d started, want 2", len(r.started))
	}
}

// TestOneReplyPerCommentAcrossCalls: two /v1/thread calls for one comment
// at once (a redelivery, another replica) post one reply and start at most
// one review; a replica that answered first, whose reply this one sees
// only after posting, wins too.
func TestOneReplyPerCommentAcrossCalls(t *testing.T) {
	r := newRig(t)
	c := r.say("prscout full review", 0)
	var mu sync.Mutex
	var gate sync.WaitGroup
	gate.Add(2)
	r.f.Hook = func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpCreateComment {
			gate.Done()
			gate.Wait() // both calls have passed every check before either posts
		}
		return nil
	}
	start := r.d.StartReview
	r.d.StartReview = func(ctx context.Context, repo pipeline.Repo, pr pipeline.PullRequestInfo, cmd, by string, id int64) error {
		mu.Lock()
		defer mu.Unlock()
		return start(ctx, repo, pr, cmd, by, id)
	}
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Thread(context.Background(), r.d, Input{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: c.ID}, r.o)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	r.f.Hook = nil
	replies := 0
	for _, x := range r.f.Comments(prID) {
		if to, ok := marker.ParseReplyMarker(x.Body); ok && to == c.ID && !x.Deleted {
			replies++
		}
	}
	if replies != 1 || len(r.started) > 1 {
		t.Errorf("two calls for one comment: %d replies standing, %d reviews started (%+v)", replies, len(r.started), results)
	}

	// Another replica's reply, posted first, appears only once ours is.
	r2 := newRig(t)
	c2 := r2.say("prscout review", 0)
	r2.f.CreateHook = func(_ context.Context, id int, nc pipeline.NewComment) error {
		if nc.ParentID == c2.ID {
			r2.f.CreateHook = nil
			r2.f.AddComment(id, pipeline.Comment{Body: "Review of x started.\n\n" + marker.ReplyMarker(c2.ID), ParentID: c2.ID})
		}
		return nil
	}
	res := r2.run(t, c2)
	if res.Outcome != OutcomeAlreadyAnswered || len(r2.started) != 0 {
		t.Errorf("a replica that answered first: %+v, %d started", res, len(r2.started))
	}
}

// TestViewParsesOnce checks that a view reads its target as a command once:
// the claim, the reads it needs and the handling ask for the same reading.
func TestViewParsesOnce(t *testing.T) {
	v := &view{target: pipeline.Comment{Body: "@prscout pause"}}
	if got := v.parse(nil); !got.addressed || got.command != CmdPause {
		t.Fatalf("parse = %+v, want an addressed pause", got)
	}
	v.target.Body = "just text"
	if got := v.parse(nil); got.command != CmdPause {
		t.Errorf("second parse = %+v: the view read its target again", got)
	}
}
