package comments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Review answer formats, as ParsedReview.Format reports them (a metrics label).
const (
	reviewFormatJSON     = "json"     // a JSON object or findings array, possibly inside a JSON string or wrapper
	reviewFormatFenced   = "fenced"   // JSON inside a ``` fence with prose around it
	reviewFormatEmbedded = "embedded" // JSON object found inside prose without a fence
	reviewFormatChat     = "chat"     // a whole chat-completions response (choices[0].message.content)
	reviewFormatProse    = "prose"    // no JSON found: the text became the summary, zero findings
)

// Severities, most severe first.
var severityOrder = []string{"critical", "high", "medium", "low"}

// ParsedReview is a review answer as ParseReview understood it.
type ParsedReview struct {
	pipeline.Review
	// Format says which shape the answer had (ReviewFormat*).
	Format string
	// Warnings name everything that was repaired or dropped.
	Warnings []string
	// SeverityNormalized counts findings whose severity was mapped
	// ("warning" -> medium) or defaulted (unknown or missing -> medium).
	SeverityNormalized int
	// DroppedFindings counts entries of findings[] that were not findings
	// (not an object, or neither title nor body).
	DroppedFindings int
	// Verdicts are the answer's verdicts on acceptance criteria
	// ("requirements": [{id, verdict, evidence, note}]); VerdictsGiven says
	// the answer had such a list at all.
	Verdicts      []Verdict
	VerdictsGiven bool
}

// reviewMaxDepth bounds how deep wrappers and JSON-in-strings are followed.
const reviewMaxDepth = 8

// reviewMaxCandidates bounds how many '{' / '[' positions of prose are tried
// as the start of an embedded JSON value (each try is linear in the text).
const reviewMaxCandidates = 32

// ParseReview reads the review LLM's answer liberally. raw is the request's
// `review` field: a JSON string holding the model's raw text, or an already
// parsed JSON value. Accepted shapes, at any wrapper depth:
//
//   - {"summary": "...", "findings": [...]} (also "comments"/"issues" for findings)
//   - a bare findings array [{path, line, existingCode, severity, title, body}]
//   - a whole chat-completions response (choices[0].message.content)
//   - n8n and SDK wrappers: {"output"|"content"|"text"|"response"|"message"|
//     "review"|"result"|"data"|"json"|"body"|"candidates"|"parts": ...},
//     content-part arrays
//     [{type:"text", text}], single-item arrays
//   - text holding any of the above: whole, in a ``` fence, or embedded in prose
//
// Text that holds no JSON review is not an error: a demanding user would
// rather see the model's prose than lose the review, so it becomes the
// summary with zero findings, Format "prose" and a warning (also when the
// text arrives inside a wrapper such as n8n's {"output": "..."}). Only an
// empty or missing review, or a JSON value holding neither a review nor any
// text, is an *InvalidError for field "review" (a 400).
//
// Verdicts on acceptance criteria are read from "requirements" (also
// "criteria", "acceptanceCriteria", "verdicts"): [{id, verdict, evidence,
// note}], verdict aliases mapped ("pass" -> met, "fail" -> not_met,
// "partially" -> unclear, unknown -> unclear with a warning), entries
// without an id dropped with a warning.
//
// Findings are repaired field by field: "line" may be a number or a numeric
// string ("42", "L42", "42-45" -> 42); severity is normalised (see
// NormalizeSeverity); a missing title is taken from the body's first line.
func ParseReview(raw json.RawMessage) (ParsedReview, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ParsedReview{}, pipeline.Invalidf("review", "missing: pass the review LLM's answer as text or JSON")
	}
	p := &reviewParser{budget: reviewBudgetFactor*len(raw) + reviewBudgetBase}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return ParsedReview{}, pipeline.Invalidf("review", "not valid JSON: %v", err)
	}
	if s, ok := v.(string); ok {
		if strings.TrimSpace(s) == "" {
			return ParsedReview{}, pipeline.Invalidf("review", "empty text")
		}
		if r, ok := p.fromText(s, 0); ok {
			return p.result(r), nil
		}
		p.format = reviewFormatProse
		p.warn("review is not JSON: the text is kept as the summary, with no findings")
		return p.result(pipeline.Review{Summary: strings.TrimSpace(s)}), nil
	}
	if r, ok := p.fromValue(v, 0); ok {
		return p.result(r), nil
	}
	if text := proseIn(v, 0); text != "" {
		// A wrapper ({"output": "..."}, a chat completion) around prose.
		p.format = reviewFormatProse
		p.warn("review is not JSON: the text is kept as the summary, with no findings")
		return p.result(pipeline.Review{Summary: text}), nil
	}
	switch x := v.(type) {
	case map[string]any:
		return ParsedReview{}, pipeline.Invalidf("review", "no summary or findings in the object (keys: %s)", strings.Join(reviewKeys(x), ", "))
	case []any:
		return ParsedReview{}, pipeline.Invalidf("review", "no findings in the array of %d elements", len(x))
	default:
		return ParsedReview{}, pipeline.Invalidf("review", "want text or an object, got %s", reviewJSONKind(v))
	}
}

