package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline/redact"
)

// e2eSecrets are the secret values of TestSecretsNeverLeave, generated at
// run time from a fixed seed (no file holds a string a secret scanner would
// flag). Each is made of letters, digits, '-' and '_' only, so JSON never
// escapes it and a plain search of an answer's bytes finds it.
type e2eSecrets struct {
	title, description, jiraSummary, jiraDescription, jiraCriteria, fetched, changed, review string
}

func newE2ESecrets() e2eSecrets {
	r := rand.New(rand.NewPCG(2026, 12))
	from := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	const b62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	return e2eSecrets{
		title:           "AK" + "IA" + from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
		description:     "gh" + "p_" + from(b62, 36),
		jiraSummary:     "dop" + "_v1_" + from("0123456789abcdef", 64),
		jiraDescription: from(b62, 7) + "-" + from(b62, 6) + "9",
		jiraCriteria:    "xo" + "xb-" + from("0123456789", 12) + "-" + from(b62, 24),
		fetched:         "glp" + "at-" + from(b62, 20),
		changed:         "sk" + "_live_" + from(b62, 24),
		review:          "np" + "m_" + from(b62, 36),
	}
}

func (s e2eSecrets) all() map[string]string {
	return map[string]string{
		"PR title": s.title, "PR description": s.description, "Jira summary": s.jiraSummary,
		"Jira description": s.jiraDescription, "Jira acceptance criteria": s.jiraCriteria,
		"fetched file": s.fetched, "changed file": s.changed, "review answer": s.review,
	}
}

// postRaw posts body and returns the status, the answer's bytes and the
// answer decoded.
func (s *server) postRaw(t *testing.T, path string, body any) (int, []byte, map[string]any) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: status %d, answer is not one JSON object: %v\n%s", path, resp.StatusCode, err, raw)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: status %d: %s", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, raw, out
}

// jiraIssueServer is a Jira fake answering GET /rest/api/2/issue/{key} for
// one issue in Jira's REST v2 shape (wiki-markup description, the
// acceptance criteria in customfield_10042).
func jiraIssueServer(t *testing.T, key string, fields map[string]any) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rest/api/2/issue/{key}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.EqualFold(r.PathValue("key"), key) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"errorMessages":["Issue does not exist or you do not have permission to see it."],"errors":{}}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "10001", "key": key, "fields": fields})
	})
	return httpServer(t, mux)
}

