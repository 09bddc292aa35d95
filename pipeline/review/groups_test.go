package review

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestOneGroupRendersAsBefore: the shipped workflow now sends the context
// answer with reviews[] of one group; the summary and inline comments must
// be byte for byte those of the merge answer with review (the shape older
// workflows send), or a re-sent request would edit the summary for nothing.
func TestOneGroupRendersAsBefore(t *testing.T) {
	in := mustReadCommentsInput(t, "testdata/comments/basic.json")
	legacy, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	grouped := in
	grouped.Review = nil
	grouped.Groups = []CommentsGroup{{ID: "g1", Group: "g1", Files: in.Files}}
	grouped.Reviews = []GroupReview{{Group: "g1", Review: in.Review, AdditionalContext: in.AdditionalContext, Dropped: in.Dropped}}
	grouped.AdditionalContext, grouped.Dropped = nil, nil
	got, err := Render(grouped)
	if err != nil {
		t.Fatal(err)
	}
	if got.Markdown != legacy.Markdown {
		t.Errorf("one group renders differently:\n--- legacy ---\n%s\n--- groups ---\n%s", legacy.Markdown, got.Markdown)
	}
	if len(got.Inline) != len(legacy.Inline) || got.Coverage.Reviewed != legacy.Coverage.Reviewed {
		t.Errorf("inline %d vs %d, coverage %+v vs %+v", len(got.Inline), len(legacy.Inline), got.Coverage, legacy.Coverage)
	}
	for i := range got.Inline {
		if got.Inline[i] != legacy.Inline[i] {
			t.Errorf("inline %d: %+v vs %+v", i, got.Inline[i], legacy.Inline[i])
		}
	}
}

// TestGroupsDecodeAndRefuse: group ids may be strings or numbers; a request
// with several reviews must say which group each is for.
func TestGroupsDecodeAndRefuse(t *testing.T) {
	diff := fileDiff("a.go", "x", "y")
	body := `{"ref":"abc1234","files":[{"path":"a.go","status":"modified","diff":` + string(jsonString(diff)) + `}],
	  "groups":[{"id":1,"files":[{"path":"a.go","status":"modified","diff":` + string(jsonString(diff)) + `}]},{"group":"2","files":[]}],
	  "reviews":[{"group":1,"review":{"summary":"fine","findings":[]}}]}`
	var in CommentsInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	out, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Markdown, "- **2**: no review was received; 0 files not reviewed.") || out.Coverage.FailedGroups != 1 {
		t.Errorf("group 2 without a review is not named:\n%s", out.Markdown)
	}
	if !strings.Contains(out.Markdown, "**1:** fine") {
		t.Errorf("group 1's summary missing:\n%s", out.Markdown)
	}

	for _, tt := range []struct {
		name, body, field string
	}{
		{"review without group", `{"ref":"abc1234","reviews":[{"group":"g1","review":"{}"},{"review":"x"}]}`, "reviews[1].group"},
		{"group without id", `{"ref":"abc1234","groups":[{"files":[]}],"reviews":[{"group":"g1","review":"x"}]}`, "groups[0].id"},
		{"duplicate group", `{"ref":"abc1234","groups":[{"id":"g1"},{"id":"g1"}],"reviews":[{"group":"g1","review":"x"}]}`, "groups[1].id"},
	} {
		var in CommentsInput
		if err := json.Unmarshal([]byte(tt.body), &in); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, err := Render(in)
		var inv *pipeline.InvalidError
		if !errors.As(err, &inv) || inv.Field != tt.field {
			t.Errorf("%s: %v, want InvalidError on %s", tt.name, err, tt.field)
		}
	}
	var id GroupID
	if err := json.Unmarshal([]byte(`{"a":1}`), &id); err == nil {
		t.Error("an object was accepted as a group id")
	}
}