// The parser's work budget, in bytes handed to the JSON decoder: nested
// JSON-in-strings and prose with many braces would otherwise take time
// exponential in the nesting. When it runs out, what was found so far is
// used (or the text is kept as prose).
const (
	reviewBudgetFactor = 16
	reviewBudgetBase   = 64 << 10
)

type reviewParser struct {
	budget        int
	format        string
	warnings      []string
	normalized    int
	dropped       int
	verdicts      []Verdict
	verdictsGiven bool
}

func (p *reviewParser) warn(format string, args ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf(format, args...))
}

func (p *reviewParser) setFormat(f string) {
	if p.format == "" {
		p.format = f
	}
}

func (p *reviewParser) result(r pipeline.Review) ParsedReview {
	if p.format == "" {
		p.format = reviewFormatJSON
	}
	if r.Findings == nil {
		r.Findings = []pipeline.Finding{}
	}
	return ParsedReview{Review: r, Format: p.format, Warnings: p.warnings, SeverityNormalized: p.normalized, DroppedFindings: p.dropped,
		Verdicts: p.verdicts, VerdictsGiven: p.verdictsGiven}
}

var reviewWrapperKeys = []string{"output", "content", "text", "response", "message", "review", "result", "data", "json", "body", "candidates", "parts"}

var findingsKeys = []string{"findings", "comments", "issues"}

// spend charges n bytes of decoding to the budget; false when it is spent.
func (p *reviewParser) spend(n int) bool {
	if p.budget < n {
		p.budget = 0
		return false
	}
	p.budget -= n
	return true
}

func (p *reviewParser) fromValue(v any, depth int) (pipeline.Review, bool) {
	if depth > reviewMaxDepth || p.budget <= 0 {
		return pipeline.Review{}, false
	}
	switch x := v.(type) {
	case string:
		return p.fromText(x, depth+1)
	case map[string]any:
		if isReviewObject(x) {
			return p.reviewFromMap(x, depth), true
		}
		if _, ok := x["choices"]; ok {
			p.setFormat(reviewFormatChat)
			if r, ok := p.fromValue(x["choices"], depth+1); ok {
				return r, true
			}
		}
		for _, k := range reviewWrapperKeys {
			if w, ok := x[k]; ok {
				if r, ok := p.fromValue(w, depth+1); ok {
					return r, true
				}
			}
		}
		return pipeline.Review{}, false
	case []any:
		if len(x) == 0 {
			return pipeline.Review{}, false
		}
		if looksLikeFindings(x) {
			return pipeline.Review{Findings: p.findings(x)}, true
		}
		if text, ok := contentPartsText(x); ok {
			return p.fromText(text, depth+1)
		}
		for i, el := range x {
			if i >= 4 {
				break
			}
			if r, ok := p.fromValue(el, depth+1); ok {
				return r, true
			}
		}
	}
	return pipeline.Review{}, false
}

// proseIn finds the model's text inside wrappers (the same keys fromValue
// follows): the first non-blank string, or joined content parts.
func proseIn(v any, depth int) string {
	if depth > reviewMaxDepth {
		return ""
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case map[string]any:
		for _, k := range append([]string{"choices"}, reviewWrapperKeys...) {
			if w, ok := x[k]; ok {
				if t := proseIn(w, depth+1); t != "" {
					return t
				}
			}
		}
	case []any:
		if t, ok := contentPartsText(x); ok {
			return strings.TrimSpace(t)
		}
		if len(x) > 0 {
			return proseIn(x[0], depth+1)
		}
	}
	return ""
}

func isReviewObject(m map[string]any) bool {
	if _, ok := m["summary"]; ok {
		return true
	}
	for _, k := range findingsKeys {
		if _, ok := m[k].([]any); ok {
			return true
		}
	}
	if _, ok := m["findings"]; ok {
		return true
	}
	for _, k := range verdictKeys {
		if _, ok := m[k].([]any); ok {
			return true
		}
	}
	return false
}

func looksLikeFindings(a []any) bool {
	for _, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			continue
		}
		if m["type"] != nil && m["text"] != nil {
			return false // a content part
		}
		if reviewString(m, "path", "file", "filePath", "filename") != "" {
			return true
		}
		if _, ok := m["title"]; ok {
			return true
		}
		if _, ok := m["severity"]; ok {
			return true
		}
	}
	return false
}

// contentPartsText joins [{type:"text"|"output_text", text}] parts.
func contentPartsText(a []any) (string, bool) {
	var b strings.Builder
	found := false
	for _, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			continue
		}
		t, ok := m["text"].(string)
		if !ok {
			continue
		}
		found = true
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String(), found
}

var reviewFenceRe = regexp.MustCompile("(?s)```[A-Za-z0-9_+-]*[ \t]*\r?\n(.*?)```")

