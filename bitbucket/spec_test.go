package bitbucket

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/bitbucket/bitbuckettest/bbspec"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
)

// adapterOperations are the operations of Bitbucket's API description the
// adapter sends; TestAdapterFollowsTheSpec sends every one.
var adapterOperations = []string{
	"GET /user",
	"GET /repositories/{workspace}/{repo_slug}/pullrequests",
	"POST /repositories/{workspace}/{repo_slug}/pullrequests",
	"GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}",
	"PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}",
	"GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits",
	"GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments",
	"POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments",
	"PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}",
	"DELETE /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}",
	"POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}/resolve",
	"GET /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks",
	"POST /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks",
	"PUT /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/tasks/{task_id}",
	"GET /repositories/{workspace}/{repo_slug}/diff/{spec}",
	"GET /repositories/{workspace}/{repo_slug}/diffstat/{spec}",
	"GET /repositories/{workspace}/{repo_slug}/merge-base/{revspec}",
	"GET /repositories/{workspace}/{repo_slug}/commit/{commit}",
	"GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}",
	"POST /repositories/{workspace}/{repo_slug}/src",
	"GET /repositories/{workspace}/{repo_slug}/refs/branches/{name}",
	"POST /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build",
	"PUT /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}",
	"GET /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}/annotations",
	"POST /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}/annotations",
	"DELETE /repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}/annotations/{annotationId}",
}

// TestSpecLoads: the vendored description parses and is valid OpenAPI, and
// names every operation of adapterOperations (a fake that cannot load it
// would validate nothing).
func TestSpecLoads(t *testing.T) {
	doc, err := bbspec.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range adapterOperations {
		method, path, _ := strings.Cut(op, " ")
		if item := doc.Paths.Value(path); item == nil || item.GetOperation(method) == nil {
			t.Errorf("the description has no %s", op)
		}
	}
}

