package criteria

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Section kinds, in order of preference.
const (
	kindNone = iota
	kindDoD  // "Definition of done"
	kindAC   // "Acceptance criteria", "AC"
)

var (
	// sectionName matches a normalised heading: "acceptance criteria",
	// "acceptance criterion", "ACs", "definition of done", "DoD", with an
	// optional note in parentheses ("Acceptance criteria (Gherkin)").
	sectionName = regexp.MustCompile(`(?i)^(acceptance[ -]criteri(?:a|on)s?|acs?|definition[ -]of[ -]done|dod)(?:\s*\([^)]*\))?$`)
	// inlineLabel matches "AC: the export ..." on one line.
	inlineLabel = regexp.MustCompile(`(?i)^(acceptance[ -]criteri(?:a|on)s?|acs?|definition[ -]of[ -]done|dod)(?:\s*\([^)]*\))?\s*:\s*(\S.*)$`)
	// leadingNoise is what may precede a heading's words: numbering
	// ("3."), emoji, bullets.
	leadingNoise = regexp.MustCompile(`^[^\pL]+`)
)

// sectionKind tells whether a heading or label names an acceptance section.
func sectionKind(title string) int {
	t := normTitle(title)
	m := sectionName.FindStringSubmatch(t)
	if m == nil {
		return kindNone
	}
	if c := unicode.ToLower(rune(m[1][0])); c == 'd' {
		return kindDoD
	}
	return kindAC
}

// normTitle strips emphasis marks, a trailing colon, leading numbering or
// emoji, and extra spaces from a heading.
func normTitle(s string) string {
	s = strings.NewReplacer("*", "", "_", " ", "`", "").Replace(s)
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimRight(s, ":"))
	s = leadingNoise.ReplaceAllString(s, "")
	return spaceRun.ReplaceAllString(s, " ")
}

// findSection returns the blocks of the first acceptance criteria section
// (else the first definition of done section) and its title as written.
func findSection(doc []block) ([]block, string, bool) {
	var best []block
	bestName, bestKind := "", kindNone
	for i := 0; i < len(doc); i++ {
		b := doc[i]
		if len(b.lines) == 0 {
			continue
		}
		var (
			kind  int
			name  string
			first []block // text on the label's own line or paragraph
			level int     // heading level; 7 for a label line
		)
		switch b.kind {
		case bHeading:
			kind, name, level = sectionKind(b.lines[0]), b.lines[0], b.level
		case bPara:
			level = 7
			// The label may be any line of the paragraph ("Some text.\nAC:
			// the export ..."); lines before it belong to what precedes.
			for k, l := range b.lines {
				if kind = sectionKind(l); kind != kindNone {
					name = l
					if k+1 < len(b.lines) {
						first = []block{{kind: bPara, lines: b.lines[k+1:]}}
					}
					break
				}
				if m := inlineLabel.FindStringSubmatch(strings.ReplaceAll(l, "*", "")); m != nil {
					kind, name = sectionKind(m[1]), m[1]
					first = []block{{kind: bPara, lines: append([]string{m[2]}, b.lines[k+1:]...)}}
					break
				}
			}
		}
		if kind <= bestKind {
			continue
		}
		end := i + 1
		for ; end < len(doc); end++ {
			if endsSection(doc[end], level) {
				break
			}
		}
		best = append(first, doc[i+1:end]...)
		bestName, bestKind = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(name), ":")), kind
		if kind == kindAC {
			break
		}
		i = end - 1
	}
	return best, bestName, bestKind != kindNone
}

// endsSection tells whether b ends a section opened at level (1..6 for a
// heading, 7 for a label line).
func endsSection(b block, level int) bool {
	if b.kind == bHeading {
		return b.level <= level
	}
	if level < 7 {
		return false
	}
	switch b.kind {
	case bRule:
		return true
	case bPara:
		// A bold line of its own, or a short "Label:" line (which may be
		// followed by its text in the same paragraph).
		return gherkinKind(b.lines[0]) == gkNone && (b.emph || shortLabel(b.lines[0]))
	}
	return false
}

