package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
)

// TestTasksCreatedOnceAndResolved: a critical finding gets one task on its
// inline comment; the same request again adds none; a later push that
// keeps the finding adds none; the push that resolves it resolves the task.
// A person's task on another comment is never touched.
func TestTasksCreatedOnceAndResolved(t *testing.T) {
	store := newStore(3)
	opts := PostOptions{ResolveThreads: true, Tasks: true}
	crit := findLoad
	crit.Severity = "critical"
	other := store.AddComment(42, pipeline.Comment{Body: "a person's note", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 2}, Foreign: true})
	store.AddTask(42, pipeline.Task{CommentID: other.ID, Body: "theirs", Foreign: true})

	r1 := renderMem(t, memH1, "full", memFull1, crit, findDiv)
	p1 := mustPost(t, store, &r1, opts)
	if p1.TasksCreated != 1 || p1.TasksResolved != 0 || len(p1.Errors) != 0 {
		t.Fatalf("run 1 posted %+v", p1)
	}
	c := commentOf(t, store, "load error ignored")
	tasks := store.Tasks(42)
	if len(tasks) != 2 || tasks[1].CommentID != c.ID || tasks[1].Resolved || !strings.Contains(tasks[1].Body, "load error ignored") {
		t.Fatalf("tasks after run 1 = %+v (comment %d)", tasks, c.ID)
	}

	// n8n's retry-on-fail: the same request again.
	again := renderMem(t, memH1, "full", memFull1, crit, findDiv)
	if p := mustPost(t, store, &again, opts); p.TasksCreated != 0 || p.TasksResolved != 0 {
		t.Fatalf("re-sent request posted %+v", p)
	}
	if n := len(store.Tasks(42)); n != 2 {
		t.Fatalf("re-sent request left %d tasks, want 2", n)
	}

	// A push that keeps the finding (its code unchanged) adds no task.
	keep := renderMem(t, memH2, "full", memFull1, crit)
	if p := mustPost(t, store, &keep, opts); p.TasksCreated != 0 || p.TasksResolved != 0 {
		t.Fatalf("push keeping the finding posted %+v", p)
	}

	// The push that rewrites the finding's line resolves it and its task.
	r3 := renderMem(t, memH3, "delta", memDelta2, findUnsafe)
	p3 := mustPost(t, store, &r3, opts)
	if p3.TasksResolved != 1 || p3.TasksCreated != 0 || p3.ThreadsResolved != 1 {
		t.Fatalf("resolving push posted %+v", p3)
	}
	tasks = store.Tasks(42)
	if !tasks[1].Resolved || tasks[0].Resolved {
		t.Fatalf("tasks after the resolving push = %+v", tasks)
	}
	again3 := renderMem(t, memH3, "delta", memDelta2, findUnsafe)
	if p := mustPost(t, store, &again3, opts); p.TasksResolved != 0 || p.TasksCreated != 0 {
		t.Fatalf("re-sent resolving request posted %+v", p)
	}
	if n := store.Calls(pipelinetest.OpCreateTask, ""); n != 1 {
		t.Fatalf("%d task creations, want 1", n)
	}
}

// TestTasksOff: without the setting no task is listed or created.
func TestTasksOff(t *testing.T) {
	store := newStore(4)
	crit := findLoad
	crit.Severity = "critical"
	r := renderMem(t, memH1, "full", memFull1, crit)
	mustPost(t, store, &r, postOpts)
	if n := store.Calls(pipelinetest.OpListTasks, "") + store.Calls(pipelinetest.OpCreateTask, ""); n != 0 {
		t.Fatalf("%d task calls with tasks off", n)
	}
}

// commentsOnly is a CommentStore without tasks (as the local provider has
// none).
type commentsOnly struct{ pipeline.CommentStore }

// TestTasksUnsupported: a store without tasks gets a warning, no error.
func TestTasksUnsupported(t *testing.T) {
	store := newStore(5)
	crit := findLoad
	crit.Severity = "critical"
	r := renderMem(t, memH1, "full", memFull1, crit)
	p, err := Post(context.Background(), commentsOnly{store}, testRepo, 42, &r.Rendered, r.sum, PostOptions{Tasks: true})
	if err != nil || len(p.Errors) != 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), "no pull request tasks") {
		t.Fatalf("Post = %+v, %v", p, err)
	}
}

// TestTaskFailureIsAnError: a refused task is an error in Posted, not a
// failed call, and the next run creates it.
func TestTaskFailureIsAnError(t *testing.T) {
	store := newStore(6)
	fail := true
	store.Hook = func(_ context.Context, op, _ string) error {
		if op == pipelinetest.OpCreateTask && fail {
			return errUpstream(op)
		}
		return nil
	}
	crit := findLoad
	crit.Severity = "critical"
	r := renderMem(t, memH1, "full", memFull1, crit)
	p := mustPost(t, store, &r, PostOptions{Tasks: true})
	if p.TasksCreated != 0 || len(p.Errors) != 1 || !strings.Contains(p.Errors[0], "create task") {
		t.Fatalf("Post = %+v", p)
	}
	fail = false
	r = renderMem(t, memH1, "full", memFull1, crit)
	if p := mustPost(t, store, &r, PostOptions{Tasks: true}); p.TasksCreated != 1 {
		t.Fatalf("retry posted %+v", p)
	}
}
