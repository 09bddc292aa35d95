package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCommentQuery: the comment listing answers the filters and sorts
// prscout sends (text contains, author, AND/OR, parentheses, newest first)
// and refuses with 400 naming the parameter what it does not understand;
// neither kind of request departs from the API description.
func TestCommentQuery(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.AddCommit("acme", "shop", "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e")
	s.AddPullRequest("acme", "shop", PullRequest{ID: 1, SourceCommit: "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e", DestinationCommit: "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e"})
	at := func(m int) time.Time { return time.Date(2026, 11, 2, 10, m, 0, 0, time.UTC) }
	a := s.AddComment("acme", "shop", 1, Comment{AccountID: DefaultAccountID, Body: "summary\n\n[prscout]: # \"review head=abc v=1\"", CreatedOn: at(1)})
	b := s.AddComment("acme", "shop", 1, Comment{AccountID: "mallory", Body: "pasted [PRSCOUT]: # \"review head=abc v=1\"", CreatedOn: at(2)})
	c := s.AddComment("acme", "shop", 1, Comment{AccountID: DefaultAccountID, Body: "reply\n\n[prscout-reply]: # \"to=7 v=1\"", CreatedOn: at(3)})
	m := s.AddComment("acme", "shop", 1, Comment{AccountID: "mina", Body: "hello", CreatedOn: at(4)})

	list := func(q, sort string) (int, []int64, string) {
		t.Helper()
		v := url.Values{}
		if q != "" {
			v.Set("q", q)
		}
		if sort != "" {
			v.Set("sort", sort)
		}
		resp, err := s.Client().Get(s.BaseURL + "/repositories/acme/shop/pullrequests/1/comments?" + v.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var p struct {
			Values []struct {
				ID int64 `json:"id"`
			} `json:"values"`
		}
		_ = json.Unmarshal(body, &p)
		var ids []int64
		for _, x := range p.Values {
			ids = append(ids, x.ID)
		}
		return resp.StatusCode, ids, string(body)
	}
	self := fmt.Sprintf("%q", DefaultAccountID)
	for _, tc := range []struct {
		q, sort string
		want    []int64
	}{
		{`content.raw ~ "[prscout]: #"`, "", []int64{a, b}}, // contains, any case
		{`user.account_id = ` + self + ` AND content.raw ~ "[prscout]: #"`, "", []int64{a}},
		{`user.account_id = ` + self + ` AND (content.raw ~ "[prscout]: #" OR content.raw ~ "to=7 v=")`, "-created_on", []int64{c, a}},
		{`user.account_id != ` + self + ` AND content.raw !~ "hello"`, "", []int64{b}},
		{`user.uuid = "{nobody}" OR user.account_id = "mina"`, "-id", []int64{m}},
		{`content.raw ~ "say \"hi\""`, "", nil},
		{"", "-id", []int64{m, c, b, a}},
	} {
		st, ids, body := list(tc.q, tc.sort)
		if st != 200 || !slices.Equal(ids, tc.want) {
			t.Errorf("q=%s sort=%s: %d %v, want %v (%s)", tc.q, tc.sort, st, ids, tc.want, body)
		}
	}
	for _, tc := range []struct{ q, sort, field string }{
		{`deleted = false`, "", "q"},                     // a field prscout does not filter on
		{`content.raw > "a"`, "", "q"},                   // an operator text does not take
		{`content.raw ~ "open`, "", "q"},                 // an unterminated string
		{`content.raw ~ "a" content.raw ~ "b"`, "", "q"}, // no AND or OR
		{`(content.raw ~ "a"`, "", "q"},                  // no closing parenthesis
		{`content.raw ~ a`, "", "q"},                     // a bare word for text
		{"", "-updated_on", "sort"},                      // a field prscout does not sort on
	} {
		st, _, body := list(tc.q, tc.sort)
		if st != 400 || !strings.Contains(body, `"message":"`+tc.field+`: `) {
			t.Errorf("q=%s sort=%s: %d %s, want 400 naming %s", tc.q, tc.sort, st, body, tc.field)
		}
	}
	if v := s.Violations(); len(v) > 0 {
		t.Errorf("departures from the API description: %v", v)
	}
}
