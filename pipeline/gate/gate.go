// Package gate decides, without running node, whether V8 would compile the
// JavaScript of each n8n Code / Function / FunctionItem node of a workflow
// export, wrapped exactly as n8n wraps it before running it.
//
// The checker is goja's parser and compiler, corrected towards V8: syntax that
// V8 accepts and goja lacks is repaired before re-parsing (HTML-like comments,
// legacy 08/09 literals, for await, import()), regular expression literals are
// validated by a V8-compatible pattern checker instead of goja's engine, and
// early errors goja misses are checked on the AST. What the gate cannot decide
// is reported as its own verdict, "undecided", never guessed.
//
// The package does no I/O: it takes bytes and returns a Report.
package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	gojson "github.com/goccy/go-json"
)

// Options tune CheckExport.
type Options struct {
	// Expressions also checks n8n expressions: every parameter string that
	// starts with "=" has each {{ ... }} chunk parsed as a JavaScript expression.
	Expressions bool
	// AllowUndecided counts "undecided" snippets as ok. By default the gate
	// fails closed: an undecided snippet makes the node and the report not ok.
	AllowUndecided bool
}

// Check kinds of a NodeResult.
const (
	CheckCodeNode   = "code"       // the node's JavaScript program
	CheckExpression = "expression" // one n8n expression parameter
)

// Report is the gate's answer for one or more workflow exports.
type Report struct {
	// OK is true when every checked node is ok and no input was a problem.
	OK       bool         `json:"ok"`
	Nodes    []NodeResult `json:"nodes"`
	Problems []Problem    `json:"problems"`
	Stats    Stats        `json:"stats"`
}

// NodeResult is the verdict on one node's code, or on one expression parameter.
type NodeResult struct {
	File       string `json:"file"`
	Workflow   string `json:"workflow"`             // the workflow's name ("" for a canvas copy)
	WorkflowID string `json:"workflowId,omitempty"` // the workflow's id when the export has one
	Node       string `json:"node"`
	Type       string `json:"type"`
	NodeIndex  int    `json:"nodeIndex"` // index in the workflow's nodes array
	OK         bool   `json:"ok"`
	Verdict    string `json:"verdict"` // ok | syntax_error | undecided | missing_code | skipped
	Check      string `json:"check"`   // code | expression
	// Parameter names the checked parameter: jsCode or functionCode, or the
	// dotted path of an expression parameter (e.g. "options.body[0].value").
	Parameter string     `json:"parameter"`
	Error     *NodeError `json:"error,omitempty"`
}

// NodeError locates a problem in the user's code (or expression text, without
// its leading "="): 1-based line and column (in Unicode code points), the
// message and the offending line.
type NodeError struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Excerpt string `json:"excerpt"`
}

// Problem is an input that could not be checked: not JSON, or not an n8n
// workflow export.
type Problem struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

// Stats counts what a check saw, for metrics.
type Stats struct {
	Files        int `json:"files"`        // inputs given
	Workflows    int `json:"workflows"`    // workflows found in them
	CodeNodes    int `json:"codeNodes"`    // code / function / functionItem nodes checked (incl. skipped)
	Expressions  int `json:"expressions"`  // expression parameters checked (when Options.Expressions)
	Invalid      int `json:"invalid"`      // results with verdict syntax_error or missing_code
	Undecided    int `json:"undecided"`    // results with verdict undecided
	Problems     int `json:"problems"`     // inputs that are not workflow exports
	SkippedNodes int `json:"skippedNodes"` // Python Code nodes
}

// Node types whose JavaScript the gate checks.
const (
	TypeCode         = "n8n-nodes-base.code"
	TypeFunction     = "n8n-nodes-base.function"
	TypeFunctionItem = "n8n-nodes-base.functionItem"
)

// NewReport returns an empty, ok report. Merge adds to it.
func NewReport() Report { return Report{OK: true, Nodes: []NodeResult{}, Problems: []Problem{}} }

// Merge appends o's results to r.
func (r *Report) Merge(o Report) {
	r.OK = r.OK && o.OK
	r.Nodes = append(r.Nodes, o.Nodes...)
	r.Problems = append(r.Problems, o.Problems...)
	r.Stats.Files += o.Stats.Files
	r.Stats.Workflows += o.Stats.Workflows
	r.Stats.CodeNodes += o.Stats.CodeNodes
	r.Stats.Expressions += o.Stats.Expressions
	r.Stats.Invalid += o.Stats.Invalid
	r.Stats.Undecided += o.Stats.Undecided
	r.Stats.Problems += o.Stats.Problems
	r.Stats.SkippedNodes += o.Stats.SkippedNodes
}

// AddProblem records an input that could not be checked.
func (r *Report) AddProblem(file, message string) {
	r.OK = false
	r.Problems = append(r.Problems, Problem{File: file, Message: message})
	r.Stats.Problems++
}

