//go:build cgo

// Package cwalk walks tree-sitter syntax trees in the runtime's C, one cgo
// call a tree: walking a tree node by node through the bindings costs a
// cgo call or more a node, as much as a third of a parse's time. It also
// runs a query a batch of matches a call (the bindings make a call and a
// node value a capture), and edits a tree for an incremental parse, which
// the bindings do wrongly.
package cwalk

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// The tree-sitter runtime's node and cursor values and the functions of
// its API (api.h) the walks below call; the runtime itself is linked in
// by the bindings package.
typedef struct { uint32_t row, column; } walkPoint;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } walkNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } walkCursor;

extern walkCursor ts_tree_cursor_new(walkNode);
extern void ts_tree_cursor_delete(walkCursor *);
extern walkNode ts_tree_cursor_current_node(const walkCursor *);
extern bool ts_tree_cursor_goto_first_child(walkCursor *);
extern bool ts_tree_cursor_goto_next_sibling(walkCursor *);
extern bool ts_tree_cursor_goto_parent(walkCursor *);
extern const char *ts_node_type(walkNode);
extern bool ts_node_is_named(walkNode);
extern uint32_t ts_node_start_byte(walkNode);
extern uint32_t ts_node_end_byte(walkNode);
extern walkPoint ts_node_start_point(walkNode);
typedef struct {
	uint32_t start_byte, old_end_byte, new_end_byte;
	walkPoint start_point, old_end_point, new_end_point;
} walkEdit;
extern void ts_tree_edit(void *, const walkEdit *);

// edit_tree applies edit to the tree root belongs to.
static void edit_tree(walkNode root, walkEdit edit) {
	ts_tree_edit((void *)root.tree, &edit);
}

// walk_depth sums the depths of the nodes under root, stopping once the
// sum passes limit; it answers the nodes walked and sets *ok when the sum
// stayed within limit.
static uint64_t walk_depth(walkNode root, uint64_t limit, int *ok) {
	walkCursor c = ts_tree_cursor_new(root);
	uint64_t depth = 0, sum = 0, nodes = 0;
	*ok = 0;
	for (;;) {
		nodes++;
		sum += depth;
		if (sum > limit) {
			break;
		}
		if (ts_tree_cursor_goto_first_child(&c)) {
			depth++;
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				*ok = 1;
				ts_tree_cursor_delete(&c);
				return nodes;
			}
			depth--;
		}
	}
	ts_tree_cursor_delete(&c);
	return nodes;
}

// A bracket leaf, as walk_brackets records it: kind 1 opens, 2 closes;
// a '(' right after a named leaf holds that leaf's bytes and row (name_to
// past name_from), others name_to == name_from == 0.
typedef struct {
	uint32_t kind, row, name_from, name_to, name_row;
} walkBracket;

typedef struct {
	walkBracket *b;
	size_t n, cap;
} walkBrackets;

static int push_bracket(walkBrackets *out, walkBracket b) {
	if (out->n == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 256;
		walkBracket *nb = realloc(out->b, cap * sizeof(walkBracket));
		if (!nb) {
			return 0;
		}
		out->b = nb;
		out->cap = cap;
	}
	out->b[out->n++] = b;
	return 1;
}

// walk_brackets records the tree's bracket leaves in source order (the
// caller frees out->b). It answers 0 when memory ran out.
static int walk_brackets(walkNode root, walkBrackets *out) {
	walkCursor c = ts_tree_cursor_new(root);
	walkNode prev;
	int have_prev = 0, ok = 1;
	for (;;) {
		if (ts_tree_cursor_goto_first_child(&c)) {
			continue;
		}
		walkNode n = ts_tree_cursor_current_node(&c);
		const char *t = ts_node_type(n);
		if (t && t[0] && !t[1]) {
			walkBracket b = {0, 0, 0, 0, 0};
			switch (t[0]) {
			case '(': case '[': case '{':
				b.kind = 1;
				break;
			case ')': case ']': case '}':
				b.kind = 2;
				break;
			}
			if (b.kind) {
				b.row = ts_node_start_point(n).row;
				if (t[0] == '(' && have_prev && ts_node_is_named(prev) && ts_node_end_byte(prev) <= ts_node_start_byte(n)) {
					b.name_from = ts_node_start_byte(prev);
					b.name_to = ts_node_end_byte(prev);
					b.name_row = ts_node_start_point(prev).row;
				}
				if (!push_bracket(out, b)) {
					ok = 0;
					break;
				}
			}
		}
		prev = n;
		have_prev = 1;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return ok;
			}
		}
	}
	ts_tree_cursor_delete(&c);
	return ok;
}
*/
import "C"

