package lexed

import (
	"sync"
	"testing"
)

// TestIndexBuiltOnceByFirstUser: Read builds no index; the first of many
// concurrent users builds it, once, and all get the same one; a clone
// keeping the tokens shares it, one dropping them gets its own, of no
// identifiers.
func TestIndexBuiltOnceByFirstUser(t *testing.T) {
	f := Read("src/a.ts", []byte("import {b} from './b'\nexport function a(x) { return b(x) }\n"))
	f.Decls = []Decl{{Name: "a", Kind: "function", From: 2, To: 2}}
	if f.idx == nil || f.idx.x != nil {
		t.Fatalf("Read built the index: %+v", f.idx)
	}
	var wg sync.WaitGroup
	got := make([]*Index, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = f.Index() }()
	}
	wg.Wait()
	for _, x := range got {
		if x != got[0] {
			t.Fatalf("users got different indexes")
		}
	}
	if !RefersTo(f, "b") || !RefersTo(f, "import") || RefersTo(f, "c") || !got[0].DeclAt[DeclAt{2, "a"}] {
		t.Fatalf("index %+v", got[0])
	}
	if c := f.Clone(false); c.Index() != got[0] {
		t.Fatal("a clone keeping the tokens built its own index")
	}
	if c := f.Clone(true); c.Index() == got[0] || len(c.Index().Idents) != 0 || !c.Index().DeclAt[DeclAt{2, "a"}] {
		t.Fatalf("a clone dropping the tokens: %+v", c.Index())
	}
}
