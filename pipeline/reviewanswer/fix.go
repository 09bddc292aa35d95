package reviewanswer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// A finding may span lines and may propose a fix. Both are optional: an
// answer without them reads as it always did.
var (
	// endLineKeys name the last line of a finding that spans lines.
	endLineKeys = []string{"endLine", "end_line", "lineEnd", "line_end", "lastLine", "last_line", "toLine"}
	// rangeKeys hold a whole range: "42-45", [42, 45] or {start, end}.
	rangeKeys = []string{"lines", "lineRange", "line_range", "range"}
	// fixKeys hold a fix object {before, after}.
	fixKeys = []string{"fix", "suggestion", "suggestedFix", "suggested_fix", "proposedFix"}
	// suggestedCodeKeys hold the code that replaces the quoted code.
	suggestedCodeKeys = []string{"suggestedCode", "suggested_code", "fixedCode", "fixed_code", "replacement"}
	beforeKeys        = []string{"before", "old", "existingCode", "existing_code", "original"}
	afterKeys         = []string{"after", "new", "suggestedCode", "suggested_code", "replacement", "code", "fixed"}
)

// Bounds of a fix: a longer one is not a reviewable suggestion and is
// dropped with a warning (the finding's body still says what to do).
const (
	maxFixLines = 40
	maxFixChars = 4000
	// maxSpan is the longest range a finding may span; a longer one is read
	// as its first line.
	maxSpan = 200
)

// lineRangeRe reads "42-45", "L42-L45", "42..45", "42 to 45".
var lineRangeRe = regexp.MustCompile(`^\s*[Ll]?(?:ine\s*)?(\d{1,9})\s*(?:-|–|\.\.|to)\s*[Ll]?(\d{1,9})\s*$`)

// readSpan sets f.EndLine from the answer's range fields, and f.Line when
// only a range gives it. An end before the start, or past maxSpan lines,
// is ignored (the finding keeps its one line).
func (p *reviewParser) readSpan(m map[string]any, f *pipeline.Finding, i int) {
	start, end := 0, 0
	for _, k := range lineKeys {
		if s, e, ok := rangeOf(m[k]); ok {
			start, end = s, e
			break
		}
	}
	if end == 0 {
		for _, k := range rangeKeys {
			if s, e, ok := rangeOf(m[k]); ok {
				start, end = s, e
				break
			}
		}
	}
	if end == 0 {
		for _, k := range endLineKeys {
			if v, ok := m[k]; ok && v != nil {
				if n, ok := parseLineValue(v); ok && n > 0 {
					end = n
				}
				break
			}
		}
	}
	if f.Line == 0 && start > 0 {
		f.Line = start
	}
	switch {
	case end == 0 || f.Line == 0 || end == f.Line:
	case end < f.Line || end-f.Line > maxSpan:
		p.warn("findings[%d]: line range %d-%d ignored: the finding is read on line %d", i, f.Line, end, f.Line)
	default:
		f.EndLine = end
	}
}

// rangeOf reads a range value: "42-45", [42, 45] or {start, end}.
func rangeOf(v any) (start, end int, ok bool) {
	switch x := v.(type) {
	case string:
		if m := lineRangeRe.FindStringSubmatch(x); m != nil {
			s, err1 := strconv.Atoi(m[1])
			e, err2 := strconv.Atoi(m[2])
			return s, e, err1 == nil && err2 == nil && s <= 1<<30 && e <= 1<<30
		}
	case []any:
		if len(x) == 2 {
			s, ok1 := parseLineValue(x[0])
			e, ok2 := parseLineValue(x[1])
			return s, e, ok1 && ok2 && s > 0 && e > 0
		}
	case map[string]any:
		var s, e int
		var ok1, ok2 bool
		for _, k := range []string{"start", "from", "startLine", "first"} {
			if v, has := x[k]; has {
				s, ok1 = parseLineValue(v)
				break
			}
		}
		for _, k := range []string{"end", "to", "endLine", "last"} {
			if v, has := x[k]; has {
				e, ok2 = parseLineValue(v)
				break
			}
		}
		return s, e, ok1 && ok2 && s > 0 && e > 0
	}
	return 0, 0, false
}

// readFix sets f.Fix from a fix object ({before, after}, under fixKeys) or a
// suggested code string (suggestedCodeKeys, replacing the quoted code). A
// fix without "after", or one over the bounds, is dropped with a warning;
// a fix without "before" replaces the finding's existingCode.
func (p *reviewParser) readFix(m map[string]any, f *pipeline.Finding, i int) {
	var fx *pipeline.Fix
	for _, k := range fixKeys {
		switch x := m[k].(type) {
		case map[string]any:
			fx = &pipeline.Fix{Before: fixString(x, beforeKeys...), After: fixString(x, afterKeys...)}
		case string:
			if a, ok := decodeWholeJSON(strings.TrimSpace(x)); ok {
				if o, ok := a.(map[string]any); ok {
					fx = &pipeline.Fix{Before: fixString(o, beforeKeys...), After: fixString(o, afterKeys...)}
				}
			}
		}
		if fx != nil {
			break
		}
	}
	if fx == nil {
		for _, k := range suggestedCodeKeys {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				fx = &pipeline.Fix{After: s}
				break
			}
		}
	}
	if fx == nil {
		return
	}
	fx.Before, fx.After = trimCode(fx.Before), trimCode(fx.After)
	if fx.Before == "" {
		fx.Before = trimCode(f.ExistingCode)
	}
	switch {
	case fx.After == "" && fx.Before == "":
		p.warn("findings[%d].fix has no code: ignored", i)
		return
	case len(fx.Before)+len(fx.After) > maxFixChars || strings.Count(fx.Before, "\n")+strings.Count(fx.After, "\n")+2 > maxFixLines:
		p.warn("findings[%d].fix is longer than %d lines or %d characters: not shown", i, maxFixLines, maxFixChars)
		return
	}
	f.Fix = fx
}

// fixString reads a code field: a string, or lines as an array of strings.
func fixString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			var lines []string
			for _, el := range v {
				if s, ok := el.(string); ok {
					lines = append(lines, s)
				}
			}
			if len(lines) > 0 {
				return strings.Join(lines, "\n")
			}
		case json.Number:
			return v.String()
		}
	}
	return ""
}

// trimCode drops blank lines around code and a fence a model put around it
// ("```go\n...\n```"), keeping the indentation of its lines.
func trimCode(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) >= 2 && strings.HasPrefix(strings.TrimSpace(lines[0]), "```") && strings.TrimSpace(lines[len(lines)-1]) == "```" {
		lines = lines[1 : len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
