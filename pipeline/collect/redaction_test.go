package collect

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/scope"
)

// secretGen makes secret-shaped test values at run time from a fixed seed,
// so no file holds a string a secret scanner would flag and every run sees
// the same values.
type secretGen struct{ r *rand.Rand }

func newSecretGen(seed uint64) secretGen {
	return secretGen{rand.New(rand.NewPCG(seed, seed^0x5ec2e7))}
}

func (g secretGen) from(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	base62      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

func (g secretGen) awsKey() string { return "AK" + "IA" + g.from(upperDigits, 16) }
func (g secretGen) github() string { return "gh" + "p_" + g.from(base62, 36) }
func (g secretGen) stripe() string { return "sk" + "_live_" + g.from(base62, 24) }
func (g secretGen) gitlab() string { return "glp" + "at-" + g.from(base62, 20) }
func (g secretGen) slack() string {
	return "xo" + "xb-" + g.from("0123456789", 12) + "-" + g.from(base62, 24)
}
func (g secretGen) npm() string       { return "np" + "m_" + g.from(base62, 36) }
func (g secretGen) password() string  { return g.from(base62, 6) + "-" + g.from(base62, 6) + "!9" }
func (g secretGen) anthropic() string { return "sk" + "-ant-api03-" + g.from(base62, 93) + "AA" }

// TestContextRedacts puts a different secret in every text the context
// stage passes on (PR title and description, Jira summary, description and
// acceptance criteria, free requirements, rules text, a repository rule,
// the diff and the source) and checks that none reaches the answer or the
// scout prompt, that each is counted under its kind, that the prompt says
// how many were replaced, and that the merge stage adds only what it
// redacted itself (a fetched file).
func TestContextRedacts(t *testing.T) {
	g := newSecretGen(12)
	title, desc, summary := g.github(), g.stripe(), g.awsKey()
	jiraPass, acPass := g.password(), g.password()
	rulesTok, repoRuleTok, reqKey := g.gitlab(), g.slack(), g.anthropic()
	codeKey := g.awsKey()
	acText := "- connects with postgres://app:" + acPass + "@db:5432/app"
	repoRules := `{"rules":[{"path":"*.go","rule":"Slack bots use tokens such as ` + repoRuleTok + `"}]}`
	diff := fileDiff("cfg.go", "package cfg", "const k = \""+codeKey+"\"")
	repo := scopeRepo(map[string]string{scope.RepoRulesPath: repoRules},
		map[string]string{"cfg.go": "package cfg\n\nconst k = \"" + codeKey + "\"\n"}, diff)
	in := ContextInput{
		Base: "base", Head: "head",
		Title:        "Rotate " + title,
		Description:  "The new key is " + desc + ".",
		Requirements: pipeline.RequirementsField{Text: "Send x-api-key: " + reqKey},
		Rules:        scope.RulesField{Text: "Never commit tokens like " + rulesTok},
		Jira: []pipeline.Issue{{
			Key: "SEC-1", Summary: "Key " + summary + " leaked",
			Description:        "Set it in the job:\nDB_PASSWORD=" + jiraPass + "\nthen restart.",
			AcceptanceCriteria: acText,
			Requirements:       []pipeline.Requirement{{ID: "SEC-1#1", Issue: "SEC-1", Text: acText}},
		}},
	}
	res, err := Collect(t.Context(), ContextSources{Repo: repo, Diffs: repo}, in, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var answer bytes.Buffer
	if err := res.WriteJSON(&answer); err != nil {
		t.Fatal(err)
	}
	all := []string{title, desc, summary, jiraPass, acPass, rulesTok, repoRuleTok, reqKey, codeKey}
	for _, s := range all {
		if strings.Contains(answer.String(), s) {
			t.Errorf("secret %s reached the context answer", s)
		}
	}
	want := map[string]int{
		redact.KindGitHubToken: 1, redact.KindStripeKey: 1, redact.KindAWSKey: 3, // summary, diff, source
		redact.KindAssignment: 1, redact.KindURLPassword: 2, // criteria text and its item
		redact.KindGitLabToken: 1, redact.KindSlackToken: 1, redact.KindAnthropic: 1,
	}
	if !equalCounts(res.Stats.Redactions, want) {
		t.Errorf("redactions %v, want %v", res.Stats.Redactions, want)
	}
	// The note counts what the prompt shows: the criteria item is answer-only.
	if !strings.Contains(res.ScoutPrompt.User, "replaced 10 secrets") {
		t.Errorf("scout prompt lacks the note for 10 secrets:\n%s", res.ScoutPrompt.User)
	}
	if got, want := strings.Count(res.Files[0].Diff, "\n"), strings.Count(diff, "\n"); got != want {
		t.Errorf("redacted diff has %d lines, want %d", got, want)
	}
	if res.Files[0].Rules != "Slack bots use tokens such as [REDACTED:slack_token]" {
		t.Errorf("file rules = %q", res.Files[0].Rules)
	}

	fetched := g.npm()
	content := "//registry.npmjs.org/:_authToken=" + fetched + "\n"
	m, err := merge.Merge(merge.MergeInput{Context: merge.MergeContext{
		Ref: "head", PR: res.PR, Jira: res.Jira, Rules: res.Rules, Requirements: pipeline.RequirementsField{Text: res.RequirementsText, Criteria: res.Requirements}, Files: res.Files,
	}, Results: []pipeline.LookupResult{{OK: true, Op: pipeline.OpGetFile, Path: ".npmrc.example", Content: &content}}}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(all, fetched) {
		if strings.Contains(m.ReviewPrompt.User, s) || strings.Contains(m.AdditionalContext[0].Content, s) {
			t.Errorf("secret %s reached the merge answer", s)
		}
	}
	if !equalCounts(m.Stats.Redactions, map[string]int{redact.KindNPMToken: 1}) {
		t.Errorf("merge redactions %v, want only the fetched npm token", m.Stats.Redactions)
	}
	// The context's secrets (the acceptance criterion once, as the
	// criterion to judge) and the fetched npm token.
	if !strings.Contains(m.ReviewPrompt.User, "replaced 11 secrets") {
		t.Errorf("review prompt lacks the note for 11 secrets:\n%s", m.ReviewPrompt.User)
	}
}

// TestMergeRedactsCallerContext: a context the caller built itself (not
// the context stage's answer) is redacted by the merge stage and counted
// there.
func TestMergeRedactsCallerContext(t *testing.T) {
	g := newSecretGen(7)
	title, jiraKey, diffKey, errTok := g.github(), g.stripe(), g.awsKey(), g.gitlab()
	m, err := merge.Merge(merge.MergeInput{
		Context: merge.MergeContext{
			Ref: "head", PR: pipeline.PullRequest{Title: "Add " + title},
			Jira:  []pipeline.Issue{{Key: "A-1", Description: "key " + jiraKey}},
			Files: []pipeline.ChangedFile{{Path: "a.go", Status: "modified", Diff: "@@ -1 +1 @@\n-x\n+k := \"" + diffKey + "\"\n"}},
		},
		Results: []pipeline.LookupResult{{OK: false, Op: pipeline.OpGetFile, Path: "b.go", Error: "upstream error: token " + errTok + " refused"}},
	}, pipeline.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{title, jiraKey, diffKey, errTok} {
		if strings.Contains(m.ReviewPrompt.User, s) || strings.Contains(m.Files[0].Diff, s) || strings.Contains(m.AdditionalContext[0].Error, s) {
			t.Errorf("secret %s reached the merge answer", s)
		}
	}
	want := map[string]int{redact.KindGitHubToken: 1, redact.KindStripeKey: 1, redact.KindAWSKey: 1, redact.KindGitLabToken: 1}
	if !equalCounts(m.Stats.Redactions, want) {
		t.Errorf("redactions %v, want %v", m.Stats.Redactions, want)
	}
	if !strings.HasPrefix(m.ReviewPrompt.User, redact.Note(4)) {
		t.Errorf("review prompt does not start with the note for 4 secrets:\n%.300s", m.ReviewPrompt.User)
	}
}

func equalCounts(got, want map[string]int) bool {
	if len(got) != len(want) {
		return false
	}
	for k, n := range want {
		if got[k] != n {
			return false
		}
	}
	return true
}
