package gate

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestDifferentialMutations feeds mutated snippets to the gate and to V8
// (node, spawned once) and reports every disagreement by class. The
// snippets are the repository's own: the valid Code node cases of
// differential_test.go and the Code nodes of testdata/golden, plus the
// corpus's when PRSCOUT_CORPUS names one. It checks
// PRSCOUT_DIFFERENTIAL mutants (default differentialDefault, a second or
// so); PRSCOUT_DIFFERENTIAL_SEED picks another set. It needs node, which
// the test command installs.
func TestDifferentialMutations(t *testing.T) {
	n := differentialCount(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	var snippets []string
	for _, c := range v8Cases {
		if c.ok && !c.fn {
			snippets = append(snippets, c.code)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if os.Getenv("PRSCOUT_CORPUS") != "" {
		dir := corpusDir(t)
		more, _ := filepath.Glob(filepath.Join(dir, "workflows", "*", "*", "*.json"))
		files = append(files, more...)
		more, _ = filepath.Glob(filepath.Join(dir, "workflows", "*", "*.json"))
		files = append(files, more...)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var wf struct {
			Nodes []struct {
				Type       string         `json:"type"`
				Parameters map[string]any `json:"parameters"`
			} `json:"nodes"`
		}
		if json.Unmarshal(data, &wf) != nil {
			continue
		}
		for _, nd := range wf.Nodes {
			if s, ok := nd.Parameters["jsCode"].(string); ok && nd.Type == TypeCode && len(s) < 4000 {
				snippets = append(snippets, s)
			}
		}
	}
	if len(snippets) < 20 {
		t.Fatalf("only %d snippets to mutate", len(snippets))
	}
	seed, _ := strconv.ParseInt(os.Getenv("PRSCOUT_DIFFERENTIAL_SEED"), 10, 64)
	rng := rand.New(rand.NewSource(seed + 1))
	t.Logf("seed %d", seed)
	inserts := []string{"}", "};", "{", ")", "(", "/", "//", "/*", "`", "'", "\"", "<!--", "-->", "08", "\\", "await ", "for await ", "import(", "#", "@", ";", ",", "?.", "=>", "let ", "const ", "\n", "/a(/", "/[/", "/(?<a>)/", "${", "class ", "yield "}
	var muts []string
	for len(muts) < n {
		s := snippets[rng.Intn(len(snippets))]
		i := rng.Intn(len(s) + 1)
		switch rng.Intn(3) {
		case 0: // delete a run of bytes
			j := i + 1 + rng.Intn(3)
			if j > len(s) {
				j = len(s)
			}
			s = s[:i] + s[j:]
		default: // insert a token
			s = s[:i] + inserts[rng.Intn(len(inserts))] + s[i:]
		}
		if !strings.ContainsRune(s, '\uFFFD') {
			muts = append(muts, strings.ToValidUTF8(s, ""))
		}
	}
	type in struct {
		Kind string `json:"kind"`
		Code string `json:"code"`
	}
	input := make([]in, len(muts))
	for i, m := range muts {
		input[i] = in{"code", m}
	}
	body, _ := json.Marshal(input)
	cmd := exec.Command(node, "testdata/v8verdicts.mjs")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var v8 []struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(out, &v8); err != nil || len(v8) != len(muts) {
		t.Fatalf("node output: %v", err)
	}
	var agree, falseAlarms, misses, undecided int
	classes := map[string]int{}
	for i, m := range muts {
		res := checkCode(KindCode, m)
		switch {
		case res.Verdict == VerdictUndecided:
			undecided++
		case (res.Verdict == VerdictOK) == v8[i].OK:
			agree++
		case v8[i].OK:
			falseAlarms++
			classes["false alarm: "+res.Message]++
			t.Logf("false alarm (V8 ok), gate: %s at %d:%d: %q in %q", res.Message, res.Line, res.Column, excerptAround(m, res.Line), m)
		default:
			misses++
			classes["miss: "+v8[i].Message]++
			t.Logf("miss: V8 %s; gate ok: %q", v8[i].Message, m)
		}
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%4d  %s", classes[k], k)
	}
	t.Logf("mutants (seed %d): %d: %d agreements, %d false alarms, %d misses, %d undecided", seed, len(muts), agree, falseAlarms, misses, undecided)
	if falseAlarms+misses > 0 {
		t.Errorf("%d disagreements with V8", falseAlarms+misses)
	}
}

// differentialDefault is how many cases each differential test checks when
// PRSCOUT_DIFFERENTIAL does not say: enough to catch a regression in the
// common paths, few enough for every run of the test command.
const differentialDefault = 300

// differentialCount is PRSCOUT_DIFFERENTIAL, or differentialDefault.
func differentialCount(t *testing.T) int {
	v := os.Getenv("PRSCOUT_DIFFERENTIAL")
	if v == "" {
		return differentialDefault
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("PRSCOUT_DIFFERENTIAL=%q: want a positive count", v)
	}
	return n
}

func excerptAround(code string, line int) string {
	return lineText(code, line)
}
