// Package reviewanswer reads the review model's answer (through llmanswer,
// whatever shape it comes in) into a summary, findings with normalized
// severities and verdicts on acceptance criteria, and tells a failed or
// missing review call from an answer (Failure). Pure: no I/O.
package reviewanswer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/llmanswer"
)

// Review answer formats, as Parsed.Format reports them (a metrics label).
const (
	FormatJSON       = "json"       // a JSON value, possibly inside a JSON string or an n8n/API envelope
	FormatFenced     = "fenced"     // JSON inside a ``` fence with prose around it
	FormatEmbedded   = "embedded"   // JSON found inside prose without a fence
	FormatChat       = "chat"       // a whole chat-completions response (choices[0].message.content)
	FormatProse      = "prose"      // no JSON at all: the text became the summary, zero findings
	FormatUnreadable = "unreadable" // JSON that could not be read: nothing of it is shown
)

// Severities, most severe first.
var Severities = []string{"critical", "high", "medium", "low"}

// Parsed is a review answer as Parse understood it.
type Parsed struct {
	pipeline.Review
	// Format says which shape the answer had (ReviewFormat*).
	Format string
	// Warnings name everything that was repaired or dropped.
	Warnings []string
	// SeverityNormalized counts findings whose severity was mapped
	// ("warning" -> medium) or defaulted (unknown or missing -> medium).
	SeverityNormalized int
	// DroppedFindings counts entries of findings[] that were not findings
	// (not an object, or neither title nor body), the incomplete ones
	// included.
	DroppedFindings int
	// Quality is how the answer was read, a metric label: clean, repaired,
	// salvaged (cut off) or unreadable (prose answers included).
	Quality string
	// CutOff reports that the answer was cut off (its JSON ends
	// unfinished, or the finish reason says the model hit its token
	// limit); FinishReason is the envelope's, "" when none was given.
	CutOff       bool
	FinishReason string
	// Kept counts the complete findings read (those moved into the
	// summary included); Incomplete the findings the cut fell inside,
	// dropped.
	Kept       int
	Incomplete int
	// Unreadable is set when nothing could be read: Summary is empty and
	// the summary comment must say so, never show the answer.
	// AnswerChars is the answer's length in characters, for saying so.
	Unreadable  bool
	AnswerChars int
	// Verdicts are the answer's verdicts on acceptance criteria
	// ("requirements": [{id, verdict, evidence, note}]); VerdictsGiven says
	// the answer had such a list at all.
	Verdicts      []Verdict
	VerdictsGiven bool
}

