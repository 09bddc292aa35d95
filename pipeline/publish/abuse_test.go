package publish

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/review"
)

// TestAbuseMemoryUnreviewed: after a full review posted two findings, a
// delta rewrites one finding's lines, but its review is unreadable, cut off,
// or its group's review failed: no thread is resolved, and the finding is
// unreviewed, not resolved.
func TestAbuseMemoryUnreviewed(t *testing.T) {
	cut, _ := json.Marshal(pipeline.Review{Summary: "partial", Findings: []pipeline.Finding{findUnsafe, findDiv}})
	files := []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: memDelta2}}
	for _, tt := range []struct {
		name string
		in   review.CommentsInput
	}{
		{"unreadable answer", review.CommentsInput{Review: json.RawMessage(`"{\"summary\": {\"x\": [1, 2,, } ] \"findings\"::: }"`)}},
		{"unreadable prose", review.CommentsInput{Review: json.RawMessage(`"{{{{ not json at all ]]]"`)}},
		{"cut-off answer", review.CommentsInput{Review: json.RawMessage(string(mustJSON(t, string(cut[:len(cut)-40]))))}},
		{"failed group", review.CommentsInput{
			Groups:  []review.CommentsGroup{{ID: "g1", Files: files}},
			Reviews: []review.GroupReview{{Group: "g1", Review: json.RawMessage(`{"error":{"message":"timeout of 600000ms exceeded"}}`)}}}},
		{"cut-off group", review.CommentsInput{
			Groups:  []review.CommentsGroup{{ID: "g1", Files: files}, {ID: "g2", Files: []pipeline.ChangedFile{}}},
			Reviews: []review.GroupReview{{Group: "g1", Review: mustJSON(t, string(cut[:len(cut)-40]))}, {Group: "g2", Review: json.RawMessage(`{"summary":"fine","findings":[]}`)}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := newStore(11)
			r1 := renderMem(t, memH1, "full", memFull1, findLoad, findDiv)
			mustPost(t, store, &r1, postOpts)

			in := tt.in
			in.Workspace, in.RepoSlug, in.PRID, in.Ref, in.Mode, in.Files = "acme", "shop", 42, memH2, "delta", files
			r, sum, err := review.Prepare(in)
			if err != nil {
				t.Fatal(err)
			}
			r2 := prepared{r, sum}
			p2 := mustPost(t, store, &r2, postOpts)
			if p2.ThreadsResolved != 0 {
				t.Errorf("%d thread(s) resolved (format %s, quality %s, cut %v)", p2.ThreadsResolved, r.Stats.ReviewFormat, r.Stats.ReviewQuality, r.Stats.ReviewCutOff)
			}
			if c := commentOf(t, store, "load error ignored"); c.Resolved {
				t.Error("the unreviewed finding's thread was resolved")
			}
			for _, e := range r2.Memory.Entries {
				if e.Title == "load error ignored" && (e.State != review.StateUnreviewed || !strings.Contains(e.Reason, "not reviewed")) {
					t.Errorf("entry %+v, want unreviewed", e)
				}
			}
			if n := r2.Memory.Counted["resolved"]; n != 0 {
				t.Errorf("counted %d resolved", n)
			}
		})
	}
}

// TestAbuseMemoryCoveredStillResolves: the same delta with a whole answer
// (and, in groups, with the file's group reviewed while another failed)
// still resolves the finding.
func TestAbuseMemoryCoveredStillResolves(t *testing.T) {
	files := []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: memDelta2}}
	whole := json.RawMessage(`{"summary":"fine","findings":[]}`)
	for name, in := range map[string]review.CommentsInput{
		"one answer": {Review: whole},
		"groups": {
			Groups:  []review.CommentsGroup{{ID: "g1", Files: files}, {ID: "g2", Files: []pipeline.ChangedFile{{Path: "b.go", Status: "modified"}}}},
			Reviews: []review.GroupReview{{Group: "g1", Review: whole}, {Group: "g2", Review: json.RawMessage(`{"error":{"message":"boom"}}`)}}},
	} {
		t.Run(name, func(t *testing.T) {
			store := newStore(11)
			r1 := renderMem(t, memH1, "full", memFull1, findLoad, findDiv)
			mustPost(t, store, &r1, postOpts)
			in.Workspace, in.RepoSlug, in.PRID, in.Ref, in.Mode, in.Files = "acme", "shop", 42, memH2, "delta", files
			r, sum, err := review.Prepare(in)
			if err != nil {
				t.Fatal(err)
			}
			r2 := prepared{r, sum}
			if p2 := mustPost(t, store, &r2, postOpts); p2.ThreadsResolved != 1 {
				t.Errorf("%d thread(s) resolved, want 1", p2.ThreadsResolved)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
