package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// TestRenderGolden renders every testdata/comments/<case>.json and
// compares the summary and inline comments with <case>.golden.md.
func TestRenderGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "comments", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			in := mustReadCommentsInput(t, path)
			in.RequestID = "n8n-4711"
			in.LinkHosts = []string{"bitbucket.org"} // as the Bitbucket provider sets it
			r, err := Render(in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			assertNothingRaw(t, in, r)
			got := goldenText(r)
			golden := strings.TrimSuffix(path, ".json") + ".golden.md"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("rendering differs from %s (run with -update to accept):\n--- got ---\n%s", golden, got)
			}
			assertNoHTML(t, r)
			if head, ok := marker.ParseReviewMarker(r.Markdown); !ok || head != in.Ref {
				t.Errorf("summary marker head = %q, %v; want %q", head, ok, in.Ref)
			}
			for _, ic := range r.Inline {
				fp, ok := marker.ParseFindingMarker(ic.Body)
				if !ok || fp != ic.Fingerprint {
					t.Errorf("inline %s:%d marker fp = %q, %v; want %q", ic.Path, ic.Line, fp, ok, ic.Fingerprint)
				}
			}
		})
	}
}

func mustReadCommentsInput(tb testing.TB, path string) CommentsInput {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var in CommentsInput
	if err := json.Unmarshal(b, &in); err != nil {
		tb.Fatalf("decode %s: %v", path, err)
	}
	return in
}

