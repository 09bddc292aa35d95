//go:build cgo

package treesit

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/treesit/cwalk"
	sitter "github.com/smacker/go-tree-sitter"
)

// TestCursorAgreesWithBindings: the matches the reader's cursor reads in C
// are the bindings' matches, capture by capture (bytes, rows, named
// children, type, and the parents asked), for every language's query on
// its source and that source broken.
func TestCursorAgreesWithBindings(t *testing.T) {
	for name, src := range editSources {
		l := languages[name]
		c, err := compile(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{src, edited(src)["broken"], strings.Repeat("(", 200) + src} {
			tree, _, err := parseTree(context.Background(), c, l, []byte(s), nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			qc := sitter.NewQueryCursor()
			qc.Exec(c.query, tree.RootNode())
			for seq := 0; ; seq++ {
				m, ok := qc.NextMatch()
				if !ok {
					break
				}
				owned := false
				for _, cp := range m.Captures {
					owned = owned || c.parents[cp.Index] == cwalk.Owner
				}
				for _, cp := range m.Captures {
					n := cp.Node
					var parent string
					if w := c.parents[cp.Index]; w == cwalk.Parent || w == cwalk.ParentAlone && !owned {
						if p := n.Parent(); p != nil {
							parent = fmtCapture(p.Type(), p.StartByte(), p.EndByte())
						}
					}
					want = append(want, fmtMatch(seq, cp.Index, n.StartByte(), n.EndByte(), n.StartPoint().Row, n.EndPoint().Row,
						n.NamedChildCount(), n.Type(), parent))
				}
			}
			qc.Close()
			var got []string
			cur := cwalk.NewCursor(c.query, tree.RootNode(), c.parents)
			names := c.symbolNames(tree.RootNode())
			for {
				caps, ok := cur.Next(7) // batches that end inside the source
				if !ok {
					break
				}
				for _, cp := range caps {
					var parent string
					if cp.HasParent {
						parent = fmtCapture(names[cp.ParentSymbol], cp.ParentStart, cp.ParentEnd)
					}
					got = append(got, fmtMatch(int(cp.Match), cp.Index, cp.Start, cp.End, cp.Row, cp.EndRow, cp.Named, names[cp.Symbol], parent))
				}
			}
			cur.Close()
			tree.Close()
			if len(want) < 20 {
				t.Fatalf("%s: only %d captures", name, len(want))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: the cursor's captures differ from the bindings':\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func fmtCapture(typ string, from, to uint32) string {
	return typ + " " + strconv.Itoa(int(from)) + "-" + strconv.Itoa(int(to))
}

func fmtMatch(seq int, index, from, to, row, endRow, named uint32, typ, parent string) string {
	return strings.Join([]string{strconv.Itoa(seq), strconv.Itoa(int(index)), fmtCapture(typ, from, to), strconv.Itoa(int(row)), strconv.Itoa(int(endRow)), strconv.Itoa(int(named)), parent}, " ")
}
