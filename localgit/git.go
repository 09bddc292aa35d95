package localgit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prscout/prscout/internal/chunkread"
	"github.com/prscout/prscout/pipeline"
)

// gitEnv is the environment every git command runs with: no system config,
// never a credential prompt, literal pathspecs (a "*" in a path is a file
// name, not a glob) and no discovery above the repository directory.
func gitEnv(dir string) []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		// Drop inherited variables that would redirect git elsewhere.
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") ||
			strings.HasPrefix(kv, "GIT_INDEX_FILE=") || strings.HasPrefix(kv, "GIT_OBJECT_DIRECTORY=") ||
			strings.HasPrefix(kv, "GIT_ALTERNATE_OBJECT_DIRECTORIES=") || strings.HasPrefix(kv, "GIT_CEILING_DIRECTORIES=") ||
			strings.HasPrefix(kv, "GIT_EXTERNAL_DIFF=") || strings.HasPrefix(kv, "GIT_PAGER=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(dir),
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
	)
}

// gitCommands counts the git commands built (for the tests).
var gitCommands atomic.Int64

// gitWaitDelay bounds how long a killed git's output is waited for.
const gitWaitDelay = 2 * time.Second

// gitCmd builds `git -C dir --no-pager -c core.quotepath=off <args>` bound to
// ctx, so a cancelled or timed-out request kills the process. No shell is
// involved: every argument reaches git as is.
func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	gitCommands.Add(1)
	full := append([]string{"-C", dir, "--no-pager", "-c", "core.quotepath=off"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitEnv(dir)
	cmd.Stdin = nil
	// Once ctx ends and git is killed, Wait gives up on its pipes after
	// this long, so a request that went away never waits on git's output.
	cmd.WaitDelay = gitWaitDelay
	return cmd
}

// gitError is a failed git command with the first line of its stderr.
type gitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, e.Stderr)
}

// runGit runs a git command and returns its stdout, at most maxOut bytes
// (0 means 64 MiB); larger output fails with an error wrapping errOutputLimit.
func runGit(ctx context.Context, dir string, maxOut int64, args ...string) ([]byte, error) {
	chunks, err := runGitChunks(ctx, dir, maxOut, args...)
	return chunkread.Join(chunks), err
}

// runGitChunks is runGit with the output as read (chunkread.Read).
func runGitChunks(ctx context.Context, dir string, maxOut int64, args ...string) ([][]byte, error) {
	if maxOut <= 0 {
		maxOut = 64 << 20
	}
	cmd := gitCmd(ctx, dir, args...)
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	out, readErr := chunkread.Read(io.LimitReader(stdout, maxOut+1))
	if int64(chunkread.Len(out)) > maxOut {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("git %s: output over %d bytes: %w", args[0], maxOut, errOutputLimit)
	}
	waitErr := cmd.Wait()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctxErr)
	}
	if waitErr != nil {
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			return out, &gitError{Args: args, Code: ee.ExitCode(), Stderr: pipeline.FirstLine(stderr.String())}
		}
		return nil, fmt.Errorf("git %s: %w", args[0], waitErr)
	}
	if readErr != nil {
		return nil, fmt.Errorf("read git %s output: %w", args[0], readErr)
	}
	return out, nil
}

var errOutputLimit = errors.New("git output limit exceeded")

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
