package gate

import (
	"strings"

	"github.com/dop251/goja/ast"

	"github.com/prscout/prscout/pipeline/gate/jsregexp"
)

// finding is the first problem of one kind found on the AST.
type finding struct {
	off       int
	msg       string
	undecided bool
	found     bool
}

func (f *finding) set(off int, msg string, undecided bool) {
	if !f.found {
		*f = finding{off: off, msg: msg, undecided: undecided, found: true}
	}
}

// inspect walks the AST once and
//   - validates regular expression literals as V8 does (then empties them,
//     see jsregexp.Check),
//   - applies V8 early errors goja accepts (see earlyError),
//   - rewrites constructs V8 accepts and goja's compiler refuses, keeping
//     what matters for early errors: async generators ("not supported yet" in
//     goja) are compiled as generators (their await expressions were already
//     accepted by the parser); a labelled function declaration in a statement
//     list (Annex B, sloppy code only) loses its label (labels do not cross
//     function boundaries, so no break/continue can refer to it).
func inspect(prg *ast.Program, src []byte, mayBeStrict bool) (regexpErr, early finding) {
	walk(prg, func(n any, stack []any) {
		switch n := n.(type) {
		case *ast.RegExpLiteral:
			if off, msg, und, bad := jsregexp.Check(n, src); bad {
				regexpErr.set(off, msg, und)
			}
		case *ast.FunctionLiteral:
			if n.Async && n.Generator {
				n.Async = false
			}
		case *ast.BlockStatement:
			if !mayBeStrict {
				unlabelFunctions(n.List)
			}
		case *ast.Program:
			if !mayBeStrict {
				unlabelFunctions(n.Body)
			}
		}
		if !early.found {
			if off, msg, bad := earlyError(n, stack); bad {
				early.set(off, msg, false)
			}
		}
	})
	return regexpErr, early
}

func unlabelFunctions(list []ast.Statement) {
	for i, st := range list {
		inner := st
		for {
			l, ok := inner.(*ast.LabelledStatement)
			if !ok {
				break
			}
			inner = l.Statement
		}
		if fd, ok := inner.(*ast.FunctionDeclaration); ok && inner != st && !fd.Function.Async && !fd.Function.Generator {
			list[i] = fd
		}
	}
}

// compilerOnlyDifference names goja compiler errors known to differ from V8
// that the AST adjustments do not cover.
func compilerOnlyDifference(msg string) string {
	switch {
	case strings.Contains(msg, "not supported"):
		return "goja does not support this construct; V8's verdict is unknown to the gate"
	case strings.HasPrefix(msg, "Compiler bug"):
		return "goja's compiler failed on this code; V8's verdict is unknown to the gate"
	}
	return ""
}

// earlyError applies to one node the V8 early errors that goja accepts.
func earlyError(n any, stack []any) (off int, msg string, bad bool) {
	switch n := n.(type) {
	case *ast.Optional:
		if ne, ok := n.Expression.(*ast.NewExpression); ok && ne.LeftParenthesis == 0 {
			return int(ne.New) - 1, "Invalid optional chain from new expression", true
		}
	case *ast.StringLiteral:
		if legacyOctalEscape(n.Literal) && strictAt(stack) {
			return int(n.Idx) - 1, "Octal escape sequences are not allowed in strict mode.", true
		}
	case *ast.NumberLiteral:
		if len(n.Literal) > 1 && n.Literal[0] == '0' && n.Literal[1] >= '0' && n.Literal[1] <= '9' && strictAt(stack) {
			return int(n.Idx) - 1, "Octal literals are not allowed in strict mode.", true
		}
	}
	return 0, "", false
}

// legacyOctalEscape reports whether a raw string literal has \0 followed by a
// digit, \1-\7, \8 or \9.
func legacyOctalEscape(raw string) bool {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		c := raw[i+1]
		if (c >= '1' && c <= '9') || (c == '0' && i+2 < len(raw) && raw[i+2] >= '0' && raw[i+2] <= '9') {
			return true
		}
		i++
	}
	return false
}

// strictAt reports whether code at the top of stack is strict: inside a class,
// or inside a function whose body starts with a "use strict" directive. The
// n8n wrappers themselves are sloppy.
func strictAt(stack []any) bool {
	for _, n := range stack {
		switch n := n.(type) {
		case *ast.ClassLiteral:
			return true
		case *ast.FunctionLiteral:
			if n.Body != nil && hasUseStrict(n.Body.List) {
				return true
			}
		case *ast.ArrowFunctionLiteral:
			if b, ok := n.Body.(*ast.BlockStatement); ok && hasUseStrict(b.List) {
				return true
			}
		}
	}
	return false
}

func hasUseStrict(list []ast.Statement) bool {
	for _, st := range list {
		es, ok := st.(*ast.ExpressionStatement)
		if !ok {
			return false
		}
		s, ok := es.Expression.(*ast.StringLiteral)
		if !ok {
			return false
		}
		if s.Literal == `"use strict"` || s.Literal == `'use strict'` {
			return true
		}
	}
	return false
}
