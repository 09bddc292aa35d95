//go:build cgo

package cwalk

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct { uint32_t row, column; } queryPoint;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } queryNode;
typedef struct { queryNode node; uint32_t index; } queryCapture;
typedef struct {
	uint32_t id;
	uint16_t pattern_index;
	uint16_t capture_count;
	const queryCapture *captures;
} queryMatch;
extern void *ts_query_cursor_new(void);
extern void ts_query_cursor_delete(void *);
extern void ts_query_cursor_exec(void *, const void *, queryNode);
extern bool ts_query_cursor_next_match(void *, queryMatch *);
extern uint32_t ts_node_start_byte(queryNode);
extern uint32_t ts_node_end_byte(queryNode);
extern queryPoint ts_node_start_point(queryNode);
extern queryPoint ts_node_end_point(queryNode);
extern uint16_t ts_node_symbol(queryNode);
extern queryNode ts_node_parent(queryNode);
extern bool ts_node_is_null(queryNode);
extern uint32_t ts_node_named_child_count(queryNode);
extern const void *ts_tree_language(const void *);
extern uint32_t ts_language_symbol_count(const void *);
extern const char *ts_language_symbol_name(const void *, uint16_t);

// A captured node, as next_captures records it; parent_* are set only
// for the capture indexes asked (has_parent): want_parent[index] 1
// always, 2 when no capture of the match has an index marked 3.
typedef struct {
	uint32_t match, index, start, end, row, end_row, named;
	uint32_t parent_start, parent_end;
	uint16_t symbol, parent_symbol;
	uint32_t has_parent;
} queryOut;

typedef struct {
	queryOut *c;
	size_t n, cap;
} queryOuts;

// next_captures empties out and records in it the captures of the
// cursor's next matches, up to max of them, numbering the matches from
// *seq on; it answers 1 while the query may have more, 0 when it has
// none, -1 when memory ran out.
static int next_captures(void *cur, const uint8_t *want_parent, uint32_t wants, uint32_t max, uint32_t *seq, queryOuts *out) {
	out->n = 0;
	queryMatch m;
	for (uint32_t k = 0; k < max; k++) {
		if (!ts_query_cursor_next_match(cur, &m)) {
			return 0;
		}
		if (out->n + m.capture_count > out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 1024;
			while (cap < out->n + m.capture_count) {
				cap *= 2;
			}
			queryOut *nc = realloc(out->c, cap * sizeof(queryOut));
			if (!nc) {
				return -1;
			}
			out->c = nc;
			out->cap = cap;
		}
		int owned = 0;
		for (uint16_t i = 0; i < m.capture_count; i++) {
			uint32_t x = m.captures[i].index;
			if (x < wants && want_parent[x] == 3) {
				owned = 1;
			}
		}
		for (uint16_t i = 0; i < m.capture_count; i++) {
			queryNode n = m.captures[i].node;
			queryOut o = {0};
			o.match = *seq;
			o.index = m.captures[i].index;
			o.start = ts_node_start_byte(n);
			o.end = ts_node_end_byte(n);
			o.row = ts_node_start_point(n).row;
			o.end_row = ts_node_end_point(n).row;
			o.named = ts_node_named_child_count(n);
			o.symbol = ts_node_symbol(n);
			uint8_t w = o.index < wants ? want_parent[o.index] : 0;
			if (w == 1 || (w == 2 && !owned)) {
				queryNode p = ts_node_parent(n);
				if (!ts_node_is_null(p)) {
					o.has_parent = 1;
					o.parent_start = ts_node_start_byte(p);
					o.parent_end = ts_node_end_byte(p);
					o.parent_symbol = ts_node_symbol(p);
				}
			}
			out->c[out->n++] = o;
		}
		(*seq)++;
	}
	return 1;
}

static void free_outs(queryOuts *out) {
	free(out->c);
	out->c = NULL;
	out->n = out->cap = 0;
}

static const char *symbol_name(queryNode root, uint16_t sym) {
	return ts_language_symbol_name(ts_tree_language(root.tree), sym);
}

static uint32_t symbol_count(queryNode root) {
	return ts_language_symbol_count(ts_tree_language(root.tree));
}
*/
import "C"

