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

// TestLayout: the editor shows each workflow without a tangle. A node's
// first output (an IF's true, a Switch's first rule) goes straight on or
// up, its later outputs straight on or down, in output order from top to
// bottom; every connection goes left to right; no two connections cross
// (drawn as straight lines between the nodes' positions).
func TestLayout(t *testing.T) {
	for f, e := range readExports(t) {
		pos := map[string][2]float64{}
		for _, n := range e.Nodes {
			pos[n.Name] = n.Position
		}
		es := edges(e)
		byOut := map[string]map[int][]float64{}
		for _, ed := range es {
			a, b := pos[ed.From], pos[ed.To]
			if b[0] <= a[0] {
				t.Errorf("%s: %s -> %s goes right to left (x %v -> %v)", f, ed.From, ed.To, a[0], b[0])
			}
			if ed.Out == 0 && b[1] > a[1] {
				t.Errorf("%s: %s's first output goes down to %s; it must go straight on or up", f, ed.From, ed.To)
			}
			if ed.Out > 0 && b[1] < a[1] {
				t.Errorf("%s: %s's output %d goes up to %s; later outputs go straight on or down", f, ed.From, ed.Out, ed.To)
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
					t.Errorf("%s: %s's output %d leads above an earlier output's node", f, src, i)
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
				if crosses(pos[a.From], pos[a.To], pos[b.From], pos[b.To]) {
					t.Errorf("%s: %s -> %s crosses %s -> %s", f, a.From, a.To, b.From, b.To)
				}
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
