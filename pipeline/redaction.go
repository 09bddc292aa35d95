package pipeline

import "github.com/prscout/prscout/pipeline/redact"

// Nothing leaves prscout toward a prompt or an n8n item before its secrets
// are redacted (pipeline/redact): the pull request's text, Jira text, the
// rules, diffs, sources, fetched context and warnings. Every helper here
// adds what it replaced to counts, by kind; redacting text that was already
// redacted finds nothing more, so the context and merge stages may both run
// over the same fields without counting a secret twice.

// RedactPR redacts a pull request's title and description (the text its
// author wrote; names and branches are left as they are).
func RedactPR(pr PullRequest, counts map[string]int) PullRequest {
	pr.Title = redact.Secrets(pr.Title, counts)
	pr.Description = redact.Secrets(pr.Description, counts)
	return pr
}

// RedactIssues returns a copy of issues with every text field redacted that
// a prompt shows: summary, description and acceptance criteria. The
// acceptance criteria's items and warnings, which only the answer carries,
// are counted into answerOnly (which may be counts itself).
func RedactIssues(issues []Issue, counts, answerOnly map[string]int) []Issue {
	if issues == nil {
		return nil
	}
	out := make([]Issue, len(issues))
	for i, is := range issues {
		is.Summary = redact.Secrets(is.Summary, counts)
		is.Description = redact.Secrets(is.Description, counts)
		is.AcceptanceCriteria = redact.Secrets(is.AcceptanceCriteria, counts)
		if is.Requirements != nil {
			reqs := make([]Requirement, len(is.Requirements))
			for k, r := range is.Requirements {
				r.Text = redact.Secrets(r.Text, answerOnly)
				reqs[k] = r
			}
			is.Requirements = reqs
		}
		is.RequirementsWarnings = RedactStrings(is.RequirementsWarnings, answerOnly)
		out[i] = is
	}
	return out
}

// RedactStrings returns a copy of ss with each string redacted (nil stays
// nil).
func RedactStrings(ss []string, counts map[string]int) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = redact.Secrets(s, counts)
	}
	return out
}

// RuleRedactor redacts per-file review rules. Many files share one rule
// text, which a prompt shows once and refers back to afterwards, so each
// distinct text is redacted (and counted) once.
type RuleRedactor struct {
	counts map[string]int
	done   map[string]string
}

// NewRuleRedactor returns a RuleRedactor that counts into counts.
func NewRuleRedactor(counts map[string]int) *RuleRedactor {
	return &RuleRedactor{counts: counts, done: map[string]string{}}
}

// Redact returns rule with its secrets redacted, each distinct text once.
func (r *RuleRedactor) Redact(rule string) string {
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

// AddCounts adds from's counts to to's.
func AddCounts(to, from map[string]int) {
	for k, n := range from {
		to[k] += n
	}
}

// RedactCriteria redacts the text of acceptance criteria a request passed
// or a merge input carries (a copy: the caller's slice is left alone).
func RedactCriteria(cs []Requirement, counts map[string]int) []Requirement {
	if len(cs) == 0 {
		return cs
	}
	out := make([]Requirement, len(cs))
	for i, c := range cs {
		c.Text = redact.Secrets(c.Text, counts)
		out[i] = c
	}
	return out
}
