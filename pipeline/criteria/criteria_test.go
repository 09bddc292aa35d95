package criteria

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// render is the golden form of a result: the source, one criterion per line
// (id, tab, text), then the warnings.
func render(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "source: %s\n", r.Source)
	for _, c := range r.Criteria {
		fmt.Fprintf(&b, "%s\t%s\n", c.ID, c.Text)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// readInput reads testdata/<name>.field.* and <name>.description.*. A .json
// field is decoded (as go-jira hands custom fields over: maps and arrays); a
// .json description stays text (ADF JSON as a string).
func readInput(t *testing.T, name string) (field, desc any) {
	t.Helper()
	for _, part := range []string{"field", "description"} {
		paths, err := filepath.Glob(filepath.Join("testdata", name+"."+part+".*"))
		if err != nil || len(paths) > 1 {
			t.Fatalf("%s %s: %v %v", name, part, paths, err)
		}
		if len(paths) == 0 {
			continue
		}
		b, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		var v any = string(b)
		if part == "field" && strings.HasSuffix(paths[0], ".json") {
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s: %v", paths[0], err)
			}
		}
		if part == "field" {
			field = v
		} else {
			desc = v
		}
	}
	if field == nil && desc == nil {
		t.Fatalf("case %s has no input files", name)
	}
	return field, desc
}

func TestExtractGolden(t *testing.T) {
	tests := []struct {
		name, key string
		fieldID   string
		fieldName string
	}{
		// Description sections.
		{name: "wiki-section-and-other-lists", key: "SHOP-12"},
		{name: "md-checkboxes", key: "shop-31"},
		{name: "md-numbered-nested", key: "WEB-7"},
		{name: "adf-heading-lists", key: "PAY-4"},
		{name: "adf-tasklist", key: "SEC-140"},
		{name: "adf-expand-gherkin", key: "CHK-9"},
		{name: "wiki-gherkin-code", key: "LOGIN-5"},
		{name: "md-gherkin-bullets", key: "CART-3"},
		{name: "paragraphs-only", key: "SRCH-21"},
		{name: "dod-then-ac", key: "INV-8"},
		{name: "inline-label", key: "EXP-2"},
		{name: "wiki-bold-label-panel", key: "PROF-6"},
		{name: "no-criteria", key: "DASH-77"},
		// The field against the description.
		{name: "field-wiki", key: "PROJ-123", fieldID: "customfield_10042", fieldName: "Acceptance Criteria"},
		{name: "field-adf", key: "PROJ-124", fieldID: "customfield_10042"},
		{name: "field-array", key: "SRCH-30", fieldID: "customfield_10099", fieldName: "acceptance criteria"},
		{name: "field-blank-dod", key: "OPS-3", fieldID: "customfield_10042", fieldName: "Acceptance Criteria"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			field, desc := readInput(t, tt.name)
			res, err := Extract(Input{Key: tt.key, Field: field, FieldID: tt.fieldID, FieldName: tt.fieldName, Description: desc})
			if err != nil {
				t.Fatal(err)
			}
			got := render(res)
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got):\n%s", path, d)
			}
			// Same text, same ids: a second run agrees.
			again, _ := Extract(Input{Key: tt.key, Field: field, FieldID: tt.fieldID, FieldName: tt.fieldName, Description: desc})
			if d := cmp.Diff(res, again); d != "" {
				t.Errorf("second run differs:\n%s", d)
			}
		})
	}
	// Every input in testdata has a case.
	inputs, _ := filepath.Glob("testdata/*.*.*")
	for _, p := range inputs {
		name := strings.SplitN(filepath.Base(p), ".", 2)[0]
		if !seen[name] {
			t.Errorf("%s has no test case", p)
		}
	}
}