import (
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// querySupported reports whether the bindings hold the runtime's query as
// their Query's first field, which Cursor reads.
var querySupported = func() bool {
	f, ok := reflect.TypeOf(sitter.Query{}).FieldByName("c")
	return ok && f.Offset == 0 && f.Type.Size() == unsafe.Sizeof(uintptr(0))
}()

// Capture is a node a query captured, with what a reading asks of it.
type Capture struct {
	// Match numbers the match the capture is of, from 0 in the order of
	// the matches; a match's captures are adjacent.
	Match uint32
	// Index is the capture's index in the query.
	Index uint32
	// Start and End are the node's bytes, Row and EndRow its first and
	// last rows (from 0).
	Start, End, Row, EndRow uint32
	// Named is the number of its named children.
	Named uint32
	// Symbol is its type (SymbolNames names it).
	Symbol uint16
	// HasParent is set when its parent was asked for and there is one:
	// the parent's bytes and type.
	HasParent              bool
	ParentSymbol           uint16
	ParentStart, ParentEnd uint32
}

// Cursor runs a query over a tree in the runtime's C, a batch of matches
// a call: a match through the bindings costs a cgo call and a node value
// allocated for each capture.
type Cursor struct {
	cur   unsafe.Pointer
	want  []uint8
	seq   C.uint32_t
	out   C.queryOuts
	batch []Capture
	done  bool
}

// Parents says of a capture index whether a cursor reads its nodes'
// parents: a node's parent is found from the tree's root, so a reading
// asks only those it uses.
type Parents uint8

const (
	// NoParent is read for none.
	NoParent Parents = iota
	// Parent is read for every node.
	Parent
	// ParentAlone is read in the matches with no Owner capture.
	ParentAlone
	// Owner marks a match whose ParentAlone captures need no parent.
	Owner
)

// NewCursor runs q over the tree under root; parents[i] says whether the
// parents of capture index i are read. It answers nil with bindings it
// cannot read (Supported).
func NewCursor(q *sitter.Query, root *sitter.Node, parents []Parents) *Cursor {
	if !Supported || !querySupported {
		return nil
	}
	c := &Cursor{cur: C.ts_query_cursor_new(), want: make([]uint8, len(parents)+1)}
	for i, w := range parents {
		c.want[i] = uint8(w)
	}
	C.ts_query_cursor_exec(c.cur, *(*unsafe.Pointer)(unsafe.Pointer(q)), *(*C.queryNode)(unsafe.Pointer(root)))
	return c
}

// Next answers the captures of up to max more matches, valid until the
// next call; ok is false once the query has no more matches, or memory
// ran out.
func (c *Cursor) Next(max int) (caps []Capture, ok bool) {
	if c.done {
		return nil, false
	}
	r := C.next_captures(c.cur, (*C.uint8_t)(unsafe.Pointer(&c.want[0])), C.uint32_t(len(c.want)-1), C.uint32_t(max), &c.seq, &c.out)
	if r < 0 {
		c.done = true
		return nil, false
	}
	c.done = r == 0
	c.batch = c.batch[:0]
	for _, o := range unsafe.Slice(c.out.c, c.out.n) {
		c.batch = append(c.batch, Capture{Match: uint32(o.match), Index: uint32(o.index), Start: uint32(o.start), End: uint32(o.end),
			Row: uint32(o.row), EndRow: uint32(o.end_row), Named: uint32(o.named), Symbol: uint16(o.symbol),
			HasParent: o.has_parent != 0, ParentSymbol: uint16(o.parent_symbol), ParentStart: uint32(o.parent_start), ParentEnd: uint32(o.parent_end)})
	}
	return c.batch, len(c.batch) > 0 || !c.done
}

// Close frees the cursor.
func (c *Cursor) Close() {
	C.free_outs(&c.out)
	C.ts_query_cursor_delete(c.cur)
}

// SymbolNames are the names of the types of the language of the tree
// under root, by symbol.
func SymbolNames(root *sitter.Node) []string {
	if !Supported {
		return nil
	}
	n := cNode(root)
	rn := *(*C.queryNode)(unsafe.Pointer(&n))
	names := make([]string, C.symbol_count(rn))
	for i := range names {
		if s := C.symbol_name(rn, C.uint16_t(i)); s != nil {
			names[i] = C.GoString(s)
		}
	}
	return names
}
