package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateValidate = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestValidateWorkflowExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"valid folder, recursive", []string{"testdata/validate/good"}, 0},
		{"valid file", []string{"testdata/validate/good/review.json"}, 0},
		{"invalid node", []string{"testdata/validate/bad/comment-brace.json"}, 1},
		{"invalid node, expressions off", []string{"--expressions=false", "testdata/validate/bad"}, 1},
		{"mixed folders", []string{"testdata/validate/good", "testdata/validate/bad"}, 1},
		{"missing path", []string{"testdata/validate/nope.json"}, 2},
		{"not a workflow", []string{"../../pipeline/gate/testdata/golden/not-a-workflow.json"}, 2},
		{"no arguments", nil, 2},
		{"bad format", []string{"--format", "xml", "testdata/validate/good"}, 2},
		{"unknown flag", []string{"--nope", "testdata/validate/good"}, 2},
		{"help", []string{"-h"}, 0},
		{"undecided fails closed", []string{"../../pipeline/gate/testdata/golden/array-export.json"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := runValidateWorkflow(tc.args, &out, &errOut); got != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tc.code, out.String(), errOut.String())
			}
		})
	}
}

func TestValidateWorkflowAllowUndecided(t *testing.T) {
	dir := t.TempDir()
	wf := `{"nodes":[{"name":"C","type":"n8n-nodes-base.code","parameters":{"jsCode":"f() = 1;"}}],"connections":{}}`
	path := filepath.Join(dir, "u.json")
	if err := os.WriteFile(path, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if got := runValidateWorkflow([]string{path}, &out, &out); got != 1 {
		t.Errorf("default: exit %d, want 1 (fail closed)\n%s", got, out.String())
	}
	out.Reset()
	if got := runValidateWorkflow([]string{"--allow-undecided", path}, &out, &out); got != 0 {
		t.Errorf("--allow-undecided: exit %d, want 0\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "UNDECIDED") {
		t.Errorf("undecided node not listed:\n%s", out.String())
	}
}

// TestValidateWorkflowGolden pins the CLI's text and JSON output.
func TestValidateWorkflowGolden(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runValidateWorkflow([]string{"--format", format, "testdata/validate/good", "testdata/validate/bad"}, &out, &errOut)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr: %s", code, errOut.String())
			}
			if format == "json" {
				var rep struct {
					OK    *bool `json:"ok"`
					Nodes []struct {
						File, Workflow, Node, Type string
						OK                         *bool
						Error                      *struct {
							Message      string
							Line, Column int
						}
					} `json:"nodes"`
				}
				if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.OK == nil || *rep.OK || len(rep.Nodes) == 0 {
					t.Fatalf("JSON report lacks the issue's fields: %v\n%s", err, out.String())
				}
			}
			golden := filepath.Join("testdata", "validate", "report."+format+".golden")
			if *updateValidate {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/prscout -run TestValidateWorkflowGolden -update)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", golden, out.String(), want)
			}
		})
	}
}

// TestAbuseCLINestingTooDeep: the CLI died of a stack overflow at 300 k
// parentheses; such nodes are now refused, explained, and fail the run.
func TestAbuseCLINestingTooDeep(t *testing.T) {
	dir := t.TempDir()
	code := strings.Repeat("(", 300_000) + "1" + strings.Repeat(")", 300_000)
	wf, _ := json.Marshal(map[string]any{"nodes": []any{map[string]any{"name": "Deep", "type": "n8n-nodes-base.code", "parameters": map[string]any{"jsCode": code}}}})
	path := filepath.Join(dir, "deep.json")
	if err := os.WriteFile(path, wf, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{path}, {"--allow-undecided", path}, {"--max-depth", "10000", path}} {
		var out, errOut bytes.Buffer
		if got := runValidateWorkflow(args, &out, &errOut); got != 1 {
			t.Errorf("%v: exit %d, want 1\n%s%s", args, got, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), "REFUSED") || !strings.Contains(out.String(), "levels deep") {
			t.Errorf("%v: report does not explain the refusal:\n%.500s", args, out.String())
		}
		if len(out.String()) > 4000 {
			t.Errorf("%v: report of %d bytes for one line of code", args, len(out.String()))
		}
	}
	var out, errOut bytes.Buffer
	if got := runValidateWorkflow([]string{"--max-depth", "1000000", path}, &out, &errOut); got != 2 {
		t.Errorf("--max-depth 1000000: exit %d, want 2", got)
	}
}
