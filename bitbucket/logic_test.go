package bitbucket

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

// fakeAPI is a func-field apiClient for testing the logic without HTTP.
// Methods without a func panic, so a test notices unexpected calls.
type fakeAPI struct {
	apiClient
	srcPageFn      func(next string) (page[wireEntry], error)
	commentsPageFn func(next string) (page[wireComment], error)
	mergeBaseFn    func(a, b string) (wireCommit, error)
	currentUserFn  func() (wireAccount, error)
	userCalls      int
}

func (f *fakeAPI) currentUser(context.Context) (wireAccount, error) {
	f.userCalls++
	return f.currentUserFn()
}

var _ apiClient = (*fakeAPI)(nil)

func (f *fakeAPI) srcPage(_ context.Context, _ pipeline.Repo, _, _, next string) (page[wireEntry], error) {
	return f.srcPageFn(next)
}

func (f *fakeAPI) commentsPage(_ context.Context, _ pipeline.Repo, _ int, next string) (page[wireComment], error) {
	return f.commentsPageFn(next)
}

func (f *fakeAPI) mergeBase(_ context.Context, _ pipeline.Repo, a, b string) (wireCommit, error) {
	return f.mergeBaseFn(a, b)
}

// pages serves n entries in pages of size per page, linking with "p<N>".
func pages(n, size int) func(next string) (page[wireEntry], error) {
	return func(next string) (page[wireEntry], error) {
		start := 0
		if next != "" {
			start, _ = strconv.Atoi(next[1:])
		}
		var p page[wireEntry]
		for i := start; i < min(start+size, n); i++ {
			p.Values = append(p.Values, wireEntry{Type: "commit_file", Path: "f" + strconv.Itoa(i)})
		}
		if start+size < n {
			p.Next = "p" + strconv.Itoa(start+size)
		}
		return p, nil
	}
}

func TestListDirLimits(t *testing.T) {
	tests := []struct {
		name               string
		entries, size, lim int
		wantN              int
		wantTruncated      bool
	}{
		{"fits in one page", 3, 10, 5, 3, false},
		{"exactly the limit, last page", 4, 2, 4, 4, false},
		{"limit at a page end with more", 6, 2, 4, 4, true},
		{"limit inside a page", 6, 4, 3, 3, true},
		{"empty", 0, 10, 5, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{api: &fakeAPI{srcPageFn: pages(tt.entries, tt.size)}}
			got, truncated, err := c.ListDir(context.Background(), acme, "abc1234", "", tt.lim)
			if err != nil || len(got) != tt.wantN || truncated != tt.wantTruncated {
				t.Fatalf("ListDir = %d entries, truncated %v, %v; want %d, %v", len(got), truncated, err, tt.wantN, tt.wantTruncated)
			}
		})
	}
}

func TestPaginationLoop(t *testing.T) {
	c := &Client{api: &fakeAPI{commentsPageFn: func(string) (page[wireComment], error) {
		return page[wireComment]{Next: "same", Values: []wireComment{{ID: 1}}}, nil
	}, currentUserFn: func() (wireAccount, error) { return wireAccount{AccountID: "me"}, nil }}}
	_, err := c.ListComments(context.Background(), acme, 1)
	if !errors.Is(err, pipeline.ErrUpstream) {
		t.Fatalf("err = %v, want upstream (pagination loop)", err)
	}
}

func TestCommentMapping(t *testing.T) {
	from, to := 3, 9
	tests := []struct {
		name string
		in   wireComment
		want pipeline.Comment
	}{
		{"general", wireComment{ID: 1, Content: wireText{Raw: "hi"}, User: wireAccount{DisplayName: "Mina"}},
			pipeline.Comment{ID: 1, Body: "hi", Author: "Mina"}},
		{"inline new line", wireComment{ID: 2, Inline: &wireInline{Path: "a.go", To: &to}, User: wireAccount{Nickname: "mpark"}},
			pipeline.Comment{ID: 2, Inline: &pipeline.InlineAnchor{Path: "a.go", Line: 9}, Author: "mpark"}},
		{"inline old line only", wireComment{ID: 3, Inline: &wireInline{Path: "a.go", From: &from}, Deleted: true},
			pipeline.Comment{ID: 3, Inline: &pipeline.InlineAnchor{Path: "a.go"}, Deleted: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := comment(tt.in)
			if want := tt.in.User.DisplayName + tt.in.User.Nickname; got.AuthorAccount.DisplayName+got.AuthorAccount.Nickname != want {
				t.Errorf("AuthorAccount = %+v, want the user's names %q", got.AuthorAccount, want)
			}
			got.AuthorAccount = pipeline.Account{}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("comment (-want +got):\n%s", d)
			}
		})
	}
}

