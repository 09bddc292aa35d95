package verify

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var ids = []string{"aaaa000000000001", "bbbb000000000002", "cccc000000000003"}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		raw      string
		dropped  []string // ids the answer drops
		readable bool
		cut      bool
		warn     string // a warning that must be given ("" for none)
	}{
		{name: "object", readable: true,
			raw:     `{"verdicts":[{"id":"aaaa000000000001","keep":true,"reason":"real"},{"id":"bbbb000000000002","keep":false,"reason":"the caller checks it"},{"id":"cccc000000000003","keep":true}]}`,
			dropped: []string{"bbbb000000000002"}},
		{name: "bare list with words", readable: true,
			raw:     `[{"id":"AAAA000000000001","verdict":"drop"},{"id":"` + "`bbbb000000000002`" + `","decision":"Keep"},{"id":"cccc000000000003","keep":"false"}]`,
			dropped: []string{"aaaa000000000001", "cccc000000000003"}},
		{name: "in a chat completion, fenced", readable: true,
			raw:     jsonString(t, map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "Here:\n```json\n{\"verdicts\":[{\"id\":\"cccc000000000003\",\"keep\":false,\"reason\":\"not in the code\"}]}\n```"}, "finish_reason": "stop"}}}),
			dropped: []string{"cccc000000000003"}, warn: "no verdict: 2 findings kept"},
		{name: "cut off inside the second verdict", readable: true, cut: true,
			raw:     jsonString(t, `{"verdicts":[{"id":"aaaa000000000001","keep":false,"reason":"dup"},{"id":"bbbb000000000002","keep":fal`),
			dropped: []string{"aaaa000000000001"}, warn: "cut off before their verdicts: 2 findings kept"},
		{name: "unknown id and conflict", readable: true,
			raw:  `{"verdicts":[{"id":"ffff","keep":false},{"id":"aaaa000000000001","keep":false},{"id":"aaaa000000000001","keep":true},{"id":"bbbb000000000002","keep":true},{"id":"cccc000000000003","keep":true}]}`,
			warn: "1 finding not asked about"},
		{name: "prose", raw: jsonString(t, "All findings look fine to me."), warn: "could not be read: every finding is kept"},
		{name: "wrong shape", raw: `{"summary":"x","findings":"none"}`, warn: "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Read(json.RawMessage(tc.raw), ids)
			if o.Readable != tc.readable || o.CutOff != tc.cut {
				t.Fatalf("readable %v cut %v, want %v %v (%+v)", o.Readable, o.CutOff, tc.readable, tc.cut, o)
			}
			var got []string
			for _, id := range ids {
				if _, drop := o.Dropped(id); drop {
					got = append(got, id)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.dropped, ",") {
				t.Errorf("dropped %v, want %v", got, tc.dropped)
			}
			w := strings.Join(o.Warnings, "\n")
			if tc.warn == "" && w != "" || !strings.Contains(w, tc.warn) {
				t.Errorf("warnings %q, want one with %q", w, tc.warn)
			}
		})
	}
}

func TestReadKeepsReason(t *testing.T) {
	o := Read(json.RawMessage(`{"verdicts":[{"id":"aaaa000000000001","keep":false,"reason":"  `+strings.Repeat("x", 500)+`  "}]}`), ids[:1])
	d, drop := o.Dropped(ids[0])
	if !drop || len([]rune(d.Reason)) > 300 || !strings.HasPrefix(d.Reason, "xxx") {
		t.Fatalf("decision %+v, dropped %v", d, drop)
	}
}

func TestPromptGolden(t *testing.T) {
	findings := []Finding{
		{ID: ids[0], Path: "pay/charge.go", Line: 12, Severity: "high", Title: "Amount not checked",
			Body: "A negative amount is charged.", Evidence: "total := amount * rate",
			Code: []CodeLine{{10, "func charge(amount int) {"}, {11, "\trate := 3"}, {12, "\ttotal := amount * rate"}}},
		{ID: ids[1], Path: "README.md", Severity: "low", Title: "Typo\nin title", Evidence: "uses ``` fences"},
	}
	p := Prompt(findings)
	if p.System != systemPrompt {
		t.Error("system prompt changed")
	}
	if Prompt(findings) != p {
		t.Error("the prompt is not deterministic")
	}
	golden := filepath.Join("testdata", "prompt.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(p.User), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if p.User != string(want) {
		t.Errorf("prompt differs from %s (go test -update):\n%s", golden, p.User)
	}
	if !strings.Contains(p.User, "````\nuses ``` fences\n````") {
		t.Error("evidence with a fence inside is not fenced longer")
	}
}

func TestPromptBounded(t *testing.T) {
	var fs []Finding
	for range maxFindings + 5 {
		fs = append(fs, Finding{ID: "x", Path: "a.go", Title: "t", Body: strings.Repeat("b", 10_000)})
	}
	p := Prompt(fs)
	if !strings.Contains(p.User, "5 more findings are not shown") || len(p.User) > maxFindings*(maxTextRunes*4+400) {
		t.Errorf("prompt of %d bytes", len(p.User))
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"verdicts":[{"id":"aaaa000000000001","keep":false}]}`))
	f.Add([]byte(`[{"id":1,"verdict":"drop"}]`))
	f.Add([]byte(`"{\"verdicts\":[{\"id\":\"bbbb000000000002\",\"keep\":tr`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		o := Read(raw, ids)
		for id := range o.Decisions {
			if id != ids[0] && id != ids[1] && id != ids[2] {
				t.Fatalf("decision for %q, not asked about", id)
			}
		}
		if !o.Readable && len(o.Decisions) > 0 {
			t.Fatal("decisions from an unreadable answer")
		}
	})
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	if s, ok := v.(string); ok {
		b, _ := json.Marshal(s)
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