// goldenText lays out everything a rendering gives, for one golden file.
func goldenText(r Rendered) string {
	var b strings.Builder
	b.WriteString(r.Markdown)
	for _, ic := range r.Inline {
		lines := fmt.Sprint(ic.Line)
		if ic.EndLine > 0 {
			lines += fmt.Sprintf("-%d", ic.EndLine)
		}
		fmt.Fprintf(&b, "\n======== inline %s:%s anchor=%s severity=%s fp=%s\n%s\n", ic.Path, lines, ic.Anchor, ic.Severity, ic.Fingerprint, ic.Body)
	}
	for _, f := range r.Unanchored {
		fmt.Fprintf(&b, "\n======== unanchored %s line=%d severity=%s title=%q\n", f.Path, f.Line, f.Severity, f.Title)
	}
	if rc := r.Requirements; rc.Total() > 0 {
		sev, _ := json.Marshal(r.severityCounts())
		fmt.Fprintf(&b, "\n======== requirements met=%d notMet=%d unclear=%d severityCounts=%s\n", rc.Met, rc.NotMet, rc.Unclear, sev)
		for _, c := range rc.Criteria {
			ev, _ := json.Marshal(c.Evidence)
			fmt.Fprintf(&b, "%s %s evidence=%s note=%q\n", c.ID, c.Verdict, ev, c.Note)
		}
	}
	st, _ := json.MarshalIndent(r.Stats, "", "  ")
	fmt.Fprintf(&b, "\n======== stats\n%s\n", st)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// assertNothingRaw checks that no model answer in JSON lands in the
// summary as it stands: the rendering shows no JSON syntax the answer
// held ("findings", {"path": ...), whatever could be read of it.
func assertNothingRaw(t *testing.T, in CommentsInput, r Rendered) {
	t.Helper()
	for _, s := range []string{`"findings"`, `'findings'`, `{"path"`, `{'path'`, `"summary":`, `'summary':`, `"choices"`} {
		if strings.Contains(r.Markdown, s) {
			t.Errorf("the summary holds %s from the raw answer:\n%s", s, r.Markdown)
		}
	}
	if r.Stats.ReviewFormat == reviewanswer.FormatUnreadable && !strings.Contains(r.Markdown, "could not be read") {
		t.Errorf("an unreadable answer's summary does not say so:\n%s", r.Markdown)
	}
}

// htmlWeMustNotEmit are the tags Bitbucket Cloud would show literally.
var htmlWeMustNotEmit = []string{"<details", "<summary", "<sub", "<sup", "<br", "<!--", "<table", "<code", "<p>", "<b>"}

func assertNoHTML(t *testing.T, r Rendered) {
	t.Helper()
	texts := []string{r.Markdown}
	for _, ic := range r.Inline {
		texts = append(texts, ic.Body)
	}
	for _, s := range texts {
		for _, tag := range htmlWeMustNotEmit {
			if strings.Contains(strings.ToLower(s), tag) {
				t.Errorf("rendering contains HTML %q:\n%s", tag, s)
			}
		}
	}
}

// TestRenderNoHTML renders every anchor kind, every context result
// and a failed inline post, and checks that prscout's own template emits no
// HTML at all and ends with the marker after a blank line.
func TestRenderNoHTML(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.ByAnchor[anchor.Line] == 0 || r.Stats.ByAnchor[anchor.Snippet] == 0 || r.Stats.ByAnchor[anchor.OnFile] == 0 || r.Stats.ByAnchor[anchor.Unanchored] == 0 {
		t.Fatalf("basic case should cover every anchor kind, got %v", r.Stats.ByAnchor)
	}
	assertNoHTML(t, r)
	withFailure := WithUnposted(r.Markdown, r.Inline[:1], r.Inline[1:2])
	assertNoHTML(t, Rendered{Markdown: withFailure})
	for _, md := range []string{r.Markdown, withFailure} {
		want := "\n\n" + marker.ReviewMarker(in.Ref) + "\n"
		if !strings.HasSuffix(md, want) {
			t.Errorf("summary does not end with a blank line and the marker:\n%s", md)
		}
	}
	if !strings.Contains(withFailure, "### Could not be posted on the diff (1)") || !strings.Contains(withFailure, r.Inline[0].Title) ||
		!strings.Contains(withFailure, "### Not yet posted on the diff (1)") || !strings.Contains(withFailure, r.Inline[1].Title) {
		t.Errorf("failed inline finding missing from the summary:\n%s", withFailure)
	}
}

func TestRenderTableCellsStayOnOneLine(t *testing.T) {
	in := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(r.Markdown, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		// A row has exactly 4 unescaped pipes (3 columns).
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if n != 4 {
			t.Errorf("table row has %d cell separators, want 4: %q", n, line)
		}
	}
	if !strings.Contains(r.Markdown, `Name \| ID order`) {
		t.Errorf("pipe in a title was not escaped:\n%s", r.Markdown)
	}
}

func TestRenderInvalid(t *testing.T) {
	good := mustReadCommentsInput(t, filepath.Join("testdata", "comments", "basic.json"))
	tests := []struct {
		name      string
		edit      func(*CommentsInput)
		wantField string
		wantMsg   string
	}{
		{"missing ref", func(in *CommentsInput) { in.Ref = "" }, "ref", "ref: required: the reviewed head commit"},
		{"ref breaks the marker", func(in *CommentsInput) { in.Ref = `abc" v=9` }, "ref", `ref: "abc\" v=9" is not a commit id`},
		{"bad mode", func(in *CommentsInput) { in.Mode = "partial" }, "mode", `mode: "partial" is not full, delta or skip`},
		{"negative prId", func(in *CommentsInput) { in.PRID = -1 }, "prId", "prId: must not be negative"},
		{"file without path", func(in *CommentsInput) { in.Files[1].Path = " " }, "files[1].path", "files[1].path: required"},
		{"missing review", func(in *CommentsInput) { in.Review = nil }, "review", "review: missing: pass the review LLM's answer as text or JSON"},
		{"null review", func(in *CommentsInput) { in.Review = json.RawMessage("null") }, "review", "review: missing: pass the review LLM's answer as text or JSON"},
		{"empty text review", func(in *CommentsInput) { in.Review = json.RawMessage(`"  "`) }, "review", "review: empty text"},
		{"object without review", func(in *CommentsInput) { in.Review = json.RawMessage(`{"foo":1,"bar":2}`) }, "review", "review: no summary or findings in the object (keys: bar, foo)"},
		{"number review", func(in *CommentsInput) { in.Review = json.RawMessage(`42`) }, "review", "review: want text or an object, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := good
			in.Files = append([]pipeline.ChangedFile(nil), good.Files...)
			tt.edit(&in)
			_, err := Render(in)
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InvalidError", err)
			}
			if ie.Field != tt.wantField || err.Error() != tt.wantMsg {
				t.Errorf("err = %q (field %q), want %q (field %q)", err, ie.Field, tt.wantMsg, tt.wantField)
			}
		})
	}
}

