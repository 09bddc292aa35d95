package bitbucket

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"token without email", Config{Token: "t"}, "PRSCOUT_BITBUCKET_TOKEN is set but PRSCOUT_BITBUCKET_EMAIL is empty"},
		{"email without token", Config{Email: "e@x"}, "PRSCOUT_BITBUCKET_EMAIL is set but PRSCOUT_BITBUCKET_TOKEN is empty"},
		{"both kinds", Config{Email: "e@x", Token: "t", AccessToken: "a"}, "set either PRSCOUT_BITBUCKET_ACCESS_TOKEN or PRSCOUT_BITBUCKET_EMAIL and PRSCOUT_BITBUCKET_TOKEN, not both"},
		{"none", Config{}, "no Bitbucket credentials: set PRSCOUT_BITBUCKET_ACCESS_TOKEN, or PRSCOUT_BITBUCKET_EMAIL and PRSCOUT_BITBUCKET_TOKEN"},
		{"bad url", Config{BaseURL: "api.bitbucket.org/2.0", AccessToken: "a"}, `PRSCOUT_BITBUCKET_BASE_URL must be an absolute http(s) URL, got "api.bitbucket.org/2.0"`},
		{"negative timeout", Config{AccessToken: "a", Timeout: -1}, "bitbucket: Timeout, MaxRetryWait, RetryBaseWait and MaxDiffBytes must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("New() error = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := New(Config{AccessToken: "a"}); err != nil {
		t.Fatalf("New(access token) = %v", err)
	}
}

// TestPullRequestFixture serves a captured-shape pull request payload and
// checks the mapping, then PRDiff follows its links.diff.href.
func TestPullRequestFixture(t *testing.T) {
	raw, err := os.ReadFile("testdata/pullrequest.json")
	if err != nil {
		t.Fatal(err)
	}
	var gotDiffURL string
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/2.0/repositories/acme/uploader/pullrequests/42":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(strings.ReplaceAll(string(raw), "{{BASE}}", ts.URL+"/2.0")))
		case strings.HasPrefix(r.URL.Path, "/2.0/repositories/acme/uploader/diff/"):
			gotDiffURL = r.URL.RequestURI()
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("diff --git a/x b/x\n"))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL + "/2.0", AccessToken: "tok", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.PullRequest(context.Background(), acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.PullRequestInfo{
		ID: 42,
		PullRequest: pipeline.PullRequest{
			Title:             "PROJ-123: Retry uploads on 5xx",
			Description:       "Adds bounded retries to the uploader.\n\n* honours `Retry-After`\n* caps total wait",
			Author:            "Mina Park",
			SourceBranch:      "feature/PROJ-123-retries",
			DestinationBranch: "main",
			URL:               "https://bitbucket.example/acme/uploader/pull-requests/42",
		},
		State:             "OPEN",
		SourceCommit:      "668218c13e04",
		DestinationCommit: "6c5f0bc9b2aa",
		AuthorAccount: pipeline.Account{
			DisplayName: "Mina Park", Nickname: "mpark",
			AccountID: "557058:0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9", UUID: "{5b8e2f0c-9d51-4e7a-a0c3-1f2e3d4c5b6a}",
		},
		SourceRepository: "acme/uploader",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("PullRequest (-want +got):\n%s", d)
	}
	diff, err := c.PRDiff(context.Background(), acme, 42, 30)
	if err != nil {
		t.Fatal(err)
	}
	if string(diff) != "diff --git a/x b/x\n" {
		t.Fatalf("PRDiff body = %q", diff)
	}
	const wantURL = "/2.0/repositories/acme/uploader/diff/acme/uploader:668218c13e04%0D6c5f0bc9b2aa?context=30&from_pullrequest_id=42&renames=true&topic=true"
	if gotDiffURL != wantURL {
		t.Fatalf("diff request = %s\nwant %s", gotDiffURL, wantURL)
	}
}

func TestPullRequestFake(t *testing.T) {
	s := newFake(t)
	c, rec := newClient(t, s, nil)
	got, err := c.PullRequest(context.Background(), acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	if got.SourceCommit != headFull[:12] || got.DestinationCommit != baseFull[:12] || got.Author != "Mina Park" {
		t.Fatalf("PullRequest = %+v", got)
	}
	_, err = c.PullRequest(context.Background(), acme, 7)
	if !errors.Is(err, pipeline.ErrNotFound) || !isNotFound(err) {
		t.Fatalf("unknown PR error = %v, want not found", err)
	}
	if !strings.Contains(err.Error(), "Pull request not found") {
		t.Fatalf("error %q does not carry the 404 body's message", err)
	}
	want := []attempt{{"get_pullrequest", 200, false}, {"get_pullrequest", 404, false}}
	if d := cmp.Diff(want, rec.got()); d != "" {
		t.Fatalf("observed (-want +got):\n%s", d)
	}
	if _, err := c.PullRequest(context.Background(), pipeline.Repo{Workspace: "acme", RepoSlug: "a/b"}, 1); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Fatalf("bad slug error = %v", err)
	}
}

