// Package verify is the verify pass: one prompt that shows a model the
// review's findings, each with its quoted evidence and the code around it,
// and asks it to keep or drop each one; and the reading of that answer.
// The comments stage drops what the answer drops (recorded, never posted).
// Pure: no I/O.
package verify

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/llmanswer"
)

// Finding is one finding as the verify prompt shows it.
type Finding struct {
	// ID is the finding's fingerprint: the same on every call for the same
	// review, so the answer's ids can be matched at /v1/comments.
	ID       string
	Path     string
	Line     int
	Severity string
	Title    string
	Body     string
	// Evidence is the code the finding quotes (its existingCode).
	Evidence string
	// Code is the new-side code around the finding's line.
	Code []CodeLine
}

// CodeLine is one numbered line of new-side code.
type CodeLine struct {
	N    int
	Text string
}

// Limits of one prompt, so a review with many long findings stays bounded.
const (
	maxFindings  = 60
	maxTextRunes = 1200 // a finding's body or evidence
)

const systemPrompt = `You check another reviewer's findings on a pull request before they are posted.

For each finding you get its id, file, line, severity, title and explanation, the code it quotes as evidence, and the code around its line at the pull request's head. Decide for each finding whether it should be posted:
- keep: the problem is real and the shown code supports it.
- drop: the code shown does not have the problem, the finding is about code that is not there, it repeats another finding, or it is a style preference with no effect.
When the code shown is not enough to decide, keep the finding.

Answer with a single JSON object and nothing else, exactly in this format:
{"verdicts":[{"id":"<the finding's id>","keep":true|false,"reason":"<one sentence>"}]}
Give one verdict per finding, with the ids exactly as shown.`

// Prompt builds the verify prompt for findings (at most maxFindings; the
// rest are not asked about and are kept). Deterministic: the same findings
// give the same bytes.
func Prompt(findings []Finding) pipeline.Prompt {
	var b strings.Builder
	n := min(len(findings), maxFindings)
	fmt.Fprintf(&b, "# Findings to check (%d)\n", n)
	for _, f := range findings[:n] {
		fmt.Fprintf(&b, "\n## Finding %s\n\n", f.ID)
		fmt.Fprintf(&b, "- File: %s", pipeline.OneLine(f.Path))
		if f.Line > 0 {
			fmt.Fprintf(&b, ", line %d", f.Line)
		}
		fmt.Fprintf(&b, "\n- Severity: %s\n- Title: %s\n", pipeline.OneLine(f.Severity), pipeline.OneLine(f.Title))
		if body := strings.TrimSpace(f.Body); body != "" {
			b.WriteString("\nExplanation:\n\n")
			b.WriteString(pipeline.ClipRunes(body, maxTextRunes))
			b.WriteString("\n")
		}
		b.WriteString("\nEvidence quoted by the finding:\n\n")
		if ev := strings.TrimSpace(f.Evidence); ev != "" {
			fence(&b, pipeline.ClipRunes(ev, maxTextRunes))
		} else {
			b.WriteString("(none)\n")
		}
		b.WriteString("\nCode at the head around the finding:\n\n")
		if len(f.Code) == 0 {
			b.WriteString("(not in the diff)\n")
			continue
		}
		var code strings.Builder
		for _, l := range f.Code {
			fmt.Fprintf(&code, "%5d  %s\n", l.N, l.Text)
		}
		fence(&b, code.String())
	}
	if len(findings) > n {
		fmt.Fprintf(&b, "\n(%d more findings are not shown; they are kept.)\n", len(findings)-n)
	}
	return pipeline.Prompt{System: systemPrompt, User: b.String()}
}

