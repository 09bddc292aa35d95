package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/gate"
	"github.com/prscout/prscout/sarif/sariftest"
)

// validate checks a SARIF document against the official schema.
func validate(t *testing.T, doc []byte) error {
	t.Helper()
	if _, err := sariftest.Schema(); err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	return sariftest.Validate(doc)
}

func mustMarshal(t *testing.T, l Log) []byte {
	t.Helper()
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var testFindings = []pipeline.ReportFinding{
	{Path: "upload/retry.go", Line: 12, Severity: "high", Title: "Retry loop never stops", Body: "`attempt` is never incremented.", Fingerprint: "1111111111111111"},
	{Path: "upload/retry.go", Line: 30, Severity: "critical", Title: "Token logged", Fingerprint: "2222222222222222"},
	{Path: "docs/read me.md", Severity: "low", Title: "Typo", Body: "file level, path with a space", Fingerprint: "3333333333333333"},
	{Path: "c:odd/name#1.go", Line: 3, Severity: "medium", Title: "Retry loop never stops", Fingerprint: "4444444444444444"},
	{Severity: "bogus", Title: "  ", Body: "no path at all", Fingerprint: "5555555555555555"},
	{Path: "upload/retry.go", Line: 14, Severity: "high", Title: "Retry loop never stops!", Body: "again", Fingerprint: "6666666666666666"},
}

func TestFromFindingsValidates(t *testing.T) {
	doc := mustMarshal(t, FromFindings(testFindings, Options{ToolVersion: "1.4.0"}))
	if err := validate(t, doc); err != nil {
		t.Fatalf("SARIF from findings does not validate: %v\n%s", err, doc)
	}
	var l Log
	if err := json.Unmarshal(doc, &l); err != nil {
		t.Fatal(err)
	}
	run := l.Runs[0]
	if run.Tool.Driver.Name != "prscout" || run.Tool.Driver.Version != "1.4.0" {
		t.Errorf("driver %+v", run.Tool.Driver)
	}
	type row struct {
		Rule, Level, URI, Base string
		Line, RuleIndex        int
		FP                     string
	}
	var got []row
	for _, r := range run.Results {
		x := row{Rule: r.RuleID, Level: r.Level, FP: r.PartialFingerprints[FingerprintKey], RuleIndex: *r.RuleIndex}
		if len(r.Locations) > 0 {
			pl := r.Locations[0].PhysicalLocation
			x.URI, x.Base = pl.ArtifactLocation.URI, pl.ArtifactLocation.URIBaseID
			if pl.Region != nil {
				x.Line = pl.Region.StartLine
			}
		}
		got = append(got, x)
	}
	want := []row{
		{"high/retry-loop-never-stops", "error", "upload/retry.go", srcRoot, 12, 0, "1111111111111111"},
		{"critical/token-logged", "error", "upload/retry.go", srcRoot, 30, 1, "2222222222222222"},
		{"low/typo", "note", "docs/read%20me.md", srcRoot, 0, 2, "3333333333333333"},
		{"medium/retry-loop-never-stops", "warning", "./c:odd/name%231.go", srcRoot, 3, 3, "4444444444444444"},
		{"medium/untitled", "warning", "", "", 0, 4, "5555555555555555"},
		{"high/retry-loop-never-stops", "error", "upload/retry.go", srcRoot, 14, 0, "6666666666666666"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if n := len(run.Tool.Driver.Rules); n != 5 {
		t.Errorf("%d rules, want 5 (one per severity and title)", n)
	}
	if msg := run.Results[0].Message.Text; msg != "Retry loop never stops\n\n`attempt` is never incremented." {
		t.Errorf("message %q", msg)
	}
	if sev := run.Results[4].Properties["severity"]; sev != "medium" {
		t.Errorf("unknown severity kept as %v, want medium", sev)
	}
}

func TestFromFindingsEmpty(t *testing.T) {
	doc := mustMarshal(t, FromFindings(nil, Options{}))
	if err := validate(t, doc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`"results": []`)) {
		t.Errorf("an empty review must still list results: []\n%s", doc)
	}
}

// gateSARIF runs the gate over the broken export and writes its SARIF.
func gateSARIF(t *testing.T) (Log, []byte, []byte) {
	t.Helper()
	const file = "testdata/broken-export.json"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep := gate.CheckExport(file, src, gate.Options{Expressions: true})
	rep.Merge(func() gate.Report {
		r := gate.NewReport()
		r.AddProblem("testdata/missing.json", "cannot read")
		return r
	}())
	l := FromGateReport(rep, map[string][]byte{file: src}, Options{ToolVersion: "dev"})
	return l, mustMarshal(t, l), src
}

func TestFromGateReportValidates(t *testing.T) {
	l, doc, src := gateSARIF(t)
	if err := validate(t, doc); err != nil {
		t.Fatalf("SARIF from validate-workflow does not validate: %v\n%s", err, doc)
	}
	type row struct {
		Rule, Node     string
		Line, Col      int
		Snippet, Param string
	}
	var got []row
	for _, r := range l.Runs[0].Results {
		x := row{Rule: r.RuleID}
		loc := r.Locations[0]
		if len(loc.LogicalLocations) > 0 {
			x.Node = loc.LogicalLocations[0].Name
			x.Param = loc.LogicalLocations[0].FullyQualifiedName
		}
		if reg := loc.PhysicalLocation.Region; reg != nil {
			x.Line, x.Col = reg.StartLine, reg.StartColumn
			if reg.Snippet != nil {
				x.Snippet = reg.Snippet.Text
			}
		}
		got = append(got, x)
	}
	// Positions checked by hand in testdata/broken-export.json: the ';' of
	// "const b = ;", the empty jsCode string, the first '}' of the
	// expression's "+ }}", the ')' after an escaped tab, é and an emoji
	// written as a surrogate pair and a \r\n.
	want := []row{
		{RuleSyntaxError, "Parse", 13, 44, "const b = ;", "Broken flow/Parse/jsCode"},
		{RuleMissingCode, "Empty", 19, 32, "", "Broken flow/Empty/jsCode"},
		{RuleSyntaxError, "Set fields", 24, 68, "{{ $json.a + }}", "Broken flow/Set fields/options.body[0].value"},
		{RuleSyntaxError, "Escapes", 29, 81, "let x = );", "Broken flow/Escapes/jsCode"},
		{RuleNotAnExport, "", 0, 0, "", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	// Independently of the hand count: the export's character at each
	// syntax error's position is the code's character at the gate's column.
	lines := strings.Split(string(src), "\n")
	for i, r := range l.Runs[0].Results {
		reg := r.Locations[0].PhysicalLocation.Region
		if r.RuleID != RuleSyntaxError || reg == nil {
			continue
		}
		fileRunes := []rune(lines[reg.StartLine-1])
		excerpt := []rune(reg.Snippet.Text)
		col := gateColumn(t, i)
		if fileRunes[reg.StartColumn-1] != excerpt[col-1] {
			t.Errorf("result %d: export has %q at %d:%d, code has %q at column %d", i,
				fileRunes[reg.StartColumn-1], reg.StartLine, reg.StartColumn, excerpt[col-1], col)
		}
	}
	if ck := l.Runs[0].ColumnKind; ck != "unicodeCodePoints" {
		t.Errorf("columnKind %q", ck)
	}
}

// gateColumn is the gate's own column for result i of the broken export.
func gateColumn(t *testing.T, i int) int {
	t.Helper()
	src, _ := os.ReadFile("testdata/broken-export.json")
	rep := gate.CheckExport("testdata/broken-export.json", src, gate.Options{Expressions: true})
	var bad []gate.NodeResult
	for _, n := range rep.Nodes {
		if !n.OK {
			bad = append(bad, n)
		}
	}
	return bad[i].Error.Column
}

func TestFromGateReportWithoutSource(t *testing.T) {
	src, _ := os.ReadFile("testdata/broken-export.json")
	rep := gate.CheckExport("testdata/broken-export.json", src, gate.Options{})
	l := FromGateReport(rep, nil, Options{})
	if err := validate(t, mustMarshal(t, l)); err != nil {
		t.Fatal(err)
	}
	r := l.Runs[0].Results[0]
	if r.Locations[0].PhysicalLocation.Region != nil || !strings.HasSuffix(r.Message.Text, "(line 2, column 11 of the node's jsCode)") {
		t.Errorf("without the source: %+v %q", r.Locations[0].PhysicalLocation.Region, r.Message.Text)
	}
}

// TestBrokenSARIFFails: the schema check is not vacuous.
func TestBrokenSARIFFails(t *testing.T) {
	doc, err := os.ReadFile("testdata/broken.sarif")
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, doc); err == nil {
		t.Fatal("testdata/broken.sarif validates; it must not")
	}
	// Single mutations of a valid log each fail too.
	good := mustMarshal(t, FromFindings(testFindings[:1], Options{}))
	for name, edit := range map[string]func(map[string]any){
		"bad level":        func(m map[string]any) { result(m)["level"] = "fatal" },
		"no message":       func(m map[string]any) { delete(result(m), "message") },
		"line 0":           func(m map[string]any) { region(m)["startLine"] = 0 },
		"version 2.0.0":    func(m map[string]any) { m["version"] = "2.0.0" },
		"unknown property": func(m map[string]any) { result(m)["severity"] = "high" },
		"uri not a string": func(m map[string]any) { artifact(m)["uri"] = 5 },
		"no tool driver": func(m map[string]any) {
			delete(m["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any), "driver")
		},
		"bad column kind": func(m map[string]any) { m["runs"].([]any)[0].(map[string]any)["columnKind"] = "bytes" },
		"rule without an id": func(m map[string]any) {
			delete(m["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any), "id")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			b, _ := json.Marshal(m)
			if err := validate(t, b); err == nil {
				t.Errorf("%s: validates", name)
			}
		})
	}
}

func result(m map[string]any) map[string]any {
	return m["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)
}

func physical(m map[string]any) map[string]any {
	return result(m)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}

func region(m map[string]any) map[string]any { return physical(m)["region"].(map[string]any) }

func artifact(m map[string]any) map[string]any {
	return physical(m)["artifactLocation"].(map[string]any)
}

func TestParse(t *testing.T) {
	doc := mustMarshal(t, FromFindings(testFindings, Options{}))
	l, err := Parse(doc)
	if err != nil || len(l.Runs[0].Results) != len(testFindings) {
		t.Fatalf("Parse: %v", err)
	}
	for _, bad := range []string{`{`, `{"version":"2.0.0","runs":[]}`, `{"version":"2.1.0"}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

func TestRawOffset(t *testing.T) {
	tests := []struct {
		name            string
		raw             string
		line, col, skip int
		want            int
		ok              bool
	}{
		{"first char", `"abc"`, 1, 1, 0, 1, true},
		{"after the text", `"abc"`, 1, 4, 0, 4, true},
		{"past the text", `"abc"`, 1, 5, 0, 0, false},
		{"second line", `"a\nbc"`, 2, 2, 0, 5, true},
		{"crlf is one break", `"a\r\nb"`, 2, 1, 0, 6, true},
		{"cr alone breaks", `"a\rb"`, 2, 1, 0, 4, true},
		{"line separator breaks", "\"a\u2028b\"", 2, 1, 0, 5, true},
		{"escaped quote is one column", `"\"x"`, 1, 2, 0, 3, true},
		{"unicode escape is one column", `"\u00e9x"`, 1, 2, 0, 7, true},
		{"surrogate pair is one column", `"\ud83d\ude00x"`, 1, 2, 0, 13, true},
		{"raw multibyte is one column", "\"éx\"", 1, 2, 0, 3, true},
		{"skip the expression's =", `"={{ a }}"`, 1, 1, 1, 2, true},
		{"bad line", `"a"`, 0, 1, 0, 0, false},
		{"not a string", `abc`, 1, 1, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := rawOffset([]byte(tt.raw), tt.line, tt.col, tt.skip)
			if got != tt.want || ok != tt.ok {
				t.Errorf("rawOffset(%q, %d, %d) = %d, %v; want %d, %v", tt.raw, tt.line, tt.col, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string][2]string{
		"a/b.go":           {"a/b.go", srcRoot},
		"docs/read me.md":  {"docs/read%20me.md", srcRoot},
		"x#y?.go":          {"x%23y%3F.go", srcRoot},
		"c:/w.json":        {"./c:/w.json", srcRoot},
		"/tmp/w f.json":    {"file:///tmp/w%20f.json", ""},
		`dir\win.json`:     {"dir/win.json", srcRoot},
		"ünïcode/ß.go":     {"%C3%BCn%C3%AFcode/%C3%9F.go", srcRoot},
		"100%/progress.go": {"100%25/progress.go", srcRoot},
		"../up/w.json":     {"../up/w.json", ""},
	} {
		uri, base := fileURI(in)
		if uri != want[0] || base != want[1] {
			t.Errorf("fileURI(%q) = %q, %q; want %q, %q", in, uri, base, want[0], want[1])
		}
	}
}

// FuzzLocate: locating a node in any bytes never panics, and a found
// position lies inside the source.
func FuzzLocate(f *testing.F) {
	src, _ := os.ReadFile("testdata/broken-export.json")
	f.Add(src, 2, 11, "Parse", 1)
	f.Add([]byte(`[{"name":"w","nodes":[{"name":"n","parameters":{"jsCode":"\u00e9\r\n)"}}]}]`), 2, 1, "n", 0)
	f.Add([]byte(`{"nodes":[[[[`), 1, 1, "x", 0)
	f.Fuzz(func(t *testing.T, data []byte, line, col int, node string, idx int) {
		n := gate.NodeResult{Node: node, NodeIndex: idx, Parameter: "jsCode", Check: gate.CheckCodeNode,
			Error: &gate.NodeError{Line: line, Column: col, Excerpt: "x"}}
		reg, ok := locateNode(data, parseTree(data), n)
		if !ok {
			return
		}
		if reg.StartLine < 1 || reg.StartColumn < 1 || reg.StartLine > bytes.Count(data, []byte{'\n'})+1 || reg.StartColumn > utf8.RuneCount(data)+1 {
			t.Fatalf("region %+v outside the source", reg)
		}
	})
}
