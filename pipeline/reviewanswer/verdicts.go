package reviewanswer

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/llmanswer"
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
// Parse read it.
type Verdict struct {
	ID       string     `json:"id"`
	Verdict  string     `json:"verdict"` // VerdictMet, VerdictNotMet or VerdictUnclear
	Evidence []Evidence `json:"evidence"`
	Note     string     `json:"note,omitempty"`
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
