package diff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitDiff is `git diff --no-index -U<context> a b` of two contents (nil: no
// file, an added or deleted one).
func gitDiff(t *testing.T, dir string, a, b []byte, context int) string {
	t.Helper()
	name := func(n string, data []byte) string {
		if data == nil {
			return os.DevNull
		}
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", fmt.Sprintf("-U%d", context), "--", name("old.txt", a), name("new.txt", b))
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git diff: %v", err)
		}
	}
	return string(out)
}

// randomText is n lines drawn from a few, so that diffs find common runs.
func randomText(r *rand.Rand, n int) []byte {
	words := []string{"a", "b", "c", "func x() {", "}", "", "\treturn 1", "x := 2\r", "  spaced  ", "// note"}
	var b bytes.Buffer
	for range n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// edit changes, adds and removes some lines of text.
func edit(r *rand.Rand, text []byte) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	var out []string
	for _, l := range lines {
		switch r.IntN(10) {
		case 0: // removed
		case 1:
			out = append(out, "changed "+l)
		case 2:
			out = append(out, l, "added\n")
		default:
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
}

func TestOldSideRebuildsGitDiffs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		old := randomText(r, r.IntN(60))
		nw := edit(r, old)
		if r.IntN(4) == 0 && len(old) > 0 {
			old = old[:len(old)-1] // no final newline
		}
		if r.IntN(4) == 0 && len(nw) > 0 {
			nw = nw[:len(nw)-1]
		}
		if r.IntN(20) == 0 {
			nw = nil // deleted
		}
		if len(old) == 0 {
			old = []byte("x\n")
		}
		context := []int{0, 1, 3, 30}[r.IntN(4)]
		section := gitDiff(t, dir, old, nw, context)
		if section == "" {
			continue // the same content
		}
		got, ok := OldSide(section, nw)
		if !ok || !bytes.Equal(got, old) {
			t.Fatalf("case %d (-U%d): OldSide = %q, %v; want %q\nnew %q\n%s", i, context, got, ok, old, nw, section)
		}
	}
}

func TestOldSideRefuses(t *testing.T) {
	newSrc := []byte("a\nb\nc\n")
	good := "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-x\n+b\n c\n"
	if got, ok := OldSide(good, newSrc); !ok || string(got) != "a\nx\nc\n" {
		t.Fatalf("good section: %q, %v", got, ok)
	}
	for name, sec := range map[string]string{
		"binary":       "diff --git a/f b/f\nindex 1111111..2222222 100644\nBinary files a/f and b/f differ\n",
		"rename only":  "diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n",
		"mode only":    "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n",
		"symlink":      strings.Replace(good, "100644", "120000", 1),
		"submodule":    "diff --git a/s b/s\nindex 1111111..2222222 160000\n--- a/s\n+++ b/s\n@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n",
		"other new":    strings.Replace(good, "+b", "+B", 1),
		"context":      strings.Replace(good, " c\n", " C\n", 1),
		"short hunk":   strings.TrimSuffix(good, " c\n"),
		"beyond new":   strings.Replace(good, "@@ -1,3 +1,3 @@", "@@ -2,3 +2,3 @@", 1),
		"bad header":   strings.Replace(good, "@@ -1,3 +1,3 @@", "@@ -1,3 +1,x @@", 1),
		"stray marker": strings.Replace(good, "@@ -1,3 +1,3 @@\n", "@@ -1,3 +1,3 @@\n\\ No newline at end of file\n", 1),
	} {
		if got, ok := OldSide(sec, newSrc); ok {
			t.Errorf("%s: rebuilt %q", name, got)
		}
	}
}

// FuzzOldSide: no section and content make OldSide panic, and a rebuilt
// old side never holds more lines than the new content and the section
// together (every line comes from one of them).
func FuzzOldSide(f *testing.F) {
	good := "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-x\n+b\n c\n"
	f.Add(good, []byte("a\nb\nc\n"))
	f.Add(good+"\\ No newline at end of file\n", []byte("a\nb\nc"))
	f.Add("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", []byte("x\n"))
	f.Add("diff --git a/f b/f\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", []byte(nil))
	f.Fuzz(func(t *testing.T, section string, newSrc []byte) {
		old, ok := OldSide(section, newSrc)
		if !ok {
			return
		}
		if n, max := bytes.Count(old, []byte("\n")), bytes.Count(newSrc, []byte("\n"))+strings.Count(section, "\n")+1; n > max {
			t.Fatalf("rebuilt %d lines from %d of new content and a %d-line section", n, bytes.Count(newSrc, []byte("\n")), strings.Count(section, "\n"))
		}
	})
}
