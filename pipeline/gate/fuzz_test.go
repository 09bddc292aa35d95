package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckCode: any snippet gets a verdict without panicking, and a non-ok
// verdict points into the user's code.
func FuzzCheckCode(f *testing.F) {
	for _, c := range v8Cases {
		f.Add(c.code, c.fn)
	}
	for _, c := range undecidedCases {
		f.Add(c.code, c.fn)
	}
	f.Fuzz(func(t *testing.T, code string, fn bool) {
		kind := KindCode
		if fn {
			kind = KindFunction
		}
		res := checkCode(kind, code)
		switch res.Verdict {
		case VerdictOK:
			if res.Line != 0 {
				t.Fatalf("ok with a position: %+v", res)
			}
		case VerdictSyntaxError, VerdictUndecided:
			if res.Message == "" {
				t.Fatalf("no message: %+v", res)
			}
			lines := len(lineStarts(code))
			if res.Line > lines || res.Column < 0 {
				t.Fatalf("position %d:%d outside the code (%d lines): %+v", res.Line, res.Column, lines, res)
			}
		default:
			t.Fatalf("verdict %q", res.Verdict)
		}
	})
}

// FuzzCheckExport: any bytes give a report without panicking; a report
// without problems and with every node ok is ok.
func FuzzCheckExport(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/golden/*.json")
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(data, true)
		}
	}
	for _, c := range v8Cases[:20] {
		wf, _ := json.Marshal(map[string]any{"nodes": []any{map[string]any{
			"name": c.name, "type": TypeCode, "parameters": map[string]any{"jsCode": c.code, "x": "={{ " + c.code + " }}"}}}})
		f.Add(wf, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, expressions bool) {
		rep := CheckExport("fuzz.json", data, Options{Expressions: expressions})
		allOK := len(rep.Problems) == 0
		for _, n := range rep.Nodes {
			allOK = allOK && n.OK
		}
		if rep.OK != allOK {
			t.Fatalf("report ok=%v but nodes/problems say %v: %+v", rep.OK, allOK, rep)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
	})
}
