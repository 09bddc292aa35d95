package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func jsonString(s string) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestRenderUnreadableAnswer: an answer nothing can be read of is not shown;
// the summary says so, how long it was and where to find it.
func TestRenderUnreadableAnswer(t *testing.T) {
	text := `Review: {"summary": "SQL" "findings": [} {{ "path": a.go ]] done`
	r, err := Render(CommentsInput{Ref: "0123456789abcdef", Review: jsonString(text), RequestID: "n8n-17"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"could not be read", fmt.Sprintf("(%d characters)", len([]rune(text))), "`n8n-17`"} {
		if !strings.Contains(r.Markdown, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.Markdown)
		}
	}
	if strings.Contains(r.Markdown, `"findings"`) || strings.Contains(r.Markdown, "a.go") || strings.Contains(r.Markdown, "SQL") {
		t.Errorf("summary shows the raw answer:\n%s", r.Markdown)
	}
}
