package criteria

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// Judgment is one acceptance criterion of the request with the review's
// verdict on it (unclear when the review gave none).
type Judgment struct {
	pipeline.Requirement
	Verdict  string                  `json:"verdict"`
	Evidence []reviewanswer.Evidence `json:"evidence"`
	Note     string                  `json:"note,omitempty"`
	// Judged is false when the review gave no verdict on the criterion.
	Judged bool `json:"judged"`
}

// Counts is the comments answer's "requirements": the verdicts counted,
// and each criterion with its verdict in request order.
type Counts struct {
	Met      int        `json:"met"`
	NotMet   int        `json:"notMet"`
	Unclear  int        `json:"unclear"`
	Criteria []Judgment `json:"criteria"`
}

// Total is the number of criteria judged.
func (c Counts) Total() int { return c.Met + c.NotMet + c.Unclear }

// Sentence is the coverage line's part: "criteria: 1 met, 1 not met, 1 unclear".
func (c Counts) Sentence() string {
	return fmt.Sprintf("criteria: %d met, %d not met, %d unclear", c.Met, c.NotMet, c.Unclear)
}

// Judge pairs the request's criteria with the review's verdicts, in
// request order, evidence paths resolved to the changed files they name.
// Verdicts for ids the request does not carry are dropped, a criterion
// without a verdict is unclear, each with a warning; a review with no
// verdicts at all makes every criterion unclear with one warning.
func Judge(criteria []pipeline.Requirement, verdicts []reviewanswer.Verdict, given bool, ix *anchor.Index) (Counts, []string) {
	out := Counts{Criteria: []Judgment{}}
	var warnings []string
	if len(criteria) == 0 {
		if len(verdicts) > 0 {
			warnings = append(warnings, fmt.Sprintf(
				"the review judged %s, but the request carries no requirements (pass the merge answer's requirements along): verdicts dropped",
				criteriaNoun(len(verdicts))))
		}
		return out, warnings
	}
	index := map[string]int{}
	for i, c := range criteria {
		index[Key(c.ID)] = i
	}
	byCriterion := make([]*reviewanswer.Verdict, len(criteria))
	for i := range verdicts {
		v := &verdicts[i]
		at, ok := index[Key(v.ID)]
		switch {
		case !ok:
			warnings = append(warnings, fmt.Sprintf("verdict for unknown criterion %q: dropped", pipeline.ClipRunes(v.ID, 60)))
		case byCriterion[at] != nil:
			warnings = append(warnings, fmt.Sprintf("second verdict for %s: dropped (the first is kept)", criteria[at].ID))
		default:
			byCriterion[at] = v
		}
	}
	if !given || len(verdicts) == 0 {
		warnings = append(warnings, fmt.Sprintf("the review gave no verdicts on the %s: all unclear",
			criteriaNoun(len(criteria))))
	}
	for i, c := range criteria {
		r := Judgment{Requirement: c, Verdict: reviewanswer.VerdictUnclear, Evidence: []reviewanswer.Evidence{}}
		if v := byCriterion[i]; v != nil {
			r.Verdict, r.Judged = v.Verdict, true
			r.Note, _ = marker.StripMarkers(v.Note)
			for _, e := range v.Evidence {
				if p, ok := ix.ResolvePath(e.Path); ok {
					e.Path = p
				}
				r.Evidence = append(r.Evidence, e)
			}
		} else if given && len(verdicts) > 0 {
			warnings = append(warnings, fmt.Sprintf("no verdict for %s: unclear", c.ID))
		}
		switch r.Verdict {
		case reviewanswer.VerdictMet:
			out.Met++
		case reviewanswer.VerdictNotMet:
			out.NotMet++
		default:
			out.Unclear++
		}
		out.Criteria = append(out.Criteria, r)
	}
	return out, warnings
}

// criteriaNoun is "1 acceptance criterion" or "n acceptance criteria".
func criteriaNoun(n int) string {
	if n == 1 {
		return "1 acceptance criterion"
	}
	return fmt.Sprintf("%d acceptance criteria", n)
}

// Key is how verdict ids are matched to criteria: case, space and
// the brackets or backticks a model may wrap an id in do not matter.
func Key(id string) string {
	return strings.ToUpper(strings.Trim(strings.TrimSpace(id), "[]`*\"' "))
}

// WriteTable writes the "Acceptance criteria" table: criterion,
// verdict, evidence linked to the diff, note. The criteria come from Jira
// and the notes from the model: both go through the sanitizer like the
// model's summary (no HTML, images, foreign links or mentions).
func WriteTable(b *strings.Builder, rc Counts, ix *anchor.Index, prURL string, hosts []string) {
	if len(rc.Criteria) == 0 {
		return
	}
	b.WriteString("### Acceptance criteria\n\n")
	b.WriteString("| Criterion | Verdict | Evidence | Note |\n| --- | --- | --- | --- |\n")
	for _, c := range rc.Criteria {
		var ev []string
		for _, e := range c.Evidence {
			ev = append(ev, evidenceLink(e, ix, prURL))
		}
		evidence := strings.Join(ev, ", ")
		if evidence == "" {
			evidence = "-"
		}
		inert := func(s string) string { return sanitize.TableCell(sanitize.Markdown(pipeline.OneLine(s), hosts)) }
		criterion := "**" + inert(c.ID) + "** " + inert(pipeline.ClipRunes(pipeline.OneLine(c.Text), maxCriterionRunes))
		note := inert(c.Note)
		if !c.Judged {
			note = "no verdict in the review"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", criterion, verdictLabel(c.Verdict), evidence, note)
	}
	b.WriteString("\n")
}

// maxCriterionRunes bounds a criterion's text in the table.
const maxCriterionRunes = 300

func verdictLabel(v string) string {
	switch v {
	case reviewanswer.VerdictMet:
		return "Met"
	case reviewanswer.VerdictNotMet:
		return "**Not met**"
	}
	return "Unclear"
}

// evidenceLink shows one place: a link into the pull request's diff when the
// path is a changed file and the PR's web page is known, else a code span.
//
// Bitbucket Cloud's diff page anchors a file as #chg-{path} and a new-side
// line as #L{path}T{line}; both forms are seen in links Bitbucket users share,
// Atlassian does not document them.
func evidenceLink(e reviewanswer.Evidence, ix *anchor.Index, prURL string) string {
	path, changed := ix.ResolvePath(e.Path)
	if path == "" {
		path = anchor.NormalizePath(e.Path)
	}
	text := path
	if e.Line > 0 {
		text = fmt.Sprintf("%s:%d", path, e.Line)
	}
	span := strings.ReplaceAll(sanitize.CodeSpan(text), "|", `\|`)
	if !changed {
		return span + " (not in this PR)"
	}
	if prURL == "" {
		return span
	}
	frag := "chg-" + escapeAnchorPath(path)
	if e.Line > 0 && ix.HasLine(path, e.Line) {
		frag = "L" + escapeAnchorPath(path) + "T" + strconv.Itoa(e.Line)
	}
	return "[" + span + "](" + prURL + "/diff#" + frag + ")"
}

// escapeAnchorPath escapes each path segment for a URL fragment inside a
// Markdown link (spaces, parentheses and the like), keeping the slashes.
func escapeAnchorPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// PullRequestURL checks the request's prUrl: an absolute http(s) URL without
// query or fragment, trailing slashes removed; "" (no links) otherwise.
func PullRequestURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", true
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsAny(raw, " ()<>\"`\n") {
		return "", false
	}
	return strings.TrimRight(u.String(), "/"), true
}