// TestAdapterFollowsTheSpec walks every operation the adapter can send
// against the fake, which validates each request against Bitbucket's API
// description and each of its answers against the operation's responses:
// any violation, either way, fails the test.
func TestAdapterFollowsTheSpec(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	s.SetFile("acme", "uploader", headFull, "src/app.go", []byte("package app\n\nfunc A() {}\n"))
	s.SetFile("acme", "uploader", headFull, "README.md", []byte("# uploader\n"))
	s.SetDiff("acme", "uploader", baseFull, headFull, "diff --git a/src/app.go b/src/app.go\n--- a/src/app.go\n+++ b/src/app.go\n@@ -1,1 +1,3 @@\n package app\n+\n+func A() {}\n")
	s.SetDiffstat("acme", "uploader", baseFull, headFull, []bitbuckettest.DiffstatEntry{{Status: "modified", Path: "src/app.go", OldPath: "src/app.go", LinesAdded: 2}})
	c, _ := newClient(t, s, nil)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err := c.ResolveCommit(ctx, acme, "main")
	must("resolve", err)
	_, err = c.MergeBase(ctx, acme, headFull, lastFull)
	must("merge base", err)
	_, err = c.PullRequest(ctx, acme, 42)
	must("pull request", err)
	_, err = c.PRDiff(ctx, acme, 42, 10)
	must("pull request diff", err)
	_, err = c.Diff(ctx, acme, baseFull, headFull, pipeline.DiffOptions{ContextLines: 5})
	must("diff", err)
	_, err = c.Diffstat(ctx, acme, baseFull, headFull, pipeline.DiffOptions{})
	must("diffstat", err)
	_, err = c.ReadFile(ctx, acme, headFull, "src/app.go", 1<<20)
	must("read file", err)
	_, _, err = c.ListDir(ctx, acme, headFull, "", 100)
	must("list root", err)
	_, _, err = c.ListDir(ctx, acme, headFull, "src", 100)
	must("list dir", err)
	_, err = c.PullRequestCommitMessages(ctx, acme, 42, 10)
	must("commits", err)

	top, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "summary"})
	must("comment", err)
	inline, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "finding", Inline: &pipeline.InlineAnchor{Path: "src/app.go", Line: 3}})
	must("inline comment", err)
	_, err = c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "reply", ParentID: inline.ID})
	must("reply", err)
	_, err = c.UpdateComment(ctx, acme, 42, top.ID, "summary, again")
	must("update comment", err)
	_, err = c.ListComments(ctx, acme, 42)
	must("list comments", err)
	_, err = c.FindOwnComments(ctx, acme, 42, pipeline.OwnCommentQuery{AnyOf: []string{"summary"}, AllOf: []string{"again"}, Limit: 5})
	must("find own comments", err)
	must("resolve thread", c.ResolveThread(ctx, acme, 42, inline.ID))
	task, err := c.CreateTask(ctx, acme, 42, inline.ID, "fix it")
	must("task", err)
	_, err = c.ListTasks(ctx, acme, 42)
	must("list tasks", err)
	must("resolve task", c.ResolveTask(ctx, acme, 42, task.ID))
	must("delete comment", c.DeleteComment(ctx, acme, 42, top.ID))

	findings := []pipeline.ReportFinding{
		{Path: "src/app.go", Line: 3, Severity: "high", Title: strings.Repeat("a long title ", 60), Body: "b", Fingerprint: "f1"},
		{Path: "src/app.go", Severity: "low", Title: "file level", Fingerprint: "f2"},
	}
	status := insights.Finished(summaryURL, "high", insights.Count(findings), 0, pipeline.Coverage{Changed: 1, Reviewed: 1})
	status.RefName = "feature/PROJ-123-retries"
	must("status", c.SetBuildStatus(ctx, acme, headFull, status))
	_, err = c.PutReport(ctx, acme, headFull, "prscout", insights.Report(findings, insights.ReportOptions{Link: summaryURL}), insights.Annotations(findings))
	must("report", err)
	_, err = c.PutReport(ctx, acme, headFull, "prscout", insights.Report(findings[:1], insights.ReportOptions{}), insights.Annotations(findings[:1]))
	must("report again, one annotation stale", err)

	_, err = c.BranchHead(ctx, acme, "main")
	must("branch", err)
	must("commit files", c.CommitFiles(ctx, acme, pipeline.FileCommit{Branch: "prscout/review-rules", Parent: baseFull, Message: "rules", Files: map[string][]byte{".prscout/rules.json": []byte("{}")}}))
	_, _, err = c.OpenPullRequestFrom(ctx, acme, "prscout/review-rules")
	must("open pull request from", err)
	pr, err := c.CreatePullRequest(ctx, acme, pipeline.NewPullRequest{Title: "rules", Description: "d", SourceBranch: "prscout/review-rules", DestinationBranch: "main"})
	must("create pull request", err)
	_, err = c.UpdatePullRequest(ctx, acme, pr.ID, "rules", "d2")
	must("update pull request", err)
	_ = c.SelfAccountIDs(ctx)

	for _, v := range s.Violations() {
		t.Errorf("violation: %s", v)
	}
	sent := s.SpecOperations()
	for _, op := range adapterOperations {
		if !slices.Contains(sent, op) {
			t.Errorf("the walk did not send %s", op)
		}
	}
}

// TestFakeDriftFails: an answer of the fake outside the description (a
// pull request state the description's enum lacks) is a violation, and a
// request outside it (a comment without content, an annotation with an
// unknown type) is refused with Bitbucket's 400.
func TestFakeDriftFails(t *testing.T) {
	ctx := context.Background()
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	s.SetPullRequestState("acme", "uploader", 42, "ABANDONED")
	_, _ = c.PullRequest(ctx, acme, 42)
	v := s.Violations()
	if len(v) != 1 || !strings.Contains(v[0], "state") {
		t.Fatalf("violations %q, want the pull request's state", v)
	}
	post := func(path, body string) int {
		t.Helper()
		resp, err := http.Post(s.BaseURL+"/repositories/acme/uploader"+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("/pullrequests/42/comments", `{"content":{"raw":"x"},"inline":{"to":3}}`); code != http.StatusBadRequest {
		t.Errorf("inline anchor without path: %d, want 400", code)
	}
	if code := post("/commit/"+headFull+"/statuses/build", `{"key":"k","state":"DONE","url":"https://x.example/"}`); code != http.StatusBadRequest {
		t.Errorf("status state outside the enum: %d, want 400", code)
	}
	if n := len(s.Violations()); n != 3 {
		t.Errorf("%d violations, want 3", n)
	}
}