// CheckExport checks every JavaScript node of an n8n workflow export: a single
// workflow object (UI download, export --separate/--backup), an array of them
// (export --all / --id), a canvas copy {nodes, connections}, or an n8n.io
// template wrapper {workflow:{...}} / {data:{...}}. file only labels results.
// It never panics.
func CheckExport(file string, data []byte, opt Options) (rep Report) {
	rep = NewReport()
	rep.Stats.Files = 1
	defer func() {
		if x := recover(); x != nil {
			rep.AddProblem(file, fmt.Sprintf("internal error while checking: %v", x))
		}
	}()
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	wfs, msg := decodeExport(data)
	if msg != "" {
		rep.AddProblem(file, msg)
	}
	for _, wf := range wfs {
		rep.Stats.Workflows++
		checkWorkflow(&rep, file, wf, opt)
	}
	return rep
}

// rawWorkflow holds what the gate reads of a workflow; other fields
// (connections, pinData, ...) are skipped without being decoded.
type rawWorkflow struct {
	Name     any          `json:"name"`
	ID       any          `json:"id"`
	Nodes    *[]rawNode   `json:"nodes"`
	Workflow *rawWorkflow `json:"workflow"`
	Data     *rawWorkflow `json:"data"`
}

type rawNode struct {
	Name       any             `json:"name"`
	Type       any             `json:"type"`
	Parameters json.RawMessage `json:"parameters"`
	notObject  bool
}

type workflow struct {
	name, id string
	nodes    []rawNode
}

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func (rw *rawWorkflow) workflow() (workflow, bool) {
	if rw == nil || rw.Nodes == nil {
		return workflow{}, false
	}
	name, _ := rw.Name.(string)
	return workflow{name: name, id: scalarString(rw.ID), nodes: *rw.Nodes}, true
}

// fastUnmarshal decodes with goccy/go-json (about twice as fast as
// encoding/json on workflow exports, where most of the gate's time goes on big
// files). Any error or panic sends the caller to the encoding/json path,
// whose diagnostics the report quotes.
func fastUnmarshal(data []byte, v any) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("go-json: %v", x)
		}
	}()
	return gojson.Unmarshal(data, v)
}

// decodeExport finds the workflows of an export (see CheckExport) in one
// typed decoding pass; invalid JSON and exports with unexpected shapes take
// the generic path.
func decodeExport(data []byte) ([]workflow, string) {
	var out []workflow
	switch firstByte(data) {
	case '[':
		var arr []*rawWorkflow
		if err := fastUnmarshal(data, &arr); err == nil {
			if len(arr) == 0 {
				return nil, "not an n8n workflow export: empty array"
			}
			var bad []string
			for i, rw := range arr {
				if wf, ok := rw.workflow(); ok {
					out = append(out, wf)
				} else {
					bad = append(bad, fmt.Sprint(i))
				}
			}
			if len(bad) > 0 {
				return out, "not an n8n workflow: array element(s) " + strings.Join(bad, ", ") + " have no nodes array"
			}
			return out, ""
		}
	case '{':
		var rw rawWorkflow
		if err := fastUnmarshal(data, &rw); err == nil {
			for _, c := range []*rawWorkflow{&rw, rw.Workflow, rw.Data} {
				if wf, ok := c.workflow(); ok {
					return []workflow{wf}, ""
				}
			}
			return nil, "not an n8n workflow export: no \"nodes\" array"
		}
	}
	return decodeGeneric(data)
}

// decodeParams decodes a node's parameters (numbers kept as json.Number),
// with go-json and, should it fail, encoding/json.
func decodeParams(raw json.RawMessage) (params map[string]any) {
	if firstByte(raw) != '{' {
		return nil
	}
	func() {
		defer func() {
			if recover() != nil {
				params = nil
			}
		}()
		dec := gojson.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&params) != nil {
			params = nil
		}
	}()
	if params == nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&params)
	}
	return params
}