// labelStarters are first words of a line ending with ":" that introduce a
// list inside a section rather than start the next one ("The user can:").
var labelStarters = map[string]bool{
	"the": true, "a": true, "an": true, "it": true, "we": true, "you": true, "they": true, "i": true,
	"this": true, "that": true, "these": true, "user": true, "users": true, "when": true, "if": true,
	"as": true, "each": true, "every": true, "all": true, "should": true, "must": true, "can": true,
	"following": true, "for": true, "on": true, "in": true, "after": true, "before": true,
}

// shortLabel reports whether line looks like "Notes:" or "Out of scope:": it
// ends with a colon, has at most three words and does not start like a
// sentence.
func shortLabel(line string) bool {
	t, ok := strings.CutSuffix(strings.TrimSpace(line), ":")
	if !ok {
		return false
	}
	words := strings.Fields(t)
	return len(words) > 0 && len(words) <= 3 && !labelStarters[strings.ToLower(words[0])]
}

// Gherkin keyword classes.
const (
	gkNone     = iota
	gkFeature  // Feature:
	gkHeader   // Scenario..., Scenario Outline:, Example:, Background:
	gkGiven    // Given
	gkWhen     // When
	gkStep     // Then, And, But
	gkExamples // Examples:, Scenarios:
)

var (
	gherkinHeader = regexp.MustCompile(`(?i)^(?:scenario(?: outline| template)?\b[^:]{0,60}|example|background):`)
	gherkinStep   = regexp.MustCompile(`(?i)^(given|when|then|and|but)\s`)
	gherkinLists  = regexp.MustCompile(`(?i)^(?:examples|scenarios):`)
	gherkinFeat   = regexp.MustCompile(`(?i)^feature:`)
)

// gherkinKind classifies a line by its Gherkin keyword. Keywords count only
// capitalised ("Given", "GIVEN"), so a sentence wrapped onto a line that
// starts with "when" is not taken for a step.
func gherkinKind(line string) int {
	t := strings.TrimSpace(line)
	if r, _ := utf8.DecodeRuneInString(t); !unicode.IsUpper(r) {
		return gkNone
	}
	switch {
	case gherkinFeat.MatchString(t):
		return gkFeature
	case gherkinLists.MatchString(t):
		return gkExamples
	case gherkinHeader.MatchString(t):
		return gkHeader
	}
	if m := gherkinStep.FindStringSubmatch(t); m != nil {
		switch strings.ToLower(m[1]) {
		case "given":
			return gkGiven
		case "when":
			return gkWhen
		}
		return gkStep
	}
	return gkNone
}

// unit is one candidate piece of text in a source.
type unit struct {
	text string
	kind int // uItem, uPara, uLine, uRow or uBreak
	gk   int // Gherkin class of text
}

const (
	uItem  = iota // a top-level list item, nested items folded in
	uPara         // a paragraph
	uLine         // a line of a paragraph or code block with Gherkin in it
	uRow          // a table row
	uBreak        // a heading or rule: ends a scenario
)

// collect returns the criteria texts of a source in order of appearance:
// top-level list items and Gherkin scenarios, or, when there are neither,
// paragraphs.
func collect(blocks []block) []string {
	units := toUnits(blocks)
	type entry struct {
		text string
		para bool
	}
	var entries []entry
	var group []string // the open Gherkin scenario
	headerOnly, examples := false, false
	closeGroup := func() {
		if len(group) > 0 {
			entries = append(entries, entry{text: joinSteps(group)})
		}
		group, headerOnly, examples = nil, false, false
	}
	standalone := func(u unit) {
		entries = append(entries, entry{text: u.text, para: u.kind == uPara || u.kind == uLine && u.gk == gkNone})
	}
	for i, u := range units {
		switch u.gk {
		case gkFeature:
			closeGroup()
		case gkHeader:
			closeGroup()
			group, headerOnly = []string{u.text}, true
		case gkGiven:
			if !headerOnly {
				closeGroup()
			}
			group, headerOnly = append(group, u.text), false
		case gkWhen:
			switch {
			case group != nil:
				group, headerOnly = append(group, u.text), false
			case i+1 < len(units) && units[i+1].gk == gkStep:
				group = []string{u.text}
			default:
				standalone(u)
			}
		case gkStep:
			if group != nil {
				group, headerOnly = append(group, u.text), false
			} else {
				standalone(u)
			}
		case gkExamples:
			if group != nil {
				group, examples = append(group, u.text), true
			}
		default:
			switch {
			case u.kind == uRow:
				if examples {
					group = append(group, u.text)
				}
			case u.kind == uBreak:
				closeGroup()
			case u.kind == uLine && group != nil:
				// A wrapped step or a scenario's description.
				group[len(group)-1] += " " + u.text
			default:
				closeGroup()
				standalone(u)
			}
		}
	}
	closeGroup()

	structured := false
	paras := 0
	for _, e := range entries {
		if e.para {
			paras++
		} else {
			structured = true
		}
	}
	var out []string
	for _, e := range entries {
		switch {
		case structured && e.para:
			// Intros and notes around the lists.
		case !structured && paras > 1 && strings.HasSuffix(e.text, ":"):
			// "The export offers:" before paragraphs.
		default:
			out = append(out, e.text)
		}
	}
	return out
}

