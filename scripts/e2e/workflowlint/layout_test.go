package workflowlint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export is the part of a workflow export the cross-workflow and layout
// rules read.
type export struct {
	ID    string `json:"id"`
	Nodes []struct {
		node
		Position  [2]float64 `json:"position"`
		WebhookID string     `json:"webhookId"`
	} `json:"nodes"`
	Connections map[string]struct {
		Main [][]struct {
			Node string `json:"node"`
		} `json:"main"`
	} `json:"connections"`
}

func readExports(t *testing.T) map[string]export {
	t.Helper()
	files, _ := filepath.Glob("../../../workflows/*.json")
	out := map[string]export{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var e export
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = e
	}
	if len(out) < 2 {
		t.Fatalf("want the review and the comment workflow in workflows/, found %d export(s)", len(out))
	}
	return out
}

// edge is one connection as the editor draws it: from output Out of From
// to To.
type edge struct {
	From, To string
	Out      int
}

func edges(e export) []edge {
	var out []edge
	for src, c := range e.Connections {
		for i, dsts := range c.Main {
			for _, d := range dsts {
				out = append(out, edge{src, d.Node, i})
			}
		}
	}
	return out
}

// TestWorkflowsApart: both workflows can be imported and published into one
// n8n: their ids, webhook paths and webhook ids differ (n8n refuses a
// second webhook on the same method and path).
func TestWorkflowsApart(t *testing.T) {
	ids, paths, hooks := map[string]string{}, map[string]string{}, map[string]string{}
	for f, e := range readExports(t) {
		if prev, ok := ids[e.ID]; ok {
			t.Errorf("%s and %s share the workflow id %q", prev, f, e.ID)
		}
		ids[e.ID] = f
		for _, n := range e.Nodes {
			if n.Type != "n8n-nodes-base.webhook" {
				continue
			}
			key := fmt.Sprint(n.Parameters["httpMethod"], " ", n.Parameters["path"])
			if prev, ok := paths[key]; ok {
				t.Errorf("%s and %s both listen on %s", prev, f, key)
			}
			paths[key] = f
			if prev, ok := hooks[n.WebhookID]; ok || n.WebhookID == "" {
				t.Errorf("%s: webhook %q has webhookId %q (also in %q)", f, n.Name, n.WebhookID, prev)
			}
			hooks[n.WebhookID] = f
		}
	}
}

// reviewStages are the prscout endpoints of a review; a comment event must
// never reach them, nor the review's LLM calls.
var reviewStages = []string{"/v1/context", "/v1/needs", "/v1/repository/batch", "/v1/merge", "/v1/verify", "/v1/comments", "/v1/status"}

// TestCommentWorkflow: the workflow that calls /v1/thread is a workflow of
// its own: it calls no review stage, and its one LLM call runs only on the
// "answer" output of the node routing on the thread's action, then goes to
// /v1/thread/answer.
func TestCommentWorkflow(t *testing.T) {
	found := false
	for f, e := range readExports(t) {
		byName := map[string]node{}
		thread := false
		for _, n := range e.Nodes {
			byName[n.Name] = n.node
			url, _ := n.Parameters["url"].(string)
			if strings.HasSuffix(url, "/v1/thread") {
				thread = true
			}
		}
		if !thread {
			continue
		}
		found = true
		into := map[string][]edge{}
		for _, ed := range edges(e) {
			into[ed.To] = append(into[ed.To], ed)
		}
		for _, n := range e.Nodes {
			url, _ := n.Parameters["url"].(string)
			for _, s := range reviewStages {
				if strings.HasSuffix(url, s) {
					t.Errorf("%s: %s calls the review stage %s; comment events must never start a review", f, n.Name, s)
				}
			}
			if !strings.HasSuffix(url, "/chat/completions") {
				continue
			}
			in := into[n.Name]
			if len(in) != 1 || byName[in[0].From].Type != "n8n-nodes-base.switch" || in[0].Out != 0 {
				t.Errorf("%s: %s must be fed only by the action switch's first output (answer), got %v", f, n.Name, in)
				continue
			}
			sw := byName[in[0].From]
			rules, _ := sw.Parameters["rules"].(map[string]any)
			values, _ := rules["values"].([]any)
			first, _ := json.Marshal(values[:min(1, len(values))])
			if !strings.Contains(string(first), `"rightValue":"answer"`) || !strings.Contains(string(first), `$json.action`) {
				t.Errorf("%s: %s's first rule must route action == \"answer\": %s", f, sw.Name, first)
			}
			next := false
			for _, ed := range edges(e) {
				if ed.From == n.Name {
					u, _ := byName[ed.To].Parameters["url"].(string)
					next = strings.HasSuffix(u, "/v1/thread/answer")
				}
			}
			if !next {
				t.Errorf("%s: %s must go on to POST /v1/thread/answer", f, n.Name)
			}
		}
	}
	if !found {
		t.Fatal("no workflow calls /v1/thread")
	}
}

