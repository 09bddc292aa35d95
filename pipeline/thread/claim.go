package thread

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// Replicas share no state but Bitbucket, so a comment is answered once by
// claiming it there (claimReply): each call posts its reply, then reads the
// replies to the comment; the lowest id is the answer, and every other
// call deletes its own and does nothing more. A review is started only by
// the call whose claim stands, so two deliveries of one "prscout review"
// start one review.

// precheck judges a new comment from itself and its parents (scope.go):
// done is true with the result when prscout does nothing for it (its own
// comments, bots', deleted ones, comments neither addressed to prscout nor
// in a thread of one of its findings, threads too deep to follow). When
// not done, v is the comment and its thread's root as read (nil when the
// provider cannot read one comment, or failed to: the listing decides).
func precheck(ctx context.Context, d Deps, in Input, o Options, self []string) (res Result, v *view, done bool) {
	g, ok := d.Comments.(pipeline.CommentGetter)
	if !ok || (in.Event != "" && in.Event != EventCreated) {
		return Result{}, nil, false
	}
	v, err := readComment(ctx, g, in)
	if errors.Is(err, pipeline.ErrNotFound) {
		res, _ := guard(&view{in: in}, o)
		return res, nil, true
	}
	if err != nil {
		return Result{}, nil, false // the listing says what became of it
	}
	t := v.target
	if t.Deleted || t.Unverified || !t.Foreign || botReason(t, o.BotAuthors) != "" {
		// the comment's own reasons: no reply count applies
		res, _ := guard(v, Options{BotAuthors: o.BotAuthors, MaxAnswersPerHour: math.MaxInt})
		return res, nil, true
	}
	switch err := v.walk(ctx, g); {
	case errors.Is(err, errTooDeep):
		return v.result(ActionNone, OutcomeTooDeep, fmt.Sprintf("not followed: %v", err)), nil, true
	case err != nil:
		return Result{}, nil, false
	}
	v.setFinding()
	if !v.parse(self).addressed && v.fp == "" {
		return notAddressed(v), nil, true
	}
	return Result{}, v, false
}

func notAddressed(v *view) Result {
	return v.result(ActionNone, OutcomeNotAddressed, "not addressed to prscout (start with prscout, @prscout or /prscout, or reply in a thread of one of its findings)")
}

func alreadyAnswered(v *view, r *Reply) Result {
	res := v.result(ActionNone, OutcomeAlreadyAnswered, fmt.Sprintf("already answered (comment %d)", r.ID))
	res.Reply = r
	return res
}

// claimReply reads the replies to the target after ours was posted: when
// prscout's reply with the lowest id is not ours, another call answered
// first, and ours is deleted. won reports whether ours stands; r is the
// standing reply.
func claimReply(ctx context.Context, d Deps, v *view, ours *Reply) (r *Reply, won bool, err error) {
	var cs []pipeline.Comment
	if _, f, ok := scoped(d); ok && v.scoped {
		cs, err = f.FindOwnComments(ctx, v.repo, v.in.PRID, pipeline.OwnCommentQuery{AnyOf: []string{marker.ReplyMarkerText(v.target.ID)}, Limit: 10})
	} else {
		cs, err = d.Comments.ListComments(ctx, v.repo, v.in.PRID)
	}
	if err != nil {
		return ours, true, nil // nothing tells another answered: ours stands
	}
	first := ours
	for _, c := range cs {
		if to, ok := marker.ParseReplyMarker(c.Body); ok && to == v.target.ID && own(c) && c.ID < first.ID {
			first = &Reply{ID: c.ID, Body: c.Body, URL: c.URL}
		}
	}
	if first == ours {
		return ours, true, nil
	}
	if err := d.Comments.DeleteComment(ctx, v.repo, v.in.PRID, ours.ID); err != nil {
		return nil, false, fmt.Errorf("delete the duplicate reply %d (comment %d was answered by %d): %w", ours.ID, v.target.ID, first.ID, err)
	}
	return first, false, nil
}

