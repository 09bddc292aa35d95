package bitbucket

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
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
		return f
	}
	small, large := measure(10), measure(400)
	t.Logf("calls per comment event, 10 comments: %+v; 400 comments: %+v", small, large)
	if small != large || large.top > 2 || large.reply > 3 || large.own > 2 {
		t.Errorf("calls per event grow with the comment count or exceed a handful: 10 comments %+v, 400 comments %+v", small, large)
	}
}

// TestActedCommentEventCalls counts the Bitbucket calls of the comment
// events prscout acts on — commands (help, pause, full review, dismiss
// under a finding) and a question under a finding with its answer — on
// the fake, for a pull request of 10 and of 400 comments: each costs the
// same, and no request lists the pull request's comments unfiltered.
// Run with -v for the figures docs/bitbucket-jira.md quotes.
func TestActedCommentEventCalls(t *testing.T) {
	events := []string{"help", "pause", "full review", "dismiss", "question", "answer"}
	measure := func(n int) map[string]int {
		s := newFake(t)
		c, _ := newClient(t, s, nil)
		ctx := context.Background()
		self := bitbuckettest.DefaultAccountID
		const fp = "0123456789abcdef"
		s.SetFile("acme", "uploader", headFull, "a.go", []byte("package a\n\nfunc A() error {\n\treturn nil\n}\n"))
		to := 4
		finding := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Path: "a.go", To: &to,
			Body: "**High** · nil return\n\n" + marker.FindingMarker(fp)})
		s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Body: "summary\n\n" + marker.ReviewMarker(baseFull) + "\n\n" +
			marker.FindingDataLine(marker.FindingData{Fingerprint: fp, State: marker.StateOpen, Path: "a.go", Line: 4, Severity: "high",
				CodeHash: marker.CodeHash([]string{"return nil"}), CodeLines: 1})})
		for i := 0; i < n; i++ {
			// prscout's markers pasted by a stranger match the filter's
			// text, never its author.
			body := fmt.Sprintf("comment %d", i)
			if i%50 == 0 {
				body += "\n\n" + marker.ReviewMarker(headFull)
			}
			s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Mina Park", Body: body})
		}
		started := 0
		d := thread.Deps{Comments: c, PRs: c, Repo: c,
			StartReview: func(context.Context, pipeline.Repo, pipeline.PullRequestInfo, string, string, int64) error {
				started++
				return nil
			}}
		o := thread.Options{MaxAnswersPerHour: 3}
		in := func(id int64) thread.Input {
			return thread.Input{Workspace: "acme", RepoSlug: "uploader", PRID: 42, CommentID: id}
		}
		calls, ops := map[string]int{}, map[string][]string{}
		count := func(event string, run func() (thread.Result, error), want string) {
			t.Helper()
			before := len(s.Requests())
			res, err := run()
			if err != nil || res.Action != want {
				t.Fatalf("%d comments, %s: %+v, %v", n, event, res, err)
			}
			for _, rq := range s.Requests()[before:] {
				if rq.Op == bitbuckettest.OpListComments && rq.Query.Get("q") == "" {
					t.Errorf("%d comments, %s: every comment was listed (%s?%s)", n, event, rq.EscapedPath, rq.Query.Encode())
				}
				if rq.Op != bitbuckettest.OpGetUser { // asked once per process, not per event
					calls[event]++
					ops[event] = append(ops[event], rq.Op)
				}
			}
		}
		ask := func(body string, parent int64) int64 {
			cm := bitbuckettest.Comment{Author: "Mina Park", Body: body}
			if parent != 0 {
				cm.Parent = &parent
			}
			return s.AddComment("acme", "uploader", 42, cm)
		}
		for _, cmd := range []string{"help", "pause", "full review"} {
			id := ask("prscout "+cmd, 0)
			count(cmd, func() (thread.Result, error) { return thread.Thread(ctx, d, in(id), o) }, thread.ActionAnswered)
		}
		q := ask("Why is a nil return wrong here?", finding)
		count("question", func() (thread.Result, error) { return thread.Thread(ctx, d, in(q), o) }, thread.ActionAnswer)
		count("answer", func() (thread.Result, error) {
			return thread.Answer(ctx, d, thread.AnswerInput{Workspace: "acme", RepoSlug: "uploader", PRID: 42, CommentID: q, Answer: []byte(`{"answer":"It hides the error."}`)}, o)
		}, thread.ActionAnswered)
		dm := ask("dismiss: the caller checks", finding)
		count("dismiss", func() (thread.Result, error) { return thread.Thread(ctx, d, in(dm), o) }, thread.ActionAnswered)
		if started != 1 {
			t.Errorf("%d comments: full review started %d reviews, want 1", n, started)
		}
		if v := s.Violations(); len(v) > 0 {
			t.Errorf("%d comments: requests or answers off the API description: %v", n, v)
		}
		if n == 400 {
			for _, e := range events {
				t.Logf("%-12s %v", e, ops[e])
			}
		}
		return calls
	}
	small, large := measure(10), measure(400)
	for _, e := range events {
		t.Logf("%-12s calls: %d at 10 comments, %d at 400", e, small[e], large[e])
		if small[e] != large[e] || large[e] == 0 || large[e] > 10 {
			t.Errorf("%s: %d calls at 10 comments, %d at 400: want the same bounded handful", e, small[e], large[e])
		}
	}
}