// Parse reads the review LLM's answer with llmanswer.Read. raw is the
// request's `review` field: a JSON string holding the model's raw text, or
// an already parsed JSON value. Accepted shapes:
//
//   - {"summary": "...", "findings": [...]} (also "comments"/"issues" for findings)
//   - a bare findings array [{path, line, existingCode, severity, title, body}]
//   - inside a chat-completions response passed whole, the responses API,
//     Anthropic and Gemini content, and n8n items and node outputs
//   - text holding any of the above: whole, in a ``` fence, embedded in
//     prose, after <think> blocks; repaired when models write it loosely
//     (single quotes, trailing commas, Python literals, comments, ...)
//
// A cut-off answer keeps its complete findings: a finding the cut fell
// inside is kept only when its path, body and severity were written in
// full, and is otherwise dropped; a cut summary is kept, marked with "…".
// The warnings say "the review answer was cut off: 3 complete findings
// kept, 1 incomplete dropped", also when the finish reason is "length" and
// the JSON happens to close.
//
// Text that holds no JSON at all (no attempt: prose only) is not an error:
// it becomes the summary with zero findings, Format "prose". Text whose
// JSON cannot be read is never shown: Unreadable is set, Summary stays
// empty, and Render says that the answer could not be read and how long it
// was. Only a missing review, blank text, or a JSON value given directly
// that holds neither a review nor any text, is an *InvalidError for field
// "review" (a 400).
//
// Verdicts on acceptance criteria are read from "requirements" (also
// "criteria", "acceptanceCriteria", "verdicts"): [{id, verdict, evidence,
// note}], verdict aliases mapped ("pass" -> met, "fail" -> not_met,
// "partially" -> unclear, unknown -> unclear with a warning), entries
// without an id dropped with a warning.
//
// Every finding has a path and a title. Findings are repaired field by
// field: "line" may be a number or a numeric string ("42", "L42", "42-45"
// -> 42, with endLine 45; see fix.go for ranges and proposed fixes); severity is normalised (see normalizeSeverity); a missing title
// is taken from the body's first line. A finding that names no file is
// moved into the summary, under "Findings not tied to a file".
func Parse(raw json.RawMessage) (Parsed, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Parsed{}, pipeline.Invalidf("review", "missing: pass the review LLM's answer as text or JSON")
	}
	if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
		return Parsed{}, pipeline.Invalidf("review", "not valid JSON: %v", err)
	}
	a := llmanswer.Read(raw, reviewShape)
	p := &reviewParser{answer: a, cut: len(a.Unfinished) > 0}
	for i, w := range a.Warnings {
		if a.Prose != "" && strings.HasPrefix(w, "the answer holds no JSON") {
			continue // said below, with what is done about it
		}
		if a.Value == nil && a.Prose == "" && i == len(a.Warnings)-1 {
			w += ": no findings could be read"
		}
		p.warn("review answer: %s", w)
	}
	out := Parsed{Quality: string(a.Quality), CutOff: a.CutOff, FinishReason: a.FinishReason}
	var r pipeline.Review
	switch {
	case a.Value != nil:
		r = p.review(a.Value)
		out.Format = reviewFormat(a)
	case a.Envelope == "" && strings.TrimSpace(a.Text) == "":
		return Parsed{}, invalidReview(raw)
	case a.Prose != "":
		r.Summary = a.Prose
		out.Format = FormatProse
		p.warn("review is not JSON: the text is kept as the summary, with no findings")
	default:
		out.Format = FormatUnreadable
		out.Unreadable = true
		out.AnswerChars = utf8.RuneCountInString(a.Text)
		p.warn("the review answer (%s) could not be read: nothing of it is shown, no findings were posted", pipeline.CountNoun(out.AnswerChars, "character"))
	}
	if a.CutOff {
		p.warn("the review answer was cut off: %s kept, %d incomplete dropped; raise the review's max_tokens",
			pipeline.CountNoun(p.kept, "complete finding"), p.incomplete)
	}
	if r.Findings == nil {
		r.Findings = []pipeline.Finding{}
	}
	out.Review = r
	out.Warnings = p.warnings
	out.SeverityNormalized = p.normalized
	out.DroppedFindings = p.dropped
	out.Kept = p.kept
	out.Incomplete = p.incomplete
	out.Verdicts, out.VerdictsGiven = p.verdicts, p.verdictsGiven
	return out, nil
}

// invalidReview explains why a JSON value given directly is no review.
func invalidReview(raw []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&v)
	switch x := v.(type) {
	case string:
		return pipeline.Invalidf("review", "empty text")
	case map[string]any:
		return pipeline.Invalidf("review", "no summary or findings in the object (keys: %s)", strings.Join(reviewKeys(x), ", "))
	case []any:
		return pipeline.Invalidf("review", "no findings in the array of %d elements", len(x))
	default:
		return pipeline.Invalidf("review", "want text or an object, got %s", llmanswer.Kind(v))
	}
}

// reviewFormat names where the review was found (Format).
func reviewFormat(a llmanswer.Answer) string {
	switch {
	case strings.HasPrefix(a.Envelope, "choices"):
		return FormatChat
	case strings.HasPrefix(a.Block, "fenced"):
		return FormatFenced
	case strings.HasSuffix(a.Block, "in prose"):
		return FormatEmbedded
	}
	return FormatJSON
}

var findingsKeys = []string{"findings", "comments", "issues"}

// reviewShape is the review stage's llmanswer.Shape: an object with a
// summary or a findings list, or a non-empty array of findings.
func reviewShape(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["summary"]; ok {
			return true
		}
		for _, k := range findingsKeys {
			if _, ok := x[k].([]any); ok {
				return true
			}
		}
		if _, ok := x["findings"]; ok {
			return true
		}
		for _, k := range verdictKeys {
			if _, ok := x[k].([]any); ok {
				return true
			}
		}
		return false
	case []any:
		return looksLikeFindings(x)
	}
	return false
}