// TestSecretsNeverLeave is issue 12's end-to-end test: a secret in the PR
// title and description, in a Jira issue's summary, description and
// acceptance criteria, in a file the scout fetches, in a changed file and
// in the review model's answer reaches no stage's answer (context with its
// scout prompt, needs, batch, merge with its review prompt, comments) and
// no posted comment. Each stage says what it redacted in stats.redactions,
// the redactions keep the diff's lines, and prscout_redactions_total adds
// up to the answers' counts.
func TestSecretsNeverLeave(t *testing.T) {
	sec := newE2ESecrets()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeRepoFile(t, dir, "pkg/auth/token.go", "package auth\n\n// deployToken pushes release builds.\nconst deployToken = \""+sec.fetched+"\"\n\n// Validate reports whether tok is a valid session token.\nfunc Validate(tok string) bool { return len(tok) == 32 }\n")
	writeRepoFile(t, dir, "pkg/api/handler.go", "package api\n\nimport \"example.com/app/pkg/auth\"\n\nfunc Handle(tok string) int {\n\tif !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\treturn 200\n}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	changedSource := "package api\n\nimport \"example.com/app/pkg/auth\"\n\nconst paymentsKey = \"" + sec.changed + "\"\n\nfunc Handle(tok string) int {\n\tif tok == \"\" || !auth.Validate(tok) {\n\t\treturn 401\n\t}\n\treturn 200\n}\n"
	writeRepoFile(t, dir, "pkg/api/handler.go", changedSource)
	git(t, dir, "commit", "-q", "-am", "feature: payments key")
	repo := &bbRepo{dir: dir, fake: bitbuckettest.NewServer()}
	t.Cleanup(repo.fake.Close)
	repo.fake.RequireBasic(bbEmail, bbToken)
	base, head := git(t, dir, "rev-parse", "main"), git(t, dir, "rev-parse", "feature")
	repo.load(t, base)
	repo.load(t, head)
	repo.fake.SetBranch(bbWorkspace, bbSlug, "main", base)
	repo.fake.SetBranch(bbWorkspace, bbSlug, "feature/pay", head)
	repo.diff(t, base, head)
	repo.fake.AddPullRequest(bbWorkspace, bbSlug, bitbuckettest.PullRequest{
		ID: 12, Title: "SEC-7 rotate " + sec.title, Description: "The old token " + sec.description + " is revoked.",
		Author: "Mina Park", SourceBranch: "feature/pay", DestinationBranch: "main", SourceCommit: head, DestinationCommit: base,
	})
	jira := jiraIssueServer(t, "SEC-7", map[string]any{
		"summary":           "Leaked token " + sec.jiraSummary,
		"status":            map[string]any{"name": "In Progress"},
		"description":       "The staging job still sets\nDB_PASSWORD=" + sec.jiraDescription + "\nin its environment.",
		"customfield_10042": "- The bot token " + sec.jiraCriteria + " no longer works\n- Payments keys come from the vault",
	})
	s := startBB(t, repo.fake, "PRSCOUT_JIRA_BASE_URL="+jira, "PRSCOUT_JIRA_EMAIL=bot@example.invalid",
		"PRSCOUT_JIRA_TOKEN=j", "PRSCOUT_JIRA_AC_FIELD=customfield_10042")

	answers := map[string][]byte{}
	_, raw, ctxAns := s.postRaw(t, "/v1/context", map[string]any{"workspace": bbWorkspace, "repoSlug": bbSlug, "prId": 12})
	answers["context"] = raw
	if len(list(ctxAns["jira"])) != 1 || len(list(ctxAns["files"])) != 1 {
		t.Fatalf("context: %d Jira issues and %d files, want 1 and 1: %s", len(list(ctxAns["jira"])), len(list(ctxAns["files"])), raw)
	}
	// The scout saw only markers and may repeat them.
	scout := `{"files":[{"path":"pkg/api/handler.go","needs":[
		{"op":"get_file","path":"pkg/auth/token.go","reason":"Validate and [REDACTED:github_token] handling"},
		{"op":"list_dir","path":"pkg/auth/","reason":"other auth code"}]}]}`
	_, raw, needs := s.postRaw(t, "/v1/needs", map[string]any{
		"workspace": ctxAns["workspace"], "repoSlug": ctxAns["repoSlug"], "ref": ctxAns["ref"], "files": ctxAns["files"], "scout": scout,
	})
	answers["needs"] = raw
	_, raw, batch := s.postRaw(t, "/v1/repository/batch", needs)
	answers["batch"] = raw
	_, raw, merged := s.postRaw(t, "/v1/merge", map[string]any{"context": ctxAns, "results": batch["results"], "rejected": batch["rejected"]})
	answers["merge"] = raw
	// A review model that leaks a secret anyway (it cannot have seen it:
	// the test stands in for one that makes one up or was given it).
	review := reviewOf("Keys are now read from the vault; one is still committed.",
		`{"path":"pkg/api/handler.go","line":5,"existingCode":"const paymentsKey = \"[REDACTED:stripe_key]\"","severity":"critical","title":"Committed payments key","body":"Rotate it, like `+sec.review+` last week."}`)
	_, raw, comments := s.postRaw(t, "/v1/comments", commentsRequest(merged, review))
	answers["comments"] = raw

	for stage, body := range answers {
		for where, secret := range sec.all() {
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("the secret from the %s reached the %s answer", where, stage)
			}
		}
	}
	summaries, inline := live(repo.fake, 12)
	if len(summaries) != 1 || len(inline) != 1 {
		t.Fatalf("posted %d summaries and %d inline comments, want 1 and 1", len(summaries), len(inline))
	}
	for _, c := range append(summaries, inline...) {
		for where, secret := range sec.all() {
			if strings.Contains(c.Body, secret) {
				t.Errorf("the secret from the %s was posted to Bitbucket (comment %d)", where, c.ID)
			}
		}
	}
	if inline[0].Path != "pkg/api/handler.go" || inline[0].To == nil || *inline[0].To != 5 ||
		!strings.Contains(inline[0].Body, "like [REDACTED:npm_token] last week") {
		t.Errorf("inline comment %s:%v:\n%s", inline[0].Path, inline[0].To, inline[0].Body)
	}

	// Each secret is replaced by its kind's marker where it was, and the
	// prompts say so.
	pr, issue := obj(ctxAns["pr"]), obj(list(ctxAns["jira"])[0])
	file := obj(list(ctxAns["files"])[0])
	checks := []struct{ where, text, want string }{
		{"PR title", str(pr["title"]), "SEC-7 rotate [REDACTED:aws_access_key]"},
		{"PR description", str(pr["description"]), "[REDACTED:github_token]"},
		{"Jira summary", str(issue["summary"]), "[REDACTED:digitalocean_token]"},
		{"Jira description", str(issue["description"]), "DB_PASSWORD=[REDACTED:password_assignment]"},
		{"Jira acceptance criteria", str(issue["acceptanceCriteria"]), "[REDACTED:slack_token]"},
		{"changed file's diff", str(file["diff"]), "+const paymentsKey = \"[REDACTED:stripe_key]\"\n"},
		{"changed file's source", str(file["source"]), "const paymentsKey = \"[REDACTED:stripe_key]\"\n"},
		{"scout prompt", str(obj(ctxAns["scoutPrompt"])["user"]), "Note: prscout replaced 7 secrets"},
		{"fetched file", str(byPath(list(batch["results"]))["pkg/auth/token.go"]["content"]), "const deployToken = \"[REDACTED:gitlab_token]\"\n"},
		{"review prompt", str(obj(merged["reviewPrompt"])["user"]), "Note: prscout replaced 8 secrets"},
	}
	for _, c := range checks {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.where, c.want, c.text)
		}
	}
	if got, want := strings.Count(str(file["diff"]), "\n"), strings.Count(string(gitRaw(t, dir, "diff", "-M", "-U30", base, head)), "\n"); got != want {
		t.Errorf("the redacted diff has %d lines, git's %d", got, want)
	}

	// stats.redactions of every answer, and the metric is their sum.
	total := map[string]float64{}
	for stage, ans := range map[string]map[string]any{"context": ctxAns, "batch": batch, "merge": merged, "comments": comments} {
		red, ok := obj(ans["stats"])["redactions"].(map[string]any)
		if !ok {
			t.Errorf("%s answer has no stats.redactions: %v", stage, ans["stats"])
		}
		for k, v := range red {
			total[k] += v.(float64)
		}
	}
	want := map[string]float64{
		redact.KindAWSKey: 1, redact.KindGitHubToken: 1, redact.KindDigitalOcean: 1, redact.KindAssignment: 1,
		redact.KindSlackToken:  2, // the criteria text and its item
		redact.KindStripeKey:   2, // diff and source
		redact.KindGitLabToken: 1, redact.KindNPMToken: 1,
	}
	metrics := s.metricsText(t)
	for _, k := range redact.Kinds {
		if total[k] != want[k] {
			t.Errorf("stats.redactions %s = %v over all answers, want %v", k, total[k], want[k])
		}
		if got := metricValue(metrics, `prscout_redactions_total{kind="`+k+`"}`); got != want[k] || !strings.Contains(metrics, `prscout_redactions_total{kind="`+k+`"}`) {
			t.Errorf("prscout_redactions_total{kind=%q} = %v, want %v", k, got, want[k])
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
