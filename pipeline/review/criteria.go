package review

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/llmanswer"
	"github.com/prscout/prscout/pipeline/marker"
)

// Verdicts on an acceptance criterion, as the review prompt asks for them
// (merge's verdictFormat) and the summary counts them.
const (
	VerdictMet     = "met"
	VerdictNotMet  = "not_met"
	VerdictUnclear = "unclear"
)

// Evidence is a place in the code a verdict points to.
type Evidence struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// Verdict is the review's judgement of one acceptance criterion, as
// parseReview read it.
type Verdict struct {
	ID       string     `json:"id"`
	Verdict  string     `json:"verdict"` // VerdictMet, VerdictNotMet or VerdictUnclear
	Evidence []Evidence `json:"evidence"`
	Note     string     `json:"note,omitempty"`
}

// CriterionResult is one acceptance criterion of the request with the
// review's verdict on it (unclear when the review gave none).
type CriterionResult struct {
	pipeline.Requirement
	Verdict  string     `json:"verdict"`
	Evidence []Evidence `json:"evidence"`
	Note     string     `json:"note,omitempty"`
	// Judged is false when the review gave no verdict on the criterion.
	Judged bool `json:"judged"`
}

// RequirementCounts is the comments answer's "requirements": the verdicts
// counted, and each criterion with its verdict in request order.
type RequirementCounts struct {
	Met      int               `json:"met"`
	NotMet   int               `json:"notMet"`
	Unclear  int               `json:"unclear"`
	Criteria []CriterionResult `json:"criteria"`
}

// Total is the number of criteria judged.
func (c RequirementCounts) Total() int { return c.Met + c.NotMet + c.Unclear }

// Sentence is the coverage line's part: "criteria: 1 met, 1 not met, 1 unclear".
func (c RequirementCounts) Sentence() string {
	return fmt.Sprintf("criteria: %d met, %d not met, %d unclear", c.Met, c.NotMet, c.Unclear)
}

// severityCounts counts the rendered findings by severity (critical, high,
// medium, low; every key present) with each not-met acceptance criterion
// counted as one more high finding (insights.WithNotMet): the figures the
// build status and Code Insights threshold compare against.
func (r Rendered) severityCounts() map[string]int {
	out := make(map[string]int, len(severityOrder))
	for _, s := range severityOrder {
		out[s] = r.Stats.BySeverity[s]
	}
	return insights.WithNotMet(out, r.Requirements.NotMet)
}

// verdictKeys name the review answer's list of verdicts, in order of trust.
var verdictKeys = []string{"requirements", "criteria", "acceptanceCriteria", "acceptance_criteria", "verdicts"}

// verdictAliases maps what models write for a verdict (lower case, spaces
// and dashes as underscores) to one of the three.
var verdictAliases = map[string]string{
	"met": VerdictMet, "pass": VerdictMet, "passed": VerdictMet, "passes": VerdictMet, "ok": VerdictMet,
	"yes": VerdictMet, "true": VerdictMet, "done": VerdictMet, "satisfied": VerdictMet, "fulfilled": VerdictMet,
	"implemented": VerdictMet, "complete": VerdictMet, "completed": VerdictMet, "covered": VerdictMet,
	"meets": VerdictMet, "addressed": VerdictMet, "fully_met": VerdictMet,

	"not_met": VerdictNotMet, "notmet": VerdictNotMet, "unmet": VerdictNotMet, "fail": VerdictNotMet,
	"failed": VerdictNotMet, "fails": VerdictNotMet, "failing": VerdictNotMet, "no": VerdictNotMet,
	"false": VerdictNotMet, "missing": VerdictNotMet, "not_implemented": VerdictNotMet, "violated": VerdictNotMet,
	"broken": VerdictNotMet, "not_satisfied": VerdictNotMet, "not_fulfilled": VerdictNotMet, "not_addressed": VerdictNotMet,
	"does_not_meet": VerdictNotMet,

	"unclear": VerdictUnclear, "unknown": VerdictUnclear, "partial": VerdictUnclear, "partially": VerdictUnclear,
	"partly": VerdictUnclear, "partially_met": VerdictUnclear, "uncertain": VerdictUnclear, "unsure": VerdictUnclear,
	"n/a": VerdictUnclear, "na": VerdictUnclear, "not_applicable": VerdictUnclear, "cannot_tell": VerdictUnclear,
	"cannot_determine": VerdictUnclear, "undetermined": VerdictUnclear, "inconclusive": VerdictUnclear,
	"unverifiable": VerdictUnclear, "maybe": VerdictUnclear, "not_verifiable": VerdictUnclear,
}

