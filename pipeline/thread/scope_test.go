package thread

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// prscoutReply adds a reply of prscout's to comment to, in the thread of
// root, as postReply writes it.
func (r *rig) prscoutReply(to, root int64) pipeline.Comment {
	return r.f.AddComment(prID, pipeline.Comment{ParentID: to,
		Body: fmt.Sprintf("answer to %d\n\n%s\n%s", to, marker.ReplyMarker(to), marker.ThreadMarker(root))})
}

// TestDeepConversationBounded: a question 13 comments deep under a finding
// (people and prscout taking turns) reads its latest parents and then the
// root prscout's reply names: a bounded number of comments, whatever the
// depth, and the prompt still shows the latest turns.
func TestDeepConversationBounded(t *testing.T) {
	r := newRig(t)
	r.o.MaxAnswersPerHour = 10 // six replies in the hour: under the cap
	parent := r.finding.ID
	for i := 0; i < 6; i++ {
		q := r.say(fmt.Sprintf("question %d", i), parent)
		parent = r.prscoutReply(q.ID, r.finding.ID).ID
	}
	q := r.say("and the last question?", parent)
	before := r.f.Calls(pipelinetest.OpGetComment, "")
	res := r.run(t, q)
	gets := r.f.Calls(pipelinetest.OpGetComment, "") - before
	if res.Action != ActionAnswer || res.Finding == nil || res.Finding.Fingerprint != fp || res.ThreadID != r.finding.ID {
		t.Fatalf("question 13 deep: %+v", res)
	}
	if gets > contextDepth+2 {
		t.Errorf("question 13 deep read %d comments one by one, want at most %d", gets, contextDepth+2)
	}
	for _, want := range []string{"question 5", "answer to"} {
		if !strings.Contains(res.AnswerPrompt.User, want) {
			t.Errorf("prompt lacks the latest turn %q:\n%s", want, res.AnswerPrompt.User)
		}
	}
}

// TestDeepThreadNotFollowed: a thread whose root is more than maxReach
// comments up, with no reply of prscout's naming it, is not followed (a
// bounded read, no listing); a marker naming a finding as the root in a
// stranger's comment is no shortcut to it.
func TestDeepThreadNotFollowed(t *testing.T) {
	r := newRig(t)
	parent := r.say("a people's thread", 0).ID
	for i := 0; i < maxReach+2; i++ {
		body := fmt.Sprintf("reply %d", i)
		if i == maxReach-1 {
			body += "\n\n" + marker.ThreadMarker(r.finding.ID) // pasted by a person
		}
		parent = r.say(body, parent).ID
	}
	before := r.f.Calls(pipelinetest.OpGetComment, "")
	res := r.run(t, r.say("why?", parent))
	if gets := r.f.Calls(pipelinetest.OpGetComment, "") - before; res.Outcome != OutcomeTooDeep || gets > maxReach+1 {
		t.Errorf("a thread %d deep: %+v after %d reads, want %s after at most %d", maxReach+3, res, gets, OutcomeTooDeep, maxReach+1)
	}
	// Within reach, the forged marker leads nowhere: the root is the
	// people's thread, and the question is not addressed to prscout.
	top := r.say("another people's thread", 0)
	forged := r.say("look\n\n"+marker.ThreadMarker(r.finding.ID), top.ID)
	parent = forged.ID
	for i := 0; i < contextDepth; i++ {
		parent = r.say(fmt.Sprintf("more %d", i), parent).ID
	}
	if res := r.run(t, r.say("why?", parent)); res.Outcome != OutcomeNotAddressed || res.ThreadID != top.ID {
		t.Errorf("a forged thread marker: %+v, want not_addressed in thread %d", res, top.ID)
	}
}

// TestScopedReadsFindSummary: a pause addressed by a mention of prscout's
// account writes its state into the summary found by filter (no new state
// comment), and an event for a comment the pull request does not have is
// answered not_found — neither lists every comment.
func TestScopedReadsFindSummary(t *testing.T) {
	r := newRig(t)
	n := len(r.f.Comments(prID))
	if res := r.run(t, r.say("@{self-id} pause", 0)); res.Command != CmdPause {
		t.Fatalf("pause by mention: %+v", res)
	}
	var sum pipeline.Comment
	for _, c := range r.f.Comments(prID) {
		if c.ID == r.summary.ID {
			sum = c
		}
	}
	if st, ok := marker.ParseState(sum.Body); !ok || !st.Paused || len(r.f.Comments(prID)) != n+2 {
		t.Errorf("pause: summary state %+v %v, %d comments (want %d: the command and the reply)", st, ok, len(r.f.Comments(prID)), n+2)
	}
	if res := r.run(t, pipeline.Comment{ID: 999999}); res.Outcome != OutcomeNotFound {
		t.Errorf("an unknown comment: %+v, want not_found", res)
	}
}