// TestPullRequestDraft reads Bitbucket's draft flag and the author's names
// from the fake: a draft is Draft until it is marked ready, and a bot
// account is known by its nickname, display name and account id.
func TestPullRequestDraft(t *testing.T) {
	s := newFake(t)
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{
		ID: 43, Title: "Bump lodash", Author: "Renovate Bot", AuthorID: "557058:renovate", Draft: true,
		SourceBranch: "renovate/lodash", DestinationBranch: "main", SourceCommit: headFull, DestinationCommit: baseFull,
	})
	c, _ := newClient(t, s, nil)
	got, err := c.PullRequest(context.Background(), acme, 43)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Draft {
		t.Errorf("draft pull request read with Draft = false")
	}
	wantAccount := pipeline.Account{DisplayName: "Renovate Bot", Nickname: "renovatebot", AccountID: "557058:renovate"}
	if got.AuthorAccount.UUID == "" || !strings.HasPrefix(got.AuthorAccount.UUID, "{") {
		t.Errorf("author uuid = %q, want Bitbucket's {uuid}", got.AuthorAccount.UUID)
	}
	got.AuthorAccount.UUID = ""
	if d := cmp.Diff(wantAccount, got.AuthorAccount); d != "" {
		t.Errorf("author account (-want +got):\n%s", d)
	}
	if !s.SetPullRequestDraft("acme", "uploader", 43, false) {
		t.Fatal("SetPullRequestDraft: no pull request 43")
	}
	if got, err = c.PullRequest(context.Background(), acme, 43); err != nil || got.Draft {
		t.Errorf("after marked ready: Draft = %v, err %v; want false", got.Draft, err)
	}
	// The pull request of newFake was never a draft.
	if got, err = c.PullRequest(context.Background(), acme, 42); err != nil || got.Draft {
		t.Errorf("pull request 42: Draft = %v, err %v; want false", got.Draft, err)
	}
}

