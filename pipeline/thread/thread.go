package thread

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/learn"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/publish"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/review"
	"github.com/prscout/prscout/pipeline/sanitize"
	"github.com/prscout/prscout/pipeline/scope"
)

// Actions of a Result.
const (
	ActionNone     = "none"     // nothing done; Reason says why
	ActionAnswered = "answered" // a command was carried out and answered in the thread (Reply)
	ActionAnswer   = "answer"   // a question: make one model call with AnswerPrompt, then POST /v1/thread/answer
)

// Outcomes are the stable codes of a Result (metrics, tests); Reason is the
// readable text.
const (
	OutcomeCommand         = "command"
	OutcomeQuestion        = "question"
	OutcomeAnswered        = "answered"
	OutcomeNotFound        = "not_found"
	OutcomeDeleted         = "deleted"
	OutcomeOwn             = "own_comment"
	OutcomeSelfUnknown     = "self_unknown"
	OutcomeBot             = "bot"
	OutcomeEdit            = "edit"
	OutcomeThreadState     = "thread_state"
	OutcomeAlreadyAnswered = "already_answered"
	OutcomeRateLimited     = "rate_limited"
	OutcomeNotAddressed    = "not_addressed"
	OutcomeNotFinding      = "not_finding_thread"
	// OutcomeDismissed: a person resolved the thread of an open finding;
	// it is remembered as dismissed.
	OutcomeDismissed = "dismissed"
	// OutcomeTooDeep: the thread's root is too far up to find (scope.go).
	OutcomeTooDeep = "thread_too_deep"
)

// Outcomes lists every outcome, to pre-initialise metric labels.
var Outcomes = []string{OutcomeCommand, OutcomeQuestion, OutcomeAnswered, OutcomeNotFound, OutcomeDeleted, OutcomeOwn, OutcomeSelfUnknown,
	OutcomeBot, OutcomeEdit, OutcomeThreadState, OutcomeAlreadyAnswered, OutcomeRateLimited, OutcomeNotAddressed, OutcomeNotFinding, OutcomeDismissed, OutcomeTooDeep}

// Limits of one thread.
const (
	// maxThreadComments bounds the comments of the thread a prompt shows
	// (the latest), maxCommentRunes each one.
	maxThreadComments = 12
	maxCommentRunes   = 1500
	// maxReplyRunes bounds a reply prscout posts.
	maxReplyRunes = 8000
	// codeWindow is how many lines around the anchored ones a question's
	// prompt shows.
	codeWindow = 20
	// maxDepth bounds the parent chain followed to a thread's root.
	maxDepth = 200
)

// Deps are the ports and hooks the thread stages use.
type Deps struct {
	Comments pipeline.CommentStore
	PRs      pipeline.PullRequests
	Repo     pipeline.Repository
	// StartReview forwards a command review to the review workflow
	// (command is CmdReview or CmdFullReview, by the account that asked);
	// nil when no review workflow is configured.
	StartReview func(ctx context.Context, repo pipeline.Repo, pr pipeline.PullRequestInfo, command, by string, commentID int64) error
	// Propose turns a dismissal's reason into a proposed review rule
	// (learn.Propose with the service's mode); nil when learnings are off.
	Propose func(ctx context.Context, repo pipeline.Repo, p learn.Proposal) (learn.Result, error)
}