func (p *reviewParser) fromText(s string, depth int) (pipeline.Review, bool) {
	if depth > reviewMaxDepth || p.budget <= 0 {
		return pipeline.Review{}, false
	}
	t := strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if t == "" {
		return pipeline.Review{}, false
	}
	if v, ok := p.decodeWhole(t); ok {
		if _, isString := v.(string); !isString || depth < reviewMaxDepth {
			if r, ok := p.fromValue(v, depth+1); ok {
				return r, true
			}
		}
	}
	for _, m := range reviewFenceRe.FindAllStringSubmatch(t, 8) {
		if v, ok := p.decodeWhole(strings.TrimSpace(m[1])); ok {
			if r, ok := p.fromValue(v, depth+1); ok {
				p.setFormat(reviewFormatFenced)
				return r, true
			}
		}
	}
	// JSON embedded in prose: try each '{' (then '[') as the start of a value.
	for _, open := range []byte{'{', '['} {
		tries := 0
		for i := 0; i < len(t) && tries < reviewMaxCandidates; i++ {
			if t[i] != open {
				continue
			}
			tries++
			if !p.spend(len(t) - i) {
				return pipeline.Review{}, false
			}
			dec := json.NewDecoder(strings.NewReader(t[i:]))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) != nil {
				continue
			}
			if _, ok := v.(map[string]any); !ok && open == '{' {
				continue
			}
			if r, ok := p.fromValue(v, depth+1); ok {
				p.setFormat(reviewFormatEmbedded)
				return r, true
			}
			// Skip past the value just decoded: nothing inside it matched.
			i += int(dec.InputOffset()) - 1
		}
	}
	return pipeline.Review{}, false
}

// decodeWhole decodes s as exactly one JSON value (trailing whitespace only).
func (p *reviewParser) decodeWhole(s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	switch s[0] {
	case '{', '[', '"':
	default:
		return nil, false
	}
	if !p.spend(len(s)) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

func (p *reviewParser) reviewFromMap(m map[string]any, depth int) pipeline.Review {
	var r pipeline.Review
	switch s := m["summary"].(type) {
	case nil:
	case string:
		r.Summary = strings.TrimSpace(s)
	case []any:
		var parts []string
		for _, el := range s {
			parts = append(parts, reviewScalar(el))
		}
		r.Summary = strings.TrimSpace(strings.Join(parts, "\n"))
	default:
		r.Summary = reviewScalar(s)
		p.warn("summary is a %s, not text: kept as its JSON", reviewJSONKind(s))
	}
	for _, k := range findingsKeys {
		raw, ok := m[k]
		if !ok {
			continue
		}
		switch f := raw.(type) {
		case []any:
			r.Findings = p.findings(f)
		case string:
			if v, ok := p.decodeWhole(strings.TrimSpace(f)); ok {
				if a, ok := v.([]any); ok {
					r.Findings = p.findings(a)
					p.warn("%s was a JSON string: decoded", k)
				}
			}
		case nil:
		default:
			p.warn("%s is a %s, not an array: ignored", k, reviewJSONKind(f))
		}
		if r.Findings != nil {
			break
		}
	}
	p.verdicts, p.verdictsGiven = p.parseVerdicts(m)
	return r
}

func (p *reviewParser) findings(a []any) []pipeline.Finding {
	out := make([]pipeline.Finding, 0, len(a))
	for i, el := range a {
		m, ok := el.(map[string]any)
		if !ok {
			p.dropped++
			p.warn("findings[%d] is a %s, not an object: dropped", i, reviewJSONKind(el))
			continue
		}
		f := pipeline.Finding{
			Path:         strings.TrimSpace(reviewString(m, "path", "file", "filePath", "file_path", "filename")),
			ExistingCode: reviewString(m, "existingCode", "existing_code", "code", "snippet"),
			Title:        pipeline.OneLine(reviewString(m, "title", "summary", "name")),
			Body:         strings.TrimSpace(reviewString(m, "body", "comment", "message", "description", "details", "text")),
		}
		for _, k := range []string{"line", "lineNumber", "line_number", "startLine", "start_line", "newLine"} {
			if lv, ok := m[k]; ok && lv != nil {
				n, ok := parseLineValue(lv)
				if !ok {
					p.warn("findings[%d].%s %s is not a line number: ignored", i, k, pipeline.ClipRunes(reviewJSON(lv), 40))
				}
				f.Line = n
				break
			}
		}
		if f.Title == "" && f.Body == "" {
			p.dropped++
			p.warn("findings[%d] has neither title nor body: dropped", i)
			continue
		}
		if f.Title == "" {
			f.Title = pipeline.ClipRunes(pipeline.OneLine(reviewFirstLine(f.Body)), 100)
		}
		rawSev := reviewString(m, "severity", "level", "priority")
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
		out = append(out, f)
	}
	return out
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

func severityRank(s string) int {
	for i, v := range severityOrder {
		if v == s {
			return i
		}
	}
	return len(severityOrder)
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

func reviewJSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
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

func reviewFirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
