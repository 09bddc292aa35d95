package gate

import (
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/prscout/prscout/internal/testalloc"
)

// Inputs built to take the checker down (issue: "one request kills the
// server"): each must get a quick, explained verdict that fails closed, in
// bounded memory, and never reach goja's recursive parser when too deep.

// exportOf is a one-workflow export whose nodes have the given parameters.
func exportOf(tb testing.TB, typ string, params ...map[string]any) []byte {
	tb.Helper()
	var nodes []any
	for i, p := range params {
		nodes = append(nodes, map[string]any{"name": "n" + strings.Repeat("x", i%2), "type": typ, "parameters": p})
	}
	data, err := json.Marshal(map[string]any{"name": "abuse", "nodes": nodes, "connections": map[string]any{}})
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// onlyResult returns the single node result of rep.
func onlyResult(tb testing.TB, rep Report) NodeResult {
	tb.Helper()
	if len(rep.Nodes) != 1 {
		tb.Fatalf("want 1 node result, got %d: %+v (problems %+v)", len(rep.Nodes), rep.Nodes, rep.Problems)
	}
	return rep.Nodes[0]
}

func TestAbuseNestingTooDeep(t *testing.T) {
	cases := []struct {
		name, code string
		expr       bool
	}{
		{"a million parentheses", strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000), false},
		{"a million open parentheses", strings.Repeat("(", 1_000_000), false},
		{"deep arrays", "x = " + strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000), false},
		{"deep objects", "x = " + strings.Repeat("{a:", 200_000) + "1" + strings.Repeat("}", 200_000), false},
		{"deep template substitutions", "x = " + strings.Repeat("`${", 100_000) + "1" + strings.Repeat("}`", 100_000), false},
		{"500k nested blocks", strings.Repeat("{", 500_000) + strings.Repeat("}", 500_000), false},
		{"unary chain", "x = " + strings.Repeat("!", 500_000) + "1", false},
		{"binary chain", "x = 1" + strings.Repeat("+1", 200_000), false},
		{"expression of parentheses", "={{ " + strings.Repeat("(", 1_000_000) + " }}", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"jsCode": tc.code}
			typ := TypeCode
			if tc.expr {
				params = map[string]any{"url": tc.code}
				typ = "n8n-nodes-base.httpRequest"
			}
			data := exportOf(t, typ, params)
			var rep Report
			alloc := testalloc.Bytes(func() { rep = CheckExport("abuse.json", data, Options{Expressions: true, AllowUndecided: true}) })
			n := onlyResult(t, rep)
			if n.Verdict != VerdictTooDeep && n.Verdict != VerdictTooLarge {
				t.Fatalf("verdict %s, want too_deep or too_large: %+v", n.Verdict, n.Error)
			}
			if n.OK || rep.OK {
				t.Errorf("a refused node must fail closed, even with AllowUndecided: %+v", n)
			}
			if n.Error == nil || !strings.Contains(n.Error.Message, "not") {
				t.Errorf("no explanation: %+v", n.Error)
			}
			if n.Error != nil && len(n.Error.Excerpt) > maxExcerpt+2*len("…") {
				t.Errorf("excerpt of %d bytes: a long line must be cut", len(n.Error.Excerpt))
			}
			// The export itself is a few MB; parsing it to the bottom would
			// take gigabytes of stack.
			if limit := uint64(16*len(data)) + 32<<20; alloc > limit {
				t.Errorf("allocated %d MB for a %d KB export", alloc>>20, len(data)>>10)
			}
		})
	}
}

