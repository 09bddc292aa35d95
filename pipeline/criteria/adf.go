package criteria

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// adfNode is one node of an Atlassian Document Format document (Atlassian's
// "Document structure" reference: nodes with type, attrs, content, text and
// marks).
type adfNode struct {
	Type    string         `json:"type"`
	Text    string         `json:"text"`
	Attrs   map[string]any `json:"attrs"`
	Content []adfNode      `json:"content"`
	Marks   []struct {
		Type string `json:"type"`
	} `json:"marks"`
}

// maxADFDepth bounds the walk; real documents nest a few levels (a list in a
// panel in a table cell), deeper content is ignored.
const maxADFDepth = 64

// parseADF reads an ADF document into blocks: headings, paragraphs (split at
// hard breaks), bullet, ordered, task and decision lists with their nesting,
// code blocks, rules, table rows, and the content of panels, quotes,
// layouts and expands (a titled expand is a bold label, its end a rule).
func parseADF(b []byte) ([]block, error) {
	var doc adfNode
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("ADF document: %w", err)
	}
	if doc.Type != "doc" {
		return nil, errors.New(`ADF document: top node is not of type "doc"`)
	}
	w := &adfWalker{}
	w.blocks(doc.Content, 0, 0)
	return w.out, nil
}

type adfWalker struct {
	out []block
}

func (w *adfWalker) blocks(nodes []adfNode, listDepth, nest int) {
	if nest > maxADFDepth {
		return
	}
	for _, n := range nodes {
		w.block(n, listDepth, nest+1)
	}
}

func (w *adfWalker) block(n adfNode, listDepth, nest int) {
	switch n.Type {
	case "heading":
		level := 1
		if f, ok := n.Attrs["level"].(float64); ok && f >= 1 && f <= 6 {
			level = int(f)
		}
		w.out = append(w.out, block{kind: bHeading, level: level, lines: []string{strings.Join(inlineLines(n.Content), " ")}})
	case "paragraph":
		lines := inlineLines(n.Content)
		if len(lines) == 0 {
			return
		}
		w.out = append(w.out, block{kind: bPara, lines: lines, emph: len(lines) == 1 && allStrong(n.Content)})
	case "bulletList", "orderedList":
		for _, li := range n.Content {
			w.item(li, listDepth, nest)
		}
	case "taskList", "decisionList":
		for _, c := range n.Content {
			if c.Type == "taskList" || c.Type == "decisionList" {
				// A nested task list sits beside its parent item.
				w.block(c, listDepth+1, nest+1)
				continue
			}
			w.item(c, listDepth, nest)
		}
	case "codeBlock":
		var b strings.Builder
		for _, c := range n.Content {
			b.WriteString(c.Text)
		}
		w.out = append(w.out, block{kind: bCode, lines: strings.Split(b.String(), "\n")})
	case "rule":
		w.out = append(w.out, block{kind: bRule})
	case "expand", "nestedExpand":
		title, _ := n.Attrs["title"].(string)
		if title = strings.TrimSpace(title); title != "" {
			w.out = append(w.out, block{kind: bPara, emph: true, lines: []string{title}})
		}
		w.blocks(n.Content, listDepth, nest)
		w.out = append(w.out, block{kind: bRule})
	case "table":
		for _, row := range n.Content {
			var cells []string
			for _, cell := range row.Content {
				var parts []string
				for _, b := range cellBlocks(cell, nest) {
					parts = append(parts, b.lines...)
				}
				if t := strings.TrimSpace(strings.Join(parts, " ")); t != "" {
					cells = append(cells, t)
				}
			}
			if len(cells) > 0 {
				w.out = append(w.out, block{kind: bRow, lines: []string{"| " + strings.Join(cells, " | ") + " |"}})
			}
		}
	case "mediaSingle", "mediaGroup", "media", "extension", "inlineExtension":
		// No text.
	default:
		// doc, panel, blockquote, layoutSection, layoutColumn,
		// bodiedExtension and unknown containers: their content.
		w.blocks(n.Content, listDepth, nest)
	}
}

func cellBlocks(cell adfNode, nest int) []block {
	sub := &adfWalker{}
	sub.blocks(cell.Content, 0, nest)
	return sub.out
}

// item emits one list, task or decision item at depth, then its nested lists
// one level deeper. Its text is its first paragraph (or, for task and
// decision items, its inline content); further paragraphs continue it.
func (w *adfWalker) item(n adfNode, depth, nest int) {
	if nest > maxADFDepth {
		return
	}
	it := block{kind: bItem, depth: depth}
	var nested []adfNode
	if n.Type == "taskItem" || n.Type == "decisionItem" {
		it.lines = inlineLines(n.Content)
	} else {
		for _, c := range n.Content {
			switch c.Type {
			case "paragraph", "heading":
				it.lines = append(it.lines, inlineLines(c.Content)...)
			case "bulletList", "orderedList", "taskList", "decisionList":
				nested = append(nested, c)
			}
		}
	}
	if len(it.lines) == 0 {
		it.lines = []string{""}
	}
	w.out = append(w.out, it)
	for _, c := range nested {
		w.block(c, depth+1, nest+1)
	}
}

// inlineLines is the text of inline nodes, one line per hard break.
func inlineLines(nodes []adfNode) []string {
	var lines []string
	var b strings.Builder
	var walk func(ns []adfNode, nest int)
	walk = func(ns []adfNode, nest int) {
		if nest > maxADFDepth {
			return
		}
		for _, n := range ns {
			switch n.Type {
			case "text":
				if hasMark(n, "code") && n.Text != "" {
					b.WriteString("`" + n.Text + "`")
				} else {
					b.WriteString(n.Text)
				}
			case "hardBreak":
				lines = append(lines, b.String())
				b.Reset()
			case "mention", "emoji", "status":
				if s, ok := n.Attrs["text"].(string); ok {
					b.WriteString(s)
				} else if s, ok := n.Attrs["shortName"].(string); ok {
					b.WriteString(s)
				}
			case "date":
				b.WriteString(adfDate(n.Attrs["timestamp"]))
			case "inlineCard":
				if s, ok := n.Attrs["url"].(string); ok {
					b.WriteString(s)
				}
			default:
				walk(n.Content, nest+1)
			}
		}
	}
	walk(nodes, 0)
	lines = append(lines, b.String())
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// allStrong reports whether every non-blank text node has the strong mark.
func allStrong(nodes []adfNode) bool {
	seen := false
	for _, n := range nodes {
		if n.Type == "hardBreak" || (n.Type == "text" && strings.TrimSpace(n.Text) == "") {
			continue
		}
		if n.Type != "text" {
			return false
		}
		if !hasMark(n, "strong") {
			return false
		}
		seen = true
	}
	return seen
}

// adfDate formats an ADF date node's timestamp (milliseconds since the
// epoch, as a string) as YYYY-MM-DD.
func adfDate(v any) string {
	s, _ := v.(string)
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return s
	}
	return time.UnixMilli(ms).UTC().Format(time.DateOnly)
}

func hasMark(n adfNode, mark string) bool {
	for _, m := range n.Marks {
		if m.Type == mark {
			return true
		}
	}
	return false
}
