package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestBitbucketSetupDoc: docs/bitbucket-jira.md's setup page says what the
// code does. Its triggers table lists exactly the events the relay
// accepts, each forwarded to the setting the relay uses for it; every
// PRSCOUT_ variable the page names is a setting; the learnings row asks
// for the write scopes its Bitbucket calls need.
func TestBitbucketSetupDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/bitbucket-jira.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## Set up Bitbucket, start to finish")
	end := strings.Index(doc, "## Credentials and scopes")
	if start < 0 || end < start {
		t.Fatal(`docs/bitbucket-jira.md: no "Set up Bitbucket, start to finish" section before "Credentials and scopes"`)
	}
	setup := doc[start:end]

	row := regexp.MustCompile("(?m)^\\s*\\| [^|]+ \\| `(pullrequest:[a-z_]+)` \\| `(PRSCOUT_[A-Z_]+)` \\|$")
	got := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(setup, -1) {
		got[m[1]] = m[2]
	}
	want := map[string]string{}
	for _, e := range reviewEvents {
		want[e] = "PRSCOUT_FORWARD_URL"
	}
	for _, e := range commentEvents {
		want[e] = "PRSCOUT_COMMENT_FORWARD_URL"
	}
	for e, to := range want {
		if got[e] != to {
			t.Errorf("triggers table: %s forwarded to %q, want %s", e, got[e], to)
		}
	}
	for e := range got {
		if _, ok := want[e]; !ok {
			t.Errorf("triggers table lists %s, which the relay refuses", e)
		}
	}

	known := map[string]bool{}
	for _, s := range settings() {
		known[s.env] = true
	}
	for _, v := range regexp.MustCompile(`PRSCOUT_[A-Z_]+[A-Z]`).FindAllString(doc, -1) {
		if !known[v] {
			t.Errorf("docs/bitbucket-jira.md names %s, which is no setting", v)
		}
	}

	learn := regexp.MustCompile("(?m)^.*`PRSCOUT_LEARNINGS=on`.*$").FindString(setup)
	for _, scope := range []string{"write:repository:bitbucket", "write:pullrequest:bitbucket", "Repositories: Write", "Pull requests: Write"} {
		if !strings.Contains(learn, scope) {
			t.Errorf("the PRSCOUT_LEARNINGS=on row lacks %s (it commits to a branch and opens a pull request): %q", scope, learn)
		}
	}
}