// TestPRDiffRedirect shows what /pullrequests/{id}/diff does: a 302 to the
// link, followed with the credentials kept (same host) and without the
// caller's query, which is why PRDiff uses the link itself.
func TestPRDiffRedirect(t *testing.T) {
	s := newFake(t)
	s.SetDiff("acme", "uploader", baseFull, headFull, "diff --git a/f.go b/f.go\n")
	c, _ := newClient(t, s, nil)
	api := c.api.(*httpAPI)
	body, err := api.do(context.Background(), "get_diff", http.MethodGet, s.BaseURL+"/repositories/acme/uploader/pullrequests/42/diff?context=30", nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "diff --git a/f.go b/f.go\n" {
		t.Fatalf("body = %q", body)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Op != bitbuckettest.OpPRDiff || reqs[1].Op != bitbuckettest.OpGetDiff {
		t.Fatalf("requests = %+v", reqs)
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r.Authorization, "Basic ") {
			t.Fatalf("%s sent without credentials", r.EscapedPath)
		}
	}
	if reqs[1].Query.Get("context") != "" {
		t.Fatalf("the fake's redirect kept context; PRDiff's reason to exist is gone: %v", reqs[1].Query)
	}

	s2 := newFake(t)
	s2.SetDiff("acme", "uploader", baseFull, headFull, "diff --git a/f.go b/f.go\n")
	c2, _ := newClient(t, s2, nil)
	if _, err := c2.PRDiff(context.Background(), acme, 42, 30); err != nil {
		t.Fatal(err)
	}
	last := s2.Requests()[1]
	if last.Query.Get("context") != "30" || last.Query.Get("topic") != "true" || last.Query.Get("from_pullrequest_id") != "42" {
		t.Fatalf("PRDiff query = %v", last.Query)
	}
}

func TestDiffSpecAndQuery(t *testing.T) {
	s := newFake(t)
	// Raw bytes: not UTF-8, must come back untouched.
	diff := "diff --git a/l1.txt b/l1.txt\n+caf\xe9\n"
	s.SetDiff("acme", "uploader", baseFull, headFull, diff)
	c, _ := newClient(t, s, nil)
	tests := []struct {
		name      string
		opts      pipeline.DiffOptions
		wantTopic string
	}{
		{"three-dot", pipeline.DiffOptions{ContextLines: 30}, "true"},
		{"two-dot delta", pipeline.DiffOptions{ContextLines: 30, TwoDot: true}, "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := len(s.Requests())
			got, err := c.Diff(context.Background(), acme, baseFull[:12], headFull[:12], tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != diff {
				t.Fatalf("diff = %q", got)
			}
			r := s.Requests()[n]
			wantPath := "/2.0/repositories/acme/uploader/diff/" + headFull[:12] + ".." + baseFull[:12]
			if r.EscapedPath != wantPath {
				t.Fatalf("path = %s, want %s (Bitbucket's head..base order)", r.EscapedPath, wantPath)
			}
			want := map[string]string{"context": "30", "renames": "true", "topic": tt.wantTopic, "binary": ""}
			for k, v := range want {
				if r.Query.Get(k) != v {
					t.Fatalf("query %s = %q, want %q (%v)", k, r.Query.Get(k), v, r.Query)
				}
			}
		})
	}
}

func TestDiffTooLarge555(t *testing.T) {
	s := newFake(t)
	s.Fail(bitbuckettest.OpGetDiff, bitbuckettest.Fault{Status: 555, Times: 5})
	c, _ := newClient(t, s, nil)
	_, err := c.Diff(context.Background(), acme, baseFull, headFull, pipeline.DiffOptions{})
	if !isDiffTooLarge(err) || !errors.Is(err, pipeline.ErrTooLarge) || !errors.Is(err, pipeline.ErrUpstream) {
		t.Fatalf("err = %v, want 555 too large", err)
	}
	if n := s.Calls(bitbuckettest.OpGetDiff); n != 1 {
		t.Fatalf("555 requested %d times, want 1 (not retried)", n)
	}
	s2 := newFake(t)
	s2.SetDiff("acme", "uploader", baseFull, headFull, strings.Repeat("x", 11))
	c2, _ := newClient(t, s2, func(cfg *Config) { cfg.MaxDiffBytes = 10 })
	_, err = c2.Diff(context.Background(), acme, baseFull, headFull, pipeline.DiffOptions{})
	if !errors.Is(err, pipeline.ErrTooLarge) || isDiffTooLarge(err) {
		t.Fatalf("oversized diff err = %v, want the adapter's own size limit", err)
	}
}

func TestDiffstatPages(t *testing.T) {
	s := newFake(t)
	s.PageLen = 2
	entries := []bitbuckettest.DiffstatEntry{
		{Status: "modified", Path: "a.go", OldPath: "a.go", LinesAdded: 2, LinesRemoved: 1},
		{Status: "added", Path: "b.go", LinesAdded: 10},
		{Status: "removed", OldPath: "c.go", LinesRemoved: 4},
		{Status: "renamed", Path: "d2.go", OldPath: "d.go"},
		{Status: "modified", Path: "e.go", OldPath: "e.go", LinesAdded: 1},
	}
	s.SetDiffstat("acme", "uploader", lastFull, headFull, entries)
	c, _ := newClient(t, s, nil)
	got, err := c.Diffstat(context.Background(), acme, lastFull, headFull, pipeline.DiffOptions{TwoDot: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []DiffstatEntry{
		{Status: "modified", Path: "a.go", LinesAdded: 2, LinesRemoved: 1},
		{Status: "added", Path: "b.go", LinesAdded: 10},
		{Status: "removed", Path: "c.go", LinesRemoved: 4},
		{Status: "renamed", Path: "d2.go", OldPath: "d.go"},
		{Status: "modified", Path: "e.go", LinesAdded: 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Diffstat (-want +got):\n%s", d)
	}
	if n := s.Calls(bitbuckettest.OpDiffstat); n != 3 {
		t.Fatalf("diffstat pages fetched = %d, want 3", n)
	}
	if q := s.Requests()[0].Query; q.Get("topic") != "false" || q.Get("renames") != "true" || q.Has("context") {
		t.Fatalf("diffstat query = %v", q)
	}
}

func TestResolveAndAncestry(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	for _, rev := range []string{headFull[:12], headFull} {
		got, err := c.ResolveCommit(ctx, acme, rev)
		if err != nil || got != headFull {
			t.Fatalf("ResolveCommit(%s) = %q, %v", rev, got, err)
		}
	}
	if got, err := c.ResolveCommit(ctx, acme, "main"); err != nil || got != baseFull {
		t.Fatalf("ResolveCommit(main) = %q, %v", got, err)
	}
	if _, err := c.ResolveCommit(ctx, acme, "deadbeefdead"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("unknown commit err = %v", err)
	}
	if _, err := c.ResolveCommit(ctx, acme, "a..b"); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Fatalf("range as rev err = %v", err)
	}
	tests := []struct {
		ancestor, head string
		want           bool
	}{
		{rootFull[:12], headFull[:12], true},
		{baseFull, lastFull[:12], true},
		{headFull[:12], headFull, true},
		{lastFull[:12], baseFull[:12], false},
	}
	for _, tt := range tests {
		got, err := c.IsAncestor(ctx, acme, tt.ancestor, tt.head)
		if err != nil || got != tt.want {
			t.Fatalf("IsAncestor(%s, %s) = %v, %v; want %v", tt.ancestor, tt.head, got, err, tt.want)
		}
	}
	if n := s.Calls(bitbuckettest.OpMergeBase); n != 3 {
		t.Fatalf("merge-base calls = %d, want 3 (equal ids need none)", n)
	}
}

func TestReadFile(t *testing.T) {
	s := newFake(t)
	s.SetFile("acme", "uploader", headFull, "main.go", []byte("package main\n"))
	s.SetFile("acme", "uploader", headFull, "dir/a b#c.go", []byte("package dir // the right file\n"))
	s.SetFile("acme", "uploader", headFull, "dir/a b", []byte("wrong file\n"))
	s.SetFile("acme", "uploader", headFull, "logo.png", []byte("\x89PNG\r\n\x1a\n"), "binary")
	s.SetFile("acme", "uploader", headFull, "model.bin", []byte("version https://git-lfs.github.com/spec/v1\n"), "lfs")
	s.SetFile("acme", "uploader", headFull, "big.txt", []byte(strings.Repeat("x", 100)))
	s.SetFile("acme", "uploader", headFull, "nul.txt", []byte("a\x00b"))
	c, _ := newClient(t, s, nil)
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr []error
	}{
		{"plain", "main.go", "package main\n", nil},
		{"escaped path", "dir/a b#c.go", "package dir // the right file\n", nil},
		{"binary", "logo.png", "", []error{pipeline.ErrBinary}},
		{"lfs", "model.bin", "", []error{errLFS, pipeline.ErrBinary}},
		{"too large", "big.txt", "", []error{pipeline.ErrTooLarge}},
		{"directory", "dir", "", []error{pipeline.ErrIsDir}},
		{"nul bytes", "nul.txt", "", []error{pipeline.ErrBinary}},
		{"missing", "nope.go", "", []error{pipeline.ErrNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ReadFile(context.Background(), acme, headFull[:12], tt.path, 64)
			for _, w := range tt.wantErr {
				if !errors.Is(err, w) {
					t.Fatalf("err = %v, want %v", err, w)
				}
			}
			if tt.wantErr == nil && (err != nil || string(got) != tt.want) {
				t.Fatalf("ReadFile = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	var sawEscaped bool
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.EscapedPath, "/dir/a%20b%23c.go") {
			sawEscaped = true
		}
	}
	if !sawEscaped {
		t.Fatal("no request for dir/a%20b%23c.go")
	}
	_, err := c.ReadFile(context.Background(), acme, headFull, "nope.go", 64)
	if !strings.Contains(err.Error(), "No such file or directory: nope.go") {
		t.Fatalf("404 error %q lacks the body's message", err)
	}
}

// TestReadFileLFSRedirect: a file whose metadata does not say lfs but whose
// content redirects to another host is refused, and the redirect is not
// followed (no credentials leave the API host).
func TestReadFileLFSRedirect(t *testing.T) {
	var otherHost bool
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHost = true }))
	defer media.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") == "meta" {
			_, _ = w.Write([]byte(`{"type":"commit_file","path":"m.bin","attributes":[],"size":10}`))
			return
		}
		http.Redirect(w, r, media.URL+"/file/m.bin", http.StatusMovedPermanently)
	}))
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL + "/2.0", AccessToken: "tok", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ReadFile(context.Background(), acme, headFull, "m.bin", 1<<20)
	if !errors.Is(err, errLFS) || !errors.Is(err, pipeline.ErrBinary) {
		t.Fatalf("err = %v, want LFS", err)
	}
	if otherHost {
		t.Fatal("followed the redirect to the media host")
	}
}

