package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates"
)

// gitTree is a candidates.Tree over a git checkout whose work tree is at the
// head commit: Grep runs git grep on the tracked files, ReadFile and ListDir
// read the work tree.
type gitTree struct{ dir string }

var _ candidates.Tree = gitTree{}

func (t gitTree) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	if len(words) == 0 {
		return nil, nil
	}
	// One extended regular expression w1|w2|... costs git grep a third of
	// the CPU time of as many -F -e patterns (measured on 57 words over
	// 2,000 Go files).
	alt := make([]string, len(words))
	for i, w := range words {
		alt[i] = escapeERE(w)
	}
	args := []string{"-C", t.dir, "grep", "-l", "-z", "-w", "-E", "-I", "--no-color", "-e", strings.Join(alt, "|")}
	if len(globs) > 0 {
		args = append(append(args, "--"), globs...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("git grep: %w: %s", err, stderr.String())
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
		if limit > 0 && len(paths) >= limit {
			break
		}
	}
	return paths, nil
}

func (t gitTree) local(p string) (string, error) {
	c := path.Clean("/" + p)
	if c == "/" {
		return "", fmt.Errorf("path %q names no file", p)
	}
	return filepath.Join(t.dir, filepath.FromSlash(c[1:])), nil
}

func (t gitTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	l, err := t.local(p)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(l)
}

func (t gitTree) ListDir(_ context.Context, dir string) ([]string, error) {
	d := t.dir
	if dir != "" && dir != "." {
		l, err := t.local(dir)
		if err != nil {
			return nil, err
		}
		d = l
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			if dir == "" || dir == "." {
				out = append(out, e.Name())
			} else {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return out, nil
}

// escapeERE quotes the POSIX extended regular expression metacharacters of s.
func escapeERE(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
