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

// corpusDir finds the n8n workflow corpus: $PRSCOUT_CORPUS, or
// <dir>/shared/corpus/n8n-workflows for the working directory or any parent.
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
		tb.Skip("no working directory")
	}
	for {
		d := filepath.Join(dir, "shared", "corpus", "n8n-workflows")
		if _, err := os.Stat(filepath.Join(d, "VERDICTS.tsv")); err == nil {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("corpus shared/corpus/n8n-workflows not found (set PRSCOUT_CORPUS)")
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
	return out
}

// TestCorpusAgreesWithV8 checks every snippet of the corpus and compares the
// gate's verdict with V8's (VERDICTS.tsv, produced by check_v8.mjs).
func TestCorpusAgreesWithV8(t *testing.T) {
	dir := corpusDir(t)
	want := readVerdicts(t, dir)
	got := map[string][]NodeResult{}
	files := map[string]bool{}
	for _, v := range want {
		files[v.file] = true
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
	var agree, falseAlarms, misses, lineDiff int
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
			if v.verdict == VerdictSyntaxError && n.Error != nil && n.Error.Line != v.line {
				lineDiff++
				t.Logf("line differs: %s %q: V8 line %d %s; gate line %d %s", v.file, v.node, v.line, v.message, n.Error.Line, n.Error.Message)
			}
		case v.verdict == VerdictOK:
			falseAlarms++
			t.Errorf("false alarm: %s node %d %q: V8 ok; gate %s: %+v", v.file, v.index, v.node, n.Verdict, n.Error)
		default:
			misses++
			t.Errorf("miss: %s node %d %q: V8 %s (line %d); gate %s %+v", v.file, v.index, v.node, v.message, v.line, n.Verdict, n.Error)
		}
	}
	t.Logf("corpus: %d snippets: %d agreements, %d false alarms, %d misses (%d syntax errors on another line than V8's)",
		len(want), agree, falseAlarms, misses, lineDiff)
	fmt.Printf("corpus: %d snippets: %d agreements, %d false alarms, %d misses\n", len(want), agree, falseAlarms, misses)
}

// tsvField is check_v8.mjs's field cleaning (tabs and newlines become a space).
func tsvField(s string) string { return tsvSpace.ReplaceAllString(s, " ") }

var tsvSpace = regexp.MustCompile(`[\t\r\n]+`)