// TestAbuseNestingProperty: nesting of ( [ {a: and `${ in random order
// around a value, up to a million deep, never crashes; the nesting figure is
// exact for such code, so the verdict is ok up to the limit and too_deep
// above it.
func TestAbuseNestingProperty(t *testing.T) {
	lim := Limits{MaxCodeBytes: 16 << 20}.WithDefaults()
	r := newRun(context.Background(), lim)
	base, _, _ := nestingDepth(taskRunnerPrefix+"x = 1"+taskRunnerSuffix, 1<<30)
	rng := rand.New(rand.NewSource(11))
	depths := []int{0, 1, lim.MaxDepth - base - 1, lim.MaxDepth - base, lim.MaxDepth - base + 1, 1_000_000}
	for i := 0; i < 40; i++ {
		depths = append(depths, rng.Intn(2*lim.MaxDepth))
	}
	for i := 0; i < 4; i++ {
		depths = append(depths, rng.Intn(1_000_000))
	}
	for _, n := range depths {
		code := "x = " + randomNesting(rng, n, "1")
		got, _, _ := nestingDepth(taskRunnerPrefix+code+taskRunnerSuffix, 1<<30)
		if n < 10_000 && got != base+n {
			t.Errorf("depth %d: figure %d, want %d", n, got, base+n)
		}
		res := r.checkCode(KindCode, code)
		want := VerdictOK
		if base+n > lim.MaxDepth {
			want = VerdictTooDeep
		}
		if res.Verdict != want {
			t.Errorf("depth %d (figure %d, limit %d): verdict %s %q, want %s", n, base+n, lim.MaxDepth, res.Verdict, res.Message, want)
		}
	}
}

// randomNesting wraps value in n random wrappers: ( ), [ ], {a: }, `${ }`.
func randomNesting(rng *rand.Rand, n int, value string) string {
	open := make([]byte, n)
	var b strings.Builder
	for i := range open {
		open[i] = "([{$"[rng.Intn(4)]
		switch open[i] {
		case '(', '[':
			b.WriteByte(open[i])
		case '{':
			b.WriteString("{a:")
		case '$':
			b.WriteString("`${")
		}
	}
	b.WriteString(value)
	for i := n - 1; i >= 0; i-- {
		switch open[i] {
		case '(':
			b.WriteByte(')')
		case '[':
			b.WriteByte(']')
		case '{':
			b.WriteByte('}')
		case '$':
			b.WriteString("}`")
		}
	}
	return b.String()
}

// FuzzNestingDepth: for nesting built from the fuzzer's wrapper choices, the
// figure is exact and the verdict follows the limit; for any text, the scan
// neither panics nor reports a figure over the limit without stopping.
func FuzzNestingDepth(f *testing.F) {
	f.Add([]byte("([{$"), uint32(3), "x = /re/g; y = a / b")
	f.Add([]byte("$$$$"), uint32(100000), "`${`${1}`}`")
	f.Add([]byte("{"), uint32(600), "if (a) /x/.test(b)")
	f.Fuzz(func(t *testing.T, choice []byte, n uint32, text string) {
		lim := Limits{MaxCodeBytes: 16 << 20, MaxDepth: 200}.WithDefaults()
		if _, off, over := nestingDepth(text, lim.MaxDepth); over && (off < 0 || off > len(text)) {
			t.Fatalf("offset %d outside the text", off)
		}
		if len(choice) == 0 {
			return
		}
		n %= 300_000
		var b, e strings.Builder
		for i := 0; i < int(n); i++ {
			switch choice[i%len(choice)] % 4 {
			case 0:
				b.WriteString("(")
				e.WriteString(")")
			case 1:
				b.WriteString("[")
				e.WriteString("]")
			case 2:
				b.WriteString("{a:")
				e.WriteString("}")
			case 3:
				b.WriteString("`${")
				e.WriteString("}`")
			}
		}
		end := []byte(e.String())
		for i, j := 0, len(end)-1; i < j; i, j = i+1, j-1 {
			end[i], end[j] = end[j], end[i]
		}
		// Reversing "}`" pairs gives "`}": rebuild the closers in order.
		closers := strings.NewReplacer("`}", "}`").Replace(string(end))
		code := "x = " + b.String() + "1" + closers
		r := newRun(context.Background(), lim)
		base, _, _ := nestingDepth(taskRunnerPrefix+"x = 1"+taskRunnerSuffix, 1<<30)
		res := r.checkCode(KindCode, code)
		want := VerdictOK
		if base+int(n) > lim.MaxDepth {
			want = VerdictTooDeep
		}
		if res.Verdict != want {
			t.Fatalf("n=%d: verdict %s %q, want %s", n, res.Verdict, res.Message, want)
		}
	})
}

