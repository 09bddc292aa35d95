package bitbucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

// prDiff is the pull request's diff: a.go's new lines 10-14 in one hunk and
// 30-32 in another.
const prDiff = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -10,3 +10,5 @@ func A() {
 	x := 1
+	y := 2
+	z := 3
 	use(x)
 }
@@ -26,3 +30,3 @@ func B() {
 	a := 1
-	b := 2
+	b := 3
 }
`

func postBodies(s *bitbuckettest.Server, op string) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Op == op {
			out = append(out, string(r.Body))
		}
	}
	return out
}

// TestMultiLineComments: a range is posted as start_to..to and listed back
// as Line..EndLine; one Bitbucket refuses with a 400 (an injected fault: no
// documentation says which ranges it refuses) is posted on its last line.
func TestMultiLineComments(t *testing.T) {
	s := newFake(t)
	s.SetDiff("acme", "uploader", baseFull, headFull, prDiff)
	s.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{BodyContains: `"start_to":12`, Status: 400})
	c, rec := newClient(t, s, nil)
	ctx := context.Background()

	in, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "range", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 11, EndLine: 13}})
	if err != nil {
		t.Fatal(err)
	}
	if *in.Inline != (pipeline.InlineAnchor{Path: "a.go", Line: 11, EndLine: 13}) {
		t.Fatalf("created anchor = %+v", *in.Inline)
	}
	across, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "across hunks", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 12, EndLine: 31}})
	if err != nil {
		t.Fatal(err)
	}
	if *across.Inline != (pipeline.InlineAnchor{Path: "a.go", Line: 31}) {
		t.Fatalf("refused range fell back to %+v, want its end line 31 alone", *across.Inline)
	}
	want := []string{
		`{"type":"pullrequest_comment","content":{"raw":"range"},"inline":{"path":"a.go","to":13,"start_to":11}}`,
		`{"type":"pullrequest_comment","content":{"raw":"across hunks"},"inline":{"path":"a.go","to":31,"start_to":12}}`,
		`{"type":"pullrequest_comment","content":{"raw":"across hunks"},"inline":{"path":"a.go","to":31}}`,
	}
	if d := cmp.Diff(want, postBodies(s, bitbuckettest.OpCreateComment)); d != "" {
		t.Fatalf("POST bodies (-want +got):\n%s", d)
	}
	var codes []int
	for _, a := range rec.got() {
		if a.Op == "create_comment" {
			codes = append(codes, a.Status)
		}
	}
	if d := cmp.Diff([]int{201, 400, 201}, codes); d != "" {
		t.Fatalf("create_comment statuses (-want +got):\n%s", d)
	}
	got, err := c.ListComments(ctx, acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || *got[0].Inline != (pipeline.InlineAnchor{Path: "a.go", Line: 11, EndLine: 13}) {
		t.Fatalf("listed = %+v", got)
	}
	if _, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "x", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 13, EndLine: 11}}); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Fatalf("backwards range err = %v", err)
	}
}

// TestFakeAnchorsAsDescribed: the fake takes every inline anchor the API
// description allows, on the diff or off it (the description documents no
// refusal of a range), and refuses one outside the description's
// comment_inline with Bitbucket's error object and a 400 naming the field.
func TestFakeAnchorsAsDescribed(t *testing.T) {
	s := newFake(t)
	s.SetDiff("acme", "uploader", baseFull, headFull, prDiff)
	for _, tc := range []struct {
		inline string
		status int
		field  string
	}{
		{`{"path":"a.go","start_to":10,"to":14}`, 201, ""},
		{`{"path":"a.go","start_to":14,"to":30}`, 201, ""}, // two hunks
		{`{"path":"b.go","start_to":10,"to":11}`, 201, ""}, // not in the diff
		{`{"path":"a.go","start_from":27,"from":28}`, 201, ""},
		{`{"path":"a.go","to":99}`, 201, ""},
		{`{"to":3}`, 400, "inline.path"},
		{`{"path":"a.go","to":0}`, 400, "inline.to"},
		{`{"path":"a.go","line":3}`, 400, "inline"}, // names the unknown field in its message
	} {
		resp, err := s.Client().Post(s.BaseURL+"/repositories/acme/uploader/pullrequests/42/comments", "application/json",
			strings.NewReader(`{"type":"pullrequest_comment","content":{"raw":"x"},"inline":`+tc.inline+`}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d (%s)", tc.inline, resp.StatusCode, tc.status, b)
		}
		if tc.status == 400 && (!strings.Contains(string(b), `"type":"error"`) || !strings.Contains(string(b), `"`+tc.field+`:`)) {
			t.Errorf("%s: body %s is not Bitbucket's error object naming %s", tc.inline, b, tc.field)
		}
	}
	if v := s.Violations(); len(v) != 3 {
		t.Errorf("violations %q, want the 3 refused anchors", v)
	}
}

// TestTasks: tasks are created on a comment, listed with their state and
// creator, and resolved with PUT {state: RESOLVED}.
func TestTasks(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	to := 5
	cid := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Body: "finding", Path: "a.go", To: &to, AccountID: bitbuckettest.DefaultAccountID})
	other := s.AddTask("acme", "uploader", 42, bitbuckettest.Task{Body: "a person's task", CommentID: cid})

	tk, err := c.CreateTask(ctx, acme, 42, cid, "Fix the critical finding")
	if err != nil {
		t.Fatal(err)
	}
	if tk.CommentID != cid || tk.Resolved || tk.Body != "Fix the critical finding" {
		t.Fatalf("created task = %+v", tk)
	}
	if err := c.ResolveTask(ctx, acme, 42, tk.ID); err != nil {
		t.Fatal(err)
	}
	got, err := c.ListTasks(ctx, acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Task{
		{ID: other, CommentID: cid, Body: "a person's task", Foreign: true},
		{ID: tk.ID, CommentID: cid, Body: "Fix the critical finding", Resolved: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("ListTasks (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{fmt.Sprintf(`{"content":{"raw":"Fix the critical finding"},"comment":{"type":"pullrequest_comment","id":%d}}`, cid)}, postBodies(s, bitbuckettest.OpCreateTask)); d != "" {
		t.Fatalf("POST tasks bodies (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"state":"RESOLVED"}`}, postBodies(s, bitbuckettest.OpUpdateTask)); d != "" {
		t.Fatalf("PUT task bodies (-want +got):\n%s", d)
	}
	if _, err := c.CreateTask(ctx, acme, 42, 999999, "x"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("task on an unknown comment err = %v", err)
	}
	if err := c.ResolveTask(ctx, acme, 42, 999999); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("resolve unknown task err = %v", err)
	}
}