func TestListDir(t *testing.T) {
	s := newFake(t)
	s.PageLen = 2
	for _, p := range []string{"README.md", "go.mod", "cmd/main.go", "pkg/a.go", "pkg/sub/b.go", "z.txt"} {
		s.SetFile("acme", "uploader", headFull, p, []byte("x"))
	}
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	one := int64(1)
	got, truncated, err := c.ListDir(ctx, acme, headFull, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.DirEntry{
		{Path: "README.md", Type: "file", Size: &one},
		{Path: "cmd", Type: "dir"},
		{Path: "go.mod", Type: "file", Size: &one},
		{Path: "pkg", Type: "dir"},
		{Path: "z.txt", Type: "file", Size: &one},
	}
	if d := cmp.Diff(want, got); d != "" || truncated {
		t.Fatalf("ListDir root (-want +got):\n%s truncated=%v", d, truncated)
	}
	if r := s.Requests()[0]; r.EscapedPath != "/2.0/repositories/acme/uploader/src/"+headFull+"/" {
		t.Fatalf("root listing path = %s (needs the trailing slash)", r.EscapedPath)
	}
	if n := s.Calls(bitbuckettest.OpListDir); n != 3 {
		t.Fatalf("pages = %d, want 3", n)
	}

	tests := []struct {
		limit     int
		wantN     int
		truncated bool
	}{{3, 3, true}, {4, 4, true}, {5, 5, false}, {1, 1, true}}
	for _, tt := range tests {
		got, truncated, err := c.ListDir(ctx, acme, headFull, "/", tt.limit)
		if err != nil || len(got) != tt.wantN || truncated != tt.truncated {
			t.Fatalf("ListDir(limit %d) = %d entries, truncated %v, %v", tt.limit, len(got), truncated, err)
		}
	}

	got, _, err = c.ListDir(ctx, acme, headFull, "pkg", 10)
	if err != nil || len(got) != 2 || got[1] != (pipeline.DirEntry{Path: "pkg/sub", Type: "dir"}) {
		t.Fatalf("ListDir(pkg) = %+v, %v", got, err)
	}
	if _, _, err := c.ListDir(ctx, acme, headFull, "go.mod", 10); !errors.Is(err, pipeline.ErrNotDir) {
		t.Fatalf("ListDir(file) err = %v", err)
	}
	if _, _, err := c.ListDir(ctx, acme, headFull, "nope", 10); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("ListDir(missing) err = %v", err)
	}
}

