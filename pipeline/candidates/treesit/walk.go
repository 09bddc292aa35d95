//go:build cgo

package treesit

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

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// The walks below run in the runtime's C, one call a tree: walking a
// tree node by node through the bindings costs a cgo call or more a
// node, a third of a parse's time. They take the runtime's node value
// out of the bindings' Node, which holds it as its first field; nodeLayout
// says whether this build's bindings do (a test checks it).
var nodeLayout = func() bool {
	t := reflect.TypeOf(sitter.Node{})
	f, ok := t.FieldByName("c")
	return ok && f.Offset == 0 && f.Type.Size() == C.sizeof_walkNode
}()

// cNode is n's runtime node value.
func cNode(n *sitter.Node) C.walkNode { return *(*C.walkNode)(unsafe.Pointer(n)) }

// shallow walks the tree under n and reports whether its nodes' depths sum
// to at most limit, with the number of nodes walked; it stops at the limit.
func shallow(n *sitter.Node, limit int) (int, bool) {
	if !nodeLayout {
		return 0, false
	}
	var ok C.int
	nodes := C.walk_depth(cNode(n), C.uint64_t(limit), &ok)
	return int(nodes), ok != 0
}

// bracketSpans walks the syntax tree's leaves in order and answers its
// brackets that span lines, in the order they open, for
// engine.EnclosingCalls: a '(' right after a name leaf opens a call of
// that name (Callee indexes callees). Keywords are anonymous leaves in
// every grammar, so `if (` opens no call.
func bracketSpans(root *sitter.Node, src []byte) (spans []engine.Span, callees []ref) {
	if !nodeLayout {
		return nil, nil
	}
	var out C.walkBrackets
	ok := C.walk_brackets(cNode(root), &out)
	defer C.free(unsafe.Pointer(out.b))
	if ok == 0 || out.n == 0 {
		return nil, nil
	}
	bs := unsafe.Slice(out.b, out.n)
	var open []int // indices in spans of the brackets open
	for _, b := range bs {
		row := int(b.row) + 1
		if b.kind == 2 {
			if k := len(open); k > 0 {
				spans[open[k-1]].Close = row
				open = open[:k-1]
			}
			continue
		}
		s := engine.Span{Open: row, Callee: -1}
		if b.name_to > b.name_from && int(b.name_to) <= len(src) {
			s.Callee, s.CalleeLine = len(callees), int(b.name_row)+1
			callees = append(callees, ref{name: string(src[b.name_from:b.name_to]), line: s.CalleeLine})
		}
		open = append(open, len(spans))
		spans = append(spans, s)
	}
	return multiLine(spans), callees
}

// multiLine keeps the spans whose brackets are on different lines (or
// never close): only those can be open across a changed line.
func multiLine(spans []engine.Span) []engine.Span {
	out := spans[:0]
	for _, s := range spans {
		if s.Close != s.Open {
			out = append(out, s)
		}
	}
	return out
}
