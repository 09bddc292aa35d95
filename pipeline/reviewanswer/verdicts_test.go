package reviewanswer

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParseVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		review   string
		want     []Verdict
		given    bool
		warnings []string
	}{
		{name: "no list", review: `{"summary":"s","findings":[]}`},
		{name: "empty list", review: `{"summary":"s","requirements":[]}`, want: []Verdict{}, given: true},
		{name: "the asked format",
			review: `{"summary":"s","findings":[],"requirements":[{"id":"SHOP-12#1","verdict":"met","evidence":[{"path":"a.go","line":3}],"note":"ok"}]}`,
			want:   []Verdict{{ID: "SHOP-12#1", Verdict: VerdictMet, Evidence: []Evidence{{Path: "a.go", Line: 3}}, Note: "ok"}}, given: true},
		{name: "verdict aliases",
			review: `{"requirements":[{"id":"A#1","verdict":"PASS"},{"id":"A#2","status":"Not met"},{"id":"A#3","result":"partially"},
				{"id":"A#4","met":true},{"id":"A#5","met":false},{"id":"A#6","verdict":"fails"},{"id":"A#7","verdict":"n/a"},{"id":"A#8","outcome":"not-implemented"}]}`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet}, {ID: "A#2", Verdict: VerdictNotMet}, {ID: "A#3", Verdict: VerdictUnclear},
				{ID: "A#4", Verdict: VerdictMet}, {ID: "A#5", Verdict: VerdictNotMet}, {ID: "A#6", Verdict: VerdictNotMet},
				{ID: "A#7", Verdict: VerdictUnclear}, {ID: "A#8", Verdict: VerdictNotMet}}, given: true},
		{name: "unknown and missing verdicts are unclear",
			review: `{"requirements":[{"id":"A#1","verdict":"kinda"},{"id":"A#2"},{"id":"A#3","verdict":7}]}`,
			want:   []Verdict{{ID: "A#1", Verdict: VerdictUnclear}, {ID: "A#2", Verdict: VerdictUnclear}, {ID: "A#3", Verdict: VerdictUnclear}}, given: true,
			warnings: []string{`requirements[0] (A#1) verdict "kinda" is unknown: unclear`, "requirements[1] (A#2) has no verdict: unclear",
				"requirements[2] (A#3) verdict 7 is unknown: unclear"}},
		{name: "entries without id or not objects are dropped",
			review: `{"requirements":[{"verdict":"met"},"met",{"criterion":"A#2","verdict":"met"}]}`,
			want:   []Verdict{{ID: "A#2", Verdict: VerdictMet}}, given: true,
			warnings: []string{"requirements[0] names no criterion id: dropped", "requirements[1] is a string, not a verdict: dropped"}},
		{name: "evidence forms",
			review: `{"requirements":[{"id":"A#1","verdict":"met","evidence":["a.go:12","b.go#L7","c.go (line 9)","d.go",{"file":"e.go","lineNumber":"L4"},{"line":3},5]},
				{"id":"A#2","verdict":"met","evidence":"f.go:1-3"},{"id":"A#3","verdict":"met","locations":{"path":"g.go"}}]}`,
			want: []Verdict{
				{ID: "A#1", Verdict: VerdictMet, Evidence: []Evidence{{Path: "a.go", Line: 12}, {Path: "b.go", Line: 7}, {Path: "c.go", Line: 9}, {Path: "d.go"}, {Path: "e.go", Line: 4}}},
				{ID: "A#2", Verdict: VerdictMet, Evidence: []Evidence{{Path: "f.go", Line: 1}}},
				{ID: "A#3", Verdict: VerdictMet, Evidence: []Evidence{{Path: "g.go"}}}}, given: true},
		{name: "at most five places", review: `{"requirements":[{"id":"A#1","verdict":"met","evidence":["a:1","a:2","a:3","a:4","a:5","a:6"]}]}`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet, Evidence: []Evidence{{"a", 1}, {"a", 2}, {"a", 3}, {"a", 4}, {"a", 5}}}}, given: true},
		{name: "object keyed by id", review: `{"summary":"s","criteria":{"B#2":"fail","A#1":{"verdict":"met","reason":"done"}}}`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet, Note: "done"}, {ID: "B#2", Verdict: VerdictNotMet}}, given: true},
		{name: "one verdict object", review: `{"summary":"s","verdicts":{"id":"A#1","verdict":"met"}}`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet}}, given: true},
		{name: "list as a JSON string", review: `{"summary":"s","requirements":"[{\"id\":\"A#1\",\"verdict\":\"met\"}]"}`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet}}, given: true, warnings: []string{"requirements was a JSON string: decoded"}},
		{name: "free text requirements are not verdicts", review: `{"summary":"s","requirements":"Must be fast."}`},
		{name: "requirements alone make a review", review: `"Here:\n{\"requirements\":[{\"id\":\"A#1\",\"verdict\":\"met\"}]}"`,
			want: []Verdict{{ID: "A#1", Verdict: VerdictMet}}, given: true},
		{name: "not a list", review: `{"summary":"s","acceptance_criteria":5}`, warnings: []string{"acceptance_criteria is a number, not a list of verdicts: ignored"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(json.RawMessage(tt.review))
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if tt.want[i].Evidence == nil {
					tt.want[i].Evidence = []Evidence{}
				}
			}
			if !slices.EqualFunc(p.Verdicts, tt.want, func(a, b Verdict) bool {
				return a.ID == b.ID && a.Verdict == b.Verdict && a.Note == b.Note && slices.Equal(a.Evidence, b.Evidence)
			}) || (p.Verdicts == nil) != (tt.want == nil) {
				t.Errorf("verdicts = %+v, want %+v", p.Verdicts, tt.want)
			}
			if p.VerdictsGiven != tt.given {
				t.Errorf("given = %v, want %v", p.VerdictsGiven, tt.given)
			}
			if !slices.Equal(p.Warnings, tt.warnings) {
				t.Errorf("warnings = %q, want %q", p.Warnings, tt.warnings)
			}
		})
	}
}