// decodeGeneric handles invalid JSON and exports whose fields have unexpected
// types (a node that is not an object, nodes that is not an array, ...),
// reporting them, with encoding/json.
func decodeGeneric(data []byte) ([]workflow, string) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Sprintf("not valid JSON: %v", err)
	}
	conv := func(v any) (workflow, bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return workflow{}, false
		}
		nodes, ok := m["nodes"].([]any)
		if !ok {
			return workflow{}, false
		}
		name, _ := m["name"].(string)
		wf := workflow{name: name, id: scalarString(m["id"])}
		for _, n := range nodes {
			nm, ok := n.(map[string]any)
			if !ok {
				wf.nodes = append(wf.nodes, rawNode{notObject: true})
				continue
			}
			params, _ := json.Marshal(nm["parameters"])
			wf.nodes = append(wf.nodes, rawNode{Name: nm["name"], Type: nm["type"], Parameters: params})
		}
		return wf, true
	}
	switch d := doc.(type) {
	case []any:
		var out []workflow
		var bad []string
		for i, el := range d {
			if wf, ok := conv(el); ok {
				out = append(out, wf)
			} else {
				bad = append(bad, fmt.Sprint(i))
			}
		}
		if len(bad) > 0 {
			return out, "not an n8n workflow: array element(s) " + strings.Join(bad, ", ") + " have no nodes array"
		}
		return out, ""
	case map[string]any:
		if wf, ok := conv(d); ok {
			return []workflow{wf}, ""
		}
		if _, has := d["nodes"]; has {
			return nil, "not an n8n workflow: \"nodes\" is not an array"
		}
		for _, k := range []string{"workflow", "data"} {
			if wf, ok := conv(d[k]); ok {
				return []workflow{wf}, ""
			}
		}
		return nil, "not an n8n workflow export: no \"nodes\" array"
	}
	return nil, "not an n8n workflow export: the JSON is neither an object nor an array"
}

func checkWorkflow(rep *Report, file string, wf workflow, opt Options) {
	for i, n := range wf.nodes {
		if n.notObject {
			rep.AddProblem(file, fmt.Sprintf("workflow %q: node %d is not an object", wf.name, i))
			continue
		}
		typ, _ := n.Type.(string)
		isCode := typ == TypeCode || typ == TypeFunction || typ == TypeFunctionItem
		if !isCode && !opt.Expressions {
			continue
		}
		base := NodeResult{File: file, Workflow: wf.name, WorkflowID: wf.id, Node: scalarString(n.Name), Type: typ, NodeIndex: i}
		params := decodeParams(n.Parameters)
		if r, ok := checkNodeCode(base, typ, params, opt); ok {
			rep.add(r, opt)
		}
		if opt.Expressions {
			rep.Stats.Expressions += countExpressions(params)
			for _, r := range checkExpressions(base, params) {
				rep.add(r, opt)
			}
		}
	}
}

func (r *Report) add(n NodeResult, opt Options) {
	switch n.Verdict {
	case VerdictOK, VerdictSkipped:
		n.OK = true
	case VerdictUndecided:
		n.OK = opt.AllowUndecided
		r.Stats.Undecided++
	default:
		r.Stats.Invalid++
	}
	if n.Verdict == VerdictSkipped {
		r.Stats.SkippedNodes++
	}
	if n.Check == CheckCodeNode {
		r.Stats.CodeNodes++
	}
	r.OK = r.OK && n.OK
	r.Nodes = append(r.Nodes, n)
}

// checkNodeCode checks the program of a code / function / functionItem node;
// ok is false for other node types.
func checkNodeCode(base NodeResult, typ string, params map[string]any, opt Options) (NodeResult, bool) {
	base.Check = CheckCodeNode
	var kind Kind
	var param string
	switch typ {
	case TypeCode:
		kind, param = KindCode, "jsCode"
		if lang, has := params["language"]; has && lang != nil && lang != "javaScript" {
			base.Parameter = "language"
			base.Verdict = VerdictSkipped
			base.Error = &NodeError{Message: fmt.Sprintf("not JavaScript (language %v): not checked", lang)}
			return base, true
		}
	case TypeFunction, TypeFunctionItem:
		kind, param = KindFunction, "functionCode"
	default:
		return base, false
	}
	base.Parameter = param
	v, has := params[param]
	code, isString := v.(string)
	switch {
	case !has && kind == KindFunction:
		// n8n runs the node's sample program, which is valid.
		base.Verdict = VerdictOK
		return base, true
	case !has || v == nil:
		base.Verdict = VerdictMissingCode
		base.Error = &NodeError{Message: param + " is missing: n8n fails the node (No code to execute)"}
		return base, true
	case !isString:
		base.Verdict = VerdictMissingCode
		base.Error = &NodeError{Message: fmt.Sprintf("%s is not a string but %s", param, jsonType(v))}
		return base, true
	case code == "" && kind == KindCode:
		base.Verdict = VerdictMissingCode
		base.Error = &NodeError{Message: param + " is empty: n8n fails the node (No code to execute)"}
		return base, true
	}
	res := CheckCode(kind, code)
	base.Verdict = res.Verdict
	if res.Verdict != VerdictOK {
		base.Error = &NodeError{Message: res.Message, Line: res.Line, Column: res.Column, Excerpt: res.Excerpt}
	}
	return base, true
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return fmt.Sprint(x)
	}
	return ""
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// sortedKeys returns m's keys in order, for deterministic reports.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countExpressions counts the expression parameters of a node.
func countExpressions(params map[string]any) int {
	n := 0
	forEachExpression(params, "", func(string, string) { n++ })
	return n
}
