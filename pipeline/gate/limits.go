package gate

import (
	"context"
	"errors"
	"fmt"
)

// Verdicts for snippets the gate refuses to parse. They fail closed: the
// node is not ok, whatever Options.AllowUndecided says.
const (
	// VerdictTooDeep: the snippet, or the node's parameters, nest deeper than
	// the limit (see depth.go). goja's parser is a recursive descent whose
	// stack overflow cannot be recovered, so such input is never parsed.
	VerdictTooDeep = "too_deep"
	// VerdictTooLarge: the snippet is over the size limit per snippet, or the
	// workflow's snippets together are over the limit per workflow.
	VerdictTooLarge = "too_large"
	// VerdictTimeout: the check's time budget ran out (or its caller went
	// away) before this snippet was checked.
	VerdictTimeout = "timeout"
)

// Limits bound the time and memory one check may take. Zero fields take the
// values of DefaultLimits.
type Limits struct {
	// MaxDepth bounds the nesting figure of one snippet (depth.go): brackets,
	// template substitutions and operator chains. The corpus of real n8n
	// workflows peaks at 70 (a 30-step method chain).
	MaxDepth int
	// MaxCodeBytes bounds one snippet: a node's code or one expression
	// parameter. The largest snippet of the corpus is 425 KB.
	MaxCodeBytes int
	// MaxWorkflowCodeBytes bounds the snippets of one workflow together (each
	// expression chunk counts 64 bytes more than its text, for the parse it
	// costs). Snippets past it are too_large.
	MaxWorkflowCodeBytes int
	// MaxNodes bounds the nodes of one workflow (the corpus peaks at 246).
	MaxNodes int
	// MaxParamDepth bounds how deep a node's parameters nest (the corpus
	// peaks at 10); a deeper node is too_deep and its parameters are not
	// decoded.
	MaxParamDepth int
	// MaxParamBytes bounds the JSON text of one node's parameters; a larger
	// node is too_large and its parameters are not decoded.
	MaxParamBytes int
	// MaxJSONDepth bounds how deep the whole export nests; a deeper export is
	// a problem and is not decoded.
	MaxJSONDepth int
	// MaxExportBytes bounds the export; a larger one is a problem and is not
	// decoded. The corpus's largest export is 427 KB.
	MaxExportBytes int
}

// DefaultLimits are generous for real workflows (see each field) and keep a
// check's memory in the low hundreds of megabytes.
func DefaultLimits() Limits {
	return Limits{
		MaxDepth:             500,
		MaxCodeBytes:         1 << 20,
		MaxWorkflowCodeBytes: 4 << 20,
		MaxNodes:             2000,
		MaxParamDepth:        64,
		MaxParamBytes:        4 << 20,
		MaxJSONDepth:         256,
		MaxExportBytes:       16 << 20,
	}
}

// WithDefaults returns l with its zero (or negative) fields set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxDepth, d.MaxDepth)
	set(&l.MaxCodeBytes, d.MaxCodeBytes)
	set(&l.MaxWorkflowCodeBytes, d.MaxWorkflowCodeBytes)
	set(&l.MaxNodes, d.MaxNodes)
	set(&l.MaxParamDepth, d.MaxParamDepth)
	set(&l.MaxParamBytes, d.MaxParamBytes)
	set(&l.MaxJSONDepth, d.MaxJSONDepth)
	set(&l.MaxExportBytes, d.MaxExportBytes)
	return l
}

// exprChunkCost is what one expression chunk costs the workflow budget
// beyond its text: a parse of even an empty chunk is not free.
const exprChunkCost = 64

// run is the state of one check: its context, its limits and the snippet
// bytes the current workflow has used.
type run struct {
	ctx  context.Context
	lim  Limits
	used int
	// budgetOut is set when a snippet did not fit the workflow's budget:
	// that snippet is reported too_large, the rest of the workflow is skipped.
	budgetOut bool
}

// startWorkflow resets the per-workflow budget.
func (r *run) startWorkflow() { r.used, r.budgetOut = 0, false }

func newRun(ctx context.Context, lim Limits) *run {
	if ctx == nil {
		ctx = context.Background()
	}
	return &run{ctx: ctx, lim: lim.WithDefaults()}
}

// defaultRun is the run of the exported single-snippet checks: no deadline,
// default limits, no workflow budget.
func defaultRun() *run {
	r := newRun(context.Background(), Limits{})
	r.lim.MaxWorkflowCodeBytes = int(^uint(0) >> 1)
	return r
}

// spend charges n bytes to the workflow budget; false means the budget is
// exhausted (nothing is charged then, and budgetOut is set).
func (r *run) spend(n int) bool {
	if r.budgetOut || r.used+n > r.lim.MaxWorkflowCodeBytes {
		r.budgetOut = true
		return false
	}
	r.used += n
	return true
}

// spendOn runs check when n bytes fit the workflow's budget, and answers
// too_large otherwise.
func (r *run) spendOn(n int, check func() Result) Result {
	if !r.spend(n) {
		return r.overBudget()
	}
	return check()
}

func (r *run) overBudget() Result {
	return Result{Verdict: VerdictTooLarge, Message: fmt.Sprintf("not checked, nor the rest of the workflow: its code and expressions are over the limit of %d bytes in all", r.lim.MaxWorkflowCodeBytes)}
}

// stopped returns the verdict for a snippet the run can no longer check
// because its context ended, or ok=false while it may go on.
func (r *run) stopped() (Result, bool) {
	err := r.ctx.Err()
	if err == nil {
		return Result{}, false
	}
	return Result{Verdict: VerdictTimeout, Message: stopReason(err)}, true
}

func stopReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "not checked: the check's time budget ran out"
	}
	return "not checked: the check was cancelled"
}

func tooLarge(n, limit int, what string) Result {
	return Result{Verdict: VerdictTooLarge, Message: fmt.Sprintf("%s is %d bytes, over the limit of %d bytes: not checked", what, n, limit)}
}

// jsonDepth returns how deep the JSON text data nests (objects and arrays),
// stopping as soon as it passes limit. It skips strings and never recurses,
// so it is safe on any input; invalid JSON just gets a figure.
func jsonDepth(data []byte, limit int) (depth int, exceeded bool) {
	d := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			d++
			if d > depth {
				depth = d
				if depth > limit {
					return depth, true
				}
			}
		case '}', ']':
			if d > 0 {
				d--
			}
		}
	}
	return depth, false
}
