package thread

import (
	"context"
	"fmt"
	"sort"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
)

// A comment event costs a bounded handful of provider calls, whatever the
// pull request's comment count. With a provider that reads one comment
// (pipeline.CommentGetter) and finds prscout's own comments by filter
// (pipeline.OwnCommentFinder), an event prscout acts on reads:
//   - the comment and its parents up to the thread's root (readComment,
//     walk): at most contextDepth parents one by one, then the root named
//     by the thread marker of prscout's nearest reply;
//   - prscout's replies to the comment and in its thread (one filtered
//     request: their reply and thread markers);
//   - prscout's summary and state comments (one filtered request: the
//     review and state markers), for what needs them;
//   - and, for a full review command, prscout's reply that started one.
//
// A thread whose root is further up than that is not followed. Without
// those extensions, or when a filtered request fails, every comment is
// listed (load).

// Limits of the bounded reads.
const (
	// contextDepth is how many parents are read one by one (the latest
	// turns of the conversation a question's prompt shows) before the walk
	// jumps to the root a reply of prscout's names.
	contextDepth = 4
	// maxReach bounds the parents read in all: a thread deeper than that
	// with no reply of prscout's to name its root is not followed.
	maxReach = 8
	// summaryLimit bounds prscout's summary and state comments read.
	summaryLimit = 20
)

// errTooDeep: the thread's root is more than maxReach parents away.
var errTooDeep = fmt.Errorf("the thread's root is more than %d comments up with no reply of prscout's naming it", maxReach)

// scoped reports whether d's comment store can serve an event without
// listing every comment.
func scoped(d Deps) (pipeline.CommentGetter, pipeline.OwnCommentFinder, bool) {
	g, ok1 := d.Comments.(pipeline.CommentGetter)
	f, ok2 := d.Comments.(pipeline.OwnCommentFinder)
	return g, f, ok1 && ok2
}

// readComment reads comment in.CommentID alone into a view (target and
// root).
func readComment(ctx context.Context, g pipeline.CommentGetter, in Input) (*view, error) {
	v := &view{in: in, repo: pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}, byID: map[int64]pipeline.Comment{}, scoped: true}
	t, err := g.Comment(ctx, v.repo, in.PRID, in.CommentID)
	if err != nil {
		return nil, err
	}
	v.target, v.root = t, t
	v.add(t)
	return v, nil
}

// walk reads the target's parents up to the thread's root into the view
// (the thread starts as the comments read): at most contextDepth one by
// one, then the root named by the thread marker of prscout's nearest reply
// read. It returns errTooDeep past maxReach parents, or the provider's
// error.
func (v *view) walk(ctx context.Context, g pipeline.CommentGetter) error {
	for depth := 0; v.root.ParentID != 0; depth++ {
		if depth == maxReach {
			return errTooDeep
		}
		next := v.root.ParentID
		if depth >= contextDepth {
			if root, ok := namedRoot(v.comments); ok {
				if _, seen := v.byID[root]; !seen {
					next = root
				}
			}
		}
		p, err := g.Comment(ctx, v.repo, v.in.PRID, next)
		if err != nil {
			return err
		}
		v.root = p
		v.add(p)
	}
	return nil
}

// namedRoot is the thread root the newest of prscout's replies among cs
// names in its thread marker.
func namedRoot(cs []pipeline.Comment) (int64, bool) {
	for i := len(cs) - 1; i >= 0; i-- {
		if own(cs[i]) {
			if root, ok := marker.ParseThreadMarker(cs[i].Body); ok {
				return root, true
			}
		}
	}
	return 0, false
}

// add merges comments into the view (id order, each once); in a scoped
// view, prscout's replies to the target or in the root's thread join the
// thread.
func (v *view) add(cs ...pipeline.Comment) {
	for _, c := range cs {
		if _, seen := v.byID[c.ID]; seen {
			continue
		}
		v.byID[c.ID] = c
		v.comments = append(v.comments, c)
		if v.scoped && v.inThread(c) {
			v.thread = append(v.thread, c)
		}
	}
	sort.SliceStable(v.comments, func(i, j int) bool { return v.comments[i].ID < v.comments[j].ID })
	sort.SliceStable(v.thread, func(i, j int) bool { return v.thread[i].ID < v.thread[j].ID })
}

// inThread reports whether c, one of prscout's comments found by filter,
// sits in the view's thread.
func (v *view) inThread(c pipeline.Comment) bool {
	if !own(c) {
		return false
	}
	if root, ok := marker.ParseThreadMarker(c.Body); ok && root == v.root.ID {
		return true
	}
	to, ok := marker.ParseReplyMarker(c.Body)
	return ok && to == v.target.ID
}

// find merges prscout's own comments matching q into a scoped view; a
// listed view has them all already.
func (v *view) find(ctx context.Context, d Deps, q pipeline.OwnCommentQuery) error {
	_, f, ok := scoped(d)
	if !v.scoped || !ok {
		return nil
	}
	cs, err := f.FindOwnComments(ctx, v.repo, v.in.PRID, q)
	if err != nil {
		return fmt.Errorf("find prscout's comments: %w", err)
	}
	v.add(cs...)
	return nil
}

// repliesQuery finds prscout's replies to the target and in its thread:
// enough of the newest for the per-thread cap and a prompt's thread.
func (v *view) repliesQuery(o Options) pipeline.OwnCommentQuery {
	return pipeline.OwnCommentQuery{
		AnyOf: []string{marker.ReplyMarkerText(v.target.ID), marker.ThreadMarkerText(v.root.ID)},
		Limit: min(100, max(1, o.MaxAnswersPerHour)+maxThreadComments),
	}
}

// summaryQuery finds prscout's summary and state comments.
var summaryQuery = pipeline.OwnCommentQuery{
	AnyOf: []string{marker.ReviewMarkerText, marker.LegacyReviewMarkerText, marker.StateMarkerText},
	Limit: summaryLimit,
}

// loadScoped completes a view readComment and walk read (its thread so
// far: the comments read): prscout's replies (when replies) and its
// summary and state comments (when summary).
func loadScoped(ctx context.Context, d Deps, v *view, o Options, replies, summary bool) error {
	v.thread = append(v.thread[:0], v.comments...)
	v.setFinding()
	if replies {
		if err := v.find(ctx, d, v.repliesQuery(o)); err != nil {
			return err
		}
	}
	if summary {
		return v.find(ctx, d, summaryQuery)
	}
	return nil
}
