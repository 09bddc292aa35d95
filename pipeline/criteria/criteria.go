// Package criteria extracts acceptance criteria from a Jira issue's text
// and judges them against a review's verdicts.
//
// The criteria come from the issue's acceptance criteria field when it has a
// value, else from an "Acceptance criteria" / "AC" / "Definition of done"
// section of the description. Both may be Atlassian Document Format (ADF,
// Jira Cloud's REST API v3 and rich-text fields), Jira wiki markup (REST API
// v2, Data Center) or Markdown (pasted by people or tools). Bullet and
// numbered lists, checkboxes, plain paragraphs and Gherkin scenarios are
// understood; see Extract for the rules.
//
// Judge pairs the request's criteria with the review's verdicts and
// WriteTable writes them as the summary's "Acceptance criteria" table, the
// evidence linked to the pull request's diff.
//
// The package is pure: no I/O, and no input makes it panic. Extraction
// depends on nothing else in prscout; judging reads the review answer
// (reviewanswer), the diff index (anchor) and the sanitizer.
package criteria

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// Bounds. A criterion's text and the number of criteria are capped so one
// issue cannot fill a prompt; every cut is stated (in the text or in
// Result.Warnings), never silent.
const (
	// maxCriteria is how many criteria one issue yields; the rest are named
	// in a warning.
	maxCriteria = 30
	// maxTextChars is the longest criterion text, in characters (runes),
	// before the cut note is appended.
	maxTextChars = 500
	// maxInputBytes is the largest field value or description searched; a
	// larger one is skipped with a warning (Jira's own text limit is 32 767
	// characters; ADF JSON is several times its text).
	maxInputBytes = 1 << 20
)

// Criterion is one acceptance criterion.
type Criterion struct {
	// ID is "<issue key>#<n>", n counting from 1 in order of appearance in
	// the source used. The same source text gives the same ids on every run.
	ID    string `json:"id"`
	Issue string `json:"issue"` // the issue key, upper case
	Text  string `json:"text"`  // one line; nested items and Gherkin steps folded in
}

// SourceKind says where criteria were found.
type SourceKind string

// Source kinds.
const (
	SourceNone        SourceKind = ""            // no criteria found
	SourceField       SourceKind = "field"       // the acceptance criteria field
	SourceDescription SourceKind = "description" // a section of the description
)

// Source names the text the criteria were taken from.
type Source struct {
	Kind SourceKind `json:"kind,omitempty"`
	// Field is the field id (customfield_10042) when Kind is SourceField.
	Field string `json:"field,omitempty"`
	// FieldName is the field's display name, when the caller knows it.
	FieldName string `json:"fieldName,omitempty"`
	// Section is the heading or label of the description section, as
	// written ("Acceptance Criteria"), when Kind is SourceDescription.
	Section string `json:"section,omitempty"`
}

// String is a short human reading: `field "Acceptance Criteria"
// (customfield_10042)`, `description section "Acceptance criteria"`, or "".
func (s Source) String() string {
	switch s.Kind {
	case SourceField:
		switch {
		case s.FieldName != "" && s.Field != "":
			return fmt.Sprintf("field %q (%s)", s.FieldName, s.Field)
		case s.FieldName != "":
			return fmt.Sprintf("field %q", s.FieldName)
		case s.Field != "":
			return "field " + s.Field
		}
		return "field"
	case SourceDescription:
		return fmt.Sprintf("description section %q", s.Section)
	}
	return ""
}

// Format says how a text value is written. ADF is recognised by its JSON
// shape whatever the format says.
type Format int

// Formats.
const (
	// FormatAuto tells wiki markup from Markdown by their marks (h2.,
	// {code}, ||tables||, *bold* lines, consecutive "# " lines for wiki);
	// Markdown otherwise.
	FormatAuto Format = iota
	FormatWiki
	FormatMarkdown
)

// Input is one issue's text.
type Input struct {
	// Key is the issue key ("SHOP-12", any case).
	Key string
	// Field is the acceptance criteria field's value as Jira's JSON holds
	// it: a string (wiki markup, Markdown, or ADF JSON text), an ADF
	// document (map[string]any, json.RawMessage or []byte), or an array of
	// values (a labels, checklist or multi-line field: one criterion per
	// element). nil or blank: not set.
	Field any
	// FieldID and FieldName name the field in Result.Source.
	FieldID, FieldName string
	// Description takes the same forms as Field.
	Description any
	// Format applies to string values that are not ADF.
	Format Format
}

