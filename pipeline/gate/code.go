package gate

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// Kind selects the wrapper n8n puts around a snippet before V8 compiles it.
type Kind int

const (
	// KindCode is n8n-nodes-base.code (JS task runner, vm.runInContext).
	KindCode Kind = iota
	// KindFunction is n8n-nodes-base.function / functionItem (vm2 NodeVM).
	KindFunction
)

// Wrappers, copied from n8n 2.x: the JS task runner's
// JsTaskRunner.createVmExecutableCode (packages/@n8n/task-runner) for Code
// nodes, vm2's NodeVM module wrapper for Function nodes; the n8n workflow
// corpus (PRSCOUT_CORPUS, see docs/benchmarks.md) quotes both. Everything before the user's code stays on line 1, so a line in the wrapped
// source is the same line in the user's code.
const (
	// taskRunnerPrefix stands for the JS task runner's createVmExecutableCode
	// text before the user's code: its preamble statements joined with "; "
	// (globalThis.global = globalThis; var module = { exports: {} };
	// Object.getPrototypeOf = () => ({}); ... [Object, Function, ...].forEach(...))
	// and then `module.exports = async function VmCodeWrapper() {`. Of the
	// preamble only its one declaration, var module, can interact with user
	// code (code that closes the wrapper early and redeclares module), so the
	// gate parses this equivalent, shorter text; all of it stays on line 1.
	taskRunnerPrefix = `globalThis.global = globalThis; var module = { exports: {} }; ` +
		`module.exports = async function VmCodeWrapper() {`
	taskRunnerSuffix = "\n}()"
	// vm2 NodeVM compiles `module.exports = async function() {<code>\n}()`
	// inside its CommonJS module wrapper.
	vm2Prefix = `(function (exports, require, module, __filename, __dirname) { module.exports = async function() {`
	vm2Suffix = "\n}()\n});"
)

// Verdict values of a checked snippet.
const (
	VerdictOK          = "ok"           // V8 compiles the wrapped code
	VerdictSyntaxError = "syntax_error" // V8 throws a SyntaxError while compiling it
	VerdictUndecided   = "undecided"    // the gate cannot tell what V8 would say (see Error.Message)
	VerdictMissingCode = "missing_code" // no code (n8n 2.x fails the node: "No code to execute")
	VerdictSkipped     = "skipped"      // not JavaScript (Python Code node)
)

// Result is the verdict on one snippet. Line and Column are 1-based and count
// in the user's code (columns in Unicode code points); they are zero when
// the verdict is ok.
type Result struct {
	Verdict string
	Message string
	Line    int
	Column  int
	Excerpt string // the offending line of the user's code
}

// checkCode reports whether V8 compiles code wrapped as n8n wraps it for kind.
// It never panics. Code over DefaultLimits' size or nesting limits is
// refused (too_large, too_deep) without being parsed.
func checkCode(kind Kind, code string) Result { return defaultRun().checkCode(kind, code) }

func (r *run) checkCode(kind Kind, code string) (res Result) {
	defer func() {
		if x := recover(); x != nil {
			res = Result{Verdict: VerdictUndecided, Message: fmt.Sprintf("internal error in the JavaScript checker: %v", x)}
		}
	}()
	if !utf8.ValidString(code) {
		// JSON decoding already replaced invalid UTF-8; this is a caller feeding raw bytes.
		code = strings.ToValidUTF8(code, "\uFFFD")
	}
	prefix, suffix := taskRunnerPrefix, taskRunnerSuffix
	if kind == KindFunction {
		prefix, suffix = vm2Prefix, vm2Suffix
	}
	return r.check(prefix, code, suffix)
}

// check parses and compiles prefix+code+suffix with goja, then applies the
// V8 corrections (repairs for syntax goja lacks, regexp validation, early
// errors). Code over the size limit is not parsed; before each parse the
// source's nesting is measured (a repair can change it) and a source over
// the limit is not parsed either; the context is checked between parses.
func (r *run) check(prefix, code, suffix string) Result {
	src := []byte(prefix + code + suffix)
	base := len(prefix)
	if len(code) > r.lim.MaxCodeBytes {
		// A nesting bomb is named as one even when it is also too large
		// (the scan stops at the limit, so this costs little).
		if res, deep := r.tooDeep(code, src, base); deep {
			return res
		}
		return tooLarge(len(code), r.lim.MaxCodeBytes, "the code")
	}
	var fixes []*fix
	for attempt := 0; ; attempt++ {
		if res, stop := r.stopped(); stop {
			return res
		}
		if res, deep := r.tooDeep(code, src, base); deep {
			return res
		}
		prg, perr := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
		if perr != nil {
			off, msg := parseErrorOffset(string(src), perr)
			if attempt < maxRepairs {
				fixed, f, undecided, ok := repair(src, base, len(src)-len(suffix), off, msg)
				if ok {
					src = fixed
					if f != nil {
						fixes = append(fixes, f)
					}
					continue
				}
				if undecided != "" {
					r := errorAt(code, src, base, off, msg)
					r.Verdict, r.Message = VerdictUndecided, undecided+" (goja: "+msg+")"
					return r
				}
			}
			return errorAt(code, src, base, off, msg)
		}
		if at := htmlOpenInCode(prg, src, base, len(src)-len(suffix)); at >= 0 && attempt < maxRepairs {
			src = bytes.Clone(src)
			copy(src[at:], "//  ")
			continue
		}
		if off, msg, bad := postCheck(prg, fixes); bad {
			return errorAt(code, src, base, off, msg)
		}
		mayBeStrict := strings.Contains(code, "use strict")
		reErr, early := inspect(prg, src, mayBeStrict)
		if reErr.found {
			r := errorAt(code, src, base, reErr.off, reErr.msg)
			if reErr.undecided {
				r.Verdict = VerdictUndecided
			}
			return r
		}
		if early.found {
			return errorAt(code, src, base, early.off, early.msg)
		}
		if cerr := compile(prg); cerr != nil {
			r := errorAt(code, src, base, cerr.Offset, cerr.Message)
			if reason := compilerOnlyDifference(cerr.Message); reason != "" {
				r.Verdict, r.Message = VerdictUndecided, reason+" (goja: "+cerr.Message+")"
			}
			return r
		}
		return Result{Verdict: VerdictOK}
	}
}

