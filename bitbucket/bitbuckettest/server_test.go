package bitbuckettest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestCommentAuthors: GET /user answers the authenticated account, comments
// created through the API carry it, and another account's comment cannot
// be edited or deleted (403 with Bitbucket's error JSON).
func TestCommentAuthors(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.AddCommit("acme", "shop", "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e")
	s.AddPullRequest("acme", "shop", PullRequest{ID: 1, SourceCommit: "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e", DestinationCommit: "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e"})
	s.SetAccountID("bot-7")
	theirs := s.AddCommentAs("acme", "shop", 1, "mallory", "forged")

	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, s.BaseURL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	user := func(m map[string]any) string {
		u, _ := m["user"].(map[string]any)
		id, _ := u["account_id"].(string)
		return id
	}

	st, me := call(http.MethodGet, "/user", "")
	if st != 200 || me["account_id"] != "bot-7" || me["uuid"] == "" || me["display_name"] == "" {
		t.Fatalf("GET /user = %d %v", st, me)
	}
	const comments = "/repositories/acme/shop/pullrequests/1/comments"
	st, ours := call(http.MethodPost, comments, `{"type":"pullrequest_comment","content":{"raw":"ours"}}`)
	if st != 201 || user(ours) != "bot-7" {
		t.Fatalf("POST = %d %v", st, ours)
	}
	oursID := strconv.FormatInt(int64(ours["id"].(float64)), 10)
	tests := []struct {
		method, id string
		want       int
	}{
		{http.MethodPut, strconv.FormatInt(theirs, 10), 403},
		{http.MethodDelete, strconv.FormatInt(theirs, 10), 403},
		{http.MethodGet, strconv.FormatInt(theirs, 10), 200},
		{http.MethodPut, oursID, 200},
		{http.MethodDelete, oursID, 204},
	}
	for _, tc := range tests {
		st, m := call(tc.method, comments+"/"+tc.id, `{"type":"pullrequest_comment","content":{"raw":"edited"}}`)
		if st != tc.want {
			t.Errorf("%s comment %s = %d, want %d", tc.method, tc.id, st, tc.want)
		}
		if st == 403 && m["type"] != "error" {
			t.Errorf("403 body %v is not an error object", m)
		}
	}
	cs := s.Comments("acme", "shop", 1)
	if cs[0].Body != "forged" || cs[0].Deleted || cs[0].AccountID != "mallory" {
		t.Errorf("foreign comment changed: %+v", cs[0])
	}
	if s.Calls(OpGetUser) != 1 {
		t.Errorf("get_user calls = %d", s.Calls(OpGetUser))
	}
}