func TestComments(t *testing.T) {
	s := newFake(t)
	s.PageLen = 2
	to := 12
	s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Body: "general", Author: "Jun Seo"})
	s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Body: "inline", Path: "a.go", To: &to})
	s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Body: "gone", Deleted: true})
	c, _ := newClient(t, s, nil)
	ctx := context.Background()

	created, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "prscout summary"})
	if err != nil {
		t.Fatal(err)
	}
	inl, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "nit", Inline: &pipeline.InlineAnchor{Path: "dir/a b.go", Line: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if inl.Inline == nil || *inl.Inline != (pipeline.InlineAnchor{Path: "dir/a b.go", Line: 7}) {
		t.Fatalf("inline comment = %+v", inl)
	}
	var posts []string
	for _, r := range s.Requests() {
		if r.Op == bitbuckettest.OpCreateComment {
			posts = append(posts, string(r.Body))
		}
	}
	wantPosts := []string{`{"type":"pullrequest_comment","content":{"raw":"prscout summary"}}`, `{"type":"pullrequest_comment","content":{"raw":"nit"},"inline":{"path":"dir/a b.go","to":7}}`}
	if d := cmp.Diff(wantPosts, posts); d != "" {
		t.Fatalf("POST bodies (-want +got):\n%s", d)
	}

	upd, err := c.UpdateComment(ctx, acme, 42, created.ID, "prscout summary v2")
	if err != nil || upd.Body != "prscout summary v2" || upd.ID != created.ID {
		t.Fatalf("UpdateComment = %+v, %v", upd, err)
	}
	if err := c.DeleteComment(ctx, acme, 42, inl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateComment(ctx, acme, 42, 999999, "x"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("update unknown err = %v", err)
	}

	got, err := c.ListComments(ctx, acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Comment{
		{ID: 1001, Body: "general", Author: "Jun Seo", Foreign: true},
		{ID: 1002, Body: "inline", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 12}, Author: "Reviewer", Foreign: true},
		{ID: 1003, Body: "gone", Deleted: true, Author: "Reviewer", Foreign: true},
		{ID: created.ID, Body: "prscout summary v2", Author: "prscout bot"},
		{ID: inl.ID, Body: "nit", Inline: &pipeline.InlineAnchor{Path: "dir/a b.go", Line: 7}, Deleted: true, Author: "prscout bot"},
	}
	// Each comment's web link comes from its links.html.
	for i := range want {
		want[i].URL = fmt.Sprintf("https://bitbucket.example/acme/uploader/pull-requests/42/_/diff#comment-%d", want[i].ID)
	}
	if created.URL != want[3].URL {
		t.Errorf("created comment URL = %q, want %q", created.URL, want[3].URL)
	}
	// Authors' accounts and creation times are checked in TestCommentReplies.
	for i := range got {
		if got[i].CreatedOn.IsZero() || got[i].AuthorAccount.AccountID == "" {
			t.Errorf("comment %d: CreatedOn %v, AuthorAccount %+v: want both set", got[i].ID, got[i].CreatedOn, got[i].AuthorAccount)
		}
		got[i].CreatedOn, got[i].AuthorAccount = time.Time{}, pipeline.Account{}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("ListComments (-want +got):\n%s", d)
	}
	if n := s.Calls(bitbuckettest.OpListComments); n != 3 {
		t.Fatalf("comment pages = %d, want 3", n)
	}
	if q := s.Requests()[len(s.Requests())-3].Query; q.Get("pagelen") != "100" {
		t.Fatalf("first comments page query = %v", q)
	}
	if _, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "x", Inline: &pipeline.InlineAnchor{Path: "a.go"}}); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Fatalf("inline without line err = %v", err)
	}
}