const maxRepairs = 64

// tooDeep measures src's nesting (depth.go) and returns the too_deep verdict,
// located in the user's code, when it is over the limit.
func (r *run) tooDeep(code string, src []byte, base int) (Result, bool) {
	_, off, over, unbounded := nestingCheck(string(src), r.lim.MaxDepth)
	if !over {
		return Result{}, false
	}
	res := errorAt(code, src, base, off, "")
	res.Verdict = VerdictTooDeep
	res.Message = fmt.Sprintf("nested more than %d levels deep here (brackets, template substitutions and chained operators, "+
		"counting the wrapper n8n adds): not parsed, as the parser could exhaust the stack; split the expression or the chain", r.lim.MaxDepth)
	if unbounded != "" {
		res.Message = "the nesting of this code cannot be bounded before parsing (" + unbounded + "): not parsed, " +
			"as the parser could exhaust the stack; put the regular expression in parentheses or on its own line"
	}
	return res, true
}

// compile runs goja's compiler for the early errors its parser leaves to it
// (redeclarations, labels, break/continue targets, ...). Constructs goja
// compiles differently from V8 were adjusted in the AST beforehand (inspect).
func compile(prg *ast.Program) (cerr *goja.CompilerSyntaxError) {
	_, err := goja.CompileAST(prg, false)
	if err == nil {
		return nil
	}
	if e, ok := err.(*goja.CompilerSyntaxError); ok {
		return e
	}
	return &goja.CompilerSyntaxError{CompilerError: goja.CompilerError{Message: err.Error(), Offset: -1}}
}

// parseErrorOffset turns goja's first parse error (line/column in bytes) back
// into a byte offset in src.
func parseErrorOffset(src string, err error) (int, string) {
	if list, ok := err.(parser.ErrorList); ok && len(list) > 0 {
		e := list[0]
		return offsetOf(src, e.Position.Line, e.Position.Column), e.Message
	}
	if e, ok := err.(*parser.Error); ok {
		return offsetOf(src, e.Position.Line, e.Position.Column), e.Message
	}
	return -1, err.Error()
}

// lineStarts returns the byte offsets at which lines start, with the line
// terminators JavaScript knows (LF, CR, CRLF, LS, PS), as goja counts them.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
				i += 2
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

func offsetOf(src string, line, col int) int {
	starts := lineStarts(src)
	if line < 1 || line > len(starts) {
		return -1
	}
	off := starts[line-1] + col - 1
	if off < 0 || off > len(src) {
		return -1
	}
	return off
}

// errorAt builds a syntax_error result for byte offset off of the wrapped
// source src, mapped back into the user's code.
func errorAt(code string, src []byte, base, off int, msg string) Result {
	res := Result{Verdict: VerdictSyntaxError, Message: msg}
	if off < 0 {
		return res
	}
	rel := off - base
	if rel < 0 {
		rel = 0 // an error in the wrapper before the code: report the code's start
	}
	if rel >= len(code) {
		// The error is in the wrapper's closing `\n}()`: report the end of
		// the code, with the likely causes.
		rel = len(code)
		res.Message += " (after the end of the code: an unbalanced } or an unclosed bracket, string, template or comment)"
	}
	starts := lineStarts(code)
	line := 0
	for line+1 < len(starts) && starts[line+1] <= rel {
		line++
	}
	lineStart := starts[line]
	res.Line = line + 1
	res.Column = utf8.RuneCountInString(code[lineStart:rel]) + 1
	end := len(code)
	if line+1 < len(starts) {
		end = starts[line+1]
	}
	res.Excerpt = excerpt(strings.TrimRight(code[lineStart:end], "\r\n\u2028\u2029"), rel-lineStart)
	return res
}

// maxExcerpt bounds the excerpt of a report: one line of minified or
// generated code can be megabytes long.
const maxExcerpt = 400

// excerpt returns line whole, or, when it is longer than maxExcerpt bytes,
// its beginning (when the error at byte col is there) or a window around
// the error, marked with "…" (WriteText draws no caret under a window).
func excerpt(line string, col int) string {
	if len(line) <= maxExcerpt {
		return line
	}
	cut := func(s string, from, to int) string {
		from, to = max(from, 0), min(to, len(s))
		for from > 0 && !utf8.RuneStart(s[from]) {
			from--
		}
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		return s[from:to]
	}
	if col < maxExcerpt*3/4 {
		return cut(line, 0, maxExcerpt) + "…"
	}
	return "…" + cut(line, col-maxExcerpt/2, col+maxExcerpt/2) + "…"
}
