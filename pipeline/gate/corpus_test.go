package gate

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// skipOrFail ends a test whose corpus is missing or incomplete: outside CI
// it skips (a checkout without the shared corpus), in CI (the CI variable
// set, as CI systems do) it fails, so the corpus check cannot silently stop
// running there.
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s (CI is set: the corpus check must run)", msg)
	}
	tb.Skipf("%s (with CI set this fails)", msg)
}

// corpusDir finds the n8n workflow corpus: $PRSCOUT_CORPUS, or
// <dir>/shared/corpus/n8n-workflows for the working directory or any parent
// (the repository's parent holds shared/).
func corpusDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("PRSCOUT_CORPUS"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "VERDICTS.tsv")); err == nil {
			return d
		}
		tb.Fatalf("PRSCOUT_CORPUS=%s has no VERDICTS.tsv", d)
	}
	dir, err := os.Getwd()
	if err != nil {
		skipOrFail(tb, "no working directory: %v", err)
	}
	for {
		d := filepath.Join(dir, "shared", "corpus", "n8n-workflows")
		if _, err := os.Stat(filepath.Join(d, "VERDICTS.tsv")); err == nil {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			skipOrFail(tb, "corpus shared/corpus/n8n-workflows not found above the working directory (set PRSCOUT_CORPUS)")
		}
		dir = parent
	}
}

type v8Verdict struct {
	file, node, typ, verdict, message string
	line                              int
	index                             int
}

func readVerdicts(tb testing.TB, dir string) []v8Verdict {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "VERDICTS.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []v8Verdict
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	header := true
	for sc.Scan() {
		if header {
			header = false
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 8 {
			tb.Fatalf("VERDICTS.tsv: short row %q", sc.Text())
		}
		v := v8Verdict{file: c[0], node: c[1], typ: c[2], verdict: c[3], message: c[4]}
		fmt.Sscan(c[5], &v.line)
		fmt.Sscan(c[6], &v.index)
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		skipOrFail(tb, "%s has no verdicts", filepath.Join(dir, "VERDICTS.tsv"))
	}
	return out
}

// TestCorpusAgreesWithV8 checks every snippet of the corpus and compares the
// gate's verdict, and for syntax errors the line, with V8's (VERDICTS.tsv,
// produced by check_v8.mjs). Every code node the gate finds in the corpus
// must have a verdict.
func TestCorpusAgreesWithV8(t *testing.T) {
	dir := corpusDir(t)
	want := readVerdicts(t, dir)
	got := map[string][]NodeResult{}
	// Every file VERDICTS.tsv names and every workflow file of the corpus.
	files := map[string]bool{}
	for _, v := range want {
		files[v.file] = true
	}
	err := filepath.WalkDir(filepath.Join(dir, "workflows"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = true
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		rep := CheckExport(f, data, Options{})
		for _, n := range rep.Nodes {
			if n.Check != CheckCodeNode {
				continue
			}
			k := fmt.Sprintf("%s\x00%d\x00%s", f, n.NodeIndex, tsvField(n.Node))
			got[k] = append(got[k], n)
		}
	}
	var agree, falseAlarms, misses, atEnd int
	for _, v := range want {
		k := fmt.Sprintf("%s\x00%d\x00%s", v.file, v.index, v.node)
		if len(got[k]) == 0 {
			t.Errorf("%s node %d %q: not checked by the gate", v.file, v.index, v.node)
			continue
		}
		n := got[k][0]
		got[k] = got[k][1:]
		switch {
		case v.verdict == n.Verdict:
			agree++
			if v.verdict != VerdictSyntaxError || n.Error == nil || n.Error.Line == v.line {
				break
			}
			// An error in the wrapper's closing "\n}()" is on the line after
			// the code for V8; the gate reports it on the code's last line,
			// saying so (errorAt), so that the line exists in the user's code.
			if strings.Contains(n.Error.Message, afterEndOfCode) && v.line == n.Error.Line+1 {
				atEnd++
				break
			}
			t.Errorf("line differs: %s node %d %q: V8 line %d %s; gate line %d %s", v.file, v.index, v.node, v.line, v.message, n.Error.Line, n.Error.Message)
		case v.verdict == VerdictOK:
			falseAlarms++
			t.Errorf("false alarm: %s node %d %q: V8 ok; gate %s: %+v", v.file, v.index, v.node, n.Verdict, n.Error)
		default:
			misses++
			t.Errorf("miss: %s node %d %q: V8 %s (line %d); gate %s %+v", v.file, v.index, v.node, v.message, v.line, n.Verdict, n.Error)
		}
	}
	t.Logf("corpus: %d snippets: %d agreements (%d errors after the end of the code reported on its last line), %d false alarms, %d misses",
		len(want), agree, atEnd, falseAlarms, misses)
	fmt.Printf("corpus: %d snippets: %d agreements, %d false alarms, %d misses\n", len(want), agree, falseAlarms, misses)

	// Code nodes the gate checked that VERDICTS.tsv does not list: the
	// verdicts are stale against the corpus. Python Code nodes are skipped
	// by both sides.
	var unlisted []string
	for k, rest := range got {
		for _, n := range rest {
			if n.Verdict != VerdictSkipped {
				unlisted = append(unlisted, fmt.Sprintf("%s node %d %q", strings.SplitN(k, "\x00", 2)[0], n.NodeIndex, n.Node))
			}
		}
	}
	if len(unlisted) > 0 {
		sort.Strings(unlisted)
		skipOrFail(t, "%d code node(s) the gate checks have no V8 verdict (regenerate VERDICTS.tsv with check_v8.mjs): %s",
			len(unlisted), strings.Join(unlisted[:min(len(unlisted), 20)], "; "))
	}
}

// afterEndOfCode is the note errorAt adds when an error lies in the
// wrapper's closing text.
const afterEndOfCode = "(after the end of the code:"

// tsvField is check_v8.mjs's field cleaning (tabs and newlines become a space).
func tsvField(s string) string { return tsvSpace.ReplaceAllString(s, " ") }

var tsvSpace = regexp.MustCompile(`[\t\r\n]+`)
