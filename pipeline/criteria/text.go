package criteria

import (
	"regexp"
	"strings"
)

// The three formats are read into one list of blocks, so finding the section
// and collecting criteria is written once.

type blockKind int

const (
	bHeading blockKind = iota // level 1..6, lines[0] the title
	bPara                     // lines of one paragraph
	bItem                     // list item at depth (0 = top), lines[0] its text, more lines continue it
	bCode                     // lines of a code block
	bRule                     // horizontal rule, or the end of a panel or expand
	bRow                      // one table row, cells joined by " | "
)

type block struct {
	kind  blockKind
	level int // bHeading
	depth int // bItem
	lines []string
	// emph: the paragraph is one line, wholly bold or emphasised
	// ("*Acceptance criteria*", an ADF paragraph with the strong mark).
	emph bool
}

func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// indentWidth counts leading spaces, a tab as four.
func indentWidth(line string) int {
	w := 0
	for _, r := range line {
		switch r {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

// textParser holds the state both line-based parsers share: the open
// paragraph, the last list item (for continuation lines) and the output.
type textParser struct {
	out      []block
	para     []string
	lastItem int // index in out of the item a following line continues; -1: none
}

func (p *textParser) flush(clean func(string) string) {
	if len(p.para) == 0 {
		return
	}
	b := block{kind: bPara}
	if len(p.para) == 1 {
		var emph bool
		p.para[0], emph = unwrapEmphasis(p.para[0])
		b.emph = emph
	}
	for _, l := range p.para {
		b.lines = append(b.lines, clean(l))
	}
	p.out = append(p.out, b)
	p.para = nil
}

func (p *textParser) emit(b block) {
	p.out = append(p.out, b)
	p.lastItem = -1
	if b.kind == bItem {
		p.lastItem = len(p.out) - 1
	}
}

// line adds a plain text line to the open paragraph, or, when cont is set
// and the line follows a list item directly, to that item.
func (p *textParser) line(s string, cont bool, clean func(string) string) {
	if cont && p.lastItem >= 0 && len(p.para) == 0 {
		it := &p.out[p.lastItem]
		it.lines = append(it.lines, clean(s))
		return
	}
	p.para = append(p.para, s)
}

var (
	mdHeading  = regexp.MustCompile(`^(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$`)
	mdFence    = regexp.MustCompile("^(`{3,}|~{3,})")
	mdRule     = regexp.MustCompile(`^(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$`)
	mdItem     = regexp.MustCompile(`^([-*+]|\d{1,9}[.)])(?:\s+(.*))?$`)
	checkboxRe = regexp.MustCompile(`^\[[ xX]\](?:\s+|$)`)
	// wikiIconItem is a line led by a Jira tick or cross icon, a checklist
	// written without list marks.
	wikiIconItem = regexp.MustCompile(`^\((?:/|x|on|off)\)\s`)
)

// parseMarkdown reads CommonMark-ish text: ATX headings, fenced code, rules,
// "-", "*", "+" and "1." / "1)" lists nested by indentation, checkbox lines,
// tables, block quotes (read as text) and paragraphs.
func parseMarkdown(s string) []block {
	p := &textParser{lastItem: -1}
	var fence string
	var code []string
	var indents []int // indentation of the open list levels
	for _, raw := range strings.Split(normalizeNewlines(s), "\n") {
		t := strings.TrimSpace(raw)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				p.emit(block{kind: bCode, lines: code})
				fence, code = "", nil
				continue
			}
			code = append(code, strings.TrimRight(raw, " \t"))
			continue
		}
		for strings.HasPrefix(t, ">") {
			t = strings.TrimSpace(t[1:])
		}
		if t == "" {
			p.flush(cleanMarkdown)
			p.lastItem = -1
			continue
		}
		if m := mdFence.FindString(t); m != "" {
			p.flush(cleanMarkdown)
			fence, code = m, nil
			indents = nil
			continue
		}
		if m := mdHeading.FindStringSubmatch(t); m != nil {
			p.flush(cleanMarkdown)
			p.emit(block{kind: bHeading, level: len(m[1]), lines: []string{cleanMarkdown(m[2])}})
			indents = nil
			continue
		}
		if mdRule.MatchString(t) {
			p.flush(cleanMarkdown)
			p.emit(block{kind: bRule})
			indents = nil
			continue
		}
		if strings.HasPrefix(t, "|") {
			p.flush(cleanMarkdown)
			if row := tableRow(t); row != "" {
				p.emit(block{kind: bRow, lines: []string{cleanMarkdown(row)}})
			}
			continue
		}
		m := mdItem.FindStringSubmatch(t)
		isBox := m == nil && checkboxRe.MatchString(t)
		if m != nil || isBox {
			p.flush(cleanMarkdown)
			w := indentWidth(raw)
			for len(indents) > 0 && indents[len(indents)-1] > w {
				indents = indents[:len(indents)-1]
			}
			if len(indents) == 0 || indents[len(indents)-1] < w {
				indents = append(indents, w)
			}
			text := t
			if m != nil {
				text = m[2]
			}
			p.emit(block{kind: bItem, depth: len(indents) - 1, lines: []string{cleanMarkdown(text)}})
			continue
		}
		if len(p.para) == 0 && p.lastItem < 0 {
			indents = nil
		}
		p.line(t, indentWidth(raw) > 0, cleanMarkdown)
	}
	if fence != "" {
		p.emit(block{kind: bCode, lines: code})
	}
	p.flush(cleanMarkdown)
	return p.out
}

var (
	wikiHeading = regexp.MustCompile(`^h([1-6])\.\s*(.*)$`)
	wikiItem    = regexp.MustCompile(`^([*#]+|-)\s+(.*)$`)
	wikiMacro   = regexp.MustCompile(`^\{(code|noformat|panel|quote|expand|info|note|tip|warning|color)(?::([^}]*))?\}(.*)$`)
	wikiTitle   = regexp.MustCompile(`(?:^|\|)title=([^|]*)`)
)

// parseWiki reads Jira wiki markup: "h1." to "h6." headings, "*", "#" and
// "-" lists nested by repeating the mark ("**", "#*"), {code} and
// {noformat} blocks, {panel:title=...} and {expand:...} (a titled one is a
// bold label, its end a rule), "----" rules, tables, "bq." quotes and
// paragraphs.
func parseWiki(s string) []block {
	w := &wikiParser{textParser: textParser{lastItem: -1}, open: map[string]bool{}}
	for _, raw := range strings.Split(normalizeNewlines(s), "\n") {
		t := strings.TrimSpace(raw)
		switch {
		case w.inCode != "":
			w.codeLine(raw, t)
		case t == "":
			w.flush(cleanWiki)
			w.lastItem = -1
		default:
			if m := wikiMacro.FindStringSubmatch(t); m != nil {
				w.flush(cleanWiki)
				w.macro(m[1], m[2], strings.TrimSpace(m[3]))
			} else {
				w.textLine(t)
			}
		}
	}
	if w.inCode != "" {
		w.emit(block{kind: bCode, lines: w.code})
	}
	w.flush(cleanWiki)
	return w.out
}

// wikiParser is a textParser with the state of wiki macros: the open
// {code} or {noformat} block and which panel-like macros are open.
type wikiParser struct {
	textParser
	inCode string   // "code" or "noformat" while inside
	code   []string // the lines of the open code block
	open   map[string]bool
}

// codeLine adds a line to the open code block, or closes it at its end
// tag.
func (w *wikiParser) codeLine(raw, t string) {
	body, ok := strings.CutSuffix(t, "{"+w.inCode+"}")
	if !ok {
		w.code = append(w.code, strings.TrimRight(raw, " \t"))
		return
	}
	if body = strings.TrimSpace(body); body != "" {
		w.code = append(w.code, body)
	}
	w.emit(block{kind: bCode, lines: w.code})
	w.inCode, w.code = "", nil
}

// macro reads a line led by {name:params}: a code block (on one line or
// opening one), inline colour, or a panel-like macro opening or closing;
// rest is the text after the tag.
func (w *wikiParser) macro(name, params, rest string) {
	switch name {
	case "code", "noformat":
		if body, ok := strings.CutSuffix(rest, "{"+name+"}"); ok {
			w.emit(block{kind: bCode, lines: []string{strings.TrimSpace(body)}})
			return
		}
		w.inCode, w.code = name, nil
		if rest != "" {
			w.code = append(w.code, rest)
		}
		return
	case "color":
		// Inline colour: keep the text.
		if rest != "" {
			w.line(strings.TrimSuffix(rest, "{color}"), false, cleanWiki)
		}
		return
	}
	if w.open[name] && params == "" {
		w.open[name] = false
		w.emit(block{kind: bRule})
	} else {
		w.open[name] = true
		if title := wikiMacroTitle(name, params); title != "" {
			w.emit(block{kind: bPara, emph: true, lines: []string{cleanWiki(title)}})
		}
	}
	if rest != "" {
		w.line(rest, false, cleanWiki)
	}
}

// wikiMacroTitle is the title of a panel-like macro: an {expand:...}'s
// parameter, else its title= parameter.
func wikiMacroTitle(name, params string) string {
	title := ""
	if name == "expand" {
		title = params
	} else if tm := wikiTitle.FindStringSubmatch(params); tm != nil {
		title = tm[1]
	}
	return strings.TrimSpace(title)
}

// textLine reads a non-empty line outside macros: a heading, rule, table
// row, list item or icon checklist line, else paragraph text ("bq. "
// quotes read as text).
func (w *wikiParser) textLine(t string) {
	if m := wikiHeading.FindStringSubmatch(t); m != nil {
		w.flush(cleanWiki)
		w.emit(block{kind: bHeading, level: int(m[1][0] - '0'), lines: []string{cleanWiki(m[2])}})
		return
	}
	if len(t) >= 4 && strings.Trim(t, "-") == "" {
		w.flush(cleanWiki)
		w.emit(block{kind: bRule})
		return
	}
	if strings.HasPrefix(t, "|") {
		w.flush(cleanWiki)
		if row := tableRow(t); row != "" {
			w.emit(block{kind: bRow, lines: []string{cleanWiki(row)}})
		}
		return
	}
	if m := wikiItem.FindStringSubmatch(t); m != nil {
		w.flush(cleanWiki)
		w.emit(block{kind: bItem, depth: len(m[1]) - 1, lines: []string{cleanWiki(m[2])}})
		return
	}
	if checkboxRe.MatchString(t) || wikiIconItem.MatchString(t) {
		w.flush(cleanWiki)
		w.emit(block{kind: bItem, lines: []string{cleanWiki(t)}})
		return
	}
	if rest, ok := strings.CutPrefix(t, "bq. "); ok {
		t = rest
	}
	w.line(t, false, cleanWiki)
}

// tableRow joins the cells of a "| a | b |" or "||a||b||" row; a Markdown
// delimiter row ("|---|:--:|") is "".
func tableRow(t string) string {
	var cells []string
	for _, c := range strings.Split(strings.Trim(t, "|"), "|") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if strings.Trim(c, "-: ") == "" {
			return ""
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return ""
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

var (
	wikiStrong    = regexp.MustCompile(`(^|[\s(\[])[*_+]([^\s*_+](?:[^*_+]*[^\s*_+])?)[*_+]($|[\s)\].,:;!?])`)
	wikiMono      = regexp.MustCompile(`\{\{(.+?)\}\}`)
	wikiLink      = regexp.MustCompile(`\[([^\]|\[]+)\|([^\]\[]+)\]`)
	wikiColor     = regexp.MustCompile(`\{color(?::[^}]*)?\}`)
	wikiLooksRe   = regexp.MustCompile(`(?m)^\s*(?:h[1-6]\.\s|\{(?:code|noformat|panel|quote|expand)[:}]|\|\||bq\.\s)`)
	wikiBoldLine  = regexp.MustCompile(`(?m)^\s*\*[^*\s][^*\n]*\*\s*:?\s*$`)
	hashItems     = regexp.MustCompile(`(?m)^#+\s+\S.*\n#+\s+\S`)
	wikiLinkLooks = regexp.MustCompile(`\[[^\]|\n]+\|[a-z][a-z0-9+.-]*://`)
	mdStrong      = regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*|__(\S(?:.*?\S)?)__`)
	emphasisWrap  = regexp.MustCompile(`^(\*\*|__|\*|_|\+)(\S(?:.*\S)?)(\*\*|__|\*|_|\+)(:?)$`)
	leadingBoxes  = regexp.MustCompile(`^(?:\[[ xX]\]|\((?:/|x|!|\?|on|off|\*|i)\)|[☐☑☒✅✔✓❌])\s*`)
	spaceRun      = regexp.MustCompile(`\s+`)
)

// looksWiki tells Jira wiki markup from Markdown by marks Markdown does not
// use: "h2." headings, {code}-style macros, "||" table headers, "bq.",
// "[text|url]" links, a whole line in single-star bold, or "# " lines one
// after another (a wiki numbered list; in Markdown two consecutive level-1
// headings).
func looksWiki(s string) bool {
	s = normalizeNewlines(s)
	return wikiLooksRe.MatchString(s) || wikiBoldLine.MatchString(s) || hashItems.MatchString(s) || wikiLinkLooks.MatchString(s)
}

// unwrapEmphasis removes bold or emphasis marks that wrap a whole line,
// keeping a trailing colon: "*Acceptance criteria:*" and "**AC**:" become
// "Acceptance criteria:" and "AC:".
func unwrapEmphasis(line string) (string, bool) {
	t := strings.TrimSpace(line)
	m := emphasisWrap.FindStringSubmatch(t)
	if m == nil || m[1] != m[3] {
		return line, false
	}
	inner := m[2]
	if strings.Contains(inner, m[1]) {
		// "*a* and *b*": two spans, not one.
		return line, false
	}
	return inner + m[4], true
}

func cleanWiki(s string) string {
	s = wikiColor.ReplaceAllString(s, "")
	s = wikiMono.ReplaceAllString(s, "`$1`")
	s = wikiLink.ReplaceAllString(s, "$1 ($2)")
	// Twice: adjacent spans share the space between them.
	for range 2 {
		s = wikiStrong.ReplaceAllString(s, "$1$2$3")
	}
	return s
}

func cleanMarkdown(s string) string {
	return mdStrong.ReplaceAllStringFunc(s, func(m string) string {
		return m[2 : len(m)-2]
	})
}

// cleanText makes a criterion one tidy line: no checkbox or status icon in
// front, single spaces.
func cleanText(s string) string {
	s = strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
	for {
		loc := leadingBoxes.FindStringIndex(s)
		if loc == nil {
			break
		}
		s = s[loc[1]:]
	}
	return strings.TrimSpace(s)
}
