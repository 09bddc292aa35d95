package localgit

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/cochange"
)

// defaultHistories is how many co-change windows a Provider keeps (one per
// destination head recently asked about; about a megabyte each).
const defaultHistories = 16

// CoChanged answers the files that changed together with paths on the
// first-parent history of commit at (see pipeline/cochange): the window
// as of at comes from the provider's kept ones, or from one `git log`
// that stops at the first commit a kept window of the repository holds,
// so a destination that moved on reads only its new commits, and one that
// a kept window holds (an older destination) reads only past its end.
func (t *codeTree) CoChanged(ctx context.Context, at string, paths []string) ([]cochange.Pair, error) {
	histories := t.histories
	if histories == nil {
		histories = cochange.NewCache(0, cochange.DefaultBounds)
	}
	sha, err := commitID(ctx, t.readers, t.dir, at)
	if err != nil {
		return nil, err
	}
	w, err := histories.Window(t.dir, sha, func(from string, add func(cochange.Commit) bool) error {
		return streamLog(ctx, t.dir, cochange.LogArgs(from, histories.Bounds()), add)
	})
	if err != nil {
		return nil, err
	}
	return w.CoChanged(paths), nil
}

// streamLog runs git log with args and reads its output into add
// (cochange.ReadLog), stopping git once add wants no more.
func streamLog(ctx context.Context, dir string, args []string, add func(cochange.Commit) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCmd(ctx, dir, args...)
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run git log: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run git log: %w", err)
	}
	stopped := false
	readErr := cochange.ReadLog(stdout, func(c cochange.Commit) bool {
		if !add(c) {
			stopped = true
		}
		return !stopped
	})
	if stopped || readErr != nil {
		cancel() // git may still be writing: the rest is not wanted
	}
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return readErr
	case stopped:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("git log: %w", ctx.Err())
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			return &gitError{Args: args, Code: ee.ExitCode(), Stderr: pipeline.FirstLine(stderr.String())}
		}
		return fmt.Errorf("git log: %w", waitErr)
	}
	return nil
}