// TestFindOwnComments: one filtered request (q naming prscout's account and
// the marker's text, newest first) finds prscout's own comments; a
// stranger's comment carrying the same marker is never among them, even
// when the filter lets it through; a refused filter is an error.
func TestFindOwnComments(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	repo := pipeline.Repo{Workspace: "acme", RepoSlug: "uploader"}
	self := bitbuckettest.DefaultAccountID
	old := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Body: "old summary\n\n" + marker.ReviewMarker(baseFull)})
	s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Mallory", Body: "forged\n\n" + marker.ReviewMarker(headFull)})
	newer := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Body: "summary\n\n" + marker.ReviewMarker(headFull)})
	s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{AccountID: self, Body: "an inline comment"})
	q := pipeline.OwnCommentQuery{AnyOf: []string{marker.ReviewMarkerText}, Limit: 5}
	before := len(s.Requests())
	got, err := c.FindOwnComments(ctx, repo, 42, q)
	if err != nil || len(got) != 2 || got[0].ID != newer || got[1].ID != old || got[0].Foreign {
		t.Fatalf("FindOwnComments = %+v, %v; want %d then %d, own", got, err, newer, old)
	}
	var sent []bitbuckettest.Request
	for _, rq := range s.Requests()[before:] {
		if rq.Op == bitbuckettest.OpListComments {
			sent = append(sent, rq)
		}
	}
	if len(sent) != 1 || !strings.Contains(sent[0].Query.Get("q"), `user.account_id = "`+self+`"`) || sent[0].Query.Get("sort") != "-created_on" {
		t.Errorf("requests = %+v, want one filtered by prscout's account, newest first", sent)
	}
	// Text alone is no proof: with the author left out of the answer's
	// check, the stranger's comment would come back.
	q.AllOf = []string{"forged"}
	if got, err := c.FindOwnComments(ctx, repo, 42, q); err != nil || len(got) != 0 {
		t.Errorf("a stranger's marker: %+v, %v", got, err)
	}
	s.Fail(bitbuckettest.OpListComments, bitbuckettest.Fault{Status: 400})
	if _, err := c.FindOwnComments(ctx, repo, 42, q); err == nil {
		t.Errorf("a refused filter gave no error")
	}
}

// TestCommentEventFilterRefused: should Bitbucket refuse the filter, a
// command is still answered, from the listing of every comment, and the
// answer says so.
func TestCommentEventFilterRefused(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	id := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Author: "Mina Park", Body: "prscout help"})
	s.Fail(bitbuckettest.OpListComments, bitbuckettest.Fault{Status: 400})
	d := thread.Deps{Comments: c, PRs: c, Repo: c}
	res, err := thread.Thread(context.Background(), d, thread.Input{Workspace: "acme", RepoSlug: "uploader", PRID: 42, CommentID: id}, thread.Options{MaxAnswersPerHour: 3})
	if err != nil || res.Action != thread.ActionAnswered || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "every comment was listed") {
		t.Errorf("help with the filter refused: %+v, %v", res, err)
	}
}
