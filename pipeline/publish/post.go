package publish

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/review"
)

// Posted reports what Post did (the /v1/comments `posted` object).
type Posted struct {
	// Summary is created, updated, unchanged or dry-run.
	Summary   string `json:"summary"`
	SummaryID int64  `json:"summaryId,omitempty"`
	// SummaryURL is the summary comment's web link, when the store gives
	// one (the build status and the report link to it).
	SummaryURL string `json:"summaryUrl,omitempty"`
	// InlineCreated counts inline comments created by this call;
	// InlineSkipped those whose fingerprint a comment already carries (posted
	// by an earlier run, or deleted by someone); InlineFailed those the store
	// refused (they are listed in the summary instead).
	InlineCreated int `json:"inlineCreated"`
	InlineSkipped int `json:"inlineSkipped"`
	InlineFailed  int `json:"inlineFailed"`
	// InlineDeferred counts new inline comments beyond review.MaxInlinePerPost: they
	// are listed in the summary and posted by a later run.
	InlineDeferred int `json:"inlineDeferred"`
	// InlineSingleLine counts findings spanning lines whose multi-line
	// anchor the provider refused: each was posted on its last line.
	InlineSingleLine int `json:"inlineSingleLine,omitempty"`
	// DuplicatesDeleted counts prscout comments deleted because another
	// request (another replica) created the same summary or finding at the
	// same time.
	DuplicatesDeleted int `json:"duplicatesDeleted"`
	// ThreadsResolved counts inline threads resolved because this review
	// resolved their finding; ThreadsLeftOpen those left open (a reply in
	// the thread, the setting off, or a failed call: see memory.entries[].thread).
	ThreadsResolved int `json:"threadsResolved"`
	ThreadsLeftOpen int `json:"threadsLeftOpen"`
	// TasksCreated counts pull request tasks opened on the inline comment
	// of a critical finding, TasksResolved prscout's tasks resolved with
	// their finding (PostOptions.Tasks; see syncTasks).
	TasksCreated  int `json:"tasksCreated,omitempty"`
	TasksResolved int `json:"tasksResolved,omitempty"`
	// Errors describe failed writes that did not fail the call.
	Errors []string `json:"errors"`
	// Warnings say what was left alone and why, e.g. summaries that could
	// not be proven prscout's own.
	Warnings []string `json:"warnings,omitempty"`
	// Deferred lists the commit surfaces not written because the rate limit
	// was near (insights.Deferrable, in that order: annotations, report,
	// status); absent when nothing was deferred.
	Deferred []string `json:"deferred,omitempty"`
	// BuildStatus and Report say what Publish put on the head commit; both
	// are absent when nothing was posted or no provider has commit
	// surfaces (see insights.Publish).
	BuildStatus *insights.StatusResult `json:"buildStatus,omitempty"`
	Report      *insights.ReportResult `json:"report,omitempty"`
}

// PostOptions shape Post.
type PostOptions struct {
	// ResolveThreads resolves the inline thread of each finding this review
	// resolved, when the store is a pipeline.ThreadResolver
	// (PRSCOUT_RESOLVE_THREADS, default true). Never a thread with a reply,
	// never another account's comment (see resolveThreads).
	ResolveThreads bool
	// Tasks opens a pull request task on the inline comment of each
	// critical finding and resolves it with the finding, when the store is
	// a pipeline.TaskStore (PRSCOUT_TASKS, default false).
	Tasks bool
	// DryRun reads the comments and compares with earlier reviews, but
	// writes nothing (posted.summary "dry-run").
	DryRun bool
}

// Posted.Summary values.
const (
	summaryCreated   = "created"
	summaryUpdated   = "updated"
	summaryUnchanged = "unchanged"
	summaryDryRun    = "dry-run"
)

// DryRunPosted is the posted report of a request that posts nothing.
func DryRunPosted() Posted { return Posted{Summary: summaryDryRun, Errors: []string{}} }

// prLocks serialises posting per pull request inside this process.
var prLocks = newKeyedMutex()