func TestAbuseStatementsTooLarge(t *testing.T) {
	t.Run("25 MB export", func(t *testing.T) {
		data := exportOf(t, TypeCode, map[string]any{"jsCode": strings.Repeat("x = x + 1;\n", 2_500_000)})
		var rep Report
		alloc := testalloc.Bytes(func() { rep = CheckExport("abuse.json", data, Options{}) })
		if rep.OK || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "over the limit") {
			t.Fatalf("want one problem naming the limit, got %+v", rep.Problems)
		}
		if alloc > 8<<20 {
			t.Errorf("allocated %d MB", alloc>>20)
		}
	})
	t.Run("2 MB snippet", func(t *testing.T) {
		data := exportOf(t, TypeCode, map[string]any{"jsCode": strings.Repeat("x = x + 1;\n", 200_000)})
		var rep Report
		alloc := testalloc.Bytes(func() { rep = CheckExport("abuse.json", data, Options{}) })
		n := onlyResult(t, rep)
		if n.Verdict != VerdictTooLarge || n.OK || !strings.Contains(n.Error.Message, "1048576") {
			t.Fatalf("got %+v %+v", n, n.Error)
		}
		if alloc > 64<<20 {
			t.Errorf("allocated %d MB", alloc>>20)
		}
	})
	t.Run("workflow budget", func(t *testing.T) {
		snippet := strings.Repeat("x = x + 1;\n", 20_000) // 220 KB
		var params []map[string]any
		for i := 0; i < 6; i++ {
			params = append(params, map[string]any{"jsCode": snippet})
		}
		data := exportOf(t, TypeCode, params...)
		rep := CheckExport("abuse.json", data, Options{Limits: Limits{MaxWorkflowCodeBytes: 1 << 20}})
		var verdicts []string
		for _, n := range rep.Nodes {
			verdicts = append(verdicts, n.Verdict)
		}
		want := []string{"ok", "ok", "ok", "ok", "too_large"}
		if strings.Join(verdicts, " ") != strings.Join(want, " ") || rep.OK {
			t.Fatalf("verdicts %v, want %v (the rest of the workflow left out)", verdicts, want)
		}
	})
	t.Run("too many nodes", func(t *testing.T) {
		var params []map[string]any
		for i := 0; i < 11; i++ {
			params = append(params, map[string]any{"jsCode": "return 1"})
		}
		rep := CheckExport("abuse.json", exportOf(t, TypeCode, params...), Options{Limits: Limits{MaxNodes: 10}})
		if rep.OK || len(rep.Nodes) != 0 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "11 nodes, over the limit of 10") {
			t.Fatalf("got nodes %d, problems %+v", len(rep.Nodes), rep.Problems)
		}
	})
}

