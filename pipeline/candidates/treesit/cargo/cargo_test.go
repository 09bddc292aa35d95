package cargo

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
)

// dirTree is a tree of the listed paths; it reads and greps nothing.
type dirTree []string

func (t dirTree) Grep(context.Context, []string, []string, int) ([]string, error) { return nil, nil }
func (t dirTree) ReadFile(context.Context, string) ([]byte, error) {
	return nil, errors.New("not read")
}
func (t dirTree) ListDir(_ context.Context, dir string) ([]string, error) {
	var out []string
	for _, p := range t {
		if path.Dir(p) == dir {
			out = append(out, p)
		}
	}
	return out, nil
}

// TestSees: a use path naming a member crate reaches that crate's modules
// only; crate:: only from inside the crate; a path naming no member is
// not decided.
func TestSees(t *testing.T) {
	manifests := map[string]Manifest{}
	root := Manifest{}
	root.Workspace.Members = []string{"crates/*"}
	manifests["Cargo.toml"] = root
	for _, name := range []string{"calc-core", "app"} {
		var m Manifest
		m.Package.Name = name
		manifests["crates/"+name+"/Cargo.toml"] = m
	}
	tree := dirTree{"Cargo.toml", "crates/calc-core/Cargo.toml", "crates/calc-core/src/ops.rs", "crates/app/Cargo.toml", "crates/app/src/main.rs"}
	w := New(context.Background(), tree, func(p string) (Manifest, bool) { m, ok := manifests[p]; return m, ok })
	if w == nil {
		t.Fatal("no workspace")
	}
	ops := w.Target("crates/calc-core/src/ops.rs", strings.Split("crates/calc-core/src/ops", "/"))
	for _, c := range []struct {
		from, use        string
		reaches, decided bool
	}{
		{"crates/app/src/main.rs", "calc_core::ops::add", true, true},
		{"crates/app/src/main.rs", "calc_core::other::add", false, true},
		{"crates/app/src/main.rs", "crate::ops::add", false, true},
		{"crates/calc-core/src/lib.rs", "crate::ops::add", true, true},
		{"crates/app/src/main.rs", "app::ops::add", false, true},
		{"crates/app/src/main.rs", "serde::Serialize", false, false},
	} {
		reaches, decided := w.Sees(c.from, ops, strings.Split(c.use, "::"))
		if reaches != c.reaches || decided != c.decided {
			t.Errorf("%s in %s: reaches %v decided %v, want %v %v", c.use, c.from, reaches, decided, c.reaches, c.decided)
		}
	}
}
