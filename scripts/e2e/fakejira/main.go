// Command fakejira runs jiratest's fake Jira REST API v2 as a standalone
// loopback process for the n8n end-to-end test, loaded with the fixture's
// issues (give PRSCOUT_JIRA_BASE_URL its URL). One more endpoint is for the
// test:
//
//	GET /_fake/asked    the issue keys prscout asked for, in order
//
// The bound URL is written to -addr-file as "http://127.0.0.1:<port>".
package main

import (
	"encoding/json"
	"flag"
	"net/http"

	"github.com/prscout/prscout/jira/jiratest"
	"github.com/prscout/prscout/scripts/e2e/internal/fixture"
	"github.com/prscout/prscout/scripts/e2e/internal/serve"
)

func main() {
	addrFile := flag.String("addr-file", "", "write the base URL here once listening")
	pat := flag.String("pat", "", "personal access token the API requires (empty: any)")
	flag.Parse()

	fake := jiratest.New()
	if *pat != "" {
		fake.RequireBearer(*pat)
	}
	for _, is := range fixture.JiraIssues {
		fake.AddIssue(jiratest.Issue{Key: is.Key, Summary: is.Summary, Status: is.Status, Description: is.Description})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_fake/asked", func(w http.ResponseWriter, r *http.Request) {
		asked := fake.Asked()
		if asked == nil {
			asked = []string{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(asked)
	})
	mux.Handle("/", fake)

	serve.Run("fakejira", "127.0.0.1:0", *addrFile, "http://", mux)
}
