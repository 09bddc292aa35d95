package sarif

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline/gate"
)

// Rule ids of the workflow gate's results.
const (
	RuleSyntaxError = "n8n/syntax-error"
	RuleMissingCode = "n8n/missing-code"
	RuleUndecided   = "n8n/undecided"
	RuleNotAnExport = "n8n/not-an-export"
)

var gateRules = []ReportingDescriptor{
	{ID: RuleSyntaxError, Name: "SyntaxError", ShortDescription: &MultiformatMessage{Text: "V8 does not compile the node's JavaScript as n8n wraps it"},
		DefaultConfiguration: &ReportingConfiguration{Level: LevelError}},
	{ID: RuleMissingCode, Name: "MissingCode", ShortDescription: &MultiformatMessage{Text: "A Code node without JavaScript: n8n fails it (No code to execute)"},
		DefaultConfiguration: &ReportingConfiguration{Level: LevelError}},
	{ID: RuleUndecided, Name: "Undecided", ShortDescription: &MultiformatMessage{Text: "The gate cannot tell whether V8 compiles this code; it fails closed"},
		DefaultConfiguration: &ReportingConfiguration{Level: LevelError}},
	{ID: RuleNotAnExport, Name: "NotAnExport", ShortDescription: &MultiformatMessage{Text: "The file is not an n8n workflow export, or cannot be read"},
		DefaultConfiguration: &ReportingConfiguration{Level: LevelError}},
}

func gateRule(verdict string) string {
	switch verdict {
	case gate.VerdictMissingCode:
		return RuleMissingCode
	case gate.VerdictUndecided:
		return RuleUndecided
	}
	return RuleSyntaxError
}

// FromGateReport writes a workflow gate report (`prscout validate-workflow`)
// as one run of the tool "prscout-workflow-gate": one result per node
// result that is not ok (syntax_error, missing_code, or undecided when the
// gate fails closed), and one per input that is not a workflow export.
//
// A node's result points into the export file: sources holds each file's
// bytes by the name the report uses, and the error's line and column in the
// node's code (or expression) are mapped to the line and column of the
// export where that character is written inside the JSON string (columns in
// Unicode code points, run.columnKind "unicodeCodePoints"). When the file
// is not in sources or the node cannot be found in it, the result points at
// the file alone and says where in the code the error is. Every result also
// names the workflow node as a logical location.
func FromGateReport(rep gate.Report, sources map[string][]byte, opt Options) Log {
	run := Run{
		Tool:       Tool{Driver: ToolComponent{Name: "prscout-workflow-gate", Version: opt.ToolVersion, Rules: gateRules}},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for i, r := range gateRules {
		index[r.ID] = i
	}
	trees := map[string]*jsonNode{}
	for _, n := range rep.Nodes {
		if n.OK {
			continue
		}
		id := gateRule(n.Verdict)
		idx := index[id]
		uri, base := fileURI(n.File)
		phys := &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri, URIBaseID: base}}
		text := gateMessage(n)
		if src, ok := sources[n.File]; ok {
			tree, seen := trees[n.File]
			if !seen {
				tree = parseTree(src)
				trees[n.File] = tree
			}
			if reg, ok := locateNode(src, tree, n); ok {
				phys.Region = reg
			}
		}
		if phys.Region == nil && n.Error != nil && n.Error.Line > 0 {
			text += fmt.Sprintf(" (line %d, column %d of the node's %s)", n.Error.Line, n.Error.Column, n.Parameter)
		}
		fq := n.Node
		if n.Workflow != "" {
			fq = n.Workflow + "/" + n.Node
		}
		if n.Parameter != "" {
			fq += "/" + n.Parameter
		}
		res := Result{
			RuleID: id, RuleIndex: &idx, Level: LevelError, Message: Message{Text: text},
			Locations: []Location{{
				PhysicalLocation: phys,
				LogicalLocations: []LogicalLocation{{Name: n.Node, FullyQualifiedName: fq, Kind: "object"}},
			}},
			Properties: map[string]any{"verdict": n.Verdict, "check": n.Check, "nodeType": n.Type},
		}
		run.Results = append(run.Results, res)
	}
	for _, p := range rep.Problems {
		idx := index[RuleNotAnExport]
		uri, base := fileURI(p.File)
		run.Results = append(run.Results, Result{
			RuleID: RuleNotAnExport, RuleIndex: &idx, Level: LevelError, Message: Message{Text: p.Message},
			Locations: []Location{{PhysicalLocation: &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri, URIBaseID: base}}}},
		})
	}
	s := rep.Stats
	run.Properties = map[string]any{
		"files": s.Files, "workflows": s.Workflows, "codeNodes": s.CodeNodes, "expressions": s.Expressions,
		"invalid": s.Invalid, "undecided": s.Undecided, "problems": s.Problems,
	}
	run.Invocations = []Invocation{{ExecutionSuccessful: true}}
	return newLog(run)
}

