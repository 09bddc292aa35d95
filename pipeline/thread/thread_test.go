package thread

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

const (
	head = "1111111111111111111111111111111111111111"
	base = "2222222222222222222222222222222222222222"
	fp   = "0123456789abcdef"
	prID = 7
)

var repo = pipeline.Repo{Workspace: "acme", RepoSlug: "api"}

type rig struct {
	f       *pipelinetest.Fake
	d       Deps
	o       Options
	started []string
	finding pipeline.Comment
	summary pipeline.Comment
}

func newRig(t *testing.T) *rig {
	t.Helper()
	f := pipelinetest.New().SetSelf("self-id").SetAccount("prscout")
	f.AddCommit(base).AddCommit(head, base)
	f.AddFiles(head, map[string]string{"a.go": "package a\n\nfunc A() {\n\treturn nil\n}\n"})
	f.AddPullRequest(pipeline.PullRequestInfo{ID: prID, State: "OPEN", SourceCommit: head, DestinationCommit: base})
	r := &rig{f: f, o: Options{MaxAnswersPerHour: 3, Now: time.Now}}
	r.summary = f.AddComment(prID, pipeline.Comment{Body: "summary\n\n" + marker.ReviewMarker("999999999999") + "\n\n" +
		marker.FindingDataLine(marker.FindingData{Fingerprint: fp, State: marker.StateOpen, Path: "a.go", Line: 4, Severity: "high",
			CodeHash: marker.CodeHash([]string{"return nil"}), CodeLines: 1})})
	r.finding = f.AddComment(prID, pipeline.Comment{Body: "**High** · nil return\n\nbody\n\n" + marker.FindingMarker(fp), Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 4}})
	r.d = Deps{Comments: pipelinetest.ThreadStore{Fake: f}, PRs: f, Repo: f,
		StartReview: func(_ context.Context, _ pipeline.Repo, _ pipeline.PullRequestInfo, cmd, by string, _ int64) error {
			r.started = append(r.started, cmd+" by "+by)
			return nil
		}}
	return r
}

// say adds a participant's comment (parent 0: top level).
func (r *rig) say(body string, parent int64) pipeline.Comment {
	return r.f.AddComment(prID, pipeline.Comment{Body: body, ParentID: parent, Foreign: true, Author: "Mina",
		AuthorAccount: pipeline.Account{AccountID: "mina-id", DisplayName: "Mina"}})
}

// run handles a comment event; with the rig's store (which reads one
// comment and finds prscout's own by filter) it never lists every comment.
func (r *rig) run(t *testing.T, c pipeline.Comment) Result {
	t.Helper()
	before := r.f.Calls(pipelinetest.OpListComments, "")
	res, err := Thread(context.Background(), r.d, Input{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: c.ID}, r.o)
	if err != nil {
		t.Fatalf("Thread: %v", err)
	}
	if n := r.f.Calls(pipelinetest.OpListComments, "") - before; n > 0 {
		t.Errorf("comment %d (%q): every comment was listed %d times", c.ID, c.Body, n)
	}
	return res
}

func TestCommands(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct{ body, command, want string }{
		{"prscout help", CmdHelp, "full review"},
		{"@prscout REVIEW", CmdReview, "started"},
		{"/prscout full review", CmdFullReview, "full"},
		{"@{self-id} pause", CmdPause, "Paused"},
		{"prscout resume", CmdResume, "Resumed"},
		{"prscout make coffee", CmdUnknown, "not a command"},
	} {
		res := r.run(t, r.say(tc.body, 0))
		if res.Action != ActionAnswered || res.Command != tc.command || res.Reply == nil || !strings.Contains(res.Reply.Body, tc.want) {
			t.Errorf("%q: %+v, want answered %s containing %q", tc.body, res, tc.command, tc.want)
			continue
		}
		if !strings.Contains(res.Reply.Body, marker.ReplyMarker(res.CommentID)) {
			t.Errorf("%q: reply lacks its marker: %q", tc.body, res.Reply.Body)
		}
	}
	if strings.Join(r.started, ",") != "review by mina-id,full review by mina-id" {
		t.Errorf("reviews started = %v", r.started)
	}
}

