package jsregexp

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRegExpDifferential compares validate with V8 on random patterns
// built from regexp syntax pieces, in non-unicode, u and v modes: as many
// as differentialCount says. It needs node.
func TestRegExpDifferential(t *testing.T) {
	n := differentialCount(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	pieces := []string{"a", "b", "z", "0", "1", "9", "-", "^", "$", ".", "*", "+", "?", "{", "}", "{2}", "{1,}", "{3,1}", "{,2}",
		"(", ")", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>", "(?<m>", "\\k<n>", "\\k", "[", "]", "[^", "|",
		"\\d", "\\w", "\\s", "\\b", "\\B", "\\1", "\\2", "\\0", "\\00", "\\8", "\\c", "\\cA", "\\c1", "\\x4", "\\x41", "\\u00", "\\u0041",
		"\\u{41}", "\\u{110000}", "\\p{L}", "\\p{Lu}", "\\P{Script=Latin}", "\\p{Foo}", "\\p", "\\q{ab|c}", "\\-", "\\/", "\\a", "\\]",
		"&&", "--", "!!", "##", "~", "\\&", "😀", "é"}
	flagsSet := []string{"", "", "u", "v", "i", "gu"}
	rng := rand.New(rand.NewSource(3))
	type rc struct{ p, f string }
	var cases []rc
	for len(cases) < n {
		var b strings.Builder
		for k := 1 + rng.Intn(6); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		p := b.String()
		// A literal cannot start with * (that is a comment) or hold a bare /.
		if strings.HasPrefix(p, "*") || strings.HasSuffix(p, "\\") || strings.Contains(p, "/") && !strings.Contains(p, "\\/") {
			continue
		}
		cases = append(cases, rc{p, flagsSet[rng.Intn(len(flagsSet))]})
	}
	input := make([][2]string, len(cases))
	for i, c := range cases {
		input[i] = [2]string{c.p, c.f}
	}
	body, _ := json.Marshal(input)
	cmd := exec.Command(node, "testdata/v8regexps.mjs")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var v8 []string
	if err := json.Unmarshal(out, &v8); err != nil || len(v8) != len(cases) {
		t.Fatalf("node output: %v", err)
	}
	var agree, bad, und int
	for i, c := range cases {
		msg, undecided := validate(c.p, c.f)
		switch {
		case undecided:
			und++
		case (msg == "") == (v8[i] == ""):
			agree++
		default:
			bad++
			if bad <= 40 {
				t.Errorf("/%s/%s: V8 %q, gate %q", c.p, c.f, v8[i], msg)
			}
		}
	}
	t.Logf("regexps: %d: %d agreements, %d disagreements, %d undecided", len(cases), agree, bad, und)
}

// differentialDefault is how many patterns TestRegExpDifferential checks when
// PRSCOUT_DIFFERENTIAL does not say, as for pipeline/gate's differential tests.
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
