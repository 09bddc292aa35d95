package prcontext

import (
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
)

// Nothing leaves prscout toward a prompt or an n8n item before its secrets
// are redacted (pipeline/redact): the pull request's text, Jira text, the
// rules, diffs, sources, fetched context and warnings. Every helper here
// adds what it replaced to counts, by kind; redacting text that was already
// redacted finds nothing more, so the context and merge stages may both run
// over the same fields without counting a secret twice.

// redactPR redacts a pull request's title and description (the text its
// author wrote; names and branches are left as they are).
func redactPR(pr pipeline.PullRequest, counts map[string]int) pipeline.PullRequest {
	pr.Title = redact.Secrets(pr.Title, counts)
	pr.Description = redact.Secrets(pr.Description, counts)
	return pr
}

// redactIssues returns a copy of issues with every text field redacted that
// a prompt shows: summary, description and acceptance criteria. The
// acceptance criteria's items and warnings, which only the answer carries,
// are counted into answerOnly (which may be counts itself).
func redactIssues(issues []pipeline.Issue, counts, answerOnly map[string]int) []pipeline.Issue {
	if issues == nil {
		return nil
	}
	out := make([]pipeline.Issue, len(issues))
	for i, is := range issues {
		is.Summary = redact.Secrets(is.Summary, counts)
		is.Description = redact.Secrets(is.Description, counts)
		is.AcceptanceCriteria = redact.Secrets(is.AcceptanceCriteria, counts)
		if is.Requirements != nil {
			reqs := make([]pipeline.Requirement, len(is.Requirements))
			for k, r := range is.Requirements {
				r.Text = redact.Secrets(r.Text, answerOnly)
				reqs[k] = r
			}
			is.Requirements = reqs
		}
		is.RequirementsWarnings = redactStrings(is.RequirementsWarnings, answerOnly)
		out[i] = is
	}
	return out
}

// redactStrings returns a copy of ss with each string redacted (nil stays
// nil).
func redactStrings(ss []string, counts map[string]int) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = redact.Secrets(s, counts)
	}
	return out
}

// ruleRedactor redacts per-file review rules. Many files share one rule
// text, which a prompt shows once and refers back to afterwards, so each
// distinct text is redacted (and counted) once.
type ruleRedactor struct {
	counts map[string]int
	done   map[string]string
}

func newRuleRedactor(counts map[string]int) *ruleRedactor {
	return &ruleRedactor{counts: counts, done: map[string]string{}}
}

func (r *ruleRedactor) redact(rule string) string {
	if rule == "" {
		return rule
	}
	if out, ok := r.done[rule]; ok {
		return out
	}
	out := redact.Secrets(rule, r.counts)
	r.done[rule] = out
	return out
}

// addCounts adds from's counts to to's.
func addCounts(to, from map[string]int) {
	for k, n := range from {
		to[k] += n
	}
}

// redactCriteria redacts the text of acceptance criteria a request passed
// or a merge input carries (a copy: the caller's slice is left alone).
func redactCriteria(cs []pipeline.Requirement, counts map[string]int) []pipeline.Requirement {
	if len(cs) == 0 {
		return cs
	}
	out := make([]pipeline.Requirement, len(cs))
	for i, c := range cs {
		c.Text = redact.Secrets(c.Text, counts)
		out[i] = c
	}
	return out
}