// gateMessage is the text validate-workflow prints for a node, on one line.
func gateMessage(n gate.NodeResult) string {
	var b strings.Builder
	kind := ""
	if n.Check == gate.CheckExpression {
		kind = "expression "
	}
	if n.Workflow != "" {
		fmt.Fprintf(&b, "workflow %q ", n.Workflow)
	}
	fmt.Fprintf(&b, "node %q (%s) %s%s", n.Node, n.Type, kind, n.Parameter)
	if n.Error != nil {
		b.WriteString(": " + n.Error.Message)
	}
	return b.String()
}

// locateNode finds the node's parameter string in the export and maps the
// error's position in the code to the file.
func locateNode(src []byte, tree *jsonNode, n gate.NodeResult) (*Region, bool) {
	if tree == nil {
		return nil, false
	}
	str, node := findParameter(tree, n)
	if str == nil || str.kind != kindString {
		// No code to point into (a missing or non-string jsCode): point at
		// the node's name.
		if name := node.get("name"); name != nil {
			fl, fc := filePosition(src, name.start)
			return &Region{StartLine: fl, StartColumn: fc}, true
		}
		return nil, false
	}
	if n.Error == nil || n.Error.Line < 1 {
		// A verdict without a position (empty code): the string itself.
		fl, fc := filePosition(src, str.start)
		return &Region{StartLine: fl, StartColumn: fc}, true
	}
	line, col := n.Error.Line, n.Error.Column
	skip := 0
	if n.Check == gate.CheckExpression {
		skip = 1 // positions count in the expression text after its leading "="
	}
	off, ok := rawOffset(src[str.start:str.end], line, col, skip)
	if !ok {
		return nil, false
	}
	fl, fc := filePosition(src, str.start+off)
	reg := &Region{StartLine: fl, StartColumn: fc}
	if n.Error.Excerpt != "" {
		reg.Snippet = &ArtifactContent{Text: n.Error.Excerpt}
	}
	return reg, true
}

// findParameter finds the JSON string of the node's parameter: in the
// workflow named n.Workflow (the export itself, an element of an exported
// array, or the workflow/data wrapper of a template), node n.NodeIndex of
// its nodes array when its name is n.Node, then the dotted parameter path
// ("jsCode", "options.body[0].value") under its parameters. It returns the
// parameter's value (nil when absent) and the node (nil when not found).
func findParameter(root *jsonNode, n gate.NodeResult) (param, node *jsonNode) {
	var workflows []*jsonNode
	switch root.kind {
	case kindArray:
		workflows = root.elems
	case kindObject:
		workflows = append(workflows, root)
		for _, k := range []string{"workflow", "data"} {
			if w := root.get(k); w != nil {
				workflows = append(workflows, w)
			}
		}
	}
	for _, wf := range workflows {
		if wf.kind != kindObject {
			continue
		}
		nodes := wf.get("nodes")
		if nodes == nil || nodes.kind != kindArray || n.NodeIndex < 0 || n.NodeIndex >= len(nodes.elems) {
			continue
		}
		if name := wf.get("name"); n.Workflow != "" && (name == nil || name.str != n.Workflow) {
			continue
		}
		nd := nodes.elems[n.NodeIndex]
		if name := nd.get("name"); name == nil || name.str != n.Node {
			continue
		}
		if v := nd.get("parameters").path(n.Parameter); v != nil {
			return v, nd
		}
		if node == nil {
			node = nd
		}
	}
	return nil, node
}
