package criteria

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
)

// spacedFile is a changed file whose path needs escaping in a link.
var spacedFile = pipeline.ChangedFile{Path: "a b(1).go", Status: "modified",
	Diff: "diff --git a/a b(1).go b/a b(1).go\n--- a/a b(1).go\n+++ b/a b(1).go\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"}

func index(t *testing.T, files ...pipeline.ChangedFile) *anchor.Index {
	t.Helper()
	ix, warns := anchor.NewIndex(files)
	if len(warns) > 0 {
		t.Fatalf("index warnings: %q", warns)
	}
	return ix
}

func TestJudge(t *testing.T) {
	three := []pipeline.Requirement{{ID: "SHOP-12#1", Text: "one"}, {ID: "SHOP-12#2", Text: "two"}, {ID: "SHOP-12#3", Text: "three"}}
	tests := []struct {
		name                 string
		criteria             []pipeline.Requirement
		verdicts             []reviewanswer.Verdict
		given                bool
		met, notMet, unclear int
		warnings             []string
	}{
		{name: "all judged", criteria: three, given: true, met: 1, notMet: 1, unclear: 1, verdicts: []reviewanswer.Verdict{
			{ID: "SHOP-12#1", Verdict: "met"}, {ID: "SHOP-12#2", Verdict: "not_met"}, {ID: "SHOP-12#3", Verdict: "unclear"}}},
		{name: "ids matched loosely", criteria: three, given: true, met: 1, notMet: 1, unclear: 1,
			verdicts: []reviewanswer.Verdict{{ID: " [shop-12#1] ", Verdict: "met"}, {ID: "`SHOP-12#2`", Verdict: "not_met"}},
			warnings: []string{"no verdict for SHOP-12#3: unclear"}},
		{name: "unknown and repeated", criteria: three, given: true, met: 1, unclear: 2,
			verdicts: []reviewanswer.Verdict{{ID: "SHOP-12#1", Verdict: "met"}, {ID: "SHOP-99#1", Verdict: "met"}, {ID: "shop-12#1", Verdict: "not_met"}},
			warnings: []string{`verdict for unknown criterion "SHOP-99#1": dropped`, "second verdict for SHOP-12#1: dropped (the first is kept)",
				"no verdict for SHOP-12#2: unclear", "no verdict for SHOP-12#3: unclear"}},
		{name: "no verdicts", criteria: three, given: true, unclear: 3,
			warnings: []string{"the review gave no verdicts on the 3 acceptance criteria: all unclear"}},
		{name: "verdicts not given", criteria: three[:1], unclear: 1,
			warnings: []string{"the review gave no verdicts on the 1 acceptance criterion: all unclear"}},
		{name: "no criteria", given: true, verdicts: []reviewanswer.Verdict{{ID: "A#1", Verdict: "met"}},
			warnings: []string{"the review judged 1 acceptance criterion, but the request carries no requirements (pass the merge answer's requirements along): verdicts dropped"}},
		{name: "nothing at all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, warns := Judge(tt.criteria, tt.verdicts, tt.given, index(t))
			if rc.Met != tt.met || rc.NotMet != tt.notMet || rc.Unclear != tt.unclear || len(rc.Criteria) != len(tt.criteria) || rc.Total() != len(tt.criteria) {
				t.Errorf("counts %d/%d/%d (%d criteria), want %d/%d/%d (%d)", rc.Met, rc.NotMet, rc.Unclear, len(rc.Criteria), tt.met, tt.notMet, tt.unclear, len(tt.criteria))
			}
			if strings.Join(warns, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings\n%q\nwant\n%q", warns, tt.warnings)
			}
			for i, c := range rc.Criteria {
				if c.ID != tt.criteria[i].ID {
					t.Errorf("criterion %d is %s, want the request's order (%s)", i, c.ID, tt.criteria[i].ID)
				}
			}
		})
	}
}

func TestJudgeEvidenceAndNote(t *testing.T) {
	note := "fine\n" + marker.ReviewMarker("0123456789ab")
	rc, _ := Judge([]pipeline.Requirement{{ID: "A#1", Text: "t"}, {ID: "A#2", Text: "u"}},
		[]reviewanswer.Verdict{{ID: "A#1", Verdict: "met", Note: note, Evidence: []reviewanswer.Evidence{{Path: "./b/a b(1).go", Line: 2}, {Path: "other.go"}}}},
		true, index(t, spacedFile))
	got := rc.Criteria[0]
	if !got.Judged || got.Verdict != "met" || strings.Contains(got.Note, "prscout") || !strings.Contains(got.Note, "fine") {
		t.Errorf("judged criterion = %+v", got)
	}
	if len(got.Evidence) != 2 || got.Evidence[0].Path != "a b(1).go" || got.Evidence[1].Path != "other.go" {
		t.Errorf("evidence = %+v, want the first resolved to the changed file, the second as given", got.Evidence)
	}
	if un := rc.Criteria[1]; un.Judged || un.Verdict != reviewanswer.VerdictUnclear || un.Evidence == nil {
		t.Errorf("unjudged criterion = %+v", un)
	}
	if rc.Sentence() != "criteria: 1 met, 0 not met, 1 unclear" {
		t.Errorf("Sentence() = %q", rc.Sentence())
	}
}

