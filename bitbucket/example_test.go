package bitbucket_test

import (
	"errors"
	"fmt"

	"github.com/prscout/prscout/bitbucket"
)

func ExampleVerifySignature() {
	secret := []byte("webhook-secret")
	body := []byte(`{"pullrequest":{"id":42},"repository":{"full_name":"acme/uploader"}}`)
	header := bitbucket.Sign(secret, body) // what Bitbucket sends as X-Hub-Signature

	fmt.Println(bitbucket.VerifySignature(secret, body, header))
	fmt.Println(errors.Is(bitbucket.VerifySignature(secret, body, ""), bitbucket.ErrSignatureMissing))
	fmt.Println(errors.Is(bitbucket.VerifySignature([]byte("other"), body, header), bitbucket.ErrSignatureMismatch))

	ev, err := bitbucket.ParseWebhook(bitbucket.EventPullRequestCreated, body)
	fmt.Println(ev.Repo.Workspace, ev.Repo.RepoSlug, ev.PR.ID, err)
	// Output:
	// <nil>
	// true
	// true
	// acme uploader 42 <nil>
}