// reviewCommand answers "prscout review" and "prscout full review": the
// reasons not to start one are answered; otherwise the comment is claimed
// with a reply first, and the review is started only when the claim
// stands.
func reviewCommand(ctx context.Context, d Deps, v *view, o Options, cmd string) (Result, error) {
	text, pr, start, err := reviewPlan(ctx, d, v, o, cmd)
	if err != nil {
		return Result{}, err
	}
	kind := "incremental: the changes since the last review"
	if cmd == CmdFullReview {
		kind = "full: the whole pull request, earlier reviews ignored"
	}
	if start {
		text = fmt.Sprintf("Review of %s started at the request of %s (%s).", pipeline.ShortCommit(pr.SourceCommit), displayName(v.target), kind)
	}
	r, won, err := postReply(ctx, d, v, o, text)
	if err != nil {
		return Result{}, err
	}
	if !won {
		return alreadyAnswered(v, r), nil
	}
	if start {
		if err := d.StartReview(ctx, v.repo, pr, cmd, accountOf(v.target), v.target.ID); err != nil {
			failed := replyBody(fmt.Sprintf("The review of %s could not be started: %v", pipeline.ShortCommit(pr.SourceCommit), err), v, o)
			_, _ = d.Comments.UpdateComment(ctx, v.repo, v.in.PRID, r.ID, failed)
			return Result{}, fmt.Errorf("start the review: %w", err)
		}
	}
	res := v.result(ActionAnswered, OutcomeCommand, "")
	res.Command, res.Reply = cmd, r
	return res, nil
}

// reviewPlan says whether a review command starts a review (start), or
// the text that says why not. A head already reviewed is not reviewed
// again incrementally; a full review of a head is started once: again
// only after the review it started (or the hour it may take) is over, and
// not at all while the head is the one that review reviewed.
func reviewPlan(ctx context.Context, d Deps, v *view, o Options, cmd string) (text string, pr pipeline.PullRequestInfo, start bool, err error) {
	if d.StartReview == nil {
		return "I cannot start a review from here: the review workflow's webhook is not configured (PRSCOUT_FORWARD_URL).", pr, false, nil
	}
	if d.PRs == nil {
		return "I cannot start a review: the configured provider has no pull requests.", pr, false, nil
	}
	if pr, err = d.PRs.PullRequest(ctx, v.repo, v.in.PRID); err != nil {
		return "", pr, false, err
	}
	if s := strings.ToUpper(pr.State); s == "MERGED" || s == "DECLINED" || s == "SUPERSEDED" {
		return "Not reviewed: the pull request is " + s + ".", pr, false, nil
	}
	if Ignored(pr.Description) {
		return "Not reviewed: the description says `prscout ignore`.", pr, false, nil
	}
	head := pipeline.ShortCommit(pr.SourceCommit)
	sha, _, reviewed := marker.LastReviewedCommit(v.comments)
	reviewed = reviewed && pipeline.SameCommit(sha, pr.SourceCommit)
	if cmd == CmdReview && reviewed {
		return fmt.Sprintf("The head %s is already reviewed. `prscout full review` reviews the whole pull request again.", head), pr, false, nil
	}
	if cmd == CmdFullReview {
		q := pipeline.OwnCommentQuery{AllOf: []string{"Review of " + head + " started", "(full:"}, Limit: 1}
		if err := v.find(ctx, d, q); err != nil {
			return "", pr, false, err
		}
	}
	if at, id, ok := startedFull(v, head); cmd == CmdFullReview && ok {
		switch {
		case o.now().Sub(at) < time.Hour:
			return fmt.Sprintf("A full review of %s is already running (started in comment %d): not started again.", head, id), pr, false, nil
		case reviewed:
			return fmt.Sprintf("The head %s was already reviewed in full (comment %d). Push a change to review it again.", head, id), pr, false, nil
		}
	}
	return "", pr, true, nil
}

// startedFull finds prscout's newest reply that started a full review of
// head: when, and its id.
func startedFull(v *view, head string) (at time.Time, id int64, ok bool) {
	prefix := "Review of " + head + " started"
	for _, c := range v.comments {
		if _, reply := marker.ParseReplyMarker(c.Body); reply && own(c) && strings.HasPrefix(c.Body, prefix) && strings.Contains(c.Body, "(full:") {
			at, id, ok = c.CreatedOn, c.ID, true
		}
	}
	return at, id, ok
}
