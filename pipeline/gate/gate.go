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
	"context"
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
	// It never lets too_deep, too_large or timeout pass.
	AllowUndecided bool
	// Limits bound the check's time and memory; zero fields take
	// DefaultLimits.
	Limits Limits
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
	Verdict    string `json:"verdict"` // ok | syntax_error | undecided | missing_code | skipped | too_deep | too_large | timeout
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
	Invalid      int `json:"invalid"`      // results with verdict syntax_error, missing_code, too_deep, too_large or timeout
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
// It never panics, and its work is bounded by opt.Limits (see
// CheckExportContext).
func CheckExport(file string, data []byte, opt Options) Report {
	return CheckExportContext(context.Background(), file, data, opt)
}

// CheckExportContext is CheckExport bounded by ctx as well: ctx is checked
// before each parse, and when it ends the nodes not yet checked are reported
// as not checked (a problem: the report is not ok). An export over
// Limits.MaxExportBytes or nesting deeper than Limits.MaxJSONDepth is a
// problem and is not decoded; a workflow with more than Limits.MaxNodes
// nodes is a problem and is not checked; nodes and snippets over the other
// limits get the verdicts too_large or too_deep. All of them fail closed.
func CheckExportContext(ctx context.Context, file string, data []byte, opt Options) (rep Report) {
	rep = NewReport()
	rep.Stats.Files = 1
	defer func() {
		if x := recover(); x != nil {
			rep.AddProblem(file, fmt.Sprintf("internal error while checking: %v", x))
		}
	}()
	r := newRun(ctx, opt.Limits)
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if len(data) > r.lim.MaxExportBytes {
		rep.AddProblem(file, fmt.Sprintf("the export is %d bytes, over the limit of %d bytes: not checked", len(data), r.lim.MaxExportBytes))
		return rep
	}
	if _, over := jsonDepth(data, r.lim.MaxJSONDepth); over {
		rep.AddProblem(file, fmt.Sprintf("the JSON nests more than %d levels deep: not checked", r.lim.MaxJSONDepth))
		return rep
	}
	wfs, msg := decodeExport(data)
	if msg != "" {
		rep.AddProblem(file, msg)
	}
	for _, wf := range wfs {
		rep.Stats.Workflows++
		if !checkWorkflow(&rep, r, file, wf, opt) {
			break
		}
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

// decodeParams decodes a node's parameters (numbers kept as json.Number)
// with encoding/json: go-json's stream decoder moves the rest of its buffer
// for every escape in a string, which is quadratic on a large code parameter
// (a 2 MB jsCode took seconds).
func decodeParams(raw json.RawMessage) (params map[string]any) {
	if firstByte(raw) != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&params)
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

// checkWorkflow checks the nodes of one workflow; it returns false when the
// run's context ended (the rest of the export is not checked either).
func checkWorkflow(rep *Report, r *run, file string, wf workflow, opt Options) bool {
	r.startWorkflow()
	if len(wf.nodes) > r.lim.MaxNodes {
		rep.AddProblem(file, fmt.Sprintf("workflow %q has %d nodes, over the limit of %d: not checked", wf.name, len(wf.nodes), r.lim.MaxNodes))
		return true
	}
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
		if err := r.ctx.Err(); err != nil {
			rep.AddProblem(file, fmt.Sprintf("workflow %q: node %d (%q) and the nodes after it were %s", wf.name, i, scalarString(n.Name), strings.TrimPrefix(stopReason(err), "not checked: ")))
			return false
		}
		base := NodeResult{File: file, Workflow: wf.name, WorkflowID: wf.id, Node: scalarString(n.Name), Type: typ, NodeIndex: i}
		if r.budgetOut {
			// The workflow's budget ran out at an earlier node; that node's
			// result says so, the rest are left out.
			continue
		}
		if res, refused := r.checkParams(base, isCode, n.Parameters); refused {
			rep.add(res, opt)
			continue
		}
		params := decodeParams(n.Parameters)
		if res, ok := r.checkNodeCode(base, typ, params, opt); ok {
			rep.add(res, opt)
		}
		if opt.Expressions {
			rep.Stats.Expressions += countExpressions(params)
			for _, x := range r.checkExpressions(base, params) {
				rep.add(x, opt)
			}
		}
	}
	if err := r.ctx.Err(); err != nil {
		rep.AddProblem(file, fmt.Sprintf("workflow %q: %s", wf.name, stopReason(err)))
		return false
	}
	return true
}

// checkParams refuses a node whose raw parameters are over the size or
// nesting limits, before they are decoded.
func (r *run) checkParams(base NodeResult, isCode bool, raw json.RawMessage) (NodeResult, bool) {
	base.Check, base.Parameter = CheckExpression, "parameters"
	if isCode {
		base.Check = CheckCodeNode
	}
	if len(raw) > r.lim.MaxParamBytes {
		base.Verdict = VerdictTooLarge
		base.Error = &NodeError{Message: fmt.Sprintf("the node's parameters are %d bytes of JSON, over the limit of %d bytes: not checked", len(raw), r.lim.MaxParamBytes)}
		return base, true
	}
	if _, over := jsonDepth(raw, r.lim.MaxParamDepth); over {
		base.Verdict = VerdictTooDeep
		base.Error = &NodeError{Message: fmt.Sprintf("the node's parameters nest more than %d levels deep: not checked", r.lim.MaxParamDepth)}
		return base, true
	}
	return base, false
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
func (r *run) checkNodeCode(base NodeResult, typ string, params map[string]any, opt Options) (NodeResult, bool) {
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
	res := r.spendOn(len(code), func() Result { return r.checkCode(kind, code) })
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
