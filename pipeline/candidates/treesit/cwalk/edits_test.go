//go:build cgo

package cwalk

import "testing"

// TestLineEdits: the edits of lines that do not describe the two sides
// are refused, and those that do are last first, in the base's places.
func TestLineEdits(t *testing.T) {
	old, new := "a\nb\nc\nd\n", "a\nB\nc\nd\ne\n"
	if _, ok := LineEdits([]byte(old), []byte(new), map[int]bool{2: true}, map[int]bool{2: true}); ok {
		t.Fatal("edits of lines that leave out an added one")
	}
	es, ok := LineEdits([]byte(old), []byte(new), map[int]bool{2: true}, map[int]bool{2: true, 5: true})
	if !ok || len(es) != 2 {
		t.Fatalf("edits %+v, %v", es, ok)
	}
	if e := es[0]; e.Start != 8 || e.OldEnd != 8 || e.NewEnd != 10 || e.StartPoint.Row != 4 || e.NewEndPoint.Row != 5 {
		t.Fatalf("the last edit: %+v", e)
	}
	if e := es[1]; e.Start != 2 || e.OldEnd != 4 || e.NewEnd != 4 || e.OldEndPoint.Row != 2 || e.NewEndPoint.Row != 2 {
		t.Fatalf("the first edit: %+v", e)
	}
}