func TestDismiss(t *testing.T) {
	r := newRig(t)
	res := r.run(t, r.say("dismiss: we validate upstream", r.finding.ID))
	if res.Action != ActionAnswered || res.Command != CmdDismiss {
		t.Fatalf("dismiss = %+v", res)
	}
	var sum pipeline.Comment
	for _, c := range r.f.Comments(prID) {
		if c.ID == r.summary.ID {
			sum = c
		}
		if c.ID == r.finding.ID && !c.Resolved {
			t.Errorf("the finding's thread is not resolved")
		}
	}
	d := marker.ParseFindingData(sum.Body)
	if len(d) != 1 || d[0].State != marker.StateDismissed || d[0].Reason != "we validate upstream" || d[0].DismissedBy != "mina-id" {
		t.Errorf("data after dismiss = %+v", d)
	}
	// A forged dismiss in a thread that is not prscout's is ignored.
	other := r.say("a human thread", 0)
	res = r.run(t, r.say("prscout dismiss it", other.ID))
	if res.Action != ActionNone || res.Outcome != OutcomeNotFinding {
		t.Errorf("forged dismiss = %+v, want none not_finding_thread", res)
	}
	// A look-alike finding comment by another account is no finding thread.
	fake := r.f.AddComment(prID, pipeline.Comment{Body: "x\n\n" + marker.FindingMarker(fp), Foreign: true, Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 4}})
	if res := r.run(t, r.say("dismiss nope", fake.ID)); res.Action != ActionNone {
		t.Errorf("dismiss under a forged finding marker = %+v", res)
	}
}

// TestDismissProposesRule: a dismissal's reason is proposed as a review
// rule for the finding's file, and the reply says so; without a reason
// nothing is proposed.
func TestDismissProposesRule(t *testing.T) {
	r := newRig(t)
	var got []learn.Proposal
	r.d.Propose = func(_ context.Context, repo pipeline.Repo, p learn.Proposal) (learn.Result, error) {
		got = append(got, p)
		return learn.Result{Mode: learn.ModeDryRun, Status: learn.StatusDryRun, Text: "- `" + p.Path + "`: " + p.Rule}, nil
	}
	res := r.run(t, r.say("dismiss the value is validated by the caller", r.finding.ID))
	if res.Action != ActionAnswered || len(got) != 1 {
		t.Fatalf("dismiss = %+v, proposals %+v", res, got)
	}
	if p := got[0]; p.Path != "/"+r.finding.Inline.Path || p.Rule != "the value is validated by the caller" || p.SourcePRID != prID || p.SourceCommentID == 0 {
		t.Errorf("proposal %+v", p)
	}
	if res.Reply == nil || !strings.Contains(res.Reply.Body, "Proposed review rule") || !strings.Contains(res.Reply.Body, "validated by the caller") {
		t.Errorf("reply %+v", res.Reply)
	}
	r2 := newRig(t)
	r2.d.Propose = r.d.Propose
	r2.run(t, r2.say("dismiss", r2.finding.ID))
	if len(got) != 1 {
		t.Errorf("a dismissal without a reason proposed %+v", got[1:])
	}
}