// looksLikeFindings reports whether a is a list of findings: objects with
// a path, a title or a severity, and no content parts.
func looksLikeFindings(a []any) bool {
	found := false
	for _, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			continue
		}
		if m["type"] != nil && m["text"] != nil {
			return false // a content part
		}
		if reviewString(m, "path", "file", "filePath", "filename") != "" || m["title"] != nil || m["severity"] != nil {
			found = true
		}
	}
	return found
}

type reviewParser struct {
	answer     llmanswer.Answer
	cut        bool // the cut fell inside the JSON: pointers are checked
	warnings   []string
	normalized int
	dropped    int
	kept       int
	incomplete int
	general    []pipeline.Finding // findings that name no file

	verdicts      []Verdict
	verdictsGiven bool
}

func (p *reviewParser) warn(format string, args ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf(format, args...))
}

// isCut reports whether the cut left the value at ptr unfinished.
func (p *reviewParser) isCut(ptr string) bool {
	return p.cut && p.answer.Cut(ptr)
}

// review reads a value with the review shape.
func (p *reviewParser) review(v any) pipeline.Review {
	var r pipeline.Review
	switch x := v.(type) {
	case map[string]any:
		r = p.reviewFromMap(x)
	case []any:
		r.Findings = p.findings(x, "", true)
	}
	if len(p.general) > 0 {
		r.Summary = appendGeneral(r.Summary, p.general)
	}
	return r
}

// appendGeneral adds the findings that name no file to the summary.
func appendGeneral(summary string, fs []pipeline.Finding) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(summary))
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString("**Findings not tied to a file**\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "\n- **%s** · %s", SeverityLabel(f.Severity), pipeline.OneLine(f.Title))
		if body := pipeline.OneLine(f.Body); body != "" && body != pipeline.OneLine(f.Title) {
			b.WriteString(": ")
			b.WriteString(body)
		}
	}
	return b.String()
}

func (p *reviewParser) reviewFromMap(m map[string]any) pipeline.Review {
	var r pipeline.Review
	switch s := m["summary"].(type) {
	case nil:
	case string:
		r.Summary = strings.TrimSpace(s)
		if p.isCut("/summary") && r.Summary != "" {
			r.Summary += " …"
			p.warn("the summary was cut off: kept as far as it was written")
		}
	case []any:
		var parts []string
		for _, el := range s {
			parts = append(parts, reviewScalar(el))
		}
		r.Summary = strings.TrimSpace(strings.Join(parts, "\n"))
	default:
		r.Summary = reviewScalar(s)
		p.warn("summary is %s, not text: kept as its JSON", llmanswer.Kind(s))
	}
	for _, k := range findingsKeys {
		raw, ok := m[k]
		if !ok {
			continue
		}
		switch f := raw.(type) {
		case []any:
			r.Findings = p.findings(f, "/"+k, true)
		case string:
			if a, ok := decodeArray(f); ok {
				r.Findings = p.findings(a, "", false)
				p.warn("%s was a JSON string: decoded", k)
			}
		case nil:
		default:
			p.warn("%s is %s, not an array: ignored", k, llmanswer.Kind(f))
		}
		if r.Findings != nil {
			break
		}
	}
	p.verdicts, p.verdictsGiven = p.parseVerdicts(p.withoutCutVerdict(m))
	return r
}

// withoutCutVerdict returns m without the verdict the cut fell inside when
// its id or verdict was not written in full (a cut note or evidence keeps
// it); m itself is not changed.
func (p *reviewParser) withoutCutVerdict(m map[string]any) map[string]any {
	if !p.cut {
		return m
	}
	for _, k := range verdictKeys {
		list, ok := m[k].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		last := "/" + k + "/" + strconv.Itoa(len(list)-1)
		e, _ := list[len(list)-1].(map[string]any)
		if !p.isCut(last) || e != nil && !p.isCut(last+"/id") && !p.isCut(last+"/verdict") && e["id"] != nil && e["verdict"] != nil {
			continue
		}
		c := make(map[string]any, len(m))
		for key, v := range m {
			c[key] = v
		}
		c[k] = list[:len(list)-1]
		p.warn("%s[%d]: the cut fell inside this verdict: dropped", k, len(list)-1)
		return c
	}
	return m
}