// Result is what Extract found.
type Result struct {
	Criteria []Criterion
	Source   Source
	// Warnings state every cut and every value that could not be read,
	// each starting with the issue key.
	Warnings []string
}

var issueKey = regexp.MustCompile(`^[A-Z][A-Z0-9_]*-[0-9]+$`)

// Extract finds the acceptance criteria of one issue.
//
// Source: the field when it yields at least one criterion, else the first
// description section headed "Acceptance criteria" (also "Acceptance
// criterion", "AC", "ACs"), else the first headed "Definition of done"
// ("DoD"). A heading is a Markdown "## ", a wiki "h2. ", an ADF heading node,
// or a line of its own that is bold or ends with ":" ("*Acceptance
// criteria:*", "AC:"; an ADF expand or wiki panel titled so counts too). A
// heading's section ends at the next heading of the same or a higher level;
// a line label's section also ends at a horizontal rule, at a bold line, or
// at another short "Label:" line.
//
// Criteria within the source: each top-level list item (bullets, numbers,
// checkboxes, ADF task items), its nested items folded into its text
// ("Parent: child; child"); each Gherkin scenario (Scenario/Background
// header or Given, with its When/Then/And/But steps and Examples) as one
// criterion whose steps are joined by "; "; and, when the source has neither
// lists nor Gherkin, each paragraph. Exact repeats are dropped. At most
// maxCriteria criteria of at most maxTextChars characters each are kept.
//
// The only error is a key that is not a Jira issue key; unreadable values
// are warnings.
func Extract(in Input) (Result, error) {
	key := strings.ToUpper(strings.TrimSpace(in.Key))
	if !issueKey.MatchString(key) {
		return Result{}, fmt.Errorf("key: %q is not a Jira issue key", in.Key)
	}
	var res Result
	warn := func(format string, args ...any) {
		res.Warnings = append(res.Warnings, key+": "+fmt.Sprintf(format, args...))
	}

	var texts []string
	if in.Field != nil {
		doc, items, err := parseValue(in.Field, in.Format)
		switch {
		case err != nil:
			warn("acceptance criteria field %s not read: %v", fieldLabel(in), err)
		case items != nil:
			texts = items
		default:
			texts = collect(doc)
		}
		if len(texts) > 0 {
			res.Source = Source{Kind: SourceField, Field: in.FieldID, FieldName: in.FieldName}
		}
	}
	if len(texts) == 0 && in.Description != nil {
		doc, items, err := parseValue(in.Description, in.Format)
		if err != nil {
			warn("description not read: %v", err)
		}
		for _, it := range items {
			doc = append(doc, block{kind: bPara, lines: []string{it}})
		}
		if sec, name, ok := findSection(doc); ok {
			texts = collect(sec)
			if len(texts) > 0 {
				res.Source = Source{Kind: SourceDescription, Section: name}
			}
		}
	}

	seen := make(map[string]bool, len(texts))
	found := 0
	for _, t := range texts {
		t = cleanText(t)
		norm := strings.ToLower(t)
		if t == "" || seen[norm] {
			continue
		}
		seen[norm] = true
		found++
		if found > maxCriteria {
			continue
		}
		res.Criteria = append(res.Criteria, Criterion{
			ID:    key + "#" + strconv.Itoa(found),
			Issue: key,
			Text:  cut(t, maxTextChars),
		})
	}
	if found > maxCriteria {
		warn("%d acceptance criteria found, the first %d kept", found, maxCriteria)
	}
	if len(res.Criteria) == 0 {
		res.Source = Source{}
	}
	return res, nil
}

func fieldLabel(in Input) string {
	switch {
	case in.FieldName != "":
		return strconv.Quote(in.FieldName)
	case in.FieldID != "":
		return in.FieldID
	}
	return "value"
}

// cut shortens s to max characters and says how many were cut.
func cut(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + fmt.Sprintf("… (cut, %d more characters)", n-max)
}

var errTooLarge = errors.New("too large")