func TestAbuseNestedParamsTooDeep(t *testing.T) {
	nested := func(depth int) string {
		return strings.Repeat(`{"a":`, depth) + `"={{ 1 }}"` + strings.Repeat("}", depth)
	}
	t.Run("630 KB of nested keys", func(t *testing.T) {
		depth := 630_000 / 5
		data := []byte(`{"name":"abuse","nodes":[{"name":"n","type":"n8n-nodes-base.set","parameters":` + nested(depth) + `}]}`)
		var rep Report
		alloc := testalloc.Bytes(func() { rep = CheckExport("abuse.json", data, Options{Expressions: true}) })
		if rep.OK || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "nests more than 256 levels") {
			t.Fatalf("problems %+v", rep.Problems)
		}
		if alloc > 8<<20 {
			t.Errorf("allocated %d MB", alloc>>20)
		}
	})
	t.Run("deeper than the parameter limit", func(t *testing.T) {
		data := []byte(`{"name":"abuse","nodes":[{"name":"n","type":"n8n-nodes-base.code","parameters":{"jsCode":"return 1","x":` + nested(100) + `}}]}`)
		rep := CheckExport("abuse.json", data, Options{Expressions: true})
		n := onlyResult(t, rep)
		if n.Verdict != VerdictTooDeep || n.OK || n.Parameter != "parameters" || !strings.Contains(n.Error.Message, "64 levels") {
			t.Fatalf("got %+v %+v", n, n.Error)
		}
	})
	t.Run("long keys", func(t *testing.T) {
		key := strings.Repeat("k", 100_000)
		params := `{"` + key + `":{"` + key + `":{"` + key + `":"={{ ( }}"}}}`
		data := []byte(`{"name":"abuse","nodes":[{"name":"n","type":"n8n-nodes-base.set","parameters":` + params + `}]}`)
		rep := CheckExport("abuse.json", data, Options{Expressions: true})
		n := onlyResult(t, rep)
		if n.Verdict != VerdictSyntaxError || len(n.Parameter) > maxParamPath+len("…") {
			t.Fatalf("verdict %s, parameter path of %d bytes", n.Verdict, len(n.Parameter))
		}
	})
}

func TestAbuseGateTimeBudget(t *testing.T) {
	var params []map[string]any
	for i := 0; i < 50; i++ {
		params = append(params, map[string]any{"jsCode": strings.Repeat("x = x + 1;\n", 20_000)})
	}
	data := exportOf(t, TypeCode, params...)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	rep := CheckExportContext(ctx, "abuse.json", data, Options{})
	if rep.OK || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "time budget ran out") {
		t.Fatalf("problems %+v", rep.Problems)
	}
	if len(rep.Nodes) >= 50 {
		t.Errorf("all %d nodes checked after the budget ran out", len(rep.Nodes))
	}
}

// TestAbuseNestingScanConfusion: lines built so that a scan reading a slash
// the other way than goja would miss the brackets goja nests on. Repeated,
// each would overflow the stack if the scan undercounted; each must be
// refused instead.
func TestAbuseNestingScanConfusion(t *testing.T) {
	open := strings.Repeat("(", 10)
	close := strings.Repeat(")", 10)
	lines := map[string]string{
		"function expression then division": "x = function(){} / " + open + "/ 2\n",
		"block then regexp of closers":      "if(a){}\n/" + close + "/.test(s); " + open + "\n",
		"backtick in an ambiguous slash":    "x = function(){} /`/ + 1\n` " + open + "\n",
		"comment in an ambiguous slash":     "x = function(){} /x/* " + open + "\n*/\n",
		"for await then regexp":             "for await (x of y) /" + close + "/.test(s); " + open + "\n",
		"prefix ++ after a line break":      "a\n++/" + close + "/.lastIndex; " + open + "\n",
		"of as an identifier":               "of / " + open + "/ 2\n",
		"await as an identifier":            "await / " + open + "/ 2\n",
		"object then division":              "x = {} / " + open + "/ 2\n",
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			boundsAST(t, name, line)
			code := strings.Repeat(line, 10_000)
			for _, check := range []func() Result{
				func() Result { return checkCode(KindCode, code) },
				func() Result { return checkCodeExpression(code) },
			} {
				var res Result
				alloc := testalloc.Bytes(func() { res = check() })
				if res.Verdict != VerdictTooDeep {
					t.Fatalf("verdict %s %q, want too_deep", res.Verdict, res.Message)
				}
				if limit := uint64(16*len(code)) + 32<<20; alloc > limit {
					t.Errorf("allocated %d MB for %d KB of code", alloc>>20, len(code)>>10)
				}
			}
		})
	}
}
