package bitbucket

import (
	"errors"
	"os"
	"testing"
)

// TestAbuseWebhookEventKeyMismatch: X-Event-Key is not signed, so a signed
// body of one event replayed under another key is refused.
func TestAbuseWebhookEventKeyMismatch(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	created := read("webhook_pullrequest_created.json")
	updated := read("webhook_pullrequest_updated.json")
	comment := read("webhook_pullrequest_comment_created.json")
	approval := []byte(`{"actor":{},"pullrequest":{"id":1},"repository":{"full_name":"a/b"},"approval":{"date":"x"}}`)
	push := []byte(`{"actor":{},"repository":{"full_name":"a/b"},"push":{"changes":[]}}`)
	cases := []struct {
		name string
		key  string
		body []byte
		ok   bool
	}{
		{"created", EventPullRequestCreated, created, true},
		{"updated", EventPullRequestUpdated, updated, true},
		{"created body as updated", EventPullRequestUpdated, created, true},
		{"comment as updated", EventPullRequestUpdated, comment, false},
		{"comment as created", EventPullRequestCreated, comment, false},
		{"comment as comment", "pullrequest:comment_created", comment, true},
		{"pull request as comment", "pullrequest:comment_created", updated, false},
		{"approval as updated", EventPullRequestUpdated, approval, false},
		{"approval as approved", "pullrequest:approved", approval, true},
		{"push as updated", EventPullRequestUpdated, push, false},
		{"push", "repo:push", push, true},
		{"pull request as push", "repo:push", updated, false},
		{"not an object", EventPullRequestUpdated, []byte(`[1]`), false},
		{"pullrequest not an object", EventPullRequestUpdated, []byte(`{"pullrequest":"x","repository":{}}`), false},
		{"no repository", EventPullRequestUpdated, []byte(`{"pullrequest":{"id":1}}`), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEventBody(tc.key, tc.body)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, errEventMismatch) {
				t.Fatalf("err = %v, want errEventMismatch", err)
			}
		})
	}
}