// decodeArray decodes s when it is exactly one JSON array (a findings list
// a model wrote as a string).
func decodeArray(s string) ([]any, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	v, ok := decodeWholeJSON(s)
	a, isArray := v.([]any)
	return a, ok && isArray
}

// decodeWhole decodes s when it is exactly one JSON value (a list a model
// wrote as a string); numbers stay json.Number.
func (p *reviewParser) decodeWhole(s string) (any, bool) {
	return decodeWholeJSON(s)
}

func decodeWholeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

// findingKeys are the keys a finding's fields are read from.
var (
	pathKeys = []string{"path", "file", "filePath", "file_path", "filename"}
	// evidence and quote: the quoted code under the name the prompt's
	// rules give it; existingCode first, as the answer format asks.
	codeKeys     = []string{"existingCode", "existing_code", "evidence", "quote", "code", "snippet"}
	titleKeys    = []string{"title", "summary", "name"}
	bodyKeys     = []string{"body", "comment", "message", "description", "details", "text"}
	lineKeys     = []string{"line", "lineNumber", "line_number", "startLine", "start_line", "newLine"}
	severityKeys = []string{"severity", "level", "priority"}
)

// findings reads a findings array found at the JSON pointer ptr; located
// is false when it has no place in the answer's value (a list decoded from
// a string), where the cut is then not looked for.
func (p *reviewParser) findings(a []any, ptr string, located bool) []pipeline.Finding {
	out := make([]pipeline.Finding, 0, len(a))
	for i, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			p.dropped++
			p.warn("findings[%d] is %s, not an object: dropped", i, llmanswer.Kind(el))
			continue
		}
		if located {
			if fp := ptr + "/" + strconv.Itoa(i); p.isCut(fp) && !p.completeEnough(m, fp) {
				p.dropped++
				p.incomplete++
				continue
			}
		}
		f := pipeline.Finding{
			Path:         strings.TrimSpace(reviewString(m, pathKeys...)),
			ExistingCode: reviewString(m, codeKeys...),
			Title:        pipeline.OneLine(reviewString(m, titleKeys...)),
			Body:         strings.TrimSpace(reviewString(m, bodyKeys...)),
		}
		for _, k := range lineKeys {
			if lv, ok := m[k]; ok && lv != nil {
				n, ok := parseLineValue(lv)
				if !ok {
					p.warn("findings[%d].%s %s is not a line number: ignored", i, k, pipeline.ClipRunes(reviewJSON(lv), 40))
				}
				f.Line = n
				break
			}
		}
		p.readSpan(m, &f, i)
		p.readFix(m, &f, i)
		f.Confidence = parseConfidence(m["confidence"])
		if f.Title == "" && f.Body == "" {
			p.dropped++
			p.warn("findings[%d] has neither title nor body: dropped", i)
			continue
		}
		if f.Title == "" {
			f.Title = pipeline.ClipRunes(pipeline.OneLine(pipeline.FirstLine(f.Body)), 100)
		}
		rawSev := reviewString(m, severityKeys...)
		sev, exact := normalizeSeverity(rawSev)
		if !exact {
			p.normalized++
			if strings.TrimSpace(rawSev) == "" {
				p.warn("findings[%d] has no severity: %s", i, sev)
			} else if !knownSeverityAlias(rawSev) {
				p.warn("findings[%d] severity %q is unknown: %s", i, pipeline.ClipRunes(rawSev, 40), sev)
			}
		}
		f.Severity = sev
		p.kept++
		if f.Path == "" {
			p.general = append(p.general, f)
			p.warn("findings[%d] names no file: moved into the summary", i)
			continue
		}
		out = append(out, f)
	}
	return out
}