// Node boxes as n8n's canvas draws them: a node's position is its top
// left corner, its box nodeSize square, its name under it; a sticky
// note's box is its position, width and height.
const (
	nodeSize = 100
	// labelBelow is the room a node's name takes under its box.
	labelBelow = 60
	// backwardDrop is how far under its source n8n draws the run of a
	// connection that goes back to the left (to the next row).
	backwardDrop = 130
	// maxCanvasW, maxCanvasH bound the whole canvas, so that at
	// fit-to-view on a 1600x900 editor node names stay legible (zoom
	// about 0.6 or more); maxAspect keeps it from being one long row.
	maxCanvasW, maxCanvasH, maxAspect = 2400, 1600, 2.5
	// minStickyText is the least a section's note says.
	minStickyText = 80
	// A note's text as the editor sets it (measured on n8n 2.8.4's
	// screenshots): the heading at about headCharW px per character in
	// lines headLineH high, the rest at bodyCharW and bodyLineH, inside
	// notePad px on each side.
	headCharW, headLineH, bodyCharW, bodyLineH, notePad = 10, 24, 7.2, 18, 16
)

// textRoom is how far below a note's top its text reaches.
func textRoom(text string, width float64) float64 {
	head, body, _ := strings.Cut(text, "\n")
	inner := width - 2*notePad
	lines := func(s string, charW float64) float64 {
		n := 0.0
		for _, para := range strings.Split(strings.NewReplacer("**", "", "`", "").Replace(s), "\n") {
			n += float64(int(float64(len([]rune(para)))*charW/max(1, inner)) + 1)
		}
		return n
	}
	return lines(strings.TrimPrefix(head, "## "), headCharW)*headLineH + lines(body, bodyCharW)*bodyLineH
}

type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) inside(o rect) bool {
	return r.x0 >= o.x0 && r.y0 >= o.y0 && r.x1 <= o.x1 && r.y1 <= o.y1
}

func (r rect) overlaps(o rect) bool {
	return r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1
}

// segmentHits reports whether the segment a-b passes through r.
func segmentHits(a, b [2]float64, r rect) bool {
	// Sample the segment finely: boxes are 100 px, steps are under 5 px.
	n := int(max(abs(b[0]-a[0]), abs(b[1]-a[1]))/4) + 1
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		x, y := a[0]+(b[0]-a[0])*t, a[1]+(b[1]-a[1])*t
		if x > r.x0 && x < r.x1 && y > r.y0 && y < r.y1 {
			return true
		}
	}
	return false
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// canvas is one export as the editor lays it out.
type canvas struct {
	file     string
	pos      map[string][2]float64
	box      map[string]rect // nodes, not sticky notes
	section  map[string]int  // node -> index in stickies
	stickies []struct {
		name, text string
		r          rect
	}
}

func layoutOf(t *testing.T, f string, e export) canvas {
	c := canvas{file: f, pos: map[string][2]float64{}, box: map[string]rect{}, section: map[string]int{}}
	for _, n := range e.Nodes {
		p := n.Position
		c.pos[n.Name] = p
		if n.Type == stickyType {
			w, _ := n.Parameters["width"].(float64)
			h, _ := n.Parameters["height"].(float64)
			text, _ := n.Parameters["content"].(string)
			c.stickies = append(c.stickies, struct {
				name, text string
				r          rect
			}{n.Name, text, rect{p[0], p[1], p[0] + w, p[1] + h}})
			continue
		}
		c.box[n.Name] = rect{p[0], p[1], p[0] + nodeSize, p[1] + nodeSize}
	}
	return c
}

const stickyType = "n8n-nodes-base.stickyNote"