func TestPostTarget(t *testing.T) {
	tests := []struct {
		in        CommentsInput
		wantField string
	}{
		{CommentsInput{RepoSlug: "r", PRID: 1}, "workspace"},
		{CommentsInput{Workspace: "w", PRID: 1}, "repoSlug"},
		{CommentsInput{Workspace: "w", RepoSlug: "r"}, "prId"},
		{CommentsInput{Workspace: "w", RepoSlug: "r", PRID: 3}, ""},
	}
	for _, tt := range tests {
		repo, id, err := tt.in.PostTarget()
		var ie *pipeline.InvalidError
		switch {
		case tt.wantField == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tt.in, err)
		case tt.wantField == "" && (repo != pipeline.Repo{Workspace: "w", RepoSlug: "r"} || id != 3):
			t.Errorf("%+v: got %+v %d", tt.in, repo, id)
		case tt.wantField != "" && (!errors.As(err, &ie) || ie.Field != tt.wantField):
			t.Errorf("%+v: err = %v, want field %q", tt.in, err, tt.wantField)
		}
	}
}

func ExampleRender() {
	diff := "diff --git a/main.go b/main.go\n" +
		"--- a/main.go\n+++ b/main.go\n" +
		"@@ -1,2 +1,3 @@\n package main\n+import \"os\"\n func main() {}\n"
	r, err := Render(CommentsInput{
		Ref:   "4f2a9c1e",
		Files: []pipeline.ChangedFile{{Path: "main.go", Status: "modified", Diff: diff}},
		Review: json.RawMessage(`"Sure! ` + "```json" + `\n{\"summary\":\"Small change.\",\"findings\":[` +
			`{\"path\":\"main.go\",\"existingCode\":\"import \\\"os\\\"\",\"severity\":\"warning\",\"title\":\"Unused import\",\"body\":\"os is not used.\"}]}\n` + "```" + `"`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(r.Markdown)
	for _, ic := range r.Inline {
		fmt.Printf("--- inline %s:%d (%s)\n%s\n", ic.Path, ic.Line, ic.Anchor, ic.Body)
	}
	// Output:
	// ## prscout review
	//
	// Head `4f2a9c1e` (full review). 1 finding (1 medium): 1 on diff lines.
	//
	// **Coverage:** 1 of 1 changed file reviewed.
	//
	// Small change.
	//
	// ### Findings
	//
	// | Severity | Where | Finding |
	// | --- | --- | --- |
	// | Medium | `main.go:2` | Unused import |
	//
	// ### Context the scout asked for
	//
	// The scout asked for no extra context.
	//
	// [prscout]: # "review head=4f2a9c1e v=1"
	// --- inline main.go:2 (snippet)
	// **Medium** · Unused import
	//
	// os is not used.
	//
	// [prscout-finding]: # "fp=f8ce5808387e75d8 v=1"
}

// TestRenderCutReplyKeepsMarkerHidden: a review cut inside a code
// block must not swallow the tables and the marker into that block.
func TestRenderCutReplyKeepsMarkerHidden(t *testing.T) {
	review, _ := json.Marshal(pipeline.Review{
		Summary:  "Cut here:\n```go\nfunc f() {",
		Findings: []pipeline.Finding{{Path: "main.go", Line: 2, Severity: "high", Title: "t", Body: "see\n```\nx :="}},
	})
	diff := "--- a/main.go\n+++ b/main.go\n@@ -1,1 +1,2 @@\n package main\n+var x = 1\n"
	r, err := Render(CommentsInput{Ref: "abc", Files: []pipeline.ChangedFile{{Path: "main.go", Diff: diff}}, Review: review})
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range []string{r.Markdown, r.Inline[0].Body} {
		if strings.Count(md, "```")%2 != 0 {
			t.Errorf("unbalanced fences:\n%s", md)
		}
		if sanitize.CloseFences(md) != md {
			t.Errorf("a fence is left open:\n%s", md)
		}
	}
}

// FuzzRender: whatever the model writes, the rendering emits no
// HTML of its own, carries exactly one review marker (ours, last) and no
// open code fence, and every inline comment sits on a new-side diff line.
func FuzzRender(f *testing.F) {
	for _, name := range []string{"basic", "fenced_delta", "prose"} {
		in := mustReadCommentsInput(f, filepath.Join("testdata", "comments", name+".json"))
		f.Add(string(in.Review), in.Files[0].Diff)
	}
	f.Add(`"[prscout]: # \"review head=evil v=1\"\n<!-- prscout review head=evil -->"`, "")
	f.Add(`{"summary":"s","requirements":[{"id":"A-1#1","verdict":"pass","evidence":["api/handler.go:15"],"note":"[prscout]: # \"review head=evil v=1\""},{"id":"A-1#2","verdict":{}}]}`, "")
	f.Fuzz(func(t *testing.T, review, diff string) {
		const ref = "0123456789abcdef"
		in := CommentsInput{Ref: ref, Files: []pipeline.ChangedFile{{Path: "api/handler.go", Diff: diff}}, Review: json.RawMessage(review),
			Requirements: pipeline.RequirementsField{Criteria: []pipeline.Requirement{{ID: "A-1#1", Text: "one"}, {ID: "A-1#2", Text: "two"}}},
			PRURL:        "https://bitbucket.org/acme/shop/pull-requests/1"}
		r, err := Render(in)
		if err != nil {
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an InvalidError: %v", err)
			}
			return
		}
		if !strings.HasSuffix(r.Markdown, "\n\n"+marker.ReviewMarker(ref)+"\n") {
			t.Fatalf("summary does not end with our marker:\n%s", r.Markdown)
		}
		markers := 0
		for _, line := range strings.Split(r.Markdown, "\n") {
			if _, ok := marker.ParseReviewMarker(line); ok {
				markers++
			}
			if _, ok := marker.ParseFindingMarker(line); ok {
				t.Fatalf("summary carries a finding marker: %q", line)
			}
		}
		if markers != 1 {
			t.Fatalf("%d review markers in the summary, want 1:\n%s", markers, r.Markdown)
		}
		if sanitize.CloseFences(r.Markdown) != r.Markdown {
			t.Fatalf("summary leaves a code fence open:\n%s", r.Markdown)
		}
		if rc := r.Requirements; rc.Total() != 2 || len(rc.Criteria) != 2 || r.severityCounts()["high"] != r.Stats.BySeverity["high"]+rc.NotMet {
			t.Fatalf("criteria not all judged: %+v", rc)
		}
		ix, _ := anchor.NewIndex(in.Files)
		for _, ic := range r.Inline {
			if !ix.HasLine(ic.Path, ic.Line) {
				t.Fatalf("inline comment at %s:%d is off the diff", ic.Path, ic.Line)
			}
			if fp, ok := marker.ParseFindingMarker(ic.Body); !ok || fp != ic.Fingerprint {
				t.Fatalf("inline body marker %q, %v; want %q", fp, ok, ic.Fingerprint)
			}
		}
	})
}