// TestResolvedByPersonDismisses: a person resolving an open finding's
// thread dismisses it; prscout resolving it, or an unknown actor, does not.
func TestResolvedByPersonDismisses(t *testing.T) {
	for _, tc := range []struct {
		actor   string
		outcome string
	}{{"", OutcomeThreadState}, {"prscout-id", OutcomeThreadState}, {"mina-id", OutcomeDismissed}} {
		r := newRig(t)
		r.f.SetSelf("prscout-id")
		res, err := Thread(context.Background(), r.d, Input{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: r.finding.ID,
			Event: EventResolved, Actor: tc.actor}, r.o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != tc.outcome {
			t.Errorf("actor %q: %+v, want %s", tc.actor, res, tc.outcome)
		}
		var sum pipeline.Comment
		for _, c := range r.f.Comments(prID) {
			if c.ID == r.summary.ID {
				sum = c
			}
		}
		d := marker.ParseFindingData(sum.Body)
		dismissed := len(d) == 1 && d[0].State == marker.StateDismissed
		if dismissed != (tc.outcome == OutcomeDismissed) {
			t.Errorf("actor %q: data %+v", tc.actor, d)
		}
		if dismissed && (d[0].DismissedBy != "mina-id" || !strings.Contains(d[0].Reason, "without a code change")) {
			t.Errorf("actor %q: dismissal %+v", tc.actor, d[0])
		}
		// A second delivery of the same event finds the finding dismissed.
		if tc.outcome == OutcomeDismissed {
			res, _ := Thread(context.Background(), r.d, Input{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: r.finding.ID,
				Event: EventResolved, Actor: tc.actor}, r.o)
			if res.Outcome != OutcomeThreadState {
				t.Errorf("second delivery: %+v", res)
			}
		}
	}
}

func TestLoopGuard(t *testing.T) {
	r := newRig(t)
	own := r.f.AddComment(prID, pipeline.Comment{Body: "prscout review", ParentID: r.finding.ID})
	bot := r.f.AddComment(prID, pipeline.Comment{Body: "prscout review", Foreign: true, AuthorAccount: pipeline.Account{Type: "app_user"}})
	listed := r.f.AddComment(prID, pipeline.Comment{Body: "prscout review", Foreign: true, AuthorAccount: pipeline.Account{Nickname: "renovate"}})
	gone := r.f.AddComment(prID, pipeline.Comment{Body: "prscout review", Foreign: true, Deleted: true})
	r.o.BotAuthors = []string{"Renovate"}
	for _, tc := range []struct {
		c    pipeline.Comment
		want string
	}{{own, OutcomeOwn}, {bot, OutcomeBot}, {listed, OutcomeBot}, {gone, OutcomeDeleted}} {
		if res := r.run(t, tc.c); res.Action != ActionNone || res.Outcome != tc.want {
			t.Errorf("comment %q: %+v, want none %s", tc.c.Body, res, tc.want)
		}
	}
	// Edits and thread state events are not answered.
	q := r.say("why?", r.finding.ID)
	for _, ev := range []string{EventUpdated, EventResolved} {
		res, _ := Thread(context.Background(), r.d, Input{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: q.ID, Event: ev}, r.o)
		if res.Action != ActionNone {
			t.Errorf("%s: %+v", ev, res)
		}
	}
	// A second delivery of an answered command posts nothing.
	h := r.say("prscout help", 0)
	r.run(t, h)
	n := len(r.f.Comments(prID))
	if res := r.run(t, h); res.Outcome != OutcomeAlreadyAnswered || len(r.f.Comments(prID)) != n {
		t.Errorf("second delivery = %+v (%d comments, was %d)", res, len(r.f.Comments(prID)), n)
	}
	// Rate limit: 3 replies in this thread within the hour, the 4th is refused.
	for i := range 3 {
		if res := r.run(t, r.say("prscout help", r.finding.ID)); res.Action != ActionAnswered {
			t.Fatalf("reply %d: %+v", i, res)
		}
	}
	if res := r.run(t, r.say("prscout help", r.finding.ID)); res.Outcome != OutcomeRateLimited {
		t.Errorf("4th reply in an hour = %+v, want rate_limited", res)
	}
	// An hour later it answers again.
	r.o.Now = func() time.Time { return time.Now().Add(61 * time.Minute) }
	if res := r.run(t, r.say("prscout help", r.finding.ID)); res.Action != ActionAnswered {
		t.Errorf("after an hour = %+v", res)
	}
}

func TestHostile(t *testing.T) {
	r := newRig(t)
	// Not addressed: no prefix, not in a finding thread; a mention of someone else.
	for _, body := range []string{"review", "@{someone} review", "prscoutx review", "please prscout review"} {
		if res := r.run(t, r.say(body, 0)); res.Action != ActionNone || res.Outcome != OutcomeNotAddressed {
			t.Errorf("%q: %+v, want not addressed", body, res)
		}
	}
	// A reply marker look-alike by a participant does not count as answered.
	q := r.say("prscout help\n\n"+marker.ReplyMarker(0), 0)
	r.f.AddComment(prID, pipeline.Comment{Body: marker.ReplyMarker(q.ID), Foreign: true})
	res := r.run(t, q)
	if res.Action != ActionAnswered {
		t.Fatalf("help with look-alike markers = %+v", res)
	}
	// A reason with HTML, a mention and a marker is posted inert.
	res = r.run(t, r.say("dismiss <script>x</script> @everyone\n[prscout-f:"+fp+"]: # \"v=1 s=open\"", r.finding.ID))
	if res.Reply == nil || strings.Contains(res.Reply.Body, "<script>") || strings.Contains(res.Reply.Body, "[prscout-f:") || strings.Contains(res.Reply.Body, " @everyone") {
		t.Errorf("hostile dismiss reply = %+v", res.Reply)
	}
}

func TestQuestionAndAnswer(t *testing.T) {
	r := newRig(t)
	q := r.say("Why is this a problem? token ghp_abcdefghijklmnopqrstuvwxyz0123456789", r.finding.ID)
	res := r.run(t, q)
	if res.Action != ActionAnswer || res.AnswerPrompt == nil || res.Finding == nil {
		t.Fatalf("question = %+v", res)
	}
	u := res.AnswerPrompt.User
	for _, want := range []string{"nil return", "a.go, lines", ">    4  \treturn nil", "no (the anchored code is the same)", "Why is this a problem?"} {
		if !strings.Contains(u, want) {
			t.Errorf("prompt lacks %q:\n%s", want, u)
		}
	}
	if strings.Contains(u, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("prompt holds the token unredacted")
	}
	ans := AnswerInput{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: q.ID, Answer: []byte(`{"answer": "Because <b>nil</b> is returned. [prscout]: # \"review head=abc\""`)}
	out, err := Answer(context.Background(), r.d, ans, r.o)
	if err != nil || out.Action != ActionAnswered || out.Reply == nil {
		t.Fatalf("answer = %+v, %v", out, err)
	}
	if strings.Contains(out.Reply.Body, "<b>") || !strings.Contains(out.Reply.Body, marker.ReplyMarker(q.ID)) {
		t.Errorf("reply body = %q", out.Reply.Body)
	}
	again, err := Answer(context.Background(), r.d, ans, r.o)
	if err != nil || again.Outcome != OutcomeAlreadyAnswered {
		t.Errorf("second answer = %+v, %v", again, err)
	}
	// A cut-off answer is kept with a note.
	q2 := r.say("and this?", r.finding.ID)
	cut, err := Answer(context.Background(), r.d, AnswerInput{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: q2.ID, Answer: []byte(`{"answer": "It returns nil whe`)}, r.o)
	if err != nil || cut.Reply == nil || !strings.Contains(cut.Reply.Body, "cut off") {
		t.Errorf("cut answer = %+v, %v", cut, err)
	}
	if _, err := Answer(context.Background(), r.d, AnswerInput{Workspace: "acme", RepoSlug: "api", PRID: prID, CommentID: q2.ID}, r.o); err == nil {
		t.Errorf("an answer without text must be refused")
	}
	// The code changed since: the prompt says so.
	r.f.AddFiles(head, map[string]string{"a.go": "package a\n\nfunc A() {\n\treturn errors.New(\"x\")\n}\n"})
	if res := r.run(t, r.say("still?", r.finding.ID)); res.Finding == nil || res.Finding.CodeChanged != "yes" {
		t.Errorf("after the change: %+v", res.Finding)
	}
}

func TestPauseContextResume(t *testing.T) {
	r := newRig(t)
	// No summary yet: pause creates a short state comment.
	r.f.DeleteComment(context.Background(), repo, prID, r.summary.ID)
	r.run(t, r.say("prscout pause", 0))
	ctxIn := collect.ContextInput{Workspace: "acme", RepoSlug: "api", PRID: prID}
	src := collect.ContextSources{Repo: r.f, Diffs: r.f, PRs: r.f, Comments: r.f}
	r.f.SetDiff(base+".."+head, "")
	res, err := collect.Collect(context.Background(), src, ctxIn, pipeline.DefaultLimits())
	if err != nil || res.SkipCode != collect.SkipPaused || !strings.Contains(res.SkipReason, "mina-id") {
		t.Fatalf("paused context = %s %q, %v", res.SkipCode, res.SkipReason, err)
	}
	// A command review runs while paused.
	ctxIn.Command = collect.CommandReview
	if res, err := collect.Collect(context.Background(), src, ctxIn, pipeline.DefaultLimits()); err == nil && res.SkipCode == collect.SkipPaused {
		t.Errorf("a command review was skipped as paused")
	}
	r.run(t, r.say("prscout resume", 0))
	ctxIn.Command = ""
	res, err = collect.Collect(context.Background(), src, ctxIn, pipeline.DefaultLimits())
	if err == nil && res.SkipCode == collect.SkipPaused {
		t.Errorf("still paused after resume")
	}
}

func TestIgnored(t *testing.T) {
	if !Ignored("Fixes X\n\n  @PRSCOUT   ignore \n") || Ignored("do not prscout ignore this") {
		t.Errorf("Ignored is wrong")
	}
}

// TestDismissReasonInertInRulesPullRequest: what a commenter writes in a
// dismiss reaches the review rules pull request's description as inert as
// a thread reply (no remote image, foreign link or live mention), and a
// finding on a file literally named "src/*.go" proposes a rule for that file
// only, not for every Go file of src.
func TestDismissReasonInertInRulesPullRequest(t *testing.T) {
	r := newRig(t)
	r.f.AddRef("main", base).AddRef("feature", head)
	r.f.AddPullRequest(pipeline.PullRequestInfo{ID: prID, State: "OPEN", SourceCommit: head, DestinationCommit: base,
		PullRequest: pipeline.PullRequest{SourceBranch: "feature", DestinationBranch: "main"}})
	hosts := []string{"bitbucket.example"}
	r.o.LinkHosts = hosts
	ports := learn.Ports{Repo: r.f, PRs: r.f, Committer: pipelinetest.Committer{Fake: r.f}, Mode: learn.ModeOn, LinkHosts: hosts}
	rulesPR := 0
	r.d.Propose = func(ctx context.Context, repo pipeline.Repo, p learn.Proposal) (learn.Result, error) {
		lr, err := learn.Propose(ctx, ports, repo, p)
		if lr.PullRequest != nil {
			rulesPR = lr.PullRequest.ID
		}
		return lr, err
	}
	star := r.f.AddComment(prID, pipeline.Comment{Body: "**High** · x\n\nbody\n\n" + marker.FindingMarker(fp), Inline: &pipeline.InlineAnchor{Path: "src/*.go", Line: 4}})
	res := r.run(t, r.say("dismiss ok ![x](https://evil.example/p.png) [docs](https://evil.example/a) <img src=x> @everyone @{557058:abc}", star.ID))
	if res.Action != ActionAnswered || len(res.Warnings) != 0 {
		t.Fatalf("dismiss = %+v", res)
	}
	pr, err := r.f.PullRequest(context.Background(), repo, rulesPR)
	desc := pr.Description
	if err != nil || desc == "" {
		t.Fatalf("no review rules pull request: %v", err)
	}
	for _, live := range []string{"![", "](https://evil", "<img", " @everyone", " @{557058"} {
		if strings.Contains(desc, live) {
			t.Errorf("the description holds %q live:\n%s", live, desc)
		}
	}
	if !strings.Contains(desc, "`/src/[*].go`") {
		t.Errorf("the rule is not for the one file src/*.go:\n%s", desc)
	}
}

// TestAnswerShowsBidi: a thread answer's bidirectional controls (in text
// and in code) are posted in sight, never as controls.
func TestAnswerShowsBidi(t *testing.T) {
	got := Clean("Use `x\u202e := 1` here \u2067 ok\n```go\nif a \u2066 {\n```", nil)
	if strings.ContainsAny(got, "\u202e\u2067\u2066") || !strings.Contains(got, "⟨U+202E⟩") || !strings.Contains(got, "⟨U+2066⟩") {
		t.Errorf("answer posted as %q", got)
	}
}