// TestLayout: the editor shows each workflow readably at fit-to-view.
//   - Sections: every node sits, name included, inside exactly one sticky
//     note; notes do not overlap, and each says what its section does
//     under a "## " heading.
//   - Size: the canvas is at most maxCanvasW x maxCanvasH and at most
//     maxAspect times as wide as high: rows wrap.
//   - Direction: a connection goes left to right, or back to the left
//     only into a section wholly below its own (a wrapped row); a branch's
//     first output (an IF's true) goes straight on or up, its later
//     outputs (an IF's false) straight on or down, in output order.
//   - Nothing hidden: no connection passes behind a node it does not
//     join (drawn as the straight line between the handles; a wrapped
//     one as n8n draws it, along a run under its source), and no two
//     connections cross.
func TestLayout(t *testing.T) {
	for f, e := range readExports(t) {
		c := layoutOf(t, f, e)
		checkSections(t, c)
		checkSize(t, c)
		checkConnections(t, c, edges(e), e)
	}
}

func checkSections(t *testing.T, c canvas) {
	if len(c.stickies) < 2 {
		t.Errorf("%s: %d sticky notes; group the nodes in sections under notes saying what each does", c.file, len(c.stickies))
	}
	for i, s := range c.stickies {
		if !strings.HasPrefix(s.text, "## ") || len(s.text) < minStickyText {
			t.Errorf("%s: sticky note %q must start with a \"## \" heading and say what its section does (%d chars, want %d)", c.file, s.name, len(s.text), minStickyText)
		}
		for _, o := range c.stickies[i+1:] {
			if s.r.overlaps(o.r) {
				t.Errorf("%s: sticky notes %q and %q overlap", c.file, s.name, o.name)
			}
		}
	}
	for name, b := range c.box {
		withLabel := rect{b.x0, b.y0, b.x1, b.y1 + labelBelow}
		in := -1
		for i, s := range c.stickies {
			if withLabel.inside(s.r) {
				if in >= 0 {
					t.Errorf("%s: %s is in two sections", c.file, name)
				}
				in = i
			}
		}
		if in < 0 {
			t.Errorf("%s: %s (with its name under it) is in no section's sticky note", c.file, name)
		} else if s := c.stickies[in]; b.y0 < s.r.y0+textRoom(s.text, s.r.x1-s.r.x0) {
			t.Errorf("%s: %s sits on the text of %q (its text reaches %.0f px below the note's top, the node %.0f): widen the note or lower the node",
				c.file, name, s.name, textRoom(s.text, s.r.x1-s.r.x0), b.y0-s.r.y0)
		}
		c.section[name] = in
		for other, o := range c.box {
			if other != name && b.overlaps(rect{o.x0 - 20, o.y0 - 20, o.x1 + 20, o.y1 + labelBelow}) {
				t.Errorf("%s: %s and %s overlap", c.file, name, other)
			}
		}
	}
}

func checkSize(t *testing.T, c canvas) {
	all := rect{1e18, 1e18, -1e18, -1e18}
	grow := func(r rect) {
		all = rect{min(all.x0, r.x0), min(all.y0, r.y0), max(all.x1, r.x1), max(all.y1, r.y1)}
	}
	for _, b := range c.box {
		grow(b)
	}
	for _, s := range c.stickies {
		grow(s.r)
	}
	w, h := all.x1-all.x0, all.y1-all.y0
	if w > maxCanvasW || h > maxCanvasH || w > maxAspect*h {
		t.Errorf("%s: canvas %.0f x %.0f px; want at most %d x %d and at most %.1f times as wide as high (wrap the rows)", c.file, w, h, maxCanvasW, maxCanvasH, maxAspect)
	}
}

// handles are where a connection leaves its source and enters its target.
func (c canvas) handles(ed edge) (a, b [2]float64) {
	s, d := c.box[ed.From], c.box[ed.To]
	return [2]float64{s.x1, (s.y0 + s.y1) / 2}, [2]float64{d.x0, (d.y0 + d.y1) / 2}
}

