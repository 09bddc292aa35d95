package bitbuckettest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prscout/prscout/bitbucket"
	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

// Example shows the fake behind the real adapter: add a pull request and a
// file, inject one 429, and read the recorded calls.
func Example() {
	s := bitbuckettest.NewServer()
	defer s.Close()
	const head, base = "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e", "6c5f0bc9b2aa0f1e2d3c4b5a69788796a5b4c3d2"
	s.AddCommit("acme", "uploader", base)
	s.AddCommit("acme", "uploader", head, base)
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{
		ID: 1, Title: "Add retries", Author: "Mina Park",
		SourceBranch: "feature/retries", DestinationBranch: "main",
		SourceCommit: head, DestinationCommit: base,
	})
	s.SetFile("acme", "uploader", head, "main.go", []byte("package main\n"))
	s.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Status: 429})

	c, err := bitbucket.New(bitbucket.Config{
		BaseURL: s.BaseURL, AccessToken: "token", HTTPClient: s.Client(),
		RetryBaseWait: time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	repo := pipeline.Repo{Workspace: "acme", RepoSlug: "uploader"}
	pr, _ := c.PullRequest(context.Background(), repo, 1)
	src, _ := c.ReadFile(context.Background(), repo, pr.SourceCommit, "main.go", 1<<20)
	_, _ = c.CreateComment(context.Background(), repo, 1, pipeline.NewComment{Body: "LGTM"})

	fmt.Println(pr.Title, pr.SourceCommit)
	fmt.Printf("%q\n", src)
	fmt.Println(s.Calls(bitbuckettest.OpGetSrc), len(s.Comments("acme", "uploader", 1)))
	// Output:
	// Add retries 668218c13e04
	// "package main\n"
	// 3 1
}