// normalizeVerdict maps a model's verdict to met, not_met or unclear
// (anything unknown is unclear); known reports that it was a known word.
func normalizeVerdict(v any) (verdict string, known bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return VerdictMet, true
		}
		return VerdictNotMet, true
	case string:
		k := strings.ToLower(strings.TrimSpace(x))
		k = strings.NewReplacer(" ", "_", "-", "_").Replace(strings.Trim(k, ".!*`\"'"))
		if v, ok := verdictAliases[k]; ok {
			return v, true
		}
	}
	return VerdictUnclear, false
}

// parseVerdicts reads the verdicts of a review object m, leniently: the list
// may sit under any verdictKeys name, be a JSON string, or be an object keyed
// by criterion id ({"SHOP-12#1": "met"} or {"SHOP-12#1": {verdict, ...}}).
// given reports that m has such a list at all (even an empty one).
func (p *reviewParser) parseVerdicts(m map[string]any) (verdicts []Verdict, given bool) {
	for _, k := range verdictKeys {
		raw, ok := m[k]
		if !ok || raw == nil {
			continue
		}
		if s, ok := raw.(string); ok {
			v, ok := p.decodeWhole(strings.TrimSpace(s))
			if !ok {
				if k == "requirements" || k == "criteria" {
					continue // free text under a common word: not a list of verdicts
				}
				p.warn("%s is text, not a list of verdicts: ignored", k)
				continue
			}
			raw = v
			p.warn("%s was a JSON string: decoded", k)
		}
		switch x := raw.(type) {
		case []any:
			return p.verdictList(k, x), true
		case map[string]any:
			if _, isOne := x["verdict"]; isOne {
				return p.verdictList(k, []any{x}), true
			}
			ids := make([]string, 0, len(x))
			for id := range x {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			list := make([]any, 0, len(ids))
			for _, id := range ids {
				switch e := x[id].(type) {
				case map[string]any:
					if _, ok := e["id"]; !ok {
						e["id"] = id
					}
					list = append(list, e)
				default:
					list = append(list, map[string]any{"id": id, "verdict": e})
				}
			}
			return p.verdictList(k, list), true
		default:
			p.warn("%s is %s, not a list of verdicts: ignored", k, llmanswer.Kind(raw))
		}
	}
	return nil, false
}

var (
	verdictIDKeys       = []string{"id", "criterionId", "criterion_id", "requirementId", "requirement_id", "criterion", "requirement", "key", "ref"}
	verdictVerdictKeys  = []string{"verdict", "status", "result", "outcome", "assessment", "met", "state"}
	verdictEvidenceKeys = []string{"evidence", "locations", "location", "references", "refs", "where", "files"}
	verdictNoteKeys     = []string{"note", "notes", "reason", "rationale", "explanation", "comment", "details", "why", "summary"}
)

func (p *reviewParser) verdictList(key string, a []any) []Verdict {
	out := make([]Verdict, 0, len(a))
	for i, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			p.warn("%s[%d] is %s, not a verdict: dropped", key, i, llmanswer.Kind(el))
			continue
		}
		v := Verdict{ID: strings.TrimSpace(reviewString(m, verdictIDKeys...)), Evidence: []Evidence{}}
		if v.ID == "" {
			p.warn("%s[%d] names no criterion id: dropped", key, i)
			continue
		}
		var raw any
		for _, k := range verdictVerdictKeys {
			if x, ok := m[k]; ok && x != nil {
				raw = x
				break
			}
		}
		var known bool
		v.Verdict, known = normalizeVerdict(raw)
		if !known {
			if raw == nil {
				p.warn("%s[%d] (%s) has no verdict: unclear", key, i, pipeline.ClipRunes(v.ID, 40))
			} else {
				p.warn("%s[%d] (%s) verdict %s is unknown: unclear", key, i, pipeline.ClipRunes(v.ID, 40), pipeline.ClipRunes(reviewJSON(raw), 40))
			}
		}
		for _, k := range verdictEvidenceKeys {
			if x, ok := m[k]; ok && x != nil {
				v.Evidence = evidenceOf(x, 0)
				break
			}
		}
		v.Note = pipeline.OneLine(reviewString(m, verdictNoteKeys...))
		out = append(out, v)
	}
	return out
}

// maxEvidence bounds the places one verdict may point to.
const maxEvidence = 5

// evidenceRefRe reads "path:12", "path:12-14", "path#L12" and "path (line 12)".
var evidenceRefRe = regexp.MustCompile(`^(.+?)(?::|#L|\s*\(?\s*lines?\s+)(\d{1,9})\b.*$`)