import (
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Supported reports whether this build's bindings hold the runtime's node
// value as their Node's first field, which the walks read; without it
// they walk nothing (a test requires it).
var Supported = func() bool {
	t := reflect.TypeOf(sitter.Node{})
	f, ok := t.FieldByName("c")
	return ok && f.Offset == 0 && f.Type.Size() == C.sizeof_walkNode
}()

// cNode is n's runtime node value.
func cNode(n *sitter.Node) C.walkNode { return *(*C.walkNode)(unsafe.Pointer(n)) }

// DepthSum walks the tree under n and reports whether its nodes' depths
// sum to at most limit, with the number of nodes walked; it stops at the
// limit. Unsupported bindings walk nothing and answer false.
func DepthSum(n *sitter.Node, limit int) (int, bool) {
	if !Supported {
		return 0, false
	}
	var ok C.int
	nodes := C.walk_depth(cNode(n), C.uint64_t(limit), &ok)
	return int(nodes), ok != 0
}

// Bracket is a bracket leaf of a tree: ( [ { open, ) ] } close. An open
// '(' right after a named leaf holds that leaf's bytes [NameFrom, NameTo)
// and row; rows count from 0.
type Bracket struct {
	Open             bool
	Row              int
	NameFrom, NameTo int
	NameRow          int
}

// Brackets answers the bracket leaves under root in source order; false
// when they could not all be listed (memory, unsupported bindings).
func Brackets(root *sitter.Node) ([]Bracket, bool) {
	if !Supported {
		return nil, false
	}
	var out C.walkBrackets
	ok := C.walk_brackets(cNode(root), &out)
	defer C.free(unsafe.Pointer(out.b))
	if ok == 0 {
		return nil, false
	}
	bs := make([]Bracket, out.n)
	for i, b := range unsafe.Slice(out.b, out.n) {
		bs[i] = Bracket{Open: b.kind == 1, Row: int(b.row), NameFrom: int(b.name_from), NameTo: int(b.name_to), NameRow: int(b.name_row)}
	}
	return bs, true
}

// Point is a place in a source: its row and its byte column, from 0.
type Point struct{ Row, Column int }

// Edit is one replaced stretch of a source: the bytes [Start, OldEnd)
// that became [Start, NewEnd), with their points.
type Edit struct {
	Start, OldEnd, NewEnd                int
	StartPoint, OldEndPoint, NewEndPoint Point
}

// EditTree applies e to the tree whose root is root, so that a parse of
// the edited source given the tree reuses what e left unchanged; it
// answers false, editing nothing, with unsupported bindings. (The
// bindings' own Tree.Edit passes the old end point as the new one.) The
// root node value, and any other node value of the tree, is stale after.
func EditTree(root *sitter.Node, e Edit) bool {
	if !Supported {
		return false
	}
	pt := func(p Point) C.walkPoint { return C.walkPoint{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)} }
	C.edit_tree(cNode(root), C.walkEdit{
		start_byte: C.uint32_t(e.Start), old_end_byte: C.uint32_t(e.OldEnd), new_end_byte: C.uint32_t(e.NewEnd),
		start_point: pt(e.StartPoint), old_end_point: pt(e.OldEndPoint), new_end_point: pt(e.NewEndPoint),
	})
	return true
}