// fence writes s in a code fence longer than any backtick run in it.
func fence(b *strings.Builder, s string) {
	ticks := 3
	run := 0
	for _, r := range s {
		if r == '`' {
			run++
			ticks = max(ticks, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", ticks)
	b.WriteString(f + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n")
}

// Decision is the verify answer's word on one finding.
type Decision struct {
	Keep   bool
	Reason string
}

// Outcome is a verify answer as Read understood it.
type Outcome struct {
	// Decisions by finding id, for the ids asked about only.
	Decisions map[string]Decision
	// Quality is how the answer was read (llmanswer's qualities).
	Quality string
	// Readable is false when no verdict list could be read: every finding
	// is kept.
	Readable bool
	// CutOff: the answer was cut off; the verdicts it completed are used,
	// the findings without one are kept.
	CutOff bool
	// Warnings say what was ignored or repaired, and what was kept because
	// of it.
	Warnings []string
}

// Dropped returns the decision for id when the answer drops that finding.
func (o Outcome) Dropped(id string) (Decision, bool) {
	d, ok := o.Decisions[id]
	return d, ok && !d.Keep
}

// Read reads the verify model's answer (its text, a JSON value, or an API
// or n8n envelope; see llmanswer.Read) for the findings with the given
// ids. It never fails: an unreadable answer keeps every finding, and says
// so. A verdict for an id not asked about is ignored; a finding without a
// verdict is kept; an id given both keep and drop is kept.
func Read(raw json.RawMessage, ids []string) Outcome {
	out := Outcome{Decisions: map[string]Decision{}}
	a := llmanswer.Read(raw, isVerdictList)
	out.Quality = string(a.Quality)
	out.CutOff = a.CutOff
	list, pointer := verdictList(a.Value)
	if list == nil {
		out.Quality = string(llmanswer.Unreadable)
		out.Warnings = append(out.Warnings, "the verify answer could not be read: every finding is kept")
		return out
	}
	out.Readable = true
	asked := map[string]bool{}
	for _, id := range ids {
		asked[id] = true
	}
	conflict := map[string]bool{}
	unknown := 0
	for i, item := range list {
		if a.Cut(pointer + "/" + strconv.Itoa(i)) {
			continue // the cut fell inside this verdict
		}
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		id := normalizeID(stringField(m, "id", "finding", "fingerprint"))
		if !asked[id] {
			unknown++
			continue
		}
		keep, ok := keepOf(m)
		if !ok {
			continue
		}
		d := Decision{Keep: keep, Reason: pipeline.ClipRunes(strings.TrimSpace(stringField(m, "reason", "why", "explanation")), 300)}
		if prev, seen := out.Decisions[id]; seen && prev.Keep != d.Keep {
			conflict[id] = true
		}
		out.Decisions[id] = d
	}
	for id := range conflict {
		out.Decisions[id] = Decision{Keep: true, Reason: "the verify answer both kept and dropped it"}
	}
	if unknown > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the verify answer named %s not asked about: ignored", pipeline.CountNoun(unknown, "finding")))
	}
	missing := 0
	for _, id := range ids {
		if _, ok := out.Decisions[id]; !ok {
			missing++
		}
	}
	if missing > 0 {
		why := "the verify answer gave no verdict"
		if out.CutOff {
			why = "the verify answer was cut off before their verdicts"
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %s kept", why, pipeline.CountNoun(missing, "finding")))
	}
	return out
}

// isVerdictList is the Shape of a verify answer: {"verdicts": [...]} (or
// "findings", "decisions", "results") or a bare list of objects.
func isVerdictList(v any) bool {
	l, _ := verdictList(v)
	return l != nil
}

// verdictList returns the answer's verdict list and its JSON pointer.
func verdictList(v any) ([]any, string) {
	switch t := v.(type) {
	case []any:
		if len(t) == 0 {
			return t, ""
		}
		if _, ok := t[0].(map[string]any); ok {
			return t, ""
		}
	case map[string]any:
		for _, k := range []string{"verdicts", "findings", "decisions", "results"} {
			if l, ok := t[k].([]any); ok {
				return l, "/" + k
			}
		}
	}
	return nil, ""
}

// keepOf reads a verdict's decision: "keep" as a boolean (or "true" /
// "false"), else "verdict" / "decision" / "action" as a word.
func keepOf(m map[string]any) (keep, ok bool) {
	switch k := m["keep"].(type) {
	case bool:
		return k, true
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(k)); err == nil {
			return b, true
		}
	}
	word := strings.ToLower(strings.TrimSpace(stringField(m, "verdict", "decision", "action")))
	switch word {
	case "keep", "kept", "post", "valid", "true positive", "confirmed", "yes":
		return true, true
	case "drop", "dropped", "discard", "reject", "rejected", "remove", "invalid", "false positive", "no":
		return false, true
	}
	return false, false
}

// stringField returns the first of keys that holds a string (a number is
// written as it was given).
func stringField(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			return v
		case json.Number:
			return v.String()
		}
	}
	return ""
}

// normalizeID reads an id as a model may have written it: trimmed, quotes
// and backticks removed, lower case.
func normalizeID(s string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(s), "`\"'#"))
}
