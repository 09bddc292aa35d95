package jira

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text bounds for the prompts, in characters (runes).
const (
	maxDescriptionChars = 4000
	maxAcceptanceChars  = 4000
)

// truncate cuts s to max characters and says how much was cut; it never cuts
// silently.
func truncate(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	cut, i := 0, 0
	for i = range s {
		if cut == max {
			break
		}
		cut++
	}
	return strings.TrimRight(s[:i], " \t\n") + fmt.Sprintf("\n… (truncated, %d more characters)", n-max)
}

var (
	wikiHeading = regexp.MustCompile(`^h([1-6])\.\s+`)
	wikiList    = regexp.MustCompile(`^([*#-]+)\s+`)
	wikiCode    = regexp.MustCompile(`^\{(code|noformat)(?::([^}]*))?\}(.*)$`)
	wikiMono    = regexp.MustCompile(`\{\{(.+?)\}\}`)
	codeLang    = regexp.MustCompile(`^[A-Za-z0-9_+#-]+$`)
)

// wikiToMarkdown converts the few Jira wiki constructs a prompt benefits
// from (headings, bullets, numbered lists, quotes, rules, {code}/{noformat}
// blocks, {{monospace}}) to Markdown and keeps everything else as text.
func wikiToMarkdown(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	inCode := false
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if m := matchIf(trimmed, '{', wikiCode); m != nil {
			if inCode {
				out = append(out, "```")
				inCode = false
				if rest := strings.TrimSpace(m[3]); rest != "" {
					out = append(out, rest)
				}
				continue
			}
			lang := ""
			for _, p := range strings.Split(m[2], "|") {
				if p = strings.TrimSpace(p); codeLang.MatchString(p) {
					lang = p
				}
			}
			out = append(out, "```"+lang)
			inCode = true
			if rest := strings.TrimSpace(m[3]); rest != "" {
				if body, ok := strings.CutSuffix(rest, "{"+m[1]+"}"); ok {
					out = append(out, body, "```")
					inCode = false
				} else {
					out = append(out, rest)
				}
			}
			continue
		}
		if inCode {
			if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), "{code}"); ok {
				out = append(out, body, "```")
				inCode = false
				continue
			}
			if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), "{noformat}"); ok {
				out = append(out, body, "```")
				inCode = false
				continue
			}
			out = append(out, line)
			continue
		}
		if m := matchIf(trimmed, 'h', wikiHeading); m != nil {
			level, _ := strconv.Atoi(m[1])
			line = strings.Repeat("#", level) + " " + trimmed[len(m[0]):]
		} else if m := matchList(trimmed); m != nil {
			marks := m[1]
			indent := strings.Repeat("  ", len(marks)-1)
			bullet := "- "
			if marks[len(marks)-1] == '#' {
				bullet = "1. "
			}
			line = indent + bullet + trimmed[len(m[0]):]
		} else if strings.HasPrefix(trimmed, "bq. ") {
			line = "> " + trimmed[len("bq. "):]
		} else if trimmed == "----" {
			line = "---"
		}
		if strings.Contains(line, "{{") {
			line = wikiMono.ReplaceAllString(line, "`$1`")
		}
		out = append(out, strings.TrimRight(line, " \t"))
	}
	if inCode {
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		out = append(out, "```")
	}
	return strings.TrimSpace(collapseBlankLines(strings.Join(out, "\n")))
}

// matchIf runs re only on lines starting with first (a cheap pre-check).
func matchIf(line string, first byte, re *regexp.Regexp) []string {
	if line == "" || line[0] != first {
		return nil
	}
	return re.FindStringSubmatch(line)
}

// matchList matches a "*", "#" or "-" list line (not a "----" rule).
func matchList(line string) []string {
	if line == "" || strings.IndexByte("*#-", line[0]) < 0 || line == "----" {
		return nil
	}
	return wikiList.FindStringSubmatch(line)
}

func collapseBlankLines(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// fieldText turns a custom field value into text: a string is wiki markup; an
// Atlassian Document Format object (rich text from API v3 or an app) and
// arrays (multi-line, checklist and select fields) are flattened.
func fieldText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return wikiToMarkdown(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		var items []string
		for _, e := range x {
			if t := strings.TrimSpace(fieldText(e)); t != "" {
				items = append(items, "- "+strings.ReplaceAll(t, "\n", "\n  "))
			}
		}
		return strings.Join(items, "\n")
	case map[string]any:
		if t, _ := x["type"].(string); t == "doc" {
			var b strings.Builder
			adfText(&b, x, "")
			return strings.TrimSpace(collapseBlankLines(b.String()))
		}
		for _, k := range []string{"value", "name", "displayName", "text"} {
			if s, ok := x[k].(string); ok {
				return s
			}
		}
		// Unknown object: its string values in key order, so nothing is lost.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			if s, ok := x[k].(string); ok && s != "" && k != "self" && k != "id" {
				parts = append(parts, k+": "+s)
			}
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprint(v)
}

// adfText writes the text of an ADF node: paragraphs and headings end lines,
// list items become "- " lines, code blocks are fenced.
func adfText(b *strings.Builder, node map[string]any, indent string) {
	typ, _ := node["type"].(string)
	attrs, _ := node["attrs"].(map[string]any)
	children, _ := node["content"].([]any)
	each := func(ind string) {
		for _, c := range children {
			if m, ok := c.(map[string]any); ok {
				adfText(b, m, ind)
			}
		}
	}
	switch typ {
	case "text":
		s, _ := node["text"].(string)
		b.WriteString(s)
	case "hardBreak":
		b.WriteString("\n" + indent)
	case "mention", "emoji", "status", "date":
		if s, ok := attrs["text"].(string); ok {
			b.WriteString(s)
		} else if s, ok := attrs["shortName"].(string); ok {
			b.WriteString(s)
		}
	case "inlineCard", "blockCard":
		if s, ok := attrs["url"].(string); ok {
			b.WriteString(s)
		}
	case "paragraph":
		each(indent)
		b.WriteString("\n")
	case "heading":
		level, _ := attrs["level"].(float64)
		if level < 1 || level > 6 {
			level = 1
		}
		b.WriteString(strings.Repeat("#", int(level)) + " ")
		each(indent)
		b.WriteString("\n")
	case "bulletList", "orderedList", "taskList":
		each(indent)
	case "listItem", "taskItem":
		b.WriteString(indent + "- ")
		if typ == "taskItem" {
			if state, _ := attrs["state"].(string); state == "DONE" {
				b.WriteString("[x] ")
			} else {
				b.WriteString("[ ] ")
			}
		}
		var inner strings.Builder
		for _, c := range children {
			if m, ok := c.(map[string]any); ok {
				adfText(&inner, m, indent+"  ")
			}
		}
		b.WriteString(strings.TrimLeft(inner.String(), " "))
		if typ == "taskItem" {
			b.WriteString("\n")
		}
	case "codeBlock":
		lang, _ := attrs["language"].(string)
		b.WriteString("```" + lang + "\n")
		each(indent)
		b.WriteString("\n```\n")
	case "rule":
		b.WriteString("---\n")
	default:
		each(indent)
	}
}