// Post posts a rendering idempotently, so n8n's retry-on-fail (the
// same request again) or two requests at once leave one summary and no
// duplicate inline comment:
//
//  1. Take this process's lock for the pull request (requests for other
//     pull requests do not wait).
//  2. List every comment (order is not trusted: everything is sorted by id).
//  3. Create each inline comment whose fingerprint no comment carries yet;
//     skip the others. A failed create is counted and reported, and the
//     finding is listed in the summary instead; it never fails the call.
//  4. Summary: the live general comments with a review marker, lowest id
//     first. None: create one. One: update it in place, unless its body is
//     already the same ("unchanged"). Several (another replica raced us):
//     update the lowest id, delete the rest.
//  5. If anything was created, list again and reconcile a race with another
//     replica: of several summaries, or several comments with a fingerprint
//     this call created, the lowest id stays and the others are deleted.
//     Every replica picks the same survivor, so they cannot delete each
//     other's copies into nothing.
//
// Foreign comments (another account's) are never summaries, never count as
// posted findings and are never updated or deleted: a pasted marker cannot
// hijack the summary or suppress a finding.
//
// A nil store is a dry run. An error from listing or from writing the
// summary fails the call (retrying is safe); Posted still says what was
// done before it.
//

// Post posts as described above, with review memory when sum (from
// review.Prepare, with r) is not nil: after listing the comments it compares this review's findings with the
// earlier ones (review.Memory), posts inline comments only for findings that
// have none yet, resolves the threads of resolved findings (see
// resolveThreads), and renders the summary with the memory table and its
// hidden data. r.Markdown and r.Memory are updated to what was posted.
// A retried request finds its own summary data and posts, resolves and
// counts nothing twice.
func Post(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, r *review.Rendered, sum *review.Summary, opt PostOptions) (Posted, error) {
	if store == nil {
		return DryRunPosted(), nil
	}
	out := Posted{Errors: []string{}}
	unlock, err := prLocks.lock(ctx, fmt.Sprintf("%s/%s#%d", strings.ToLower(repo.Workspace), strings.ToLower(repo.RepoSlug), prID))
	if err != nil {
		return out, fmt.Errorf("wait for pull request lock: %w", err)
	}
	defer unlock()

	comments, err := store.ListComments(ctx, repo, prID)
	if err != nil {
		return out, fmt.Errorf("list PR comments: %w", err)
	}
	var mem *review.Memory
	if sum != nil {
		mem = sum.Remember(comments)
		r.Memory = mem
	}
	if opt.DryRun {
		if mem != nil {
			r.Markdown = sum.Write(mem, nil, nil)
			r.Stats.MarkdownChars = len(r.Markdown)
		}
		return DryRunPosted(), nil
	}
	have := marker.FindingFingerprints(comments)
	created, failed, deferred, err := out.postInline(ctx, store, repo, prID, r.Inline, mem, have)
	if err != nil {
		return out, err
	}

	var body string
	if mem != nil {
		out.resolveThreads(ctx, store, repo, prID, mem, comments, opt.ResolveThreads)
		if opt.Tasks {
			out.syncTasks(ctx, store, repo, prID, mem)
		}
		body = sum.Write(mem, failed, deferred)
		mem.Sync()
	} else {
		body = review.WithUnposted(r.Markdown, failed, deferred)
	}
	// The review state (paused by a thread command) lives in the summary's
	// hidden data: a rewritten summary keeps it.
	if st, _, ok := marker.CurrentState(comments); ok {
		body = marker.WithState(body, marker.StateLine(st))
	}
	r.Markdown = body
	r.Stats.MarkdownChars = len(body)
	summaries := review.LiveSummaries(comments)
	if n := marker.UnverifiedSummaries(comments); n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("prscout's own account is unknown: %s with a review marker left untouched (not proven prscout's); set PRSCOUT_BITBUCKET_ACCOUNT_ID", pipeline.CountNoun(n, "comment")))
	}
	switch {
	case len(summaries) == 0:
		c, err := store.CreateComment(ctx, repo, prID, pipeline.NewComment{Body: body})
		if err != nil {
			return out, fmt.Errorf("create summary comment: %w", err)
		}
		out.Summary, out.SummaryID, out.SummaryURL = summaryCreated, c.ID, c.URL
	default:
		keep := summaries[0]
		out.SummaryID, out.SummaryURL = keep.ID, keep.URL
		if sameBody(keep.Body, body) {
			out.Summary = summaryUnchanged
		} else {
			c, err := store.UpdateComment(ctx, repo, prID, keep.ID, body)
			if err != nil {
				return out, fmt.Errorf("update summary comment %d: %w", keep.ID, err)
			}
			out.Summary = summaryUpdated
			if c.URL != "" {
				out.SummaryURL = c.URL
			}
		}
		for _, c := range summaries[1:] {
			out.deleteDuplicate(ctx, store, repo, prID, c.ID)
		}
	}

	if out.Summary == summaryCreated || len(created) > 0 {
		if err := out.reconcile(ctx, store, repo, prID, body, created); err != nil {
			return out, err
		}
	}
	return out, nil
}

