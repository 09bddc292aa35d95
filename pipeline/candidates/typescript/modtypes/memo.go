package modtypes

import (
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Memos. The lookups of one Find ask the same questions again and again:
// every member access of a searched file resolves its receiver, and the
// receivers of a file mostly run through the same variables, parameters
// and imports (c of app.get('/', (c) => ...), each c.req, c.json, c.header
// resolving c from the start). An answer is kept and given again when
// asking again would answer the same, so that keeping it changes no
// answer of the Find:
//
//   - no bound stopped a lookup inside it (cuts: a read past the budget,
//     a step past maxTypeSteps, a nesting past maxTypeDepth): the files
//     it read stay read, and the lookups it made answer the same again;
//   - asked again nested deeper, its deepest lookup stays within
//     maxTypeDepth;
//   - the steps it took, counted again on each answer given from memory,
//     still fit in maxTypeSteps: where they do not, it is asked again,
//     and stops where the steps run out as it would have.

// exprAt is an expression of a file, by the index of its last token.
type exprAt struct {
	f *lexed.File
	k int
}

// exprMemo is exprTypes' answer, the steps it took and how much deeper
// than its own its deepest lookup went.
type exprMemo struct {
	types  []Type
	steps  int
	height int
}

// exprTypes returns the types of the expression of f ending at toks[k]
// (exprTypesAt), from memory when it was asked before.
func (w *World) exprTypes(f *lexed.File, k, depth int) []Type {
	at := exprAt{f, k}
	if m, ok := w.exprs[at]; ok && depth+m.height <= maxTypeDepth && w.steps+m.steps <= maxTypeSteps {
		w.steps += m.steps
		w.deepest = max(w.deepest, depth+m.height)
		return m.types
	}
	steps, cuts, deepest := w.steps, w.cuts, w.deepest
	w.deepest = depth
	w.lookups++
	out := slices.Clip(w.exprTypesAt(f, k, depth))
	if w.cuts == cuts {
		if w.exprs == nil {
			w.exprs = map[exprAt]exprMemo{}
		}
		w.exprs[at] = exprMemo{types: out, steps: w.steps - steps, height: w.deepest - depth}
	}
	w.deepest = max(w.deepest, deepest)
	return out
}

// Lookups is how many expressions the World has worked out, those
// answered from memory left out: the work its memos save (tests count it).
func (w *World) Lookups() int { return w.lookups }

// tooDeep reports whether a lookup nested depth deep is past
// maxTypeDepth, and records how deep the lookups went.
func (w *World) tooDeep(depth int) bool {
	w.deepest = max(w.deepest, depth)
	if depth > maxTypeDepth {
		w.cuts++
		return true
	}
	return false
}

// declAt is a top-level name as a file sees it.
type declAt struct {
	f    *lexed.File
	name string
}

// declMemo is declOf's answer.
type declMemo struct {
	f    *lexed.File
	name string
}

// declOf returns the file declaring the top-level name as f sees it and
// the name it has there (declOfAt), from memory when it was asked before
// at depth 0 (as every lookup but declOfAt's own asks it): it takes no
// step, and its nesting is its own.
func (w *World) declOf(f *lexed.File, name string, depth int) (*lexed.File, string) {
	if depth != 0 {
		return w.declOfAt(f, name, depth)
	}
	at := declAt{f, name}
	if m, ok := w.decls[at]; ok {
		return m.f, m.name
	}
	cuts := w.cuts
	g, n := w.declOfAt(f, name, 0)
	if w.cuts == cuts {
		if w.decls == nil {
			w.decls = map[declAt]declMemo{}
		}
		w.decls[at] = declMemo{g, n}
	}
	return g, n
}

// DeclaredAs is DeclaredIn with the name the declaring file gives the
// declaration: string, exported by an index as create's new name, is
// create of string.ts.
func (w *World) DeclaredAs(f *lexed.File, name string) (path, declared string) {
	g, n := w.declOf(f, name, 0)
	if g == nil {
		return "", ""
	}
	return g.Path, n
}

// Renamed returns the names f's import and export clauses bind to another
// name ({X as name}), each mapped to X.
func (w *World) Renamed(f *lexed.File) map[string]string {
	w.renamedFrom(f, "")
	return w.renames[f]
}