func checkConnections(t *testing.T, c canvas, es []edge, e export) {
	byOut := map[string]map[int][]float64{}
	for _, ed := range es {
		a, b := c.pos[ed.From], c.pos[ed.To]
		from, to := c.box[ed.From], c.box[ed.To]
		ha, hb := c.handles(ed)
		if b[0] <= a[0] {
			// A wrapped row: into a section wholly below, along a run under
			// the source that no node sits on.
			si, di := c.section[ed.From], c.section[ed.To]
			if si < 0 || di < 0 || c.stickies[di].r.y0 < c.stickies[si].r.y1 {
				t.Errorf("%s: %s -> %s goes right to left within a row (x %v -> %v); only a wrap to a section below may", c.file, ed.From, ed.To, a[0], b[0])
			}
			run := rect{to.x0 - 40, from.y1, from.x1 + 40, ha[1] + backwardDrop + 20}
			for name, o := range c.box {
				if name != ed.From && name != ed.To && o.overlaps(run) {
					t.Errorf("%s: the wrapped connection %s -> %s runs behind %s", c.file, ed.From, ed.To, name)
				}
			}
			continue
		}
		if branch := len(e.Connections[ed.From].Main) > 1; branch && ed.Out == 0 && b[1] > a[1] {
			t.Errorf("%s: %s's first output goes down to %s; it must go straight on or up", c.file, ed.From, ed.To)
		}
		if ed.Out > 0 && b[1] < a[1] {
			t.Errorf("%s: %s's output %d goes up to %s; later outputs go straight on or down", c.file, ed.From, ed.Out, ed.To)
		}
		for name, o := range c.box {
			if name != ed.From && name != ed.To && segmentHits(ha, hb, rect{o.x0 - 10, o.y0 - 10, o.x1 + 10, o.y1 + 10}) {
				t.Errorf("%s: %s -> %s (output %d) passes behind %s", c.file, ed.From, ed.To, ed.Out, name)
			}
		}
		if byOut[ed.From] == nil {
			byOut[ed.From] = map[int][]float64{}
		}
		byOut[ed.From][ed.Out] = append(byOut[ed.From][ed.Out], b[1])
	}
	for src, outs := range byOut {
		lowest := -1e18
		for i := 0; i < len(e.Connections[src].Main); i++ {
			top, bottom := 1e18, -1e18
			for _, y := range outs[i] {
				top, bottom = min(top, y), max(bottom, y)
			}
			if len(outs[i]) == 0 {
				continue
			}
			if top < lowest {
				t.Errorf("%s: %s's output %d leads above an earlier output's node", c.file, src, i)
			}
			lowest = bottom
		}
	}
	for i := range es {
		for j := i + 1; j < len(es); j++ {
			a, b := es[i], es[j]
			if a.From == b.From || a.To == b.To || a.From == b.To || a.To == b.From {
				continue // lines that meet at a node do not cross
			}
			if c.pos[a.To][0] <= c.pos[a.From][0] || c.pos[b.To][0] <= c.pos[b.From][0] {
				continue // wrapped rows run between the sections
			}
			if crosses(c.pos[a.From], c.pos[a.To], c.pos[b.From], c.pos[b.To]) {
				t.Errorf("%s: %s -> %s crosses %s -> %s", c.file, a.From, a.To, b.From, b.To)
			}
		}
	}
}

// crosses reports whether segments p1p2 and p3p4 cross at a point inside
// both (collinear segments, drawn along one row, do not count).
func crosses(p1, p2, p3, p4 [2]float64) bool {
	d := func(a, b, c [2]float64) float64 { return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0]) }
	d1, d2, d3, d4 := d(p3, p4, p1), d(p3, p4, p2), d(p1, p2, p3), d(p1, p2, p4)
	return (d1 > 0 && d2 < 0 || d1 < 0 && d2 > 0) && (d3 > 0 && d4 < 0 || d3 < 0 && d4 > 0)
}

// TestCrosses: the crossing rule finds an X and passes parallel rows.
func TestCrosses(t *testing.T) {
	if !crosses([2]float64{0, 0}, [2]float64{10, 10}, [2]float64{0, 10}, [2]float64{10, 0}) {
		t.Error("an X must cross")
	}
	if crosses([2]float64{0, 0}, [2]float64{10, 0}, [2]float64{0, 5}, [2]float64{10, 5}) {
		t.Error("two rows must not cross")
	}
	if crosses([2]float64{0, 0}, [2]float64{10, 0}, [2]float64{2, 0}, [2]float64{8, 0}) {
		t.Error("collinear lines along one row must not count")
	}
}