func TestAuthHeaders(t *testing.T) {
	t.Run("basic email:token", func(t *testing.T) {
		s := newFake(t)
		s.RequireBasic("bot@acme.example", "api-token")
		c, _ := newClient(t, s, nil)
		if _, err := c.PullRequest(context.Background(), acme, 42); err != nil { // SDK path
			t.Fatal(err)
		}
		if _, err := c.ResolveCommit(context.Background(), acme, "main"); err != nil { // own path
			t.Fatal(err)
		}
		bad, _ := newClient(t, s, func(cfg *Config) { cfg.Token = "wrong" })
		if _, err := bad.ResolveCommit(context.Background(), acme, "main"); !isPermissionError(err) {
			t.Fatalf("wrong token err = %v", err)
		}
	})
	t.Run("bearer", func(t *testing.T) {
		s := newFake(t)
		s.RequireBearer("repo-access-token")
		c, _ := newClient(t, s, func(cfg *Config) { cfg.Email, cfg.Token, cfg.AccessToken = "", "", "repo-access-token" })
		if _, err := c.PullRequest(context.Background(), acme, 42); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateComment(context.Background(), acme, 42, pipeline.NewComment{Body: "hi"}); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Requests() {
			if r.Authorization != "Bearer repo-access-token" {
				t.Fatalf("%s %s Authorization = %q", r.Method, r.EscapedPath, r.Authorization)
			}
		}
	})
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("429 without Retry-After then success", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpGetCommit, bitbuckettest.Fault{Status: 429, Times: 2})
		c, rec := newClient(t, s, withAccessToken)
		if _, err := c.ResolveCommit(ctx, acme, "main"); err != nil {
			t.Fatal(err)
		}
		want := []attempt{{"get_commit", 429, false}, {"get_commit", 429, true}, {"get_commit", 200, true}}
		if d := cmp.Diff(want, rec.got()); d != "" {
			t.Fatalf("attempts (-want +got):\n%s", d)
		}
		// Every answer to an access token carries the headers, the 429s
		// included.
		if len(rec.limits) != 3 || rec.limits[0] != 1000 {
			t.Fatalf("rate limit reports = %v", rec.limits)
		}
	})
	t.Run("429 with Retry-After then success", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpGetPullRequest, bitbuckettest.Fault{Status: 429, RetryAfter: "1"})
		c, _ := newClient(t, s, nil)
		start := time.Now()
		if _, err := c.PullRequest(ctx, acme, 42); err != nil { // SDK path: retried below it
			t.Fatal(err)
		}
		if el := time.Since(start); el < 900*time.Millisecond {
			t.Fatalf("retried after %v, Retry-After was 1s", el)
		}
		if n := s.Calls(bitbuckettest.OpGetPullRequest); n != 2 {
			t.Fatalf("calls = %d, want 2", n)
		}
	})
	t.Run("Retry-After beyond budget is not waited for", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpGetCommit, bitbuckettest.Fault{Status: 429, RetryAfter: "3600"})
		c, _ := newClient(t, s, nil)
		// Waiting the hour would outlast go test's timeout; one call only.
		_, err := c.ResolveCommit(ctx, acme, "main")
		var ue *UnexpectedResponseError
		if !isRateLimited(err) || !errors.As(err, &ue) || ue.RetryAfter != time.Hour {
			t.Fatalf("err = %v, want 429 with RetryAfter 1h", err)
		}
		if n := s.Calls(bitbuckettest.OpGetCommit); n != 1 {
			t.Fatalf("calls = %d, want 1: no retry", n)
		}
	})
	t.Run("5xx exhausted", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpListComments, bitbuckettest.Fault{Status: 503, Times: 10})
		c, _ := newClient(t, s, func(cfg *Config) { cfg.MaxRetries = 2 })
		_, err := c.ListComments(ctx, acme, 42)
		if statusOf(err) != 503 || !errors.Is(err, pipeline.ErrUpstream) {
			t.Fatalf("err = %v, want 503 upstream", err)
		}
		if n := s.Calls(bitbuckettest.OpListComments); n != 3 {
			t.Fatalf("calls = %d, want 1 + 2 retries", n)
		}
	})
	t.Run("POST not retried on 5xx, retried on 429", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{Status: 502})
		c, _ := newClient(t, s, nil)
		if _, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "x"}); statusOf(err) != 502 {
			t.Fatalf("err = %v, want 502", err)
		}
		s.Fail(bitbuckettest.OpCreateComment, bitbuckettest.Fault{Status: 429})
		if _, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "y", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 1}}); err != nil {
			t.Fatal(err)
		}
		if n := s.Calls(bitbuckettest.OpCreateComment); n != 3 {
			t.Fatalf("calls = %d, want 3", n)
		}
		if got := s.Comments("acme", "uploader", 42); len(got) != 1 || got[0].Body != "y" {
			t.Fatalf("comments = %+v, want only y (no duplicate)", got)
		}
	})
}

