package cochange

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LogArgs are the arguments of the `git log` whose output ReadLog reads:
// the first-parent history from at, newest first, each commit's files
// against its first parent (a merge's too: the branch it brought in),
// without rename detection (a rename lists both paths, and git reads no
// file content, which a blob-less mirror would have to fetch).
func LogArgs(at string, b Bounds) []string {
	return []string{"log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--name-only",
		"--format=%x1e%H %ct", "-n", strconv.Itoa(b.MaxCommits + 1), at, "--"}
}

// ReadLog reads LogArgs' output from r into add, until add answers false
// or r ends. Paths git quoted (core.quotepath, unusual characters) are
// unquoted.
func ReadLog(r io.Reader, add func(Commit) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur *Commit
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "\x1e"); ok {
			if cur != nil && !add(*cur) {
				return nil
			}
			c, err := header(rest)
			if err != nil {
				return err
			}
			cur = &c
			continue
		}
		if line == "" {
			continue
		}
		if cur == nil {
			return fmt.Errorf("cochange: git log: a path before any commit: %q", line)
		}
		if strings.HasPrefix(line, `"`) {
			if u, err := strconv.Unquote(line); err == nil {
				line = u
			}
		}
		cur.Paths = append(cur.Paths, line)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if cur != nil {
		add(*cur)
	}
	return nil
}

// header parses "<id> <unix time>".
func header(s string) (Commit, error) {
	id, t, ok := strings.Cut(s, " ")
	if !ok || id == "" {
		return Commit{}, errors.New("cochange: git log: a commit line without its time")
	}
	sec, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return Commit{}, fmt.Errorf("cochange: git log: commit %s: time %q: %w", id, t, err)
	}
	return Commit{ID: id, Time: sec}, nil
}
