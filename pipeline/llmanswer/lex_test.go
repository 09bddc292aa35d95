package llmanswer

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestLexRepairs(t *testing.T) {
	tests := []struct {
		name, in, want string // want: the repaired value, as JSON ("" when the lexer gives up)
		fixes          []string
		cut            bool
		path           string // the lexer's path, keys and "[]" joined by "/"
	}{
		{"clean", `{"a": [1, "x", true, null]}`, `{"a":[1,"x",true,null]}`, nil, false, ""},
		{"single quotes", `{'a': 'it"s'}`, `{"a":"it\"s"}`, []string{"single quotes"}, false, ""},
		{"apostrophe in single quotes", `{'t': 'it's broken'}`, `{"t":"it's broken"}`, []string{"single quotes", "unescaped quotes inside strings"}, false, ""},
		{"smart quotes", `{“a”: “use “x” here”}`, `{"a":"use “x” here"}`, []string{"smart quotes", "unescaped quotes inside strings"}, false, ""},
		{"python", `{"a": None, "b": True, "c": False}`, `{"a":null,"b":true,"c":false}`, []string{"Python None/True/False"}, false, ""},
		{"js literals", `[NaN, Infinity, undefined]`, `[null,null,null]`, []string{"NaN/Infinity/undefined"}, false, ""},
		{"unquoted keys", `{a: 1, b_c: {d$: 2}}`, `{"a":1,"b_c":{"d$":2}}`, []string{"unquoted keys"}, false, ""},
		{"unquoted value", "{\"op\": get_file,\n \"path\": a.go}", `{"op":"get_file","path":"a.go"}`, []string{"unquoted values"}, false, ""},
		{"comments", "{\"a\": 1, // one\n /* two */ \"b\": 2}", `{"a":1,"b":2}`, []string{"comments"}, false, ""},
		{"trailing commas", `{"a": [1, 2,], "b": {"c": 3,},}`, `{"a":[1,2],"b":{"c":3}}`, []string{"trailing commas"}, false, ""},
		{"extra commas", `[,1,,2]`, `[1,2]`, []string{"extra commas"}, false, ""},
		{"missing comma at line end", "[{\"a\": 1}\n{\"a\": 2}]", `[{"a":1},{"a":2}]`, []string{"missing commas"}, false, ""},
		{"missing comma on one line", `{"a": "x" "b": 1}`, "", nil, false, ""},
		{"missing closer", `{"a": [1, 2}`, `{"a":[1,2]}`, []string{"missing closing brackets"}, false, ""},
		{"stray closer", `{"a": 1]}`, `{"a":1}`, []string{"stray closing brackets"}, false, ""},
		{"key without value", `{"a": 1, "b": }`, `{"a":1}`, []string{"keys without a value"}, false, ""},
		{"raw newline in string", "{\"a\": \"x\ny\"}", `{"a":"x\ny"}`, []string{"raw control characters in strings"}, false, ""},
		{"windows path", `{"p": "C:\Users\x"}`, `{"p":"C:\\Users\\x"}`, []string{"invalid escapes"}, false, ""},
		{"code in string", `{"c": "f("hi")", "d": 1}`, `{"c":"f(\"hi\")","d":1}`, []string{"unescaped quotes inside strings"}, false, ""},
		{"ellipsis", `[1, 2, ...]`, `[1,2]`, []string{"ellipses"}, false, ""},
		{"ellipsis first", `[..., 1]`, `[1]`, []string{"extra commas", "ellipses"}, false, ""},
		{"ellipsis member", `{"a": 1, ..., "b": 2}`, `{"a":1,"b":2}`, []string{"ellipses"}, false, ""},
		{"prose inside", `{"a": 1 and more}`, "", nil, false, ""},
		// Cut answers.
		{"cut in string", `{"a": [{"b": "he sa`, `{"a":[{"b":"he sa"}]}`, nil, true, "a/[]/b"},
		{"cut in key", `{"a": [{"b": 1, "c`, `{"a":[{"b":1}]}`, nil, true, "a/[]"},
		{"cut after colon", `{"a": [{"b": 1, "c":`, `{"a":[{"b":1}]}`, nil, true, "a/[]"},
		{"cut after comma", `{"a": [{"b": 1},`, `{"a":[{"b":1}]}`, nil, true, "a"},
		{"cut in literal", `{"a": [1, tru`, `{"a":[1]}`, nil, true, "a"},
		{"cut in number", `{"a": [1, 23`, `{"a":[1,23]}`, nil, true, "a/[]"},
		{"cut in escape", `{"a": "x\`, `{"a":"x"}`, nil, true, "a"},
		{"cut after bracket", `[`, `[]`, nil, true, ""},
		{"cut in comment", "{\"a\": 1 /* no", `{"a":1}`, []string{"comments"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lexValue(tt.in, true)
			if tt.want == "" {
				if !l.bad {
					if _, err := decodeWhole(l.out); err == nil {
						t.Fatalf("lexer repaired %q into %s; want it to give up", tt.in, l.out)
					}
				}
				return
			}
			if l.bad {
				t.Fatalf("lexer gave up on %q (out %s)", tt.in, l.out)
			}
			got, err := decodeWhole(l.out)
			if err != nil {
				t.Fatalf("repaired %q into invalid JSON %s: %v", tt.in, l.out, err)
			}
			var want any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if g, _ := json.Marshal(got); string(g) != mustCompact(t, tt.want) {
				t.Errorf("repaired %q into %s, want %s", tt.in, g, tt.want)
			}
			if names := l.fixes.names(); !reflect.DeepEqual(names, tt.fixes) {
				t.Errorf("fixes = %q, want %q", names, tt.fixes)
			}
			if cut := l.fixes&fixCut != 0; cut != tt.cut || l.balanced == tt.cut {
				t.Errorf("cut = %v balanced = %v, want cut %v", cut, l.balanced, tt.cut)
			}
			var steps []string
			for _, s := range l.path {
				if s.isIndex {
					steps = append(steps, "[]")
				} else {
					steps = append(steps, s.key)
				}
			}
			if p := strings.Join(steps, "/"); p != tt.path {
				t.Errorf("path = %q, want %q", p, tt.path)
			}
		})
	}
}

func mustCompact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLexFindsTheEnd(t *testing.T) {
	tests := []struct {
		in       string
		end      int
		balanced bool
	}{
		{`{"a": "}"} tail`, 10, true},
		{`{'a': '}'} tail`, 10, true},
		{`{"a": [1, {"b": 2}]} tail {`, 20, true},
		{"{\"a\": 1 // }\n} tail", 14, true},
		{`{"a": "x`, 8, false},
		{`[[[`, 3, false},
	}
	for _, tt := range tests {
		l := lexValue(tt.in, false)
		if l.end() != tt.end || l.balanced != tt.balanced {
			t.Errorf("%q: end %d balanced %v, want %d %v", tt.in, l.end(), l.balanced, tt.end, tt.balanced)
		}
		if len(l.out) != 0 {
			t.Errorf("%q: find mode built output", tt.in)
		}
	}
}

func TestLexDepthBound(t *testing.T) {
	l := lexValue(strings.Repeat("[", maxDepth+1), true)
	if !l.tooDeep {
		t.Fatal("no depth bound")
	}
	l = lexValue(strings.Repeat("[", maxDepth)+strings.Repeat("]", maxDepth), true)
	if l.tooDeep || !l.balanced {
		t.Fatalf("depth %d refused", maxDepth)
	}
}

func TestStripThink(t *testing.T) {
	tests := []struct {
		in, want string
		blocks   int
		cut      bool
	}{
		{"<think>\nhm\n</think>\n{}", "\n{}", 1, false},
		{"  <think>a</think>{}\n<think>b</think>[]", "  {}\n[]", 2, false},
		{"{}<think>b</think>", "{}<think>b</think>", 0, false},
		{"prefilled thought\n</think>\n{}", "\n{}", 1, false},
		{"<think>\nstill thinking {", "", 1, true},
		{`{"body": "strip the <think> tag"}`, `{"body": "strip the <think> tag"}`, 0, false},
		{`{"body": "</think> is a tag"}`, `{"body": "</think> is a tag"}`, 0, false},
		{"<reasoning>r</reasoning>\n{}", "\n{}", 1, false},
	}
	for _, tt := range tests {
		got, info := stripThink(tt.in)
		if got != tt.want || info.blocks != tt.blocks || info.cutInside != tt.cut {
			t.Errorf("stripThink(%q) = %q %+v, want %q blocks %d cut %v", tt.in, got, info, tt.want, tt.blocks, tt.cut)
		}
	}
}

func TestSplitFences(t *testing.T) {
	text := "a\n```json\n{1}\n```\nb\n````\n```go\nx\n```\n````\n~~~\n{2}\n"
	segs := splitFences(text)
	var got []string
	for _, s := range segs {
		kind := "prose"
		if s.fenced {
			kind = "fenced:" + s.info
			if !s.closed {
				kind += ":open"
			}
		}
		got = append(got, kind+"="+s.text)
	}
	want := []string{"prose=a\n", "fenced:json={1}\n", "prose=b\n", "fenced:=```go\nx\n```\n", "fenced::open={2}\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("segments = %q\nwant %q", got, want)
	}
}
