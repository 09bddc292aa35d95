package gate

import (
	"reflect"
	"sync"

	"github.com/dop251/goja/ast"
)

var astPkg = reflect.TypeOf(ast.Program{}).PkgPath()

// walk calls fn for every AST node under n in source order, with the stack of
// enclosing nodes (outermost first). goja's ast package has no visitor, so
// this walks the node structs by reflection, descending only into types of
// package ast (a new node kind in goja cannot be skipped silently).
func walk(n any, fn func(n any, stack []any)) {
	w := walker{fn: fn}
	w.visit(reflect.ValueOf(n))
}

type walker struct {
	fn    func(n any, stack []any)
	stack []any
}

func (w *walker) visit(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			w.visit(v.Elem())
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		fields := astFields(v.Type().Elem())
		if fields == nil {
			return
		}
		node := v.Interface()
		w.fn(node, w.stack)
		w.stack = append(w.stack, node)
		e := v.Elem()
		for _, i := range fields.idx {
			w.visit(e.Field(i))
		}
		w.stack = w.stack[:len(w.stack)-1]
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.visit(v.Index(i))
		}
	case reflect.Struct:
		if fields := astFields(v.Type()); fields != nil {
			for _, i := range fields.idx {
				w.visit(v.Field(i))
			}
		}
	}
}

type fieldList struct{ idx []int }

var fieldCache sync.Map // reflect.Type -> *fieldList (nil list: not an AST struct)

// astFields lists the fields of an ast struct type worth descending into:
// exported, and of a kind that can hold nodes. DeclarationList fields repeat
// declarations already in the body and are skipped.
func astFields(t reflect.Type) *fieldList {
	if c, ok := fieldCache.Load(t); ok {
		return c.(*fieldList)
	}
	var fl *fieldList
	if t.Kind() == reflect.Struct && t.PkgPath() == astPkg {
		fl = &fieldList{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Name == "DeclarationList" {
				continue
			}
			switch f.Type.Kind() {
			case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Struct:
				fl.idx = append(fl.idx, i)
			}
		}
	}
	fc, _ := fieldCache.LoadOrStore(t, fl)
	return fc.(*fieldList)
}

// enclosingFunction returns the innermost function literal around a node
// (nil at the top of the program).
func enclosingFunction(stack []any) any {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			return f
		case *ast.ClassStaticBlock:
			return f
		}
	}
	return nil
}
