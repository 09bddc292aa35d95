// Package goast reads what the Go reader needs off a parsed file's syntax
// alone, with no knowledge of the repository: the name a call calls, the
// type name of a receiver or an embedded field, and the callees of the
// calls whose arguments a change's lines edit.
package goast

import (
	"go/ast"
	"go/token"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Callee returns the ident c calls (f() or x.f()), nil when none.
func Callee(c *ast.CallExpr) *ast.Ident {
	switch fn := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		return fn
	case *ast.SelectorExpr:
		return fn.Sel
	case *ast.IndexExpr:
		if id, ok := fn.X.(*ast.Ident); ok {
			return id
		} else if s, ok := fn.X.(*ast.SelectorExpr); ok {
			return s.Sel
		}
	}
	return nil
}

// RecvName returns the base type name of a receiver type expression.
func RecvName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// Members answers the fields of a struct type or the methods of an
// interface type (iface); nil for any other type expression.
func Members(x ast.Expr) (list *ast.FieldList, iface bool) {
	switch t := x.(type) {
	case *ast.StructType:
		return t.Fields, false
	case *ast.InterfaceType:
		return t.Methods, true
	}
	return nil, false
}

// SelName returns Sel of an embedded pkg.T (or *pkg.T).
func SelName(x ast.Expr) string {
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if s, ok := x.(*ast.SelectorExpr); ok {
		return s.Sel.Name
	}
	return ""
}

// EnclosingCallees answers the callees of the calls whose arguments the
// added lines change (engine.EnclosingCalls), over the brackets of file's
// syntax tree (tf its lines): calls' parentheses, blocks', literals', indexes' and
// parameter lists'.
func EnclosingCallees(file *ast.File, tf *token.File, added map[int]bool) map[*ast.Ident]bool {
	if len(added) == 0 || file == nil {
		return nil
	}
	type bracket struct {
		open, close token.Pos
		callee      *ast.Ident
	}
	// A node whose lines hold no added line holds no bracket that encloses
	// one: it is not walked, when the added lines are few enough (under a
	// quarter of the file's) for the test to cost less than it saves.
	var lines []int
	if len(added)*4 < tf.LineCount() {
		for l, ok := range added {
			if ok {
				lines = append(lines, l)
			}
		}
		slices.Sort(lines)
	}
	var bs []bracket
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if lines != nil {
			if k, _ := slices.BinarySearch(lines, tf.Line(n.Pos())); k == len(lines) || lines[k] > tf.Line(n.End()) {
				return false
			}
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			bs = append(bs, bracket{n.Lparen, n.Rparen, Callee(n)})
		case *ast.BlockStmt:
			bs = append(bs, bracket{n.Lbrace, n.Rbrace, nil})
		case *ast.CompositeLit:
			bs = append(bs, bracket{n.Lbrace, n.Rbrace, nil})
		case *ast.IndexExpr:
			bs = append(bs, bracket{n.Lbrack, n.Rbrack, nil})
		case *ast.ParenExpr:
			bs = append(bs, bracket{n.Lparen, n.Rparen, nil})
		case *ast.FieldList:
			bs = append(bs, bracket{n.Opening, n.Closing, nil})
		}
		return true
	})
	slices.SortFunc(bs, func(a, b bracket) int { return int(a.open - b.open) })
	var spans []engine.Span
	var callees []*ast.Ident
	for _, b := range bs {
		if !b.open.IsValid() || !b.close.IsValid() || tf.Line(b.open) == tf.Line(b.close) {
			continue
		}
		s := engine.Span{Open: tf.Line(b.open), Close: tf.Line(b.close), Callee: -1}
		if b.callee != nil {
			s.Callee, s.CalleeLine = len(callees), tf.Line(b.callee.Pos())
			callees = append(callees, b.callee)
		}
		spans = append(spans, s)
	}
	var out map[*ast.Ident]bool
	for _, c := range engine.EnclosingCalls(spans, added) {
		if out == nil {
			out = map[*ast.Ident]bool{}
		}
		out[callees[c]] = true
	}
	return out
}