func TestTimeouts(t *testing.T) {
	t.Run("caller deadline cancels a slow call", func(t *testing.T) {
		for _, op := range []string{bitbuckettest.OpGetPullRequest, bitbuckettest.OpGetCommit} {
			s := newFake(t)
			s.Fail(op, bitbuckettest.Fault{Delay: 10 * time.Second})
			c, _ := newClient(t, s, nil)
			// Past the deadline the delayed answer would succeed: only the
			// deadline answers DeadlineExceeded.
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			var err error
			if op == bitbuckettest.OpGetPullRequest {
				_, err = c.PullRequest(ctx, acme, 42) // through go-bitbucket
			} else {
				_, err = c.ResolveCommit(ctx, acme, "main")
			}
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s err = %v, want deadline exceeded", op, err)
			}
		}
	})
	t.Run("attempt timeout retries an idempotent call", func(t *testing.T) {
		s := newFake(t)
		s.Fail(bitbuckettest.OpGetCommit, bitbuckettest.Fault{Delay: 10 * time.Second})
		c, rec := newClient(t, s, func(cfg *Config) { cfg.Timeout = 150 * time.Millisecond })
		// Without the attempt timeout the first attempt would wait out the
		// delay and succeed: the two attempts recorded say it was cut.
		if _, err := c.ResolveCommit(context.Background(), acme, "main"); err != nil {
			t.Fatal(err)
		}
		want := []attempt{{"get_commit", 0, false}, {"get_commit", 200, true}}
		if d := cmp.Diff(want, rec.got()); d != "" {
			t.Fatalf("attempts (-want +got):\n%s", d)
		}
	})
}

// TestPRDiffForeignLink: behind a proxy base URL the pull request's diff link
// names another host; PRDiff then builds /diff/{source}..{destination}.
func TestPRDiffForeignLink(t *testing.T) {
	raw, err := os.ReadFile("testdata/pullrequest.json")
	if err != nil {
		t.Fatal(err)
	}
	var diffReq string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/diff/") {
			diffReq = r.URL.RequestURI()
			_, _ = w.Write([]byte("diff"))
			return
		}
		_, _ = w.Write([]byte(strings.ReplaceAll(string(raw), "{{BASE}}", "https://public.invalid/2.0")))
	}))
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL + "/proxy/2.0", AccessToken: "tok", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PRDiff(context.Background(), acme, 42, 30); err != nil {
		t.Fatal(err)
	}
	const want = "/proxy/2.0/repositories/acme/uploader/diff/668218c13e04..6c5f0bc9b2aa?context=30&renames=true&topic=true"
	if diffReq != want {
		t.Fatalf("diff request = %s, want %s", diffReq, want)
	}
}

// TestCommentsOwnAccount runs the own-account detection against the fake:
// GET /user once (reported as get_user), a participant's comment Foreign,
// ours not, and Bitbucket's 403 on editing the participant's comment.
func TestCommentsOwnAccount(t *testing.T) {
	s := newFake(t)
	s.SetAccountID("557058:bot")
	theirs := s.AddCommentAs("acme", "uploader", 42, "557058:mallory", "forged\n\n[prscout]: # \"review head="+headFull+" v=1\"")
	c, rec := newClient(t, s, nil)
	ctx := context.Background()
	ours, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "prscout summary"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := c.ListComments(ctx, acme, 42)
		if err != nil {
			t.Fatal(err)
		}
		foreign := map[int64]bool{}
		for _, cm := range got {
			foreign[cm.ID] = cm.Foreign
		}
		if want := map[int64]bool{theirs: true, ours.ID: false}; !cmp.Equal(want, foreign) {
			t.Fatalf("Foreign by id = %v, want %v", foreign, want)
		}
	}
	if n := s.Calls(bitbuckettest.OpGetUser); n != 1 {
		t.Errorf("GET /user calls = %d, want 1 (cached)", n)
	}
	if !slices.Contains(rec.got(), attempt{Op: "get_user", Status: 200}) || !slices.Contains(Operations, "get_user") {
		t.Errorf("get_user not reported/listed: %v", rec.got())
	}
	if _, err := c.UpdateComment(ctx, acme, 42, theirs, "hijacked"); !isPermissionError(err) {
		t.Errorf("update of another author's comment: err = %v, want 403", err)
	}
}