// completeEnough reports whether a finding the cut fell inside was
// written far enough to be kept: its path, body and severity are there and
// none of its fields is the one the cut split.
func (p *reviewParser) completeEnough(m map[string]any, ptr string) bool {
	if reviewString(m, pathKeys...) == "" || reviewString(m, bodyKeys...) == "" || reviewString(m, severityKeys...) == "" {
		return false
	}
	for k := range m {
		if p.isCut(ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")) {
			return false
		}
	}
	return true
}

var severityAliases = map[string]string{
	"critical": "critical", "blocker": "critical", "fatal": "critical", "severe": "critical", "p0": "critical", "urgent": "critical",
	"high": "high", "error": "high", "major": "high", "bug": "high", "p1": "high", "important": "high", "security": "high",
	"medium": "medium", "warning": "medium", "warn": "medium", "moderate": "medium", "normal": "medium", "p2": "medium",
	"low": "low", "info": "low", "information": "low", "nit": "low", "nitpick": "low", "minor": "low", "trivial": "low",
	"suggestion": "low", "style": "low", "note": "low", "hint": "low", "p3": "low", "p4": "low", "optional": "low",
}

// normalizeSeverity maps a model's severity to critical, high, medium or low.
// Case and surrounding space are ignored; aliases map ("error" -> high,
// "warning" -> medium, "info"/"nit" -> low, "blocker" -> critical, ...);
// anything else, and no severity, is medium. exact reports that s already was
// one of the four.
func normalizeSeverity(s string) (severity string, exact bool) {
	k := strings.ToLower(strings.TrimSpace(s))
	if sev, ok := severityAliases[k]; ok {
		return sev, sev == k
	}
	return "medium", false
}

func knownSeverityAlias(s string) bool {
	_, ok := severityAliases[strings.ToLower(strings.TrimSpace(s))]
	return ok
}

func SeverityRank(s string) int {
	for i, v := range Severities {
		if v == s {
			return i
		}
	}
	return len(Severities)
}

// parseConfidence reads a finding's optional confidence: a number from 0
// to 1, a percentage (above 1, at most 100), or a word (high, medium, low).
// Anything else is 0: not given.
func parseConfidence(v any) float64 {
	var f float64
	switch x := v.(type) {
	case json.Number:
		n, err := x.Float64()
		if err != nil {
			return 0
		}
		f = n
	case float64:
		f = x
	case string:
		t := strings.TrimSpace(strings.ToLower(x))
		switch t {
		case "high", "very high", "certain":
			return 0.9
		case "medium", "moderate":
			return 0.6
		case "low":
			return 0.3
		}
		n, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
		if err != nil {
			return 0
		}
		f = n
		if strings.HasSuffix(t, "%") {
			f /= 100
		}
	default:
		return 0
	}
	if f > 1 && f <= 100 {
		f /= 100
	}
	if f <= 0 || f > 1 {
		return 0
	}
	return f
}

var lineNumRe = regexp.MustCompile(`^\s*[Ll]?(?:ine\s*)?(\d{1,9})`)

// parseLineValue reads a line as a number or a numeric string; 0 means none.
func parseLineValue(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			if n < 0 || n > 1<<30 {
				return 0, false
			}
			return int(n), true
		}
		if f, err := x.Float64(); err == nil && f >= 0 && f <= 1<<30 {
			return int(f), true
		}
		return 0, false
	case string:
		if strings.TrimSpace(x) == "" {
			return 0, true
		}
		m := lineNumRe.FindStringSubmatch(x)
		if m == nil {
			return 0, false
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 1<<30 {
			return 0, false
		}
		return n, true
	case []any:
		if len(x) > 0 {
			return parseLineValue(x[0])
		}
	}
	return 0, false
}

func reviewString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case json.Number:
			return v.String()
		}
	}
	return ""
}

func reviewScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// reviewJSON shows a decoded value as JSON, for warnings.
func reviewJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func reviewKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, pipeline.ClipRunes(k, 40))
	}
	sort.Strings(keys)
	if len(keys) > 10 {
		keys = append(keys[:10], "...")
	}
	return keys
}

func SeverityLabel(s string) string {
	if s == "" {
		return "Medium"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
