package publish

import (
	"context"
	"fmt"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/review"
)

// maxTaskRunes bounds a task's text (it names the finding; the comment
// holds the rest).
const maxTaskRunes = 200

// syncTasks keeps a pull request task on the inline comment of each
// critical finding this review reports (new or still open), so a merge
// check that requires resolved tasks holds the merge, and resolves
// prscout's task on the comment of each finding this review resolved.
//
// It is idempotent: a comment that already has a task (any task, a
// person's included, resolved or not) gets none, so a re-sent request, a
// later push or a task someone resolved by hand never adds a second one;
// a task already resolved, or another account's, is left as it is. The
// tasks are listed once, and only when there is something to do. A
// provider without tasks gets a warning; failed calls are errors in
// Posted, never a failed request.
func (out *Posted) syncTasks(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int, mem *review.Memory) {
	var want []review.MemoryEntry
	for _, e := range mem.Entries {
		if e.Severity == "critical" && e.CommentID > 0 && (e.State == review.StateNew || e.State == review.StateStillOpen) {
			want = append(want, e)
		}
	}
	var resolve []int64
	for _, e := range mem.ToResolve() {
		resolve = append(resolve, e.Data().CommentID)
	}
	if len(want) == 0 && len(resolve) == 0 {
		return
	}
	ts, ok := store.(pipeline.TaskStore)
	if !ok {
		out.Warnings = append(out.Warnings, "tasks are switched on (PRSCOUT_TASKS) but the provider has no pull request tasks")
		return
	}
	tasks, err := ts.ListTasks(ctx, repo, prID)
	if err != nil {
		out.Errors = append(out.Errors, fmt.Sprintf("list tasks: %v", err))
		return
	}
	byComment := map[int64][]pipeline.Task{}
	for _, t := range tasks {
		if t.CommentID > 0 {
			byComment[t.CommentID] = append(byComment[t.CommentID], t)
		}
	}
	for _, e := range want {
		if len(byComment[e.CommentID]) > 0 {
			continue
		}
		t, err := ts.CreateTask(ctx, repo, prID, e.CommentID, taskText(e))
		if err != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("create task on comment %d: %v", e.CommentID, err))
			continue
		}
		byComment[e.CommentID] = append(byComment[e.CommentID], t)
		out.TasksCreated++
	}
	for _, id := range resolve {
		for _, t := range byComment[id] {
			if t.Foreign || t.Resolved {
				continue
			}
			if err := ts.ResolveTask(ctx, repo, prID, t.ID); err != nil {
				out.Errors = append(out.Errors, fmt.Sprintf("resolve task %d: %v", t.ID, err))
				continue
			}
			out.TasksResolved++
		}
	}
}

// taskText is a task's text: what to do and the finding's title (already
// sanitized Markdown on one line).
func taskText(e review.MemoryEntry) string {
	return pipeline.ClipRunes("Resolve the critical finding: "+pipeline.OneLine(e.Title), maxTaskRunes)
}