// TestListCommentsMarksForeign: comments of accounts other than prscout's
// own are Foreign; the own account comes from GET /user once, else
// Config.AccountID, else nothing is Foreign.
func TestListCommentsMarksForeign(t *testing.T) {
	me := wireAccount{AccountID: "557058:aa-bb", UUID: "{0F1E2D3C-4B5A-6978-8695-A4B3C2D1E0F9}"}
	comments := []wireComment{
		{ID: 1, User: wireAccount{AccountID: "557058:aa-bb", UUID: me.UUID}},
		{ID: 2, User: wireAccount{AccountID: "557058:cc-dd", UUID: "{11111111-2222-3333-4444-555555555555}"}},
		{ID: 3, User: wireAccount{UUID: "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"}}, // uuid only, no braces, lower case
		{ID: 4}, // no user (a deleted account)
	}
	refused := &UnexpectedResponseError{Op: "get_user", Status: 403}
	flaky := &UnexpectedResponseError{Op: "get_user", Status: 503}
	tests := []struct {
		name       string
		configured string
		user       wireAccount
		userErr    error
		want       []bool // Foreign per comment
		wantCalls  int    // GET /user over two listings
	}{
		{"learnt from /user", "", me, nil, []bool{false, true, false, true}, 1},
		{"learnt uuid only", "", wireAccount{UUID: me.UUID}, nil, []bool{false, true, false, true}, 1},
		{"/user refused, configured account_id", "557058:AA-BB", wireAccount{}, refused, []bool{false, true, true, true}, 1},
		{"/user refused, configured uuid", me.UUID, wireAccount{}, refused, []bool{false, true, false, true}, 1},
		{"/user failing, configured", "557058:cc-dd", wireAccount{}, flaky, []bool{true, false, true, true}, 1},
		{"/user answers no id, configured", "557058:aa-bb", wireAccount{DisplayName: "bot"}, nil, []bool{false, true, true, true}, 1},
		{"/user refused, unknown: nothing foreign, not asked again", "", wireAccount{}, refused, []bool{false, false, false, false}, 1},
		{"/user failing, unknown: asked again", "", wireAccount{}, flaky, []bool{false, false, false, false}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{
				commentsPageFn: func(string) (page[wireComment], error) { return page[wireComment]{Values: comments}, nil },
				currentUserFn:  func() (wireAccount, error) { return tt.user, tt.userErr },
			}
			var logs bytes.Buffer
			c := &Client{api: api, self: selfAccount{configured: tt.configured, log: slog.New(slog.NewTextHandler(&logs, nil))}}
			for range 2 {
				got, err := c.ListComments(context.Background(), acme, 1)
				if err != nil {
					t.Fatal(err)
				}
				var foreign []bool
				for _, cm := range got {
					foreign = append(foreign, cm.Foreign)
				}
				if d := cmp.Diff(tt.want, foreign); d != "" {
					t.Fatalf("Foreign per comment (-want +got):\n%s", d)
				}
			}
			if api.userCalls != tt.wantCalls {
				t.Errorf("GET /user calls = %d, want %d", api.userCalls, tt.wantCalls)
			}
			unknown := !slices.Contains(tt.want, true)
			if n := strings.Count(logs.String(), "level=WARN"); n != map[bool]int{true: 1, false: 0}[unknown] {
				t.Errorf("%d warnings (unknown account: %v), want one only when unknown:\n%s", n, unknown, logs.String())
			}
		})
	}
}

func TestSameCommit(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"668218c13e04", "668218c13e04a1b2c3d4", true},
		{"668218C13E04", "668218c13e04", true},
		{"668218c", "668218d", false},
		{"abc", "abcdef0", false},
		{"", "", false},
		{"main", "main", true},
	}
	for _, tt := range tests {
		if got := pipeline.SameCommit(tt.a, tt.b); got != tt.want {
			t.Errorf("SameCommit(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

func TestIsAncestorUsesMergeBase(t *testing.T) {
	var asked [2]string
	c := &Client{api: &fakeAPI{mergeBaseFn: func(a, b string) (wireCommit, error) {
		asked = [2]string{a, b}
		return wireCommit{Hash: "aaaaaaa111111111"}, nil
	}}}
	ok, err := c.IsAncestor(context.Background(), acme, "aaaaaaa11111", "bbbbbbb22222")
	if err != nil || !ok || asked != [2]string{"aaaaaaa11111", "bbbbbbb22222"} {
		t.Fatalf("IsAncestor = %v, %v (asked %v)", ok, err, asked)
	}
	ok, _ = c.IsAncestor(context.Background(), acme, "ccccccc33333", "bbbbbbb22222")
	if ok {
		t.Fatal("a commit that is not the merge base was called an ancestor")
	}
}

func TestDiffQuery(t *testing.T) {
	got := diffQuery(pipeline.DiffOptions{ContextLines: 30, TwoDot: true})
	want := url.Values{"context": {"30"}, "renames": {"true"}, "topic": {"false"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
	if s := diffSpec("base1234", "head5678"); s != "head5678..base1234" {
		t.Fatalf("diffSpec = %s", s)
	}
}
