package bitbucket

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/publish"
	"github.com/prscout/prscout/pipeline/review"
)

// wideDiff is a.go's change as /v1/context reads it (more context lines);
// Bitbucket's own diff of the pull request is prDiff, whose first hunk
// shows new lines 10-14 only.
const wideDiff = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -6,7 +6,9 @@ func A() {
 	// six
 	// seven
 	// eight
 	// nine
 	x := 1
+	y := 2
+	z := 3
 	use(x)
 }
`

// TestPublishRangesAndFixes posts a review through the real adapter to the
// fake Bitbucket: a finding spanning lines of Bitbucket's hunk gets a
// multi-line comment with its fix as a diff block; one whose range
// Bitbucket refuses (a 400, injected: no documentation says which ranges
// it refuses) is posted on its last line, and the answer says so; a
// critical finding gets one task, and the same request again adds nothing.
func TestPublishRangesAndFixes(t *testing.T) {
	s := newFake(t)
	s.SetDiff("acme", "uploader", baseFull, headFull, prDiff)
	s.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{BodyContains: `"start_to":7`, Status: 400})
	c, _ := newClient(t, s, nil)
	answer, _ := json.Marshal(map[string]any{"summary": "two findings", "findings": []any{
		map[string]any{"path": "a.go", "line": 11, "endLine": 12, "severity": "critical", "title": "magic numbers", "body": "Name them.",
			"fix": map[string]any{"before": "y := 2\nz := 3", "after": "y, z := two, three"}},
		map[string]any{"path": "a.go", "line": 7, "endLine": 10, "severity": "low", "title": "comments say nothing", "body": "Drop them."},
	}})
	in := review.CommentsInput{Workspace: "acme", RepoSlug: "uploader", PRID: 42, Ref: headFull, Mode: "full",
		Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: wideDiff}}, Review: answer}
	post := func() (review.Rendered, publish.Posted) {
		t.Helper()
		r, p, err := publish.Publish(context.Background(), publish.Ports{Comments: c}, in, publish.PostOptions{Tasks: true})
		if err != nil {
			t.Fatal(err)
		}
		return r, p
	}
	r, p := post()
	if len(r.Inline) != 2 || r.Inline[0].EndLine != 10 || r.Inline[1].EndLine != 12 {
		t.Fatalf("inline = %+v", r.Inline)
	}
	if p.InlineCreated != 2 || p.InlineSingleLine != 1 || p.TasksCreated != 1 || len(p.Errors) != 0 {
		t.Fatalf("posted = %+v", p)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "a.go:7-10: the multi-line anchor was refused; posted on line 10") {
		t.Errorf("warnings = %q", p.Warnings)
	}
	var inline []bitbuckettest.Comment
	for _, cm := range s.Comments("acme", "uploader", 42) {
		if cm.Path != "" {
			inline = append(inline, cm)
		}
	}
	if len(inline) != 2 {
		t.Fatalf("stored inline comments = %+v", inline)
	}
	for _, cm := range inline {
		switch {
		case strings.Contains(cm.Body, "magic numbers"):
			if cm.StartTo == nil || *cm.StartTo != 11 || *cm.To != 12 {
				t.Errorf("range comment anchored %v..%v, want 11..12", cm.StartTo, cm.To)
			}
			if !strings.Contains(cm.Body, "```diff\n-\ty := 2\n-\tz := 3\n+\ty, z := two, three\n```") {
				t.Errorf("fix block missing:\n%s", cm.Body)
			}
		default:
			if cm.StartTo != nil || *cm.To != 10 {
				t.Errorf("refused range posted at %v..%v, want its end line 10 alone", cm.StartTo, *cm.To)
			}
		}
	}
	tasks := s.Tasks("acme", "uploader", 42)
	if len(tasks) != 1 || !strings.Contains(tasks[0].Body, "magic numbers") {
		t.Fatalf("tasks = %+v", tasks)
	}

	_, p = post()
	if p.InlineCreated != 0 || p.TasksCreated != 0 || p.Summary != "unchanged" {
		t.Fatalf("re-sent request posted %+v", p)
	}
	if n := len(s.Tasks("acme", "uploader", 42)); n != 1 {
		t.Fatalf("%d tasks after the re-sent request", n)
	}
}