// Options are the service's settings for threads.
type Options struct {
	// BotAuthors are accounts whose comments are never answered
	// (PRSCOUT_BOT_AUTHORS), besides accounts whose type is a bot's.
	BotAuthors []string
	// MaxAnswersPerHour bounds prscout's replies per thread in a rolling
	// hour (PRSCOUT_THREAD_MAX_ANSWERS); 0 or less: no reply at all.
	MaxAnswersPerHour int
	// LinkHosts are the hosts links in replies may point at.
	LinkHosts []string
	// MaxFileBytes bounds the file read for a question's code.
	MaxFileBytes int64
	// ServiceRules is PRSCOUT_RULES_FILE, ServiceRulesSource its name.
	ServiceRules       *scope.RuleFile
	ServiceRulesSource string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Result is the answer of /v1/thread and /v1/thread/answer.
type Result struct {
	Action  string `json:"action"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// Command is the command carried out (ActionAnswered).
	Command   string `json:"command,omitempty"`
	Event     string `json:"event"`
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
	PRID      int    `json:"prId"`
	CommentID int64  `json:"commentId"`
	// ThreadID is the thread's top-level comment.
	ThreadID int64  `json:"threadId,omitempty"`
	Reply    *Reply `json:"reply,omitempty"`
	// AnswerPrompt is the one model call of a question (ActionAnswer).
	AnswerPrompt *Prompt     `json:"answerPrompt,omitempty"`
	Finding      *FindingRef `json:"finding,omitempty"`
	Warnings     []string    `json:"warnings"`
}

// Reply is a comment prscout posted in the thread.
type Reply struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	URL  string `json:"url,omitempty"`
}

// Prompt is one model call.
type Prompt struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// FindingRef is the finding a thread is about.
type FindingRef struct {
	Fingerprint string `json:"fingerprint"`
	Path        string `json:"path,omitempty"`
	Line        int    `json:"line,omitempty"`
	Severity    string `json:"severity,omitempty"`
	// CodeChanged says whether the finding's code changed since it was
	// reported: "no", "moved" (same code on another line), "yes",
	// "file_gone" or "unknown".
	CodeChanged string `json:"codeChanged,omitempty"`
}

// view is one pull request's comments as the stages read them.
type view struct {
	in       Input
	repo     pipeline.Repo
	comments []pipeline.Comment
	byID     map[int64]pipeline.Comment
	target   pipeline.Comment
	root     pipeline.Comment
	thread   []pipeline.Comment // the root and its replies, id order
	// fp is the fingerprint of the root when it is one of prscout's own
	// finding comments ("" otherwise).
	fp string
	// scoped: the view holds the comments read for the event (scope.go),
	// not the listing of every comment.
	scoped bool
	// cmd is the target's text read as a command (parse); nil until read.
	cmd *parsed
}

// parse reads the target's text as a command once per view: the claim,
// the reads it needs and its handling all ask.
func (v *view) parse(self []string) parsed {
	if v.cmd == nil {
		p := parseCommand(v.target.Body, self)
		v.cmd = &p
	}
	return *v.cmd
}

// setFinding sets fp from the root.
func (v *view) setFinding() {
	if own(v.root) && v.root.ParentID == 0 {
		if fp, ok := marker.ParseFindingMarker(v.root.Body); ok {
			v.fp = fp
		}
	}
}

func (v *view) result(action, outcome, reason string) Result {
	ev := v.in.Event
	if ev == "" {
		ev = EventCreated
	}
	return Result{Action: action, Outcome: outcome, Reason: reason, Event: ev, Workspace: v.in.Workspace, RepoSlug: v.in.RepoSlug,
		PRID: v.in.PRID, CommentID: v.in.CommentID, ThreadID: v.root.ID, Warnings: []string{}}
}

// summary is prscout's newest live summary comment, nil when there is none.
func (v *view) summary() *pipeline.Comment {
	live := review.LiveSummaries(v.comments)
	if len(live) == 0 {
		return nil
	}
	return &live[len(live)-1]
}

func own(c pipeline.Comment) bool { return !c.Foreign && !c.Unverified && !c.Deleted }

// load lists the pull request's comments and finds the target, its thread
// and root.
func load(ctx context.Context, d Deps, in Input) (*view, error) {
	if d.Comments == nil {
		return nil, pipeline.Invalidf("commentId", "the configured provider has no pull request comments")
	}
	v := &view{in: in, repo: pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}}
	cs, err := d.Comments.ListComments(ctx, v.repo, in.PRID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	v.comments, v.byID = cs, make(map[int64]pipeline.Comment, len(cs))
	for _, c := range cs {
		v.byID[c.ID] = c
	}
	t, ok := v.byID[in.CommentID]
	if !ok {
		return v, nil
	}
	v.target, v.root = t, t
	for i := 0; i < maxDepth && v.root.ParentID != 0; i++ {
		p, ok := v.byID[v.root.ParentID]
		if !ok {
			break
		}
		v.root = p
	}
	for _, c := range cs {
		if v.rootOf(c) == v.root.ID {
			v.thread = append(v.thread, c)
		}
	}
	v.setFinding()
	return v, nil
}

func (v *view) rootOf(c pipeline.Comment) int64 {
	for i := 0; i < maxDepth && c.ParentID != 0; i++ {
		p, ok := v.byID[c.ParentID]
		if !ok {
			break
		}
		c = p
	}
	return c.ID
}

// answeredBy returns prscout's reply to comment id, if one exists.
func (v *view) answeredBy(id int64) (pipeline.Comment, bool) {
	for _, c := range v.comments {
		if own(c) {
			if to, ok := marker.ParseReplyMarker(c.Body); ok && to == id {
				return c, true
			}
		}
	}
	return pipeline.Comment{}, false
}

// recentReplies counts prscout's replies in the thread in the last hour.
func (v *view) recentReplies(now time.Time) int {
	n := 0
	for _, c := range v.thread {
		if _, ok := marker.ParseReplyMarker(c.Body); ok && own(c) && (c.CreatedOn.IsZero() || now.Sub(c.CreatedOn) < time.Hour) {
			n++ // a reply without a time counts: the guard errs on silence
		}
	}
	return n
}

// guard applies the loop guard to the event; ok false: the result says
// why nothing is done.
func guard(v *view, o Options) (Result, bool) {
	switch v.in.Event {
	case EventUpdated:
		return v.result(ActionNone, OutcomeEdit, "edited comments are not answered: write a new comment"), false
	case EventResolved, EventReopened:
		return v.result(ActionNone, OutcomeThreadState, "the thread was resolved or reopened: nothing to answer"), false
	}
	t := v.target
	switch {
	case t.ID == 0:
		return v.result(ActionNone, OutcomeNotFound, fmt.Sprintf("comment %d is not on pull request %d", v.in.CommentID, v.in.PRID)), false
	case t.Deleted:
		return v.result(ActionNone, OutcomeDeleted, "the comment was deleted"), false
	case t.Unverified:
		return v.result(ActionNone, OutcomeSelfUnknown, "prscout's own account is unknown, so the comment may be its own: not answered (set PRSCOUT_BITBUCKET_ACCOUNT_ID)"), false
	case !t.Foreign:
		return v.result(ActionNone, OutcomeOwn, "the comment is prscout's own"), false
	}
	if why := botReason(t, o.BotAuthors); why != "" {
		return v.result(ActionNone, OutcomeBot, why), false
	}
	if r, ok := v.answeredBy(t.ID); ok {
		res := v.result(ActionNone, OutcomeAlreadyAnswered, fmt.Sprintf("already answered (comment %d)", r.ID))
		res.Reply = &Reply{ID: r.ID, Body: r.Body, URL: r.URL}
		return res, false
	}
	if n := v.recentReplies(o.now()); n >= o.MaxAnswersPerHour {
		return v.result(ActionNone, OutcomeRateLimited, fmt.Sprintf("prscout replied %s in this thread in the last hour (PRSCOUT_THREAD_MAX_ANSWERS is %d)", pipeline.CountNoun(n, "time"), o.MaxAnswersPerHour)), false
	}
	return Result{}, true
}

// botReason says why the comment's author is a bot ("" when not).
func botReason(c pipeline.Comment, bots []string) string {
	a := c.AuthorAccount
	if a.IsBot() {
		return fmt.Sprintf("the author's account type is %q: bots are not answered", a.Type)
	}
	for _, n := range []string{a.Nickname, a.DisplayName, a.AccountID, a.UUID, c.Author} {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		for _, b := range bots {
			if strings.EqualFold(n, strings.TrimSpace(b)) || normID(n) == normID(b) && normID(b) != "" {
				return fmt.Sprintf("%q is in the bot author list (PRSCOUT_BOT_AUTHORS): bots are not answered", n)
			}
		}
	}
	return ""
}

// accountOf names a comment's author for the state and the data: account
// id, else uuid, else nickname.
func accountOf(c pipeline.Comment) string {
	for _, s := range []string{c.AuthorAccount.AccountID, c.AuthorAccount.UUID, c.AuthorAccount.Nickname} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// displayName is a comment's author as a reply shows it (made inert).
func displayName(c pipeline.Comment) string {
	n := strings.TrimSpace(c.Author)
	if n == "" {
		n = c.AuthorAccount.DisplayName
	}
	if n == "" {
		n = "someone"
	}
	return pipeline.OneLine(pipeline.ClipRunes(n, 80))
}

// Thread answers /v1/thread: the loop guard, then a command carried out
// and answered in the thread, a question turned into a prompt, or nothing.
func Thread(ctx context.Context, d Deps, in Input, o Options) (Result, error) {
	if err := in.check("prId", "commentId"); err != nil {
		return Result{}, err
	}
	var self []string
	if si, ok := d.Comments.(pipeline.SelfIdentity); ok {
		self = si.SelfAccountIDs(ctx)
	}
	if in.Event == EventUpdated || in.Event == EventReopened {
		res, _ := guard(&view{in: in}, o) // answered from the event alone
		return res, nil
	}
	res, v, done := precheck(ctx, d, in, o, self)
	if done {
		return res, nil
	}
	v, warn, err := complete(ctx, d, in, o, v, self)
	if err != nil {
		return Result{}, err
	}
	if in.Event == EventResolved {
		return resolved(ctx, d, v, self)
	}
	if res, ok := guard(v, o); !ok {
		return res, nil
	}
	res, err = act(ctx, d, v, o, self)
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	return res, err
}

// complete reads what an event needs of the pull request's comments: from
// the view precheck read and filtered requests when the provider can,
// else the listing of every comment. warn says why a filtered read failed
// and the listing was used.
func complete(ctx context.Context, d Deps, in Input, o Options, v *view, self []string) (*view, string, error) {
	g, _, ok := scoped(d)
	if ok && v == nil && in.Event == EventResolved {
		if rv, err := readComment(ctx, g, in); err == nil {
			rv.setFinding()
			if err = loadScoped(ctx, d, rv, o, false, rv.fp != "" && in.Actor != ""); err == nil {
				return rv, "", nil
			}
		}
	}
	if ok && v != nil {
		err := loadScoped(ctx, d, v, o, true, needsSummary(v, self))
		if err == nil {
			return v, "", nil
		}
		lv, lerr := load(ctx, d, in)
		return lv, fmt.Sprintf("prscout's comments were not found by filter (%v): every comment was listed", err), lerr
	}
	lv, err := load(ctx, d, in)
	return lv, "", err
}

// needsSummary reports whether carrying out the view's comment reads
// prscout's summary or state: every command and question but help (and
// text addressed to prscout that is no command, answered with the help).
func needsSummary(v *view, self []string) bool {
	p := v.parse(self)
	inFinding := v.fp != "" && v.root.ID != v.target.ID
	return inFinding || (p.command != CmdHelp && p.command != "")
}

// act carries out a comment that passed the loop guard: a command, a
// question in a finding's thread, or nothing.
func act(ctx context.Context, d Deps, v *view, o Options, self []string) (Result, error) {
	p := v.parse(self)
	inFinding := v.fp != "" && v.root.ID != v.target.ID
	if !p.addressed && !inFinding {
		return notAddressed(v), nil
	}
	switch {
	case p.command == "" && inFinding:
		return question(ctx, d, v, o)
	case p.command == "":
		p.command = CmdUnknown
	}
	return command(ctx, d, v, o, p, inFinding)
}

// command carries out p and answers it in the thread.
func command(ctx context.Context, d Deps, v *view, o Options, p parsed, inFinding bool) (Result, error) {
	var text string
	var warnings []string
	switch p.command {
	case CmdHelp:
		text = helpText
	case CmdUnknown:
		text = "That is not a command I know. Questions are answered in the threads of my findings.\n\n" + helpText
	case CmdPause, CmdResume:
		var err error
		text, err = setPaused(ctx, d, v, o, p.command == CmdPause)
		if err != nil {
			return Result{}, err
		}
	case CmdReview, CmdFullReview:
		return reviewCommand(ctx, d, v, o, p.command)
	case CmdDismiss:
		if !inFinding {
			res := v.result(ActionNone, OutcomeNotFinding, "dismiss is honoured only in a reply in the thread of one of prscout's findings")
			res.Command = CmdDismiss
			return res, nil
		}
		var err error
		text, warnings, err = dismiss(ctx, d, v, o, p.arg)
		if err != nil {
			return Result{}, err
		}
	}

	r, won, err := postReply(ctx, d, v, o, text)
	if err != nil {
		return Result{}, err
	}
	if !won {
		return alreadyAnswered(v, r), nil
	}
	res := v.result(ActionAnswered, OutcomeCommand, "")
	res.Command, res.Reply = p.command, r
	res.Warnings = append(res.Warnings, warnings...)
	return res, nil
}

// postReply posts text (sanitized, redacted, markers stripped, bounded)
// with the reply marker naming the comment answered, then claims the
// comment (claimReply): won is false when another call (another replica)
// answered it first; the reply is then that one, and ours is deleted.
func postReply(ctx context.Context, d Deps, v *view, o Options, text string) (r *Reply, won bool, err error) {
	body := replyBody(text, v, o)
	c, err := d.Comments.CreateComment(ctx, v.repo, v.in.PRID, pipeline.NewComment{Body: body, ParentID: v.target.ID})
	if err != nil {
		return nil, false, fmt.Errorf("reply to comment %d: %w", v.target.ID, err)
	}
	return claimReply(ctx, d, v, &Reply{ID: c.ID, Body: body, URL: c.URL})
}

func replyBody(text string, v *view, o Options) string {
	return Clean(text, o.LinkHosts) + "\n\n" + marker.ReplyMarker(v.target.ID) + "\n" + marker.ThreadMarker(v.root.ID)
}

// Clean makes text fit to post: markers stripped, secrets redacted,
// Markdown made inert (no HTML, mentions, foreign links), bounded.
func Clean(text string, hosts []string) string {
	text, _ = marker.StripMarkers(text)
	// A marker look-alike inside a line (a dismiss reason) loses its bracket.
	text = markerLikeRe.ReplaceAllString(text, "$1")
	text = redact.Secrets(text, nil)
	text = pipeline.ClipRunes(text, maxReplyRunes)
	return strings.TrimSpace(sanitize.Markdown(text, hosts))
}

var markerLikeRe = regexp.MustCompile(`(?i)\[(prscout)`)

// setPaused writes the review state into prscout's summary (and any short
// state comment), creating a short one when there is no summary yet.
func setPaused(ctx context.Context, d Deps, v *view, o Options, pause bool) (string, error) {
	cur, _, _ := marker.CurrentState(v.comments)
	who := displayName(v.target)
	if cur.Paused == pause {
		if pause {
			return fmt.Sprintf("Reviews of this pull request were already paused%s. `prscout resume` reviews pushes again.", pausedBy(cur, v)), nil
		}
		return "Reviews of this pull request are not paused.", nil
	}
	st := marker.State{Paused: pause, By: accountOf(v.target), At: o.now().UTC().Truncate(time.Second)}
	line := marker.StateLine(st)
	unlock, err := publish.LockPR(ctx, v.repo, v.in.PRID)
	if err != nil {
		return "", err
	}
	defer unlock()
	holders := map[int64]pipeline.Comment{}
	for _, c := range marker.StateHolders(v.comments) {
		holders[c.ID] = c
	}
	for _, c := range v.comments {
		if marker.IsSummaryComment(c) {
			holders[c.ID] = c
		}
	}
	if len(holders) == 0 {
		body := "**prscout**: reviews of this pull request are paused (`prscout resume` reviews pushes again).\n\n" + line
		if _, err := d.Comments.CreateComment(ctx, v.repo, v.in.PRID, pipeline.NewComment{Body: body}); err != nil {
			return "", fmt.Errorf("create the state comment: %w", err)
		}
	}
	ids := make([]int64, 0, len(holders))
	for id := range holders {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		c := holders[id]
		body := marker.WithState(c.Body, line)
		if !marker.IsSummaryComment(c) {
			// A short state comment says the state in words too.
			word := "paused (`prscout resume` reviews pushes again)"
			if !pause {
				word = "resumed"
			}
			body = "**prscout**: reviews of this pull request are " + word + ".\n\n" + line
		}
		if _, err := d.Comments.UpdateComment(ctx, v.repo, v.in.PRID, id, body); err != nil {
			return "", fmt.Errorf("update the review state in comment %d: %w", id, err)
		}
	}
	if pause {
		return fmt.Sprintf("Paused at the request of %s: pushes to this pull request are not reviewed until `prscout resume`. `prscout review` still reviews on request.", who), nil
	}
	return fmt.Sprintf("Resumed at the request of %s: pushes to this pull request are reviewed again.", who), nil
}

func pausedBy(s marker.State, v *view) string {
	out := ""
	if s.By != "" {
		out = " by " + s.By
		for _, c := range v.comments {
			if accountOf(c) == s.By && c.Author != "" {
				out = " by " + displayName(c)
				break
			}
		}
	}
	if !s.At.IsZero() {
		out += " at " + s.At.UTC().Format(time.RFC3339)
	}
	return out
}

// ignoreLines are the description lines that mean "never review".
var ignoreLines = []string{"prscout ignore", "@prscout ignore", "/prscout ignore"}

// Ignored reports whether a pull request description asks prscout never to
// review it: a line that is, case-insensitively, "prscout ignore" (or
// "@prscout ignore", "/prscout ignore").
func Ignored(description string) bool {
	if !strings.Contains(strings.ToLower(description), "ignore") {
		return false
	}
	for _, l := range strings.Split(description, "\n") {
		l = strings.ToLower(strings.Join(strings.Fields(l), " "))
		for _, m := range ignoreLines {
			if l == m {
				return true
			}
		}
	}
	return false
}

// dismiss resolves the finding's thread and records the dismissal in the
// summary's hidden data.
func dismiss(ctx context.Context, d Deps, v *view, o Options, reason string) (string, []string, error) {
	reason = strings.TrimSpace(pipeline.ClipRunes(pipeline.OneLine(reason), marker.MaxReason))
	if reason == "" {
		reason = "no reason given"
	}
	var warnings []string
	unlock, err := publish.LockPR(ctx, v.repo, v.in.PRID)
	if err != nil {
		return "", nil, err
	}
	defer unlock()
	if tr, ok := d.Comments.(pipeline.ThreadResolver); ok && !v.root.Resolved {
		if err := tr.ResolveThread(ctx, v.repo, v.in.PRID, v.root.ID); err != nil {
			warnings = append(warnings, fmt.Sprintf("the thread was not resolved: %v", err))
		}
	}
	sum := v.summary()
	if sum == nil {
		warnings = append(warnings, "no summary comment yet: the dismissal is kept by the finding's own comment only")
	} else {
		body := dismissInData(sum.Body, v.fp, v.root, reason, accountOf(v.target))
		if body != sum.Body {
			if _, err := d.Comments.UpdateComment(ctx, v.repo, v.in.PRID, sum.ID, body); err != nil {
				return "", nil, fmt.Errorf("record the dismissal in the summary %d: %w", sum.ID, err)
			}
		}
	}
	text := fmt.Sprintf("Dismissed at the request of %s: %s\n\nprscout will not raise this finding again on this pull request.", displayName(v.target), reason)
	if proposed, warn := proposeFromDismissal(ctx, d, v, reason); warn != "" {
		warnings = append(warnings, warn)
	} else if proposed != "" {
		text += "\n\n" + proposed
	}
	return text, warnings, nil
}

// findingPath is the file of the finding whose thread v is: its inline
// comment's path.
func findingPath(v *view) string {
	if v.root.Inline != nil {
		return v.root.Inline.Path
	}
	return ""
}

// proposeFromDismissal proposes the dismissal's reason as a review rule for
// the finding's file, when a reason was given and learnings are on (or in
// a dry run): the text says what was proposed and where; warn says why
// nothing was.
func proposeFromDismissal(ctx context.Context, d Deps, v *view, reason string) (text, warn string) {
	if d.Propose == nil || reason == "no reason given" {
		return "", ""
	}
	path := findingPath(v)
	if path == "" {
		return "", "no rule was proposed: the finding's file is not known"
	}
	// The rule is for this file only: its path, wildcards and all, is
	// matched literally.
	glob, err := scope.LiteralGlob(path)
	if err != nil {
		return "", fmt.Sprintf("no rule was proposed: %v", err)
	}
	res, err := d.Propose(ctx, v.repo, learn.Proposal{Path: glob, Rule: reason, SourcePRID: v.in.PRID,
		SourceCommentID: v.target.ID, SourceURL: v.target.URL, Author: accountOf(v.target)})
	if err != nil {
		return "", fmt.Sprintf("no rule was proposed: %v", err)
	}
	switch {
	case res.Mode == learn.ModeDryRun:
		return "Proposed review rule (not written: learnings run as a dry run):\n\n" + res.Text, ""
	case res.PullRequest != nil:
		return fmt.Sprintf("Proposed as a review rule (%s) in the review rules pull request #%d: merging it applies the rule to later reviews.", res.Status, res.PullRequest.ID), ""
	}
	return fmt.Sprintf("Review rule: %s.", res.Status), ""
}

// dismissInData returns the summary body with finding fp's data line
// marked dismissed (one is added when the data has none).
func dismissInData(body, fp string, root pipeline.Comment, reason, by string) string {
	var found *marker.FindingData
	for _, fd := range marker.ParseFindingData(body) {
		if fd.Fingerprint == fp {
			fd := fd
			found = &fd
			break
		}
	}
	if found == nil {
		found = &marker.FindingData{Fingerprint: fp, CommentID: root.ID}
		if root.Inline != nil {
			found.Path, found.Line = root.Inline.Path, root.Inline.Line
		}
		if found.Path == "" {
			found.Path = "-"
		}
	}
	found.State, found.Reason, found.DismissedBy = marker.StateDismissed, reason, by
	line := marker.FindingDataLine(*found)
	lines := strings.Split(body, "\n")
	prefix := "[prscout-f:" + fp + "]:"
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			lines[i] = line
			return strings.Join(lines, "\n")
		}
	}
	return strings.TrimRight(body, "\n") + "\n\n" + line
}

// resolved handles a resolved thread: when a person (not prscout) resolved
// the thread of one of prscout's findings that review memory still has
// open (its code unchanged since it was reported), the finding is
// remembered as dismissed, as a dismiss command would, without a reply.
func resolved(ctx context.Context, d Deps, v *view, self []string) (Result, error) {
	none := func(why string) (Result, error) { return v.result(ActionNone, OutcomeThreadState, why), nil }
	switch {
	case v.fp == "" || v.target.ID != v.root.ID:
		return none("a resolved thread that is not one of prscout's findings: nothing to do")
	case v.in.Actor == "":
		return none("the event does not say who resolved the thread: nothing is recorded")
	case slices.ContainsFunc(self, func(id string) bool { return normID(id) == normID(v.in.Actor) }):
		return none("prscout resolved the thread itself")
	}
	unlock, err := publish.LockPR(ctx, v.repo, v.in.PRID)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	sum := v.summary()
	if sum == nil {
		return none("no summary comment: the finding is not remembered")
	}
	state := ""
	for _, fd := range marker.ParseFindingData(sum.Body) {
		if fd.Fingerprint == v.fp {
			state = fd.State
		}
	}
	if state != marker.StateOpen {
		return none(fmt.Sprintf("the finding is %s in review memory, not open: resolving its thread dismisses nothing", orUnknown(state)))
	}
	reason := "resolved by " + v.in.Actor + " without a code change"
	body := dismissInData(sum.Body, v.fp, v.root, reason, v.in.Actor)
	if _, err := d.Comments.UpdateComment(ctx, v.repo, v.in.PRID, sum.ID, body); err != nil {
		return Result{}, fmt.Errorf("record the dismissal in the summary %d: %w", sum.ID, err)
	}
	res := v.result(ActionNone, OutcomeDismissed, reason)
	res.Command = CmdDismiss
	return res, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
