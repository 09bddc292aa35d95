package review

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

// TestAbuseCriteriaTableInert: a Jira criterion's text and the model's
// verdict note carrying HTML, images, javascript: links and mass mentions
// reach the acceptance table inert, as the summary does.
func TestAbuseCriteriaTableInert(t *testing.T) {
	payload := `<img src=x onerror=alert(1)> ![p](https://evil.example/p.png?d=1) [go](javascript:alert(1)) [x](https://evil.example/) @everyone @here`
	criteria := []pipeline.Requirement{{ID: "SHOP-1#1", Text: "Shows the price " + payload}}
	note, _ := json.Marshal("ok " + payload)
	review, _ := json.Marshal(`{"summary":"s","requirements":[{"id":"SHOP-1#1","verdict":"met","note":` + string(note) + `}]}`)
	r, err := Render(CommentsInput{Ref: "0123456789ab", Review: review, LinkHosts: []string{"bitbucket.org"},
		Requirements: pipeline.RequirementsField{Criteria: criteria}})
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(r.Markdown, "### Acceptance criteria")
	if at < 0 {
		t.Fatalf("no table:\n%s", r.Markdown)
	}
	table := r.Markdown[at:]
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
