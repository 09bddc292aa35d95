package bitbuckettest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRoutes sends raw requests at the paths Bitbucket documents and checks
// which operation each is counted under and what it answers: trailing
// slashes, slashes inside a branch name or a fork-qualified diff spec, the
// %0D separator, the pull request diff's 302, pagination's absolute next
// link, and a JSON 404 for a path or a method the API lacks.
func TestRoutes(t *testing.T) {
	const head, base = "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e", "6c5f0bc9b2aa0f1e2d3c4b5a69788796a5b4c3d2"
	s := NewServer()
	defer s.Close()
	s.AddCommit("acme", "app", base)
	s.AddCommit("acme", "app", head, base)
	s.SetBranch("acme", "app", "feature/retries", head)
	s.SetFile("acme", "app", head, "main.go", []byte("package main\n"))
	s.SetFile("acme", "app", head, "pkg/a.go", []byte("package pkg\n"))
	s.SetDiff("acme", "app", base, head, "diff --git a/main.go b/main.go\n")
	s.AddPullRequest("acme", "app", PullRequest{ID: 1, SourceCommit: head, DestinationCommit: base})
	for range 3 {
		s.AddComment("acme", "app", 1, Comment{Body: "c", Author: "Dana"})
	}
	noRedirect := *s.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	const repo = "/repositories/acme/app"
	tests := []struct {
		method, path string
		op           string
		status       int
		contains     string
	}{
		{"GET", "/user/", OpGetUser, 200, `"account_id":"prscout-bot"`},
		{"GET", repo + "/pullrequests/1", OpGetPullRequest, 200, `"hash":"668218c13e04"`},
		{"GET", repo + "/pullrequests/2", OpGetPullRequest, 404, `"Pull request not found"`},
		{"GET", repo + "/pullrequests/1/diff", OpPRDiff, 302, ""},
		{"GET", repo + "/pullrequests/1/comments/?pagelen=2", OpListComments, 200, `"next":"http://`},
		{"GET", repo + "/pullrequests/1/comments/1001", OpGetComment, 200, `"raw":"c"`},
		{"PATCH", repo + "/pullrequests/1/comments/1001", "", 404, `"Resource not found"`},
		{"GET", repo + "/pullrequests/1/comments/1001/resolve", "", 404, `"Resource not found"`},
		{"GET", repo + "/diff/acme/app:" + head[:12] + "%0D" + base[:12] + "?topic=true", OpGetDiff, 200, "diff --git"},
		{"GET", repo + "/diff/" + head + ".." + base, OpGetDiff, 200, "diff --git"},
		{"GET", repo + "/commit/feature/retries", OpGetCommit, 200, `"hash":"` + head},
		{"GET", repo + "/commit/feature%2Fretries", OpGetCommit, 200, `"hash":"` + head},
		{"GET", repo + "/merge-base/" + head + ".." + base, OpMergeBase, 200, `"hash":"` + base},
		{"GET", repo + "/src/" + head + "/", OpListDir, 200, `"path":"pkg"`},
		{"GET", repo + "/src/" + head, OpListDir, 200, `"path":"main.go"`},
		{"GET", repo + "/src/" + head + "/pkg", OpListDir, 200, `"path":"pkg/a.go"`},
		{"GET", repo + "/src/" + head + "/main.go", OpGetSrc, 200, "package main"},
		{"GET", repo + "/src/" + head + "/pkg?format=meta", OpGetSrc, 200, `"commit_directory"`},
		{"GET", repo + "/commit/" + head + "/statuses/build/prscout", OpGetStatus, 404, "No such build status"},
		{"GET", repo + "/nothing/here", "", 404, `"Resource not found"`},
		{"GET", "/repositories/acme/gone/pullrequests/1", OpGetPullRequest, 404, "Repository acme/gone not found"},
	}
	for _, tc := range tests {
		before := s.Calls(tc.op)
		req, _ := http.NewRequest(tc.method, s.BaseURL+tc.path, nil)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.contains) {
			t.Errorf("%s %s = %d %.200s, want %d containing %s", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.contains)
		}
		if n := s.Calls(tc.op) - before; n != 1 {
			t.Errorf("%s %s counted %d times under %q, want once", tc.method, tc.path, n, tc.op)
		}
		if resp.StatusCode >= 400 {
			var e struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(body, &e) != nil || e.Type != "error" {
				t.Errorf("%s %s: %d body %q is not Bitbucket's error JSON", tc.method, tc.path, resp.StatusCode, body)
			}
		}
		if tc.op == OpPRDiff && !strings.Contains(resp.Header.Get("Location"), "/diff/acme/app:668218c13e04%0D6c5f0bc9b2aa?from_pullrequest_id=1&topic=true") {
			t.Errorf("pull request diff redirects to %q", resp.Header.Get("Location"))
		}
	}

	// A fault hits its operation only, with Bitbucket's 429 headers; the
	// faulted request is counted, and wakes a waiter for it.
	s.Fail(OpGetDiff, Fault{Status: http.StatusTooManyRequests, RetryAfter: "3"})
	reached, already := s.CallsReached(OpGetDiff, s.Calls(OpGetDiff)+1), s.CallsReached(OpGetDiff, 1)
	select {
	case <-reached:
		t.Error("CallsReached closed before the call")
	case <-already:
	}
	req, _ := http.NewRequest(http.MethodGet, s.BaseURL+repo+"/diff/"+head+".."+base, nil)
	req.Header.Set("Authorization", "Bearer access-token")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || resp.Header.Get("X-RateLimit-NearLimit") != "true" {
		t.Errorf("fault: %d %v", resp.StatusCode, resp.Header)
	}
	select {
	case <-reached:
	default:
		t.Error("CallsReached still open after the call")
	}
}
