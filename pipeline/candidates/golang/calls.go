package golang

import (
	"go/ast"
	"go/token"
	"slices"
)

// bracketSpan is a node's bracketed part that spans lines: a call's
// parentheses (callee set), a block's, a literal's or an index's.
type bracketSpan struct {
	open, close token.Pos
	callee      *ast.Ident
}

// enclosingCallees answers the callees of the calls whose arguments the
// added lines change while the callee's line is unchanged, as
// lexed.EnclosingCalls does for the token readers: an added line counts
// for the call whose parentheses are the innermost brackets open across
// it (a line in a function literal's or a composite literal's braces
// inside the arguments does not).
func enclosingCallees(f *goFile, added map[int]bool) map[*ast.Ident]bool {
	if len(added) == 0 || f.ast == nil {
		return nil
	}
	line := f.tf.Line
	var spans []bracketSpan
	add := func(open, close token.Pos, callee *ast.Ident) {
		if open.IsValid() && close.IsValid() && line(open) < line(close) {
			spans = append(spans, bracketSpan{open, close, callee})
		}
	}
	ast.Inspect(f.ast, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			add(n.Lparen, n.Rparen, calleeIdent(n.Fun))
		case *ast.BlockStmt:
			add(n.Lbrace, n.Rbrace, nil)
		case *ast.CompositeLit:
			add(n.Lbrace, n.Rbrace, nil)
		case *ast.IndexExpr:
			add(n.Lbrack, n.Rbrack, nil)
		case *ast.IndexListExpr:
			add(n.Lbrack, n.Rbrack, nil)
		case *ast.ParenExpr:
			add(n.Lparen, n.Rparen, nil)
		case *ast.FieldList:
			add(n.Opening, n.Closing, nil)
		}
		return true
	})
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b bracketSpan) int { return int(a.open - b.open) })
	lines := make([]int, 0, len(added))
	for l, ok := range added {
		if ok {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	var out map[*ast.Ident]bool
	var open []bracketSpan // nested: each inside the one before
	next := 0
	for _, l := range lines {
		for next < len(spans) && line(spans[next].open) < l {
			open = append(open, spans[next])
			next++
		}
		// Properly nested spans close innermost first.
		for n := len(open); n > 0 && line(open[n-1].close) < l; n = len(open) {
			open = open[:n-1]
		}
		if n := len(open); n > 0 {
			if c := open[n-1].callee; c != nil && !added[line(c.Pos())] {
				if out == nil {
					out = map[*ast.Ident]bool{}
				}
				out[c] = true
			}
		}
	}
	return out
}

// calleeIdent is the name a call's function expression ends in: f in
// f(...), m in x.m(...) and in x.m[T](...); nil for other expressions.
func calleeIdent(fun ast.Expr) *ast.Ident {
	switch e := fun.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.IndexExpr:
		return calleeIdent(e.X)
	case *ast.IndexListExpr:
		return calleeIdent(e.X)
	}
	return nil
}
