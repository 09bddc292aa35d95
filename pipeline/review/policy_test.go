package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/placement"
)

// policyDiff is a new file of 20 lines line01() .. line20().
var policyDiff = func() string {
	var b strings.Builder
	b.WriteString("diff --git a/p.go b/p.go\nnew file mode 100644\n--- /dev/null\n+++ b/p.go\n@@ -0,0 +1,20 @@\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "+line%02d()\n", i)
	}
	return b.String()
}()

// pf is a finding on line n of p.go quoting that line.
func pf(n int, sev string, conf float64) pipeline.Finding {
	return pipeline.Finding{Path: "p.go", Line: n, ExistingCode: fmt.Sprintf("line%02d()", n), Severity: sev, Confidence: conf,
		Title: fmt.Sprintf("finding %d", n), Body: fmt.Sprintf("body %d", n)}
}

func renderPolicy(t *testing.T, pol placement.Policy, findings ...pipeline.Finding) Rendered {
	t.Helper()
	answer, _ := json.Marshal(pipeline.Review{Summary: "s", Findings: findings})
	r, err := Render(CommentsInput{Ref: "abc123", Files: []pipeline.ChangedFile{{Path: "p.go", Status: "added", Diff: policyDiff}}, Review: answer, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func inlineTitles(r Rendered) []string {
	out := []string{}
	for _, ic := range BySeverity(r.Inline) {
		out = append(out, ic.Title)
	}
	return out
}

func TestPolicyBudgetAndFloor(t *testing.T) {
	findings := []pipeline.Finding{
		pf(1, "low", 0), pf(2, "high", 0.4), pf(3, "critical", 0), pf(4, "high", 0.9),
		pf(5, "medium", 0), pf(6, "high", 0), pf(7, "medium", 0.8),
	}
	for _, tc := range []struct {
		name    string
		pol     placement.Policy
		inline  []string // most severe first (BySeverity is stable on the line order)
		summary int
	}{
		{"zero policy: all inline", placement.Policy{}, []string{"finding 3", "finding 2", "finding 4", "finding 6", "finding 5", "finding 7", "finding 1"}, 0},
		{"budget 2: critical, then the most confident high", placement.Policy{MaxInline: 2}, []string{"finding 3", "finding 4"}, 5},
		{"budget 3: unknown confidence (0.5) beats 0.4", placement.Policy{MaxInline: 3}, []string{"finding 3", "finding 4", "finding 6"}, 4},
		{"floor high", placement.Policy{MinSeverity: "high"}, []string{"finding 3", "finding 2", "finding 4", "finding 6"}, 3},
		{"quiet: 5, high and up", placement.Policy{Profile: placement.ProfileQuiet}, []string{"finding 3", "finding 2", "finding 4", "finding 6"}, 3},
		{"balanced: 10, medium and up", placement.Policy{Profile: placement.ProfileBalanced}, []string{"finding 3", "finding 2", "finding 4", "finding 6", "finding 5", "finding 7"}, 1},
		{"balanced with budget 1", placement.Policy{Profile: placement.ProfileBalanced, MaxInline: 1}, []string{"finding 3"}, 6},
		{"quiet with floor low", placement.Policy{Profile: placement.ProfileQuiet, MinSeverity: "low"}, []string{"finding 3", "finding 4", "finding 2", "finding 6", "finding 7"}, 2},
		{"thorough: everything", placement.Policy{Profile: placement.ProfileThorough}, []string{"finding 3", "finding 2", "finding 4", "finding 6", "finding 5", "finding 7", "finding 1"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := renderPolicy(t, tc.pol, findings...)
			got := inlineTitles(r)
			if strings.Join(got, ",") != strings.Join(sortedLike(tc.inline, got), ",") {
				t.Errorf("inline = %v, want the set %v", got, tc.inline)
			}
			if len(r.SummaryOnly) != tc.summary || r.Stats.ByPlacement[placement.Summary] != tc.summary {
				t.Errorf("summary only = %d (stats %v), want %d", len(r.SummaryOnly), r.Stats.ByPlacement, tc.summary)
			}
			assertNothingLost(t, r, findings)
		})
	}
}

// sortedLike returns want when it holds the same titles as got (in any
// order), else want unchanged, so the comparison above checks the set.
func sortedLike(want, got []string) []string {
	if len(want) != len(got) {
		return want
	}
	seen := map[string]int{}
	for _, w := range want {
		seen[w]++
	}
	for _, g := range got {
		if seen[g] == 0 {
			return want
		}
		seen[g]--
	}
	return got
}

// TestPolicyBudgetOrder: the budget takes most severe first, ties by
// confidence; the rest are in the summary with the reason.
func TestPolicyBudgetOrder(t *testing.T) {
	r := renderPolicy(t, placement.Policy{MaxInline: 2}, pf(1, "medium", 0.99), pf(2, "high", 0.2), pf(3, "high", 0.7), pf(4, "high", 0))
	got := map[string]bool{}
	for _, ic := range r.Inline {
		got[ic.Title] = true
	}
	if !got["finding 3"] || !got["finding 4"] || len(got) != 2 {
		t.Errorf("inline = %v, want findings 3 (0.7) and 4 (no confidence: 0.5)", got)
	}
	for _, s := range r.SummaryOnly {
		if !strings.Contains(s.Reason, "budget (2 per review)") {
			t.Errorf("%s: reason %q", s.Title, s.Reason)
		}
		if !strings.Contains(r.Markdown, s.Body) {
			t.Errorf("%s: body not in the summary", s.Title)
		}
	}
}

func TestPolicyUnverified(t *testing.T) {
	noQuote := pipeline.Finding{Path: "p.go", Line: 4, Severity: "critical", Title: "no quote", Body: "b"}
	wrong := pipeline.Finding{Path: "p.go", Line: 5, ExistingCode: "somethingElse()", Severity: "high", Title: "wrong quote", Body: "b"}
	for _, tc := range []struct {
		mode              string
		inline, unverifd  int
		listed, countedHi bool
	}{
		{placement.UnverifiedFold, 1, 2, true, false},
		{placement.UnverifiedDrop, 1, 2, false, false},
		{placement.UnverifiedKeep, 3, 0, false, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			findings := []pipeline.Finding{noQuote, wrong, pf(6, "medium", 0)}
			r := renderPolicy(t, placement.Policy{Unverified: tc.mode}, findings...)
			if len(r.Inline) != tc.inline || len(r.Unverified) != tc.unverifd {
				t.Fatalf("inline %d, unverified %d; want %d, %d", len(r.Inline), len(r.Unverified), tc.inline, tc.unverifd)
			}
			if got := strings.Contains(r.Markdown, "### Unverified findings (2)"); got != tc.listed {
				t.Errorf("unverified section listed = %v, want %v:\n%s", got, tc.listed, r.Markdown)
			}
			if tc.mode == placement.UnverifiedDrop && !strings.Contains(r.Markdown, "2 unverified findings left out") {
				t.Errorf("drop does not say what it left out:\n%s", r.Markdown)
			}
			// The build status and the report count what ReportFindings lists.
			hi := false
			for _, f := range ReportFindings(r) {
				if f.Severity == "critical" || f.Severity == "high" {
					hi = true
				}
			}
			if hi != tc.countedHi || (r.Stats.BySeverity["critical"] > 0) != tc.countedHi {
				t.Errorf("critical/high counted = %v (bySeverity %v), want %v", hi, r.Stats.BySeverity, tc.countedHi)
			}
			if r.Stats.ByEvidence["unverified"] != 2 || r.Stats.ByEvidence["verified"] != 1 {
				t.Errorf("byEvidence = %v", r.Stats.ByEvidence)
			}
			if tc.mode != placement.UnverifiedDrop {
				assertNothingLost(t, r, findings)
			}
		})
	}
}

// assertNothingLost: every finding is inline, or in the summary (its title),
// and in the answer's lists.
func assertNothingLost(t *testing.T, r Rendered, findings []pipeline.Finding) {
	t.Helper()
	for _, f := range findings {
		inline := false
		for _, ic := range r.Inline {
			inline = inline || ic.Title == f.Title
		}
		if !inline && !strings.Contains(r.Markdown, f.Title) {
			t.Errorf("%q is neither inline nor in the summary", f.Title)
		}
	}
	if n := len(r.Inline) + len(r.SummaryOnly) + len(r.Unanchored) + len(r.Unverified); n != len(findings) {
		t.Errorf("%d findings placed, %d given", n, len(findings))
	}
}

// TestPolicyMemory: summary-only and unverified findings are in the review
// memory with their placement, in the hidden data (w=s, w=u), and an
// unverified finding not reported again is let go, never resolved.
func TestPolicyMemory(t *testing.T) {
	wrong := pipeline.Finding{Path: "p.go", Line: 5, ExistingCode: "somethingElse()", Severity: "high", Title: "wrong quote", Body: "b"}
	answer, _ := json.Marshal(pipeline.Review{Summary: "s", Findings: []pipeline.Finding{pf(1, "high", 0), pf(2, "low", 0), wrong}})
	in := CommentsInput{Workspace: "acme", RepoSlug: "shop", PRID: 1, Ref: memH1, Mode: "full",
		Files: []pipeline.ChangedFile{{Path: "p.go", Status: "added", Diff: policyDiff}}, Review: answer,
		Policy: placement.Policy{Profile: placement.ProfileBalanced, Unverified: placement.UnverifiedFold}}
	_, sum, err := Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	mem := sum.Remember(nil)
	byTitle := map[string]MemoryEntry{}
	for _, e := range mem.Entries {
		byTitle[e.Title] = e
	}
	for title, want := range map[string]string{"finding 1": placement.Inline, "finding 2": placement.Summary, "wrong quote": placement.Unverified} {
		if e, ok := byTitle[title]; !ok || e.Placement != want || e.State != StateNew {
			t.Errorf("%s: memory entry %+v, want placement %s, state new", title, e, want)
		}
	}
	if mem.Counted["posted"] != 2 {
		t.Errorf("posted counted %d, want 2 (the unverified one is not)", mem.Counted["posted"])
	}
	body := sum.Write(mem, nil, nil)
	data := map[string]marker.FindingData{}
	for _, d := range marker.ParseFindingData(body) {
		data[d.Fingerprint] = d
	}
	places := map[string]int{}
	for _, d := range data {
		places[d.Placement]++
	}
	if places[""] != 1 || places[marker.PlacementSummary] != 1 || places[marker.PlacementUnverified] != 1 {
		t.Errorf("hidden data placements %v, want one inline, one w=s, one w=u:\n%s", places, body)
	}
	if strings.Contains(tableOf(body), "wrong quote") {
		t.Errorf("the unverified finding is in the findings table:\n%s", body)
	}

	// The next push reports only finding 1: the unverified one is let go.
	answer2, _ := json.Marshal(pipeline.Review{Summary: "s", Findings: []pipeline.Finding{pf(1, "high", 0)}})
	in.Ref, in.Review = "2222222222222222222222222222222222222222", answer2
	_, sum2, err := Prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	mem2 := sum2.Remember([]pipeline.Comment{{ID: 9, Body: body}})
	if mem2.Counted["resolved"] != 0 {
		t.Errorf("resolved counted %d, want 0", mem2.Counted["resolved"])
	}
	body2 := sum2.Write(mem2, nil, nil)
	for _, d := range marker.ParseFindingData(body2) {
		if d.Placement == marker.PlacementUnverified {
			t.Errorf("the unverified finding is still in the data: %+v", d)
		}
	}
}

// tableOf is the summary's findings table.
func tableOf(md string) string {
	i := strings.Index(md, "### Findings")
	if i < 0 {
		return ""
	}
	rest := md[i:]
	if j := strings.Index(rest[4:], "###"); j >= 0 {
		return rest[:j+4]
	}
	return rest
}

// TestRenderBadCommentPolicy: a bad request policy is a 400 naming its field.
func TestRenderBadCommentPolicy(t *testing.T) {
	answer, _ := json.Marshal(pipeline.Review{Summary: "s"})
	_, err := Render(CommentsInput{Ref: "abc", Review: answer, CommentPolicy: &placement.Policy{Unverified: "hide"}})
	var inv *pipeline.InvalidError
	if !asInvalid(err, &inv) || inv.Field != "commentPolicy.unverified" {
		t.Errorf("Render with a bad commentPolicy: %v", err)
	}
}

func asInvalid(err error, target **pipeline.InvalidError) bool {
	return err != nil && errors.As(err, target)
}