// toUnits turns blocks into units: list runs folded into top-level items,
// paragraphs and code blocks with Gherkin split into lines.
func toUnits(blocks []block) []unit {
	var units []unit
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		switch b.kind {
		case bItem:
			j := i
			for j < len(blocks) && blocks[j].kind == bItem {
				j++
			}
			for _, t := range foldItems(blocks[i:j]) {
				units = append(units, unit{text: t, kind: uItem, gk: gherkinKind(t)})
			}
			i = j - 1
		case bPara, bCode:
			first := -1
			for k, l := range b.lines {
				if gherkinKind(l) != gkNone {
					first = k
					break
				}
			}
			if first < 0 {
				if b.kind == bPara {
					units = append(units, unit{text: strings.Join(b.lines, " "), kind: uPara})
				}
				continue
			}
			if first > 0 && b.kind == bPara {
				units = append(units, unit{text: strings.Join(b.lines[:first], " "), kind: uPara})
			}
			for _, l := range b.lines[first:] {
				l = cleanText(l)
				switch {
				case l == "":
				case strings.HasPrefix(l, "|"):
					units = append(units, unit{text: l, kind: uRow})
				default:
					units = append(units, unit{text: l, kind: uLine, gk: gherkinKind(l)})
				}
			}
		case bRow:
			units = append(units, unit{text: b.lines[0], kind: uRow})
		case bHeading, bRule:
			units = append(units, unit{kind: uBreak})
		}
	}
	return units
}

// foldItems folds a run of list items into the texts of its top-level
// items: "Parent: child; child (grandchild)". Gherkin steps nested under a
// scenario item are joined by "; " like other steps.
func foldItems(items []block) []string {
	type node struct {
		text     string
		depth    int
		children []*node
	}
	var roots, stack []*node
	for _, it := range items {
		n := &node{text: itemText(it), depth: it.depth}
		for len(stack) > 0 && stack[len(stack)-1].depth >= n.depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, n)
		} else {
			p := stack[len(stack)-1]
			p.children = append(p.children, n)
		}
		stack = append(stack, n)
	}
	var fold func(n *node, top bool) string
	fold = func(n *node, top bool) string {
		text := cleanText(n.text)
		if len(n.children) == 0 {
			return text
		}
		parts := make([]string, 0, len(n.children))
		for _, c := range n.children {
			if t := fold(c, false); t != "" {
				parts = append(parts, t)
			}
		}
		kids := strings.Join(parts, "; ")
		switch {
		case kids == "":
			return text
		case text == "":
			return kids
		case !top:
			return text + " (" + kids + ")"
		case gherkinKind(text) != gkNone || gherkinKind(kids) != gkNone:
			return text + "; " + kids
		case strings.HasSuffix(text, ":"):
			return text + " " + kids
		}
		return text + ": " + kids
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, fold(r, true))
	}
	return out
}

// itemText joins an item's lines: a Gherkin step on its own line is a new
// step ("; "), anything else continues the sentence.
func itemText(it block) string {
	var b strings.Builder
	for k, l := range it.lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if k > 0 && b.Len() > 0 {
			if gherkinKind(l) != gkNone {
				b.WriteString("; ")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// joinSteps joins a scenario's lines with "; ", except after a line that
// ends with a colon ("Background:", "Examples:"), which its next line
// completes.
func joinSteps(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			if strings.HasSuffix(steps[i-1], ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(s)
	}
	return b.String()
}