// postInline creates the inline comments of findings no comment carries yet
// (have: the fingerprints on the pull request), most severe first and at
// most review.MaxInlinePerPost: it answers the fingerprints it created and
// the comments that failed or were deferred, which the summary lists.
func (out *Posted) postInline(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, inline []review.InlineComment, mem *review.Memory, have map[string]bool) (created map[string]bool, failed, deferred []review.InlineComment, err error) {
	created = map[string]bool{}
	for _, ic := range review.BySeverity(inline) {
		if have[ic.Fingerprint] || mem != nil && mem.Continues(ic.Fingerprint) {
			out.InlineSkipped++
			continue
		}
		if out.InlineCreated+out.InlineFailed >= review.MaxInlinePerPost {
			out.InlineDeferred++
			deferred = append(deferred, ic)
			continue
		}
		if err := ctx.Err(); err != nil {
			return created, failed, deferred, fmt.Errorf("post inline comments: %w", err)
		}
		c, err := store.CreateComment(ctx, repo, prID, pipeline.NewComment{Body: ic.Body, Inline: &pipeline.InlineAnchor{Path: ic.Path, Line: ic.Line, EndLine: ic.EndLine}})
		if err != nil {
			out.InlineFailed++
			out.Errors = append(out.Errors, fmt.Sprintf("create inline comment %s:%d: %v", ic.Path, ic.Line, err))
			failed = append(failed, ic)
			continue
		}
		if ic.EndLine > 0 && c.Inline != nil && c.Inline.EndLine == 0 {
			// The provider placed it on one line (Bitbucket refused the range).
			out.InlineSingleLine++
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s:%d-%d: the multi-line anchor was refused; posted on line %d", ic.Path, ic.Line, ic.EndLine, c.Inline.Line))
		}
		out.InlineCreated++
		have[ic.Fingerprint] = true
		created[ic.Fingerprint] = true
		if mem != nil {
			mem.Posted(ic.Fingerprint, c)
		}
	}
	return created, failed, deferred, nil
}

// resolveThreads resolves the inline thread of each finding this review
// resolved (and of one resolved by an earlier attempt of the same request
// whose call failed), when enabled and the store can. A thread is left open
// when its comment is not proven prscout's own finding comment (another
// account's, unverified, deleted, a reply, or not carrying the finding's
// marker), and whenever
// anyone replied in it: a reply may say the finding is not fixed, and only
// a person should close such a thread. A thread already resolved is left
// as it is. A failed call is an error in Posted, never a failed request.
func (out *Posted) resolveThreads(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, mem *review.Memory, comments []pipeline.Comment, enabled bool) {
	byID := map[int64]pipeline.Comment{}
	replied := map[int64]bool{}
	for _, c := range comments {
		byID[c.ID] = c
		if c.ParentID != 0 && !c.Deleted {
			replied[c.ParentID] = true
		}
	}
	res, can := store.(pipeline.ThreadResolver)
	for _, e := range mem.ToResolve() {
		c, ok := byID[e.Data().CommentID]
		fp, _ := marker.ParseFindingMarker(c.Body)
		switch {
		case !ok:
			e.Thread = "left open: its comment was not found"
		case c.Foreign || c.Unverified || fp != e.Data().Fingerprint:
			e.Thread = "left open: not prscout's comment for this finding"
		case c.Deleted:
			e.Thread = "left open: its comment was deleted"
		case c.Inline == nil || c.ParentID != 0:
			e.Thread = "left open: not a top-level inline comment"
		case c.Resolved:
			e.Thread = "already resolved"
			continue
		case replied[c.ID]:
			e.Thread = "left open: someone replied in the thread"
		case !enabled:
			e.Thread = "left open: thread resolution is switched off"
		case !can:
			e.Thread = "left open: the provider cannot resolve threads"
		default:
			if err := res.ResolveThread(ctx, repo, prID, c.ID); err != nil {
				e.Thread = "left open: " + err.Error()
				out.Errors = append(out.Errors, fmt.Sprintf("resolve thread of comment %d: %v", c.ID, err))
				out.ThreadsLeftOpen++
				continue
			}
			e.Thread = "resolved"
			out.ThreadsResolved++
			continue
		}
		out.ThreadsLeftOpen++
	}
}