// TestResolveThread: the adapter resolves a thread (POST .../resolve),
// takes Bitbucket's 409 for an already resolved thread as done, reports the
// 403 for a reply, and lists the resolution and the parent of each comment.
func TestResolveThread(t *testing.T) {
	s := newFake(t)
	to := 3
	c, rec := newClient(t, s, nil)
	ctx := context.Background()
	top, err := c.CreateComment(ctx, acme, 42, pipeline.NewComment{Body: "finding", Inline: &pipeline.InlineAnchor{Path: "a.go", Line: to}})
	if err != nil {
		t.Fatal(err)
	}
	parent := top.ID
	replyID := s.AddComment("acme", "uploader", 42, bitbuckettest.Comment{Body: "not fixed", Path: "a.go", To: &to, Parent: &parent, Author: "Jun Seo"})
	if err := c.ResolveThread(ctx, acme, 42, top.ID); err != nil {
		t.Fatalf("ResolveThread = %v", err)
	}
	if err := c.ResolveThread(ctx, acme, 42, top.ID); err != nil {
		t.Fatalf("ResolveThread of a resolved thread = %v, want nil (409 is done)", err)
	}
	if err := c.ResolveThread(ctx, acme, 42, replyID); statusOf(err) != http.StatusForbidden {
		t.Fatalf("ResolveThread of a reply = %v, want 403", err)
	}
	var paths []string
	for _, r := range s.Requests() {
		if r.Op == bitbuckettest.OpResolveComment {
			paths = append(paths, r.Method+" "+r.EscapedPath)
		}
	}
	wantPath := fmt.Sprintf("POST /2.0/repositories/acme/uploader/pullrequests/42/comments/%d/resolve", top.ID)
	if len(paths) != 3 || paths[0] != wantPath {
		t.Fatalf("resolve requests = %v, want %s first", paths, wantPath)
	}
	got, err := c.ListComments(ctx, acme, 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range got {
		switch cm.ID {
		case top.ID:
			if !cm.Resolved || cm.ParentID != 0 || cm.Foreign {
				t.Errorf("top comment = %+v, want resolved, own, top level", cm)
			}
		case replyID:
			if cm.Resolved || cm.ParentID != top.ID || !cm.Foreign {
				t.Errorf("reply = %+v, want parent %d, foreign, not resolved", cm, top.ID)
			}
		}
	}
	ops := map[string]int{}
	for _, a := range rec.got() {
		if a.Op == "resolve_comment" {
			ops[fmt.Sprint(a.Status)]++
		}
	}
	if ops["200"] != 1 || ops["409"] != 1 || ops["403"] != 1 || !slices.Contains(Operations, "resolve_comment") {
		t.Errorf("observed resolve_comment attempts %v", ops)
	}
}

func TestMergeBase(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, nil)
	ctx := context.Background()
	got, err := c.MergeBase(ctx, acme, lastFull[:12], baseFull[:12])
	if err != nil || got != baseFull {
		t.Fatalf("MergeBase(last, base) = %q, %v; want %s", got, err, baseFull)
	}
	if _, err := c.MergeBase(ctx, acme, "deadbeefdead", baseFull); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("unknown commit err = %v", err)
	}
	if _, err := c.MergeBase(ctx, acme, "a..b", baseFull); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Fatalf("range as rev err = %v", err)
	}
}

// TestPullRequestCommitMessages reads the PR's commits (newest first) with
// their messages, asking for no more pages than the limit needs.
func TestPullRequestCommitMessages(t *testing.T) {
	s := newFake(t)
	const mid, tip = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	s.AddCommit("acme", "uploader", mid, headFull)
	s.AddCommit("acme", "uploader", tip, mid)
	s.SetCommitMessage("acme", "uploader", headFull, "PROJ-123: retry uploads\n\nFirst cut.")
	s.SetCommitMessage("acme", "uploader", mid, "Fixes PROJ-124")
	s.SetCommitMessage("acme", "uploader", tip, "tidy")
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{ID: 43, Title: "t", SourceBranch: "f", DestinationBranch: "main",
		SourceCommit: tip, DestinationCommit: baseFull})
	c, rec := newClient(t, s, nil)

	got, err := c.PullRequestCommitMessages(context.Background(), acme, 43, 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tidy", "Fixes PROJ-124", "PROJ-123: retry uploads\n\nFirst cut."}; !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if q := s.Requests()[len(s.Requests())-1]; q.Op != bitbuckettest.OpPRCommits || q.Query.Get("pagelen") != "50" {
		t.Errorf("request %s ?%s, want list_pr_commits with pagelen=50", q.Op, q.Query.Encode())
	}

	s.PageLen = 1
	before := s.Calls(bitbuckettest.OpPRCommits)
	got, err = c.PullRequestCommitMessages(context.Background(), acme, 43, 2)
	if err != nil || !slices.Equal(got, []string{"tidy", "Fixes PROJ-124"}) {
		t.Errorf("limit 2 over pages of 1: %q, %v", got, err)
	}
	if n := s.Calls(bitbuckettest.OpPRCommits) - before; n != 2 {
		t.Errorf("limit 2 over pages of 1 took %d requests, want 2 (no page past the limit)", n)
	}

	if _, err := c.PullRequestCommitMessages(context.Background(), acme, 9, 5); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown PR: err = %v, want not found", err)
	}
	if got, err := c.PullRequestCommitMessages(context.Background(), acme, 43, 0); err != nil || got != nil {
		t.Errorf("limit 0: %q, %v; want nothing asked", got, err)
	}
	if _, err := c.PullRequestCommitMessages(context.Background(), pipeline.Repo{Workspace: "acme", RepoSlug: "a/b"}, 43, 5); !errors.As(err, new(*pipeline.InvalidError)) {
		t.Errorf("bad slug: err = %v", err)
	}
	if !slices.Contains(rec.got(), attempt{Op: "list_pr_commits", Status: 200}) || !slices.Contains(Operations, "list_pr_commits") {
		t.Errorf("list_pr_commits not reported or not listed: %v", rec.got())
	}
}