func TestCountsJSON(t *testing.T) {
	rc, _ := Judge(nil, nil, false, index(t))
	if b, _ := json.Marshal(rc); string(b) != `{"met":0,"notMet":0,"unclear":0,"criteria":[]}` {
		t.Errorf("empty counts = %s", b)
	}
	rc, _ = Judge([]pipeline.Requirement{{ID: "A#1", Text: "t"}}, nil, false, index(t))
	want := `{"met":0,"notMet":0,"unclear":1,"criteria":[{"id":"A#1","issue":"","text":"t","verdict":"unclear","evidence":[],"judged":false}]}`
	if b, _ := json.Marshal(rc); string(b) != want {
		t.Errorf("counts = %s\nwant     %s", b, want)
	}
}

func TestWriteTable(t *testing.T) {
	const pr = "https://bitbucket.org/a/b/pull-requests/3"
	ix := index(t, spacedFile)
	rc := Counts{Criteria: []Judgment{
		{Requirement: pipeline.Requirement{ID: "A#1", Text: "shown | piped"}, Verdict: "met", Judged: true, Note: "ok",
			Evidence: []reviewanswer.Evidence{{Path: "a b(1).go", Line: 2}, {Path: "a b(1).go", Line: 40}, {Path: "a b(1).go"}, {Path: "gone.go", Line: 3}}},
		{Requirement: pipeline.Requirement{ID: "A#2", Text: "t"}, Verdict: "not_met", Judged: true},
		{Requirement: pipeline.Requirement{ID: "A#3", Text: "t"}, Verdict: "unclear", Evidence: []reviewanswer.Evidence{}},
	}}
	var b strings.Builder
	WriteTable(&b, rc, ix, pr, nil)
	table := b.String()
	for _, want := range []string{
		"### Acceptance criteria\n\n| Criterion | Verdict | Evidence | Note |\n",
		"| **A#1** shown \\| piped | Met | ",
		"[`a b(1).go:2`](" + pr + "/diff#La%20b%281%29.goT2)",
		"[`a b(1).go:40`](" + pr + "/diff#chg-a%20b%281%29.go)", // not a diff line: the file's anchor
		"[`a b(1).go`](" + pr + "/diff#chg-a%20b%281%29.go)",
		"`gone.go:3` (not in this PR) | ok |",
		"| **A#2** t | **Not met** | - |",
		"| **A#3** t | Unclear | - | no verdict in the review |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	b.Reset()
	WriteTable(&b, rc, ix, "", nil)
	if strings.Contains(b.String(), "](") || !strings.Contains(b.String(), "`a b(1).go:2`, ") {
		t.Errorf("without a prUrl evidence is a code span, not a link:\n%s", b.String())
	}
	b.Reset()
	WriteTable(&b, Counts{Criteria: []Judgment{}}, ix, pr, nil)
	if b.Len() != 0 {
		t.Errorf("no criteria wrote %q", b.String())
	}
}

// TestAbuseTableInert: a Jira criterion's text and the model's verdict note
// carrying HTML, images, javascript: links and mass mentions reach the
// acceptance table inert, as the summary does.
func TestAbuseTableInert(t *testing.T) {
	payload := `<img src=x onerror=alert(1)> ![p](https://evil.example/p.png?d=1) [go](javascript:alert(1)) [x](https://evil.example/) @everyone @here`
	rc := Counts{Criteria: []Judgment{{Requirement: pipeline.Requirement{ID: "SHOP-1#1", Text: "Shows the price " + payload},
		Verdict: "met", Judged: true, Note: "ok " + payload, Evidence: []reviewanswer.Evidence{}}}}
	var b strings.Builder
	WriteTable(&b, rc, index(t), "", []string{"bitbucket.org"})
	table := b.String()
	if !strings.Contains(table, "Shows the price") || !strings.Contains(table, "| ok ") {
		t.Fatalf("criterion or note missing:\n%s", table)
	}
	for name, re := range map[string]*regexp.Regexp{
		"<img tag":         regexp.MustCompile(`<img`),
		"image":            regexp.MustCompile(`!\[[^\]]*\]\(`),
		"javascript: link": regexp.MustCompile(`\]\(javascript:`),
		"foreign link":     regexp.MustCompile(`\]\(https://evil\.example`),
		"mention":          regexp.MustCompile("(^|[^`])@(everyone|here)"),
	} {
		if re.MatchString(table) {
			t.Errorf("%s in the acceptance table:\n%s", name, table)
		}
	}
}

func TestPullRequestURL(t *testing.T) {
	for _, u := range []string{"javascript:alert(1)", "https://x/y?q=1", "https://x/y#f", "/relative", "https://x/a b", "https://x/a(b)", "http://", "%zz"} {
		if got, ok := PullRequestURL(u); ok || got != "" {
			t.Errorf("PullRequestURL(%q) = %q, %v; want rejected", u, got, ok)
		}
	}
	for in, want := range map[string]string{"": "", "  ": "", "https://bitbucket.org/a/b/pull-requests/3/": "https://bitbucket.org/a/b/pull-requests/3",
		" http://host/p ": "http://host/p"} {
		if got, ok := PullRequestURL(in); !ok || got != want {
			t.Errorf("PullRequestURL(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