// reconcile lists the comments again after creating some and removes the
// copies another replica made at the same time: the lowest id survives.
func (out *Posted) reconcile(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, body string, created map[string]bool) error {
	comments, err := store.ListComments(ctx, repo, prID)
	if err != nil {
		return fmt.Errorf("list PR comments to reconcile: %w", err)
	}
	if summaries := review.LiveSummaries(comments); len(summaries) > 1 {
		keep := summaries[0]
		if keep.ID != out.SummaryID {
			// Another request's summary is older: ours gives way to it.
			out.Summary = summaryUnchanged
			if !sameBody(keep.Body, body) {
				if _, err := store.UpdateComment(ctx, repo, prID, keep.ID, body); err != nil {
					return fmt.Errorf("update summary comment %d: %w", keep.ID, err)
				}
				out.Summary = summaryUpdated
			}
		}
		if keep.ID != out.SummaryID || keep.URL != "" {
			out.SummaryURL = keep.URL
		}
		out.SummaryID = keep.ID
		for _, c := range summaries[1:] {
			out.deleteDuplicate(ctx, store, repo, prID, c.ID)
		}
	}
	if len(created) == 0 {
		return nil
	}
	byFP := map[string][]pipeline.Comment{}
	for _, c := range comments {
		if c.Deleted || c.Foreign || c.Unverified {
			continue
		}
		if fp, ok := marker.ParseFindingMarker(c.Body); ok && created[fp] {
			byFP[fp] = append(byFP[fp], c)
		}
	}
	fps := make([]string, 0, len(byFP))
	for fp := range byFP {
		fps = append(fps, fp)
	}
	sort.Strings(fps)
	for _, fp := range fps {
		cs := byFP[fp]
		if len(cs) < 2 {
			continue
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
		for _, c := range cs[1:] {
			out.deleteDuplicate(ctx, store, repo, prID, c.ID)
		}
	}
	return nil
}

func (out *Posted) deleteDuplicate(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, id int64) {
	if err := store.DeleteComment(ctx, repo, prID, id); err != nil {
		out.Errors = append(out.Errors, fmt.Sprintf("delete duplicate comment %d: %v", id, err))
		return
	}
	out.DuplicatesDeleted++
}

// sameBody compares comment bodies as a host may store them: line endings
// and surrounding whitespace do not count.
func sameBody(a, b string) bool {
	norm := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }
	return norm(a) == norm(b)
}

// keyedMutex is a set of mutexes by key, created on demand and dropped when
// no one holds or waits for them. Waiting honours the context.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
}

type keyedLock struct {
	ch   chan struct{} // capacity 1: holding the lock is having sent
	refs int
}

func newKeyedMutex() *keyedMutex { return &keyedMutex{locks: map[string]*keyedLock{}} }

func (k *keyedMutex) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	l, ok := k.locks[key]
	if !ok {
		l = &keyedLock{ch: make(chan struct{}, 1)}
		k.locks[key] = l
	}
	l.refs++
	k.mu.Unlock()

	release := func() {
		k.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.ch
			release()
		})
	}, nil
}

// LockPR takes the per-pull-request lock Post holds while it writes, so
// another stage writing prscout's comments of the same pull request (a
// thread command updating the summary's data) does not interleave with a
// review's summary inside this process. unlock releases it.
func LockPR(ctx context.Context, repo pipeline.Repo, prID int) (unlock func(), err error) {
	return prLocks.lock(ctx, fmt.Sprintf("%s/%s#%d", strings.ToLower(repo.Workspace), strings.ToLower(repo.RepoSlug), prID))
}