// parseValue reads a field value or a description: a document as blocks, or
// for an array value one text per element (items, nil doc).
func parseValue(v any, f Format) ([]block, []string, error) {
	switch x := v.(type) {
	case string:
		return parseString(x, f)
	case json.RawMessage:
		return parseJSONBytes(x, f)
	case []byte:
		return parseJSONBytes(x, f)
	case map[string]any:
		if t, _ := x["type"].(string); t == "doc" {
			b, err := json.Marshal(x)
			if err != nil {
				return nil, nil, fmt.Errorf("ADF document: %w", err)
			}
			doc, err := parseADF(b)
			return doc, nil, err
		}
		// An option or user object: its display text.
		if s := objectText(x); s != "" {
			return parseString(s, f)
		}
		return nil, nil, nil
	case []any:
		var items []string
		for _, e := range x {
			items = append(items, elementText(e, f))
		}
		return nil, nonEmpty(items), nil
	case []string:
		return nil, nonEmpty(x), nil
	case float64, bool:
		return parseString(fmt.Sprint(x), f)
	case nil:
		return nil, nil, nil
	}
	return nil, nil, fmt.Errorf("unsupported value of type %T", v)
}

func nonEmpty(items []string) []string {
	out := make([]string, 0, len(items))
	for _, s := range items {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// elementText is the text of one array element: a string, an option object,
// or an ADF document (its lines joined).
func elementText(e any, f Format) string {
	switch x := e.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case map[string]any:
		if t, _ := x["type"].(string); t == "doc" {
			doc, _, err := parseValue(x, f)
			if err != nil {
				return ""
			}
			var parts []string
			for _, b := range doc {
				parts = append(parts, b.lines...)
			}
			return strings.Join(parts, " ")
		}
		return objectText(x)
	}
	return ""
}

// objectText reads the display text of a Jira option, user or checklist
// item object.
func objectText(m map[string]any) string {
	for _, k := range []string{"value", "name", "text", "displayName"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

func parseJSONBytes(b []byte, f Format) ([]block, []string, error) {
	if len(b) > maxInputBytes {
		return nil, nil, fmt.Errorf("%w (%d bytes, limit %d)", errTooLarge, len(b), maxInputBytes)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		// Not JSON: the bytes are text.
		return parseString(string(b), f)
	}
	return parseValue(v, f)
}

// parseString reads text: ADF JSON when it is an ADF document, else wiki
// markup or Markdown.
func parseString(s string, f Format) ([]block, []string, error) {
	if len(s) > maxInputBytes {
		return nil, nil, fmt.Errorf("%w (%d bytes, limit %d)", errTooLarge, len(s), maxInputBytes)
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && strings.Contains(t, `"doc"`) {
		if doc, err := parseADF([]byte(t)); err == nil {
			return doc, nil, nil
		}
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	switch f {
	case FormatWiki:
		return parseWiki(s), nil, nil
	case FormatMarkdown:
		return parseMarkdown(s), nil, nil
	}
	if looksWiki(s) {
		return parseWiki(s), nil, nil
	}
	return parseMarkdown(s), nil, nil
}

// Fill splits the acceptance criteria an issue lookup left unsplit
// (iss.CriteriaText) into iss.Requirements, with their source and warnings
// appended to the issue's; CriteriaText is then cleared. An issue without
// CriteriaText is left as it is.
func Fill(iss *pipeline.Issue) {
	ct := iss.CriteriaText
	if ct == nil {
		return
	}
	iss.CriteriaText = nil
	res, err := Extract(Input{Key: iss.Key, Field: ct.Field, FieldID: ct.FieldID, FieldName: ct.FieldName, Description: ct.Description})
	if err != nil {
		iss.RequirementsWarnings = append(iss.RequirementsWarnings, fmt.Sprintf("%s: acceptance criteria not read: %v", iss.Key, err))
	}
	for _, cr := range res.Criteria {
		iss.Requirements = append(iss.Requirements, pipeline.Requirement{ID: cr.ID, Issue: cr.Issue, Text: cr.Text})
	}
	iss.RequirementsSource = res.Source.String()
	iss.RequirementsWarnings = append(iss.RequirementsWarnings, res.Warnings...)
}
