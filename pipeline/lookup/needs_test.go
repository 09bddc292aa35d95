package lookup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// scoutText encodes s as the JSON string n8n sends for a raw LLM answer.
func scoutText(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func needsIn(scout json.RawMessage, files ...pipeline.ChangedFile) NeedsInput {
	if files == nil {
		files = []pipeline.ChangedFile{{Path: "src/a.go"}, {Path: "src/b.go"}}
	}
	return NeedsInput{Workspace: "ws", RepoSlug: "repo", Ref: "abc123", Files: files, Scout: scout}
}

func mustNeeds(t *testing.T, in NeedsInput) NeedsResult {
	t.Helper()
	res, err := Needs(in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatalf("Needs: %v", err)
	}
	checkNeedsInvariants(t, res, pipeline.DefaultLimits())
	return res
}

// checkNeedsInvariants holds for every answer.
func checkNeedsInvariants(t testing.TB, res NeedsResult, lim pipeline.Limits) {
	t.Helper()
	s := res.Stats
	if res.Requests == nil || res.Rejected == nil || res.Warnings == nil {
		t.Fatal("nil requests, rejected or warnings")
	}
	if s.Proposed != s.Accepted+s.Rejected || s.Accepted != len(res.Requests) || s.Rejected != len(res.Rejected) {
		t.Fatalf("counts: proposed %d accepted %d (%d) rejected %d (%d)", s.Proposed, s.Accepted, len(res.Requests), s.Rejected, len(res.Rejected))
	}
	if len(res.Requests) > lim.NeedsTotal {
		t.Fatalf("%d requests > cap %d", len(res.Requests), lim.NeedsTotal)
	}
	if res.Skip != (len(res.Requests) == 0) || s.Placeholder != res.Skip {
		t.Fatalf("skip %v placeholder %v with %d requests", res.Skip, s.Placeholder, len(res.Requests))
	}
	if s.GetFile+s.ListDir != s.Accepted {
		t.Fatalf("getFile %d + listDir %d != accepted %d", s.GetFile, s.ListDir, s.Accepted)
	}
	sum := 0
	for _, n := range s.Reasons {
		sum += n
	}
	if sum != s.Rejected {
		t.Fatalf("reasons sum %d != rejected %d", sum, s.Rejected)
	}
	seen := map[string]bool{}
	for _, r := range res.Requests {
		if r.Op != pipeline.OpGetFile && r.Op != pipeline.OpListDir {
			t.Fatalf("request op %q", r.Op)
		}
		if r.Workspace != res.Workspace || r.RepoSlug != res.RepoSlug || r.Ref != res.Ref {
			t.Fatalf("request %+v lacks the repository address", r)
		}
		if c, reason, err := scope.CheckRequestPath(r.Path, lim); err != nil || c != r.Path {
			t.Fatalf("request path %q not clean: %q %s %v", r.Path, c, reason, err)
		}
		if scope.IsSecretPath(r.Path) {
			t.Fatalf("secret path requested: %q", r.Path)
		}
		k := r.Op + " " + r.Path
		if seen[k] {
			t.Fatalf("duplicate request %s", k)
		}
		seen[k] = true
	}
	for _, rj := range res.Rejected {
		if rj.OK || rj.Error == "" || scope.ReasonMessage(rj.Reason) == "" {
			t.Fatalf("bad rejected entry %+v", rj)
		}
	}
}

func reqPaths(res NeedsResult) []string {
	out := make([]string, len(res.Requests))
	for i, r := range res.Requests {
		out[i] = r.Op + " " + r.Path
	}
	return out
}

func rejReasons(res NeedsResult) []string {
	out := make([]string, len(res.Rejected))
	for i, r := range res.Rejected {
		out[i] = r.Reason + " " + r.Path
	}
	return out
}

func TestNeedsShapes(t *testing.T) {
	want := []string{"get_file src/types.go", "list_dir pkg/util"}
	filesJSON := `{"files":[{"path":"src/a.go","needs":[{"op":"get_file","path":"src/types.go","reason":"type {Foo} defined there"},{"op":"list_dir","path":"pkg/util","reason":"helpers"}]}]}`
	tests := []struct {
		name                string
		scout               json.RawMessage
		source, shape, wrap string
		want                []string
	}{
		{"parsed files object", json.RawMessage(filesJSON), "json", "files", "", want},
		{"text files object", scoutText(filesJSON), "text", "files", "", want},
		{"fenced with prose", scoutText("Here is what I need:\n```json\n" + filesJSON + "\n```\nThanks!"), "fenced", "files", "", want},
		{"fenced no info string", scoutText("```\n" + filesJSON + "\n```"), "fenced", "files", "", want},
		{"unclosed fence", scoutText("```json\n" + filesJSON), "fenced", "files", "", want},
		{"embedded in prose", scoutText("I looked at it [carefully]. " + filesJSON + " That's all {really}."), "embedded", "files", "", want},
		{"top-level array of files", json.RawMessage(`[{"path":"src/a.go","needs":[{"op":"get_file","path":"src/types.go"},{"op":"list_dir","path":"pkg/util"}]}]`), "json", "array", "", want},
		{"single file object", json.RawMessage(`{"path":"src/a.go","needs":["src/types.go",{"op":"list_dir","path":"pkg/util"}]}`), "json", "file", "", want},
		{"flat needs", json.RawMessage(`{"needs":[{"op":"get_file","path":"src/types.go","file":"src/a.go"},{"op":"list_dir","path":"pkg/util","for":"src/b.go"}]}`), "json", "needs", "", want},
		{"flat array of needs", json.RawMessage(`[{"op":"get_file","path":"src/types.go"},{"op":"list_dir","path":"pkg/util"}]`), "json", "array", "", want},
		{"bare strings", scoutText(`["src/types.go"]`), "text", "array", "", want[:1]},
		{"requests shape", json.RawMessage(`{"skip":false,"requests":[{"op":"get_file","path":"src/types.go"},{"op":"list_dir","path":"pkg/util"}]}`), "json", "requests", "", want},
		{"chat completion", json.RawMessage(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":` + string(scoutText("```json\n"+filesJSON+"\n```")) + `}}]}`), "fenced", "files", "choices[0].message.content", want},
		{"chat completion as text", scoutText(`{"choices":[{"text":` + string(scoutText(filesJSON)) + `}]}`), "text", "files", "choices[0].text", want},
		{"n8n output item", json.RawMessage(`{"output":` + string(scoutText(filesJSON)) + `}`), "text", "files", "output", want},
		{"n8n json item", json.RawMessage(`[{"json":` + filesJSON + `}]`), "json", "files", "[*].json", want},
		{"n8n message content", json.RawMessage(`{"message":{"role":"assistant","content":` + string(scoutText(filesJSON)) + `}}`), "text", "files", "message.content", want},
		{"n8n text item", json.RawMessage(`{"text":` + string(scoutText("Sure.\n"+filesJSON)) + `}`), "embedded", "files", "text", want},
		{"double encoded text", scoutText(string(scoutText(filesJSON))), "text", "files", "", want},
		{"brace in string", scoutText(`Note: "}" matters. {"needs":[{"path":"src/types.go","reason":"has a } and a ] inside"}]}`), "embedded", "needs", "", want[:1]},
		{"missing op is get_file", json.RawMessage(`{"needs":[{"path":"src/types.go"}]}`), "json", "needs", "", want[:1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustNeeds(t, needsIn(tt.scout))
			if d := cmp.Diff(tt.want, reqPaths(res)); d != "" {
				t.Errorf("requests (-want +got):\n%s\nrejected: %v\nwarnings: %v", d, rejReasons(res), res.Warnings)
			}
			if res.Stats.ScoutSource != tt.source || res.Stats.ScoutShape != tt.shape || res.Stats.ScoutWrapper != tt.wrap {
				t.Errorf("source/shape/wrapper = %q/%q/%q, want %q/%q/%q", res.Stats.ScoutSource, res.Stats.ScoutShape, res.Stats.ScoutWrapper, tt.source, tt.shape, tt.wrap)
			}
			if res.Stats.ParseError != "" {
				t.Errorf("parseError %q", res.Stats.ParseError)
			}
		})
	}
}

func TestNeedsPlaceholder(t *testing.T) {
	tests := []struct {
		name       string
		scout      json.RawMessage
		parseError bool
	}{
		{"empty text", scoutText(""), false},
		{"blank text", scoutText("  \n "), false},
		{"prose", scoutText("No additional files needed; the diff is self-contained."), false},
		{"empty array", json.RawMessage(`[]`), false},
		{"empty files", json.RawMessage(`{"files":[]}`), false},
		{"files without needs", scoutText("```json\n{\"files\":[{\"path\":\"src/a.go\",\"needs\":[]}]}\n```"), false},
		{"placeholder echoed", json.RawMessage(`{"skip":true,"requests":[]}`), false},
		{"empty object", json.RawMessage(`{}`), false},
		{"null content", json.RawMessage(`{"choices":[{"message":{"content":null}}]}`), false},
		{"unreadable json", scoutText(`Here: {"files": [{"path": "src/a.go" "needs": [} ]} end`), true},
		{"unknown keys", json.RawMessage(`{"answer":"none","confidence":1}`), true},
		{"no choices", json.RawMessage(`{"choices":[]}`), true},
		{"many open braces", scoutText(strings.Repeat("{[", 200_000)), true},
		{"many bracketed words", scoutText(strings.Repeat("see [1] and {x} ", 5_000) + `{"needs":["a.go"]}`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustNeeds(t, needsIn(tt.scout))
			if !res.Skip || !res.Stats.Placeholder || len(res.Requests) != 0 {
				t.Fatalf("not a placeholder: %+v", res)
			}
			if got := res.Stats.ParseError != ""; got != tt.parseError {
				t.Fatalf("parseError %q, want set=%v", res.Stats.ParseError, tt.parseError)
			}
			if tt.parseError && len(res.Warnings) == 0 {
				t.Fatal("parse error without a warning")
			}
			b, _ := json.Marshal(res)
			if !strings.Contains(string(b), `"skip":true`) || !strings.Contains(string(b), `"requests":[]`) {
				t.Fatalf("placeholder JSON %s", b)
			}
		})
	}
}

func TestNeedsInvalid(t *testing.T) {
	tests := []struct {
		name  string
		in    NeedsInput
		field string
	}{
		{"no scout no needs", needsIn(nil), "scout"},
		{"null scout", needsIn(json.RawMessage(`null`)), "scout"},
		{"number scout", needsIn(json.RawMessage(`42`)), "scout"},
		{"bool scout", needsIn(json.RawMessage(`true`)), "scout"},
		{"bad json scout", needsIn(json.RawMessage(`{`)), "scout"},
		{"no workspace", NeedsInput{RepoSlug: "r", Ref: "x", Scout: scoutText("")}, "workspace"},
		{"no repoSlug", NeedsInput{Workspace: "w", Ref: "x", Scout: scoutText("")}, "repoSlug"},
		{"no ref", NeedsInput{Workspace: "w", RepoSlug: "r", Scout: scoutText("")}, "ref"},
		{"empty changed path", needsIn(scoutText(""), pipeline.ChangedFile{Path: "a.go"}, pipeline.ChangedFile{Path: " "}), "files[1].path"},
		{"escaping changed path", needsIn(scoutText(""), pipeline.ChangedFile{Path: "../a.go"}), "files[0].path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Needs(tt.in, pipeline.DefaultLimits())
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InvalidError", err)
			}
			if ie.Field != tt.field || ie.Message == "" {
				t.Fatalf("InvalidError{%q, %q}, want field %q", ie.Field, ie.Message, tt.field)
			}
		})
	}
	// files[].needs alone is enough without a scout.
	in := needsIn(nil, pipeline.ChangedFile{Path: "a.go", Needs: []pipeline.Need{{Op: "get_file", Path: "b.go"}}})
	res := mustNeeds(t, in)
	if res.Stats.ScoutSource != "missing" || len(res.Requests) != 1 {
		t.Fatalf("files[].needs only: %+v", res)
	}
}

// TestNeedsReferenceWorkflowBehaviour runs the reference workflow's scenario: needs on the changed files
// themselves, capped 5 per file and 12 in all, changed files and noise
// dropped, duplicates once — but every refusal is reported.
func TestNeedsReferenceWorkflowBehaviour(t *testing.T) {
	var files []pipeline.ChangedFile
	for f := 0; f < 4; f++ {
		cf := pipeline.ChangedFile{Path: fmt.Sprintf("src/f%d.go", f)}
		for n := 0; n < 7; n++ {
			cf.Needs = append(cf.Needs, pipeline.Need{Op: "get_file", Path: fmt.Sprintf("lib/f%d_%d.go", f, n)})
		}
		files = append(files, cf)
	}
	files[0].Needs = append([]pipeline.Need{
		{Op: "get_file", Path: "src/f1.go"},               // changed file
		{Op: "get_file", Path: "dist/app.js"},             // noise
		{Op: "list_dir", Path: "node_modules"},            // noise directory
		{Op: "get_file", Path: "lib/f0_0.go"},             // duplicate of a later need: first wins
		{Op: "read_file", Path: "lib/x.go"},               // unsupported op
		{Op: "get_file", Path: "../../etc/passwd"},        // parent escape
		{Op: "get_file", Path: ".env"},                    // secret
		{Op: "list_dir", Path: "."},                       // root listing allowed
		{Op: "get_file", Path: "./lib/f0_0.go?raw=1#L10"}, // duplicate after normalization
	}, files[0].Needs...)
	res := mustNeeds(t, needsIn(nil, files...))

	want := []string{
		"get_file lib/f0_0.go", "list_dir ", "get_file lib/f0_1.go", "get_file lib/f0_2.go", "get_file lib/f0_3.go",
		"get_file lib/f1_0.go", "get_file lib/f1_1.go", "get_file lib/f1_2.go", "get_file lib/f1_3.go", "get_file lib/f1_4.go",
		"get_file lib/f2_0.go", "get_file lib/f2_1.go",
	}
	if d := cmp.Diff(want, reqPaths(res)); d != "" {
		t.Fatalf("requests (-want +got):\n%s", d)
	}
	// f0 keeps lib/f0_0, the root listing and f0_1..f0_3 (5); its second
	// lib/f0_0 is a duplicate and f0_4..f0_6 hit the per-file cap. f1 keeps 5
	// of 7. f2 keeps 2, then the total cap refuses its other 5 and all of f3.
	wantReasons := map[string]int{
		scope.ReasonChangedFile: 1, scope.ReasonNoise: 2, scope.ReasonDuplicate: 2, scope.ReasonUnsupportedOp: 1,
		scope.ReasonParentEscape: 1, scope.ReasonSecret: 1, scope.ReasonPerFileCap: 3 + 2, scope.ReasonTotalCap: 5 + 7,
	}
	for _, r := range scope.Reasons {
		if res.Stats.Reasons[r] != wantReasons[r] {
			t.Errorf("reasons[%s] = %d, want %d", r, res.Stats.Reasons[r], wantReasons[r])
		}
	}
	if res.Stats.Proposed != 4*7+9 || res.Stats.Files != 4 {
		t.Errorf("proposed %d files %d", res.Stats.Proposed, res.Stats.Files)
	}
	for _, rj := range res.Rejected {
		if rj.Reason == scope.ReasonTotalCap && rj.Error != "cap of 12 requests in all reached" {
			t.Errorf("total cap error %q", rj.Error)
		}
		if rj.Reason == scope.ReasonPerFileCap && !strings.HasPrefix(rj.Error, "cap of 5 requests per changed file reached for src/f") {
			t.Errorf("per-file cap error %q", rj.Error)
		}
	}
}

func TestNeedsRejections(t *testing.T) {
	scout := `{"files":[{"path":"./src/a.go","needs":[
		{"op":"get_file","path":"../x"},
		{"op":"get_file","path":"%252e%252e/x"},
		{"op":"get_file","path":"a\u0000b"},
		{"op":"get_file","path":"a\u202eb.go"},
		{"op":"get_file","path":"config/.env.production"},
		{"op":"get_file","path":"https://host/x"},
		{"op":"get_file","path":"~/.aws/credentials"},
		{"op":"get_file","path":"C:\\x"},
		{"op":"get_file","path":"` + strings.Repeat("a", 2000) + `"},
		{"op":"get_file","path":""},
		{"op":"get_file","path":"/"},
		{"op":"get_file","path":42},
		{"op":"get_file","path":true},
		{"op":"get_file"},
		{"op":7,"path":"x.go"},
		{"op":"delete","path":"x.go"},
		17,
		{"op":"get_file","path":"yarn.lock"},
		{"op":"get_file","path":"/src/a.go"}
	]}]}`
	res := mustNeeds(t, needsIn(scoutText(scout)))
	want := []string{
		scope.ReasonParentEscape + " ../x",
		scope.ReasonBadEncoding + " %252e%252e/x",
		scope.ReasonControlChar + " a\x00b",
		scope.ReasonControlChar + " a\u202eb.go",
		scope.ReasonSecret + " config/.env.production",
		scope.ReasonURL + " https://host/x",
		scope.ReasonHomeDir + " ~/.aws/credentials",
		scope.ReasonDrivePath + ` C:\x`,
		scope.ReasonTooLong + " " + strings.Repeat("a", 256) + "...", // echoed cut
		scope.ReasonEmpty + " ",
		scope.ReasonEmpty + " /",
		// 42 is read as the path "42" and accepted.
		scope.ReasonInvalidNeed + " ", // path true
		scope.ReasonInvalidNeed + " ", // no path
		scope.ReasonUnsupportedOp + " x.go",
		scope.ReasonUnsupportedOp + " x.go",
		scope.ReasonInvalidNeed + " ", // 17
		scope.ReasonNoise + " yarn.lock",
		scope.ReasonChangedFile + " src/a.go",
	}
	if d := cmp.Diff(want, rejReasons(res)); d != "" {
		t.Fatalf("rejected (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"get_file 42"}, reqPaths(res)); d != "" {
		t.Fatalf("requests (-want +got):\n%s", d)
	}
	errs := map[string]string{}
	for _, rj := range res.Rejected {
		errs[rj.Reason] = rj.Error
	}
	for reason, msg := range map[string]string{
		scope.ReasonParentEscape:  "parent directory segment (..) refused",
		scope.ReasonSecret:        "secret path refused: .env files are never read",
		scope.ReasonBadEncoding:   "double percent-encoding refused",
		scope.ReasonNoise:         scope.ReasonMessage(scope.ReasonNoise),
		scope.ReasonChangedFile:   "changed file refused: it is already in the review prompt",
		scope.ReasonUnsupportedOp: `unsupported op "delete" refused: use get_file or list_dir`,
		scope.ReasonTooLong:       "path too long: more than 1024 bytes",
	} {
		if errs[reason] != msg {
			t.Errorf("%s error = %q, want %q", reason, errs[reason], msg)
		}
	}
}

func TestNeedsPerFileAttribution(t *testing.T) {
	// Unattributed needs share one bucket, so a flat list cannot bypass the
	// per-file cap; "./src/a.go" and "src/a.go" are one file.
	var flat []string
	for i := 0; i < 7; i++ {
		flat = append(flat, fmt.Sprintf(`"lib/%d.go"`, i))
	}
	res := mustNeeds(t, needsIn(json.RawMessage(`[`+strings.Join(flat, ",")+`]`)))
	if res.Stats.Accepted != 5 || res.Stats.Reasons[scope.ReasonPerFileCap] != 2 {
		t.Fatalf("flat: accepted %d, per-file %d", res.Stats.Accepted, res.Stats.Reasons[scope.ReasonPerFileCap])
	}
	res = mustNeeds(t, needsIn(json.RawMessage(`[
		{"path":"./src/a.go","needs":["l/1","l/2","l/3"]},
		{"path":"src/a.go","needs":["l/4","l/5","l/6"]}]`)))
	if res.Stats.Accepted != 5 || res.Stats.Files != 1 {
		t.Fatalf("attribution: accepted %d files %d", res.Stats.Accepted, res.Stats.Files)
	}
}

func TestNeedsLimits(t *testing.T) {
	lim := pipeline.DefaultLimits()
	lim.NeedsTotal, lim.NeedsPerFile = 3, 2
	res, err := Needs(needsIn(json.RawMessage(`[{"path":"a","needs":["1","2","3"]},{"path":"b","needs":["4","5"]}]`)), lim)
	if err != nil {
		t.Fatal(err)
	}
	checkNeedsInvariants(t, res, lim)
	if d := cmp.Diff([]string{"get_file 1", "get_file 2", "get_file 4"}, reqPaths(res)); d != "" {
		t.Fatal(d)
	}
	if res.Limits != (NeedsLimits{Total: 3, PerFile: 2}) {
		t.Fatalf("limits %+v", res.Limits)
	}
	// Zero limits fall back to the reference workflow's 12/5.
	res, err = Needs(needsIn(scoutText("")), pipeline.Limits{})
	if err != nil || res.Limits != (NeedsLimits{Total: 12, PerFile: 5}) {
		t.Fatalf("zero limits: %+v %v", res.Limits, err)
	}
}

// TestNeedsGolden pins the whole JSON answer for the cases in
// testdata/needs/*.json (a NeedsInput each). Run with -update to rewrite.
func TestNeedsGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "needs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if strings.HasSuffix(c, ".golden.json") {
			continue
		}
		n++
		t.Run(filepath.Base(c), func(t *testing.T) {
			b, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			var in NeedsInput
			if err := json.Unmarshal(b, &in); err != nil {
				t.Fatal(err)
			}
			res := mustNeeds(t, in)
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(c, ".json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
	if n == 0 {
		t.Fatal("no golden cases")
	}
}

func ExampleNeeds() {
	res, err := Needs(NeedsInput{
		Workspace: "acme", RepoSlug: "shop", Ref: "9f2c1e0",
		Files: []pipeline.ChangedFile{{Path: "src/cart.go"}},
		Scout: json.RawMessage(`"Sure:\n` + "```json" + `\n{\"files\":[{\"path\":\"src/cart.go\",\"needs\":[{\"op\":\"get_file\",\"path\":\"./src/price.go\"},{\"op\":\"get_file\",\"path\":\"../secrets\"},{\"op\":\"list_dir\",\"path\":\"src/\"}]}]}\n` + "```" + `"`),
	}, pipeline.DefaultLimits())
	if err != nil {
		panic(err)
	}
	for _, r := range res.Requests {
		fmt.Println(r.Op, r.Path, r.Ref)
	}
	for _, r := range res.Rejected {
		fmt.Printf("%s %s: %s (%s)\n", r.Op, r.Path, r.Error, r.Reason)
	}
	fmt.Println("skip:", res.Skip, "source:", res.Stats.ScoutSource)
	// Output:
	// get_file src/price.go 9f2c1e0
	// list_dir src 9f2c1e0
	// get_file ../secrets: parent directory segment (..) refused (parent_escape)
	// skip: false source: fenced
}

func FuzzNeeds(f *testing.F) {
	for _, s := range []string{
		`{"files":[{"path":"src/a.go","needs":[{"op":"get_file","path":"src/b.go"},{"op":"list_dir","path":"."}]}]}`,
		`"` + "```json\\n{\\\"needs\\\":[\\\"../x\\\",\\\".env\\\",\\\"a.go\\\"]}\\n```" + `"`,
		`[{"op":"get_file","path":"x"},"y",{"path":"a","needs":["b","c","d","e","f","g","h"]}]`,
		`{"choices":[{"message":{"content":"{\"files\":[]}"}}]}`,
		`{"output":"I need {\"needs\":[{\"path\":\"%2e%2e/x\"}]} thanks"}`,
		`"no files needed"`, `[]`, `{}`, `"{ broken"`, `[1,true,null,{"op":7}]`,
	} {
		f.Add(s, "src/a.go")
	}
	lim := pipeline.DefaultLimits()
	lim.NeedsTotal, lim.NeedsPerFile = 4, 2
	f.Fuzz(func(t *testing.T, scout, changed string) {
		if !json.Valid([]byte(scout)) {
			// The API decodes the body first; raw text reaches us as a JSON string.
			b, _ := json.Marshal(scout)
			scout = string(b)
		}
		in := NeedsInput{Workspace: "w", RepoSlug: "r", Ref: "x", Scout: json.RawMessage(scout),
			Files: []pipeline.ChangedFile{{Path: changed, Needs: []pipeline.Need{{Op: "get_file", Path: changed + "x"}}}}}
		res, err := Needs(in, lim)
		if err != nil {
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not *InvalidError", err, err)
			}
			return
		}
		checkNeedsInvariants(t, res, lim)
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("answer does not marshal: %v", err)
		}
	})
}

// BenchmarkNeeds times a 2,000 × 20 scout answer read from
// testdata-free generated JSON; scripts/bench-needs.sh compares it with the
// reference workflow's JavaScript.
func BenchmarkNeeds(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"files":[`)
	var changed []pipeline.ChangedFile
	for i := 0; i < 2000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"path":"src/c%04d.go","needs":[`, i)
		changed = append(changed, pipeline.ChangedFile{Path: fmt.Sprintf("src/c%04d.go", i)})
		for j := 0; j < 20; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			p := []string{"pkg/m%03d/f.go", "./pkg/m%03d/g.go?raw=1", "../x%03d", "dist/%03d.js", ".env.%03d", "src/c%04d.go"}[(i+j)%6]
			fmt.Fprintf(&sb, `{"op":"get_file","path":%q,"reason":"caller"}`, fmt.Sprintf(p, (i*7+j)%500))
		}
		sb.WriteString("]}")
	}
	sb.WriteString("]}")
	in := NeedsInput{Workspace: "w", RepoSlug: "r", Ref: "x", Files: changed, Scout: json.RawMessage(sb.String())}
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Needs(in, pipeline.DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNeedsSmall times a realistic answer: testdata/needs/fenced-mixed.json
// (15 needs in raw text with a fence).
func BenchmarkNeedsSmall(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "needs", "fenced-mixed.json"))
	if err != nil {
		b.Fatal(err)
	}
	var in NeedsInput
	if err := json.Unmarshal(raw, &in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Needs(in, pipeline.DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNeedsRefusesDefaultPaths: the scout may not fetch what the review
// leaves out by default (scope.IsDefaultPath): one path per kind of the
// default-path table, as get_file, and default directories as list_dir.
func TestNeedsRefusesDefaultPaths(t *testing.T) {
	files := []string{
		"dist/app.js", "node_modules/react/index.js", "vendor/x/y.go", "yarn.lock", "go.sum",
		"app.min.js", "logo.png", "api/v1/api.pb.go", "pkg/zz_generated.deepcopy.go",
		"ui/generated/types.ts", "app/__pycache__/m.pyc", "poetry.lock", "bun.lockb",
		"pkg/testdata/case.json", "test/fixtures/user.json", "x/expected.golden", "third_party/lib/a.c",
	}
	dirs := []string{"node_modules", "pkg/testdata", "ios/Pods", "web/.yarn"}
	var needs []string
	for _, p := range files {
		needs = append(needs, `{"op":"get_file","path":"`+p+`"}`)
	}
	for _, p := range dirs {
		needs = append(needs, `{"op":"list_dir","path":"`+p+`"}`)
	}
	res := mustNeeds(t, needsIn(scoutText(`{"needs":[`+strings.Join(needs, ",")+`]}`)))
	if len(res.Requests) != 0 {
		t.Errorf("requests = %v, want none: every path is a default path", res.Requests)
	}
	refused := map[string]bool{}
	for _, r := range res.Rejected {
		if r.Reason == scope.ReasonNoise {
			refused[r.Path] = true
		}
	}
	for _, p := range append(files, dirs...) {
		if !refused[p] {
			t.Errorf("%s not refused as %s", p, scope.ReasonNoise)
		}
	}
}

// TestNeedsSalvage: a cut-off scout answer keeps its complete needs, drops
// (and lists in rejected[]) the one the cut fell inside, and says so; a
// finish reason "length" is reported the same way when the JSON closes.
func TestNeedsSalvage(t *testing.T) {
	const two = `{"needs": [{"op": "get_file", "path": "src/types.go"}, {"op": "list_dir", "path": "pkg/util"}, `
	chat := func(finish, content string) json.RawMessage {
		return json.RawMessage(`{"choices":[{"index":0,"finish_reason":"` + finish + `","message":{"role":"assistant","content":` + string(scoutText(content)) + `}}]}`)
	}
	tests := []struct {
		name       string
		scout      json.RawMessage
		want       []string
		incomplete []string // rejected as incomplete: op path
		warning    string
	}{
		{"cut in the third path", scoutText(two + `{"op": "get_file", "path": "src/ta`),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, []string{"get_file src/ta"},
			"the scout answer was cut off: 2 complete requests kept, 1 incomplete dropped"},
		{"cut in the third op", scoutText(two + `{"op": "list_d`),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, []string{" "},
			"2 complete requests kept, 1 incomplete dropped"},
		{"cut after the op", scoutText(two + `{"op": "list_dir", `),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, []string{"list_dir "},
			"2 complete requests kept, 1 incomplete dropped"},
		{"op missing when the cut fell", scoutText(two + `{"path": "src/tax.go"`),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, []string{" src/tax.go"},
			"2 complete requests kept, 1 incomplete dropped"},
		{"cut in the reason of a complete need", scoutText(two + `{"op": "get_file", "path": "src/tax.go", "reason": "the rates the new pri`),
			[]string{"get_file src/types.go", "list_dir pkg/util", "get_file src/tax.go"}, nil,
			"3 complete requests kept, 0 incomplete dropped"},
		{"cut in a bare path", scoutText(`["src/types.go", "pkg/ut`),
			[]string{"get_file src/types.go"}, []string{" pkg/ut"},
			"1 complete request kept, 1 incomplete dropped"},
		{"cut before any need", scoutText(`{"files": [{"path": "src/a.go", "nee`),
			[]string{}, []string{" src/a.go"}, "0 complete requests kept, 1 incomplete dropped"},
		{"finish reason length, JSON closed", chat("length", `{"needs": [{"op": "get_file", "path": "src/types.go"}, {"op": "list_dir", "path": "pkg/util"}]}`),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, nil,
			"2 complete requests kept, 0 incomplete dropped"},
		{"finish reason length, cut", chat("length", "```json\n"+two+`"src/ta`),
			[]string{"get_file src/types.go", "list_dir pkg/util"}, []string{" src/ta"},
			"2 complete requests kept, 1 incomplete dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustNeeds(t, needsIn(tt.scout))
			if d := cmp.Diff(tt.want, reqPaths(res)); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
			var incomplete []string
			for _, r := range res.Rejected {
				if r.Error == incompleteNeed {
					if r.Reason != scope.ReasonInvalidNeed {
						t.Errorf("incomplete need rejected as %s", r.Reason)
					}
					incomplete = append(incomplete, r.Op+" "+r.Path)
				}
			}
			if d := cmp.Diff(tt.incomplete, incomplete); d != "" {
				t.Errorf("incomplete (-want +got):\n%s", d)
			}
			if res.Stats.Incomplete != len(tt.incomplete) || !res.Stats.ScoutCutOff || res.Stats.ScoutQuality != "salvaged" && len(tt.want) > 0 {
				t.Errorf("stats incomplete %d cutOff %v quality %q", res.Stats.Incomplete, res.Stats.ScoutCutOff, res.Stats.ScoutQuality)
			}
			if !containsText(res.Warnings, tt.warning) {
				t.Errorf("warnings %q lack %q", res.Warnings, tt.warning)
			}
			if len(tt.want) > 0 && res.Skip {
				t.Error("a cut-off answer with complete needs became the placeholder")
			}
		})
	}
}

func containsText(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// TestNeedsQuality: stats.scoutQuality says how the answer was read.
func TestNeedsQuality(t *testing.T) {
	tests := []struct {
		name, quality, source string
		scout                 json.RawMessage
	}{
		{"clean object", "clean", "json", json.RawMessage(`{"files":[{"path":"src/a.go","needs":["src/types.go"]}]}`)},
		{"clean text", "clean", "text", scoutText(`{"needs":["src/types.go"]}`)},
		{"single quotes", "repaired", "text", scoutText(`{'needs': ['src/types.go'],}`)},
		{"cut off", "salvaged", "text", scoutText(`{"needs": ["src/types.go", "src/b`)},
		{"prose", "unreadable", "prose", scoutText("No other files are needed.")},
		{"broken", "unreadable", "unreadable", scoutText(`Here: {"files": [{"path": "src/a.go" "needs": [} ]} end`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustNeeds(t, needsIn(tt.scout))
			if res.Stats.ScoutQuality != tt.quality || res.Stats.ScoutSource != tt.source {
				t.Errorf("quality/source = %q/%q, want %q/%q (warnings %q)", res.Stats.ScoutQuality, res.Stats.ScoutSource, tt.quality, tt.source, res.Warnings)
			}
		})
	}
	res := mustNeeds(t, needsIn(nil, pipeline.ChangedFile{Path: "a.go", Needs: []pipeline.Need{{Path: "b.go"}}}))
	if res.Stats.ScoutQuality != "" {
		t.Errorf("no scout answer read as %q", res.Stats.ScoutQuality)
	}
}

// FuzzNeedsFastPath: the fast path (scoutfast.go) gives exactly the answer
// the generic reading gives, whenever it reads an answer at all.
//
//	go test -run '^$' -fuzz FuzzNeedsFastPath -fuzztime 30s ./pipeline/lookup
func FuzzNeedsFastPath(f *testing.F) {
	for _, s := range []string{
		`{"files":[{"path":"src/a.go","needs":[{"op":"get_file","path":"src/b.go","reason":"x"},"c.go",{"op":"list_dir","path":"."}]}]}`,
		`{"files":[{"file":"./src/a.go","path":"src/a.go","needs":[{"path":"x","for":"y"}]},{"needs":[{"path":"z","file":"q"}]}],"other":[1,-2.5e3,true,null,{"a":[]}]}`,
		`{"files":[{"path":"src/a.go","needs":[{"op":"get_file","path":"C:\\x\u00e9"},"\u002e\u002e/x"]}],"files2":"x"}`,
		`{"files":[{"Path":"a","needs":[]}],"FILES":[]}`,
		`{"files":[{"path":"a","needs":[{"op":"get_file","path":"b","path":"c"}]}]}`,
		`{"files":[{"path":"a","needs":[{"op":7,"path":"b"}]}]}`,
		`{"files":[]}`, `{"files":[{}]}`, `{"files":{"a":1}}`, `{"choices":[],"files":[]}`,
		`{"files":[{"path":"a","needs":["\xff\xfe"]}]}`, `{"files":[{"path":"a","needs":["x"]}]} x`,
	} {
		f.Add(s)
	}
	lim := pipeline.DefaultLimits()
	lim.NeedsTotal, lim.NeedsPerFile = 6, 3
	f.Fuzz(func(t *testing.T, scout string) {
		if !(&fastParser{b: []byte(scout), emit: func(proposal) {}}).scout() {
			return
		}
		in := NeedsInput{Workspace: "w", RepoSlug: "r", Ref: "x", Scout: json.RawMessage(scout),
			Files: []pipeline.ChangedFile{{Path: "src/a.go"}}}
		fast, err := needs(in, lim, true)
		if err != nil {
			t.Fatalf("fast path: %v", err)
		}
		slow, err := needs(in, lim, false)
		if err != nil {
			t.Fatalf("the fast path read %q, the generic reading refused it: %v", scout, err)
		}
		if d := cmp.Diff(slow, fast); d != "" {
			t.Fatalf("%q: fast path differs from the generic reading (-generic +fast):\n%s", scout, d)
		}
	})
}
