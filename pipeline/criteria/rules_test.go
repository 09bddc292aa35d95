package criteria

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// texts is the criteria texts of a description alone.
func texts(t *testing.T, in Input) []string {
	t.Helper()
	if in.Key == "" {
		in.Key = "AB-1"
	}
	res, err := Extract(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range res.Criteria {
		out = append(out, c.Text)
	}
	return out
}

func TestSectionRules(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{"markdown heading ends at same level",
			Input{Description: "## Acceptance criteria\n- a\n### Sub\n- b\n## Next\n- c"}, []string{"a", "b"}},
		{"markdown heading ends at higher level",
			Input{Description: "### AC\n- a\n# Title\n- c"}, []string{"a"}},
		{"wiki heading with emoji and numbering",
			Input{Description: "h2. 3. ✅ Acceptance Criteria:\n* a\nh2. Notes\n* n"}, []string{"a"}},
		{"label line ends at a bold line",
			Input{Description: "*Acceptance criteria:*\n* a\n\n*Design*\n* d"}, []string{"a"}},
		{"label line ends at a short label",
			Input{Description: "Acceptance criteria:\n- a\n\nOut of scope:\n- o"}, []string{"a"}},
		{"an intro sentence does not end a label's section",
			Input{Description: "AC:\n\nThe user can:\n- export\n- import"}, []string{"export", "import"}},
		{"label line ends at a rule",
			Input{Description: "**AC**\n- a\n\n---\n- b"}, []string{"a"}},
		{"a heading section is not ended by labels",
			Input{Description: "## Acceptance criteria\n- a\n\n**Edge cases:**\n- b"}, []string{"a", "b"}},
		{"acceptance criteria win over an earlier definition of done",
			Input{Description: "## DoD\n- tests\n## ACs\n- a"}, []string{"a"}},
		{"the first acceptance section is used",
			Input{Description: "## AC\n- a\n## Acceptance criteria\n- b"}, []string{"a"}},
		{"paragraphs only: each paragraph, intro label dropped",
			Input{Description: "## AC\nIt is fast.\nReally fast.\n\nWe offer:\n\nIt is safe."}, []string{"It is fast. Really fast.", "It is safe."}},
		{"lists win over paragraphs; an unindented line after an item is a paragraph",
			Input{Description: "## AC\nIntro text.\n- a\nnot part of a\n\nOutro."}, []string{"a"}},
		{"indented continuation joins the item",
			Input{Description: "## AC\n- first line\n  second line\n- next"}, []string{"first line second line", "next"}},
		{"nested items fold, grandchildren in parentheses",
			Input{Description: "## AC\n- parent\n  - child\n    - grandchild\n  - other\n- sibling"},
			[]string{"parent: child (grandchild); other", "sibling"}},
		{"a parent ending with a colon takes its children after a space",
			Input{Description: "## AC\n- Formats:\n  - CSV\n  - XLSX"}, []string{"Formats: CSV; XLSX"}},
		{"checkbox lines without bullets",
			Input{Description: "## AC\n[ ] one\n[x] two\n[X] three"}, []string{"one", "two", "three"}},
		{"exact repeats dropped",
			Input{Description: "## AC\n- Same\n- same\n- other"}, []string{"Same", "other"}},
		{"no section: description lists are not criteria",
			Input{Description: "Steps:\n- a\n- b"}, nil},
		{"a word containing AC is not a heading",
			Input{Description: "## Accounting\n- a\n## ACME\n- b"}, nil},
		{"When without Given and no Then stays alone",
			Input{Description: "## AC\n- When a user saves, the form closes\n- When a user deletes, a dialog asks"},
			[]string{"When a user saves, the form closes", "When a user deletes, a dialog asks"}},
		{"When followed by Then groups",
			Input{Description: "## AC\n- When I open the page\n- Then I see the list\n- And it is sorted"},
			[]string{"When I open the page; Then I see the list; And it is sorted"}},
		{"a new Given starts a new scenario",
			Input{Description: "## AC\nGiven a\nWhen b\nThen c\n\nGiven d\nThen e"},
			[]string{"Given a; When b; Then c", "Given d; Then e"}},
		{"wrapped step lines join their step",
			Input{Description: "## AC\nGiven a cart\nWhen I pay\nThen an order exists\nwith status paid"},
			[]string{"Given a cart; When I pay; Then an order exists with status paid"}},
		{"lower-case keywords are prose",
			Input{Description: "## AC\nThe export finishes\nwhen the file is large."}, []string{"The export finishes when the file is large."}},
		{"scenario with nested steps",
			Input{Description: "## AC\n- Scenario: pay\n  - Given a cart\n  - Then paid"}, []string{"Scenario: pay; Given a cart; Then paid"}},
		{"non-gherkin code in the section is ignored",
			Input{Description: "## AC\n- a\n```\nfoo()\n```"}, []string{"a"}},
		{"a table outside Examples is ignored",
			Input{Description: "## AC\n| a | b |\n|---|---|\n| 1 | 2 |\n- x"}, []string{"x"}},
		{"wiki numbered items with a hash are not Markdown headings",
			Input{Description: "*AC:*\n# one\n# two"}, []string{"one", "two"}},
		{"wiki links and monospace",
			Input{Description: "h2. AC\n* see [the spec|https://x.example/spec] and {{run()}}"}, []string{"see the spec (https://x.example/spec) and `run()`"}},
		{"format hint Wiki reads a single hash line as a list item",
			Input{Description: "*AC:*\n# only", Format: FormatWiki}, []string{"only"}},
		{"format hint Markdown reads it as a heading",
			Input{Description: "## AC\n# only\n- x", Format: FormatMarkdown}, nil},
		{"ADF JSON as a string", Input{Description: `{"type":"doc","version":1,"content":[{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"AC"}]},{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]}]}]}`},
			[]string{"a"}},
		{"ADF as raw JSON", Input{Description: json.RawMessage(`{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"AC: one line"}]}]}`)},
			[]string{"one line"}},
		{"ADF as a decoded map", Input{Description: map[string]any{"type": "doc", "version": 1.0, "content": []any{
			map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": "Acceptance criteria", "marks": []any{map[string]any{"type": "strong"}}}}},
			map[string]any{"type": "orderedList", "content": []any{map[string]any{"type": "listItem", "content": []any{
				map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": "a"}}}}}}}}}},
			[]string{"a"}},
		{"ADF decision list and date",
			Input{Description: `{"type":"doc","content":[{"type":"heading","attrs":{"level":1},"content":[{"type":"text","text":"Definition of done"}]},{"type":"decisionList","content":[{"type":"decisionItem","attrs":{"state":"DECIDED"},"content":[{"type":"text","text":"live before "},{"type":"date","attrs":{"timestamp":"1767225600000"}}]}]}]}`},
			[]string{"live before 2026-01-01"}},
		{"field wins over the description",
			Input{Field: "- f", Description: "## AC\n- d"}, []string{"f"}},
		{"an empty ADF field falls back to the description",
			Input{Field: map[string]any{"type": "doc", "content": []any{}}, Description: "## AC\n- d"}, []string{"d"}},
		{"a select option field",
			Input{Field: map[string]any{"self": "https://x", "value": "Works offline", "id": "1"}}, []string{"Works offline"}},
		{"a field's headings and intros are not criteria",
			Input{Field: "h3. Criteria\nThe user can:\n* a\n* b"}, []string{"a", "b"}},
		{"a field of paragraphs",
			Input{Field: "It is fast.\n\nIt is safe."}, []string{"It is fast.", "It is safe."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, texts(t, tt.in)); d != "" {
				t.Errorf("criteria (-want +got):\n%s", d)
			}
		})
	}
}

func TestSourceAndIDs(t *testing.T) {
	res, err := Extract(Input{Key: " shop-12 ", Description: "Intro\n\n### Acceptance Criteria:\n1. a\n2. b"})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Criteria: []Criterion{{ID: "SHOP-12#1", Issue: "SHOP-12", Text: "a"}, {ID: "SHOP-12#2", Issue: "SHOP-12", Text: "b"}},
		Source:   Source{Kind: SourceDescription, Section: "Acceptance Criteria"},
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	// Editing the text after the criteria keeps their ids.
	res2, _ := Extract(Input{Key: "SHOP-12", Description: "Other intro\n\n### Acceptance Criteria:\n1. a\n2. b\n\n## Notes\nnew"})
	if d := cmp.Diff(want.Criteria, res2.Criteria); d != "" {
		t.Errorf("ids moved (-want +got):\n%s", d)
	}
	for _, s := range []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceField, Field: "customfield_1", FieldName: "AC"}, `field "AC" (customfield_1)`},
		{Source{Kind: SourceField, Field: "customfield_1"}, "field customfield_1"},
		{Source{Kind: SourceField, FieldName: "AC"}, `field "AC"`},
		{Source{Kind: SourceDescription, Section: "DoD"}, `description section "DoD"`},
		{Source{}, ""},
	} {
		if got := s.src.String(); got != s.want {
			t.Errorf("%+v.String() = %q, want %q", s.src, got, s.want)
		}
	}
}

func TestBadKey(t *testing.T) {
	for _, key := range []string{"", "shop", "SHOP-", "12-SHOP", "SHOP-1#2", "../x"} {
		_, err := Extract(Input{Key: key, Description: "## AC\n- a"})
		if want := fmt.Sprintf("key: %q is not a Jira issue key", key); err == nil || err.Error() != want {
			t.Errorf("key %q: err = %v, want %s", key, err, want)
		}
	}
}

func TestCapsAreStated(t *testing.T) {
	var b strings.Builder
	b.WriteString("## Acceptance criteria\n")
	for i := 1; i <= maxCriteria+5; i++ {
		fmt.Fprintf(&b, "- criterion %d\n", i)
	}
	long := strings.Repeat("é", maxTextChars+20)
	fmt.Fprintf(&b, "- %s\n", long)
	res, err := Extract(Input{Key: "AB-9", Description: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Criteria) != maxCriteria {
		t.Fatalf("%d criteria, want %d", len(res.Criteria), maxCriteria)
	}
	if last := res.Criteria[maxCriteria-1]; last.ID != "AB-9#30" || last.Text != "criterion 30" {
		t.Errorf("last kept = %+v", last)
	}
	if d := cmp.Diff([]string{"AB-9: 36 acceptance criteria found, the first 30 kept"}, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}

	res, _ = Extract(Input{Key: "AB-9", Field: "- " + long})
	got := res.Criteria[0].Text
	if want := strings.Repeat("é", maxTextChars) + "… (cut, 20 more characters)"; got != want {
		t.Errorf("long text = %q", got)
	}
}

func TestUnreadableInputsWarn(t *testing.T) {
	huge := strings.Repeat("x", maxInputBytes+1)
	res, err := Extract(Input{Key: "AB-2", Field: huge, FieldName: "AC", Description: "## AC\n- d"})
	if err != nil {
		t.Fatal(err)
	}
	wantW := []string{fmt.Sprintf(`AB-2: acceptance criteria field "AC" not read: too large (%d bytes, limit %d)`, maxInputBytes+1, maxInputBytes)}
	if d := cmp.Diff(wantW, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if len(res.Criteria) != 1 || res.Source.Kind != SourceDescription {
		t.Errorf("no fallback to the description: %+v", res)
	}

	res, _ = Extract(Input{Key: "AB-2", Description: struct{}{}})
	if d := cmp.Diff([]string{"AB-2: description not read: unsupported value of type struct {}"}, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	res, _ = Extract(Input{Key: "AB-2", Field: json.RawMessage(`{"type":"doc","content":[{"type":"paragraph","content":"x"}]}`), FieldID: "customfield_9"})
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "AB-2: acceptance criteria field customfield_9 not read: ADF document: json: cannot unmarshal") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// FuzzExtract feeds any text as field and description, in each format: no
// panic, ids unique and numbered in order, texts one line, bounded.
func FuzzExtract(f *testing.F) {
	inputs := []string{
		"## Acceptance criteria\n- a\n  - b\n- [x] c",
		"h2. AC\n# one\n#* two\n{code:gherkin}\nScenario: s\nGiven a\nThen b\n{code}",
		`{"type":"doc","content":[{"type":"taskList","content":[{"type":"taskItem","content":[{"type":"text","text":"t"}]}]}]}`,
		"*Acceptance criteria:*\n(/) x\n\nNotes:\n- y",
		"AC: one\n\nExamples:\n| a |",
		`["a", {"value": "b"}, 3]`,
		"",
	}
	for _, s := range inputs {
		f.Add(s, s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, field, desc string, format uint8) {
		in := Input{Key: "FZ-1", Description: desc, Format: Format(format % 3)}
		if len(field)%2 == 0 {
			in.Field = field
		} else {
			in.Field = json.RawMessage(field)
		}
		res, err := Extract(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Criteria) > maxCriteria {
			t.Fatalf("%d criteria", len(res.Criteria))
		}
		if (len(res.Criteria) == 0) != (res.Source.Kind == SourceNone) {
			t.Fatalf("source %+v with %d criteria", res.Source, len(res.Criteria))
		}
		seen := map[string]bool{}
		for i, c := range res.Criteria {
			if want := fmt.Sprintf("FZ-1#%d", i+1); c.ID != want || seen[c.ID] {
				t.Fatalf("criterion %d id %q", i, c.ID)
			}
			seen[c.ID] = true
			if c.Issue != "FZ-1" || c.Text == "" || strings.ContainsAny(c.Text, "\n\r") ||
				utf8.RuneCountInString(c.Text) > maxTextChars+40 || !utf8.ValidString(c.Text) {
				t.Fatalf("criterion %+v", c)
			}
		}
	})
}
