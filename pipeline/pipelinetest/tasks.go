package pipelinetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/prscout/prscout/pipeline"
)

// AddTask stores a task on pull request prID as it is (Foreign for another
// account's) and returns it with its id.
func (f *Fake) AddTask(prID int, t pipeline.Task) pipeline.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	t.ID = f.nextID
	f.tasks[prID] = append(f.tasks[prID], t)
	return t
}

// Tasks returns pull request prID's tasks in creation order.
func (f *Fake) Tasks(prID int) []pipeline.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.tasks[prID])
}

// ListTasks implements pipeline.TaskStore.
func (f *Fake) ListTasks(ctx context.Context, _ pipeline.Repo, prID int) ([]pipeline.Task, error) {
	done, err := f.enter(ctx, OpListTasks, strconv.Itoa(prID))
	if err != nil {
		return nil, err
	}
	defer done()
	return f.Tasks(prID), nil
}

// CreateTask implements pipeline.TaskStore: the comment must be a live
// comment of the pull request (else an error wrapping ErrNotFound, as
// Bitbucket answers 404).
func (f *Fake) CreateTask(ctx context.Context, _ pipeline.Repo, prID int, commentID int64, body string) (pipeline.Task, error) {
	done, err := f.enter(ctx, OpCreateTask, strconv.FormatInt(commentID, 10))
	if err != nil {
		return pipeline.Task{}, err
	}
	defer done()
	f.mu.Lock()
	found := commentID == 0
	for _, c := range f.comments[prID] {
		found = found || c.ID == commentID && !c.Deleted
	}
	f.mu.Unlock()
	if !found {
		return pipeline.Task{}, fmt.Errorf("create task on comment %d: %w", commentID, pipeline.ErrNotFound)
	}
	return f.AddTask(prID, pipeline.Task{CommentID: commentID, Body: body}), nil
}

// ResolveTask implements pipeline.TaskStore.
func (f *Fake) ResolveTask(ctx context.Context, _ pipeline.Repo, prID int, id int64) error {
	done, err := f.enter(ctx, OpResolveTask, strconv.FormatInt(id, 10))
	if err != nil {
		return err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.tasks[prID] {
		if t := &f.tasks[prID][i]; t.ID == id {
			t.Resolved = true
			return nil
		}
	}
	return fmt.Errorf("resolve task %d: %w", id, pipeline.ErrNotFound)
}