// evidenceOf reads evidence leniently: a list or one item; an item is
// {path, line} (under the names findings accept) or a "path:line" string.
func evidenceOf(v any, depth int) []Evidence {
	out := []Evidence{}
	switch x := v.(type) {
	case []any:
		if depth > 0 {
			return out
		}
		for _, el := range x {
			out = append(out, evidenceOf(el, depth+1)...)
			if len(out) >= maxEvidence {
				return out[:maxEvidence]
			}
		}
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return out
		}
		if m := evidenceRefRe.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[2])
			return append(out, Evidence{Path: strings.TrimSpace(m[1]), Line: n})
		}
		return append(out, Evidence{Path: s})
	case map[string]any:
		e := Evidence{Path: strings.TrimSpace(reviewString(x, "path", "file", "filePath", "file_path", "filename"))}
		for _, k := range []string{"line", "lineNumber", "line_number", "startLine", "start_line", "lines"} {
			if lv, ok := x[k]; ok && lv != nil {
				e.Line, _ = parseLineValue(lv)
				break
			}
		}
		if e.Path != "" {
			out = append(out, e)
		}
	}
	return out
}

// judgeCriteria pairs the request's criteria with the review's verdicts, in
// request order, evidence paths resolved to the changed files they name.
// Verdicts for ids the request does not carry are dropped, a criterion
// without a verdict is unclear, each with a warning; a review with no
// verdicts at all makes every criterion unclear with one warning.
func judgeCriteria(criteria []pipeline.Requirement, verdicts []Verdict, given bool, ix *diffIndex) (RequirementCounts, []string) {
	out := RequirementCounts{Criteria: []CriterionResult{}}
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
		index[criterionKey(c.ID)] = i
	}
	byCriterion := make([]*Verdict, len(criteria))
	for i := range verdicts {
		v := &verdicts[i]
		at, ok := index[criterionKey(v.ID)]
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
		r := CriterionResult{Requirement: c, Verdict: VerdictUnclear, Evidence: []Evidence{}}
		if v := byCriterion[i]; v != nil {
			r.Verdict, r.Judged = v.Verdict, true
			r.Note, _ = marker.StripMarkers(v.Note)
			for _, e := range v.Evidence {
				if p, ok := ix.resolvePath(e.Path); ok {
					e.Path = p
				}
				r.Evidence = append(r.Evidence, e)
			}
		} else if given && len(verdicts) > 0 {
			warnings = append(warnings, fmt.Sprintf("no verdict for %s: unclear", c.ID))
		}
		switch r.Verdict {
		case VerdictMet:
			out.Met++
		case VerdictNotMet:
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

// criterionKey is how verdict ids are matched to criteria: case, space and
// the brackets or backticks a model may wrap an id in do not matter.
func criterionKey(id string) string {
	return strings.ToUpper(strings.Trim(strings.TrimSpace(id), "[]`*\"' "))
}

// writeCriteriaTable writes the "Acceptance criteria" table: criterion,
// verdict, evidence linked to the diff, note.
func writeCriteriaTable(b *strings.Builder, rc RequirementCounts, ix *diffIndex, prURL string) {
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
		criterion := "**" + cell(c.ID) + "** " + cell(pipeline.ClipRunes(pipeline.OneLine(c.Text), maxCriterionRunes))
		note := cell(c.Note)
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
	case VerdictMet:
		return "Met"
	case VerdictNotMet:
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
func evidenceLink(e Evidence, ix *diffIndex, prURL string) string {
	path, changed := ix.resolvePath(e.Path)
	if path == "" {
		path = normalizeFindingPath(e.Path)
	}
	text := path
	if e.Line > 0 {
		text = fmt.Sprintf("%s:%d", path, e.Line)
	}
	span := strings.ReplaceAll(codeSpan(text), "|", `\|`)
	if !changed {
		return span + " (not in this PR)"
	}
	if prURL == "" {
		return span
	}
	anchor := "chg-" + escapeAnchorPath(path)
	if e.Line > 0 && ix.HasLine(path, e.Line) {
		anchor = "L" + escapeAnchorPath(path) + "T" + strconv.Itoa(e.Line)
	}
	return "[" + span + "](" + prURL + "/diff#" + anchor + ")"
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

// pullRequestURL checks the request's prUrl: an absolute http(s) URL without
// query or fragment, trailing slashes removed; "" (no links) otherwise.
func pullRequestURL(raw string) (string, bool) {
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
