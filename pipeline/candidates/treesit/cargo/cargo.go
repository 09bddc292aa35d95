// Package cargo reads a Rust workspace from its Cargo.toml files: the
// member crate a file belongs to, and whether a use path reaches a file
// of a member crate.
package cargo

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// Workspace is a Rust workspace: the member crates the root Cargo.toml's
// [workspace] names. In it, a use path naming a member crate
// (use calc_core::ops::add) reaches that crate's src/ only, and one
// starting at crate:: only the importing file's own crate.
type Workspace struct {
	*engine.Listing
	read    func(p string) (Manifest, bool)
	members []string // the members' directories, as the manifest writes them (globs allowed)

	mu     sync.Mutex
	crates map[string]*crate // directory => the member crate whose manifest it holds (nil: none)
	of     map[string]*crate // file => crateOf's answer
	named  map[string]bool   // name => names' answer
}

// crate is one crate of the workspace.
type crate struct {
	dir, name string // name as use paths write it (calc-core is calc_core)
}

// Manifest is what the workspace reads of a Cargo.toml.
type Manifest struct {
	Workspace struct {
		Members []string `toml:"members"`
	} `toml:"workspace"`
	Package struct {
		Name string `toml:"name"`
	} `toml:"package"`
	Lib struct {
		Name string `toml:"name"`
	} `toml:"lib"`
}

// New reads the workspace of the root Cargo.toml of tree, its manifests
// read by read (false for one that cannot be read or is no TOML); nil when
// there is none.
func New(ctx context.Context, tree engine.Tree, read func(p string) (Manifest, bool)) *Workspace {
	m, ok := read("Cargo.toml")
	if !ok || len(m.Workspace.Members) == 0 {
		return nil
	}
	c := &Workspace{Listing: engine.NewListing(ctx, tree), read: read, crates: map[string]*crate{}, of: map[string]*crate{}, named: map[string]bool{}}
	for _, mem := range m.Workspace.Members {
		c.members = append(c.members, strings.Trim(path.Clean(mem), "/"))
	}
	return c
}

// crateOf is the workspace member p belongs to: the nearest directory above
// it holding a Cargo.toml, when the workspace names it; nil for none.
func (c *Workspace) crateOf(p string) *crate {
	return engine.Memo(&c.mu, c.of, p, func() *crate {
		for d := engine.DirOf(p); d != ""; d = engine.DirOf(d) {
			if c.Has(d + "/Cargo.toml") {
				return c.crateAt(d)
			}
		}
		return nil
	})
}

// crateAt is the member crate whose manifest d holds (nil for none).
func (c *Workspace) crateAt(d string) *crate {
	mp := d + "/Cargo.toml"
	if !c.Has(mp) {
		return nil
	}
	return engine.Memo(&c.mu, c.crates, d, func() *crate {
		m, ok := c.read(mp)
		if !ok || !c.member(d) {
			return nil
		}
		name := m.Lib.Name
		if name == "" {
			name = m.Package.Name
		}
		if name == "" {
			return nil
		}
		return &crate{dir: d, name: strings.ReplaceAll(name, "-", "_")}
	})
}

// member reports whether the workspace names the directory d.
func (c *Workspace) member(d string) bool {
	for _, m := range c.members {
		if ok, _ := path.Match(m, d); ok {
			return true
		}
	}
	return false
}

// Target is what Sees needs of a file: its member crate (nil for none)
// and its module path below the crate's src/.
type Target struct {
	crate *crate
	mod   []string
}

// Target is the file p's, tp its whole module path.
func (c *Workspace) Target(p string, tp []string) Target {
	tc := c.crateOf(p)
	if tc == nil {
		return Target{}
	}
	mod := tp[min(len(tp), strings.Count(tc.dir, "/")+1):]
	if len(mod) > 0 && mod[0] == "src" {
		mod = mod[1:]
	}
	return Target{tc, mod}
}

// Sees decides whether the use path ip of the file from reaches the file
// to (its target) when to is in a member crate: the path must name to's
// crate (by its name, or crate/self/super from inside it) and run through
// to's module path below the crate's src/. decided is false for a path the
// workspace says nothing of (another library, a mod declaration).
func (c *Workspace) Sees(from string, to Target, ip []string) (reaches, decided bool) {
	tc, mod := to.crate, to.mod
	if tc == nil || len(ip) == 0 {
		return false, false
	}
	switch first := ip[0]; {
	case first == tc.name || first == "crate" || first == "self" || first == "super":
		if first != tc.name && c.crateOf(from) != tc {
			return false, true
		}
		if len(mod) == 0 { // the crate's root: use calc_core::Thing
			return len(ip) <= 2, true
		}
		return RunsInside(mod, ip[1:]), true
	case len(ip) > 1 && c.names(first):
		return false, true // another member crate
	}
	return false, false
}

// names reports whether some member crate is called name, by the
// directories the workspace names (a glob's matches found as name or
// name with dashes).
func (c *Workspace) names(name string) bool {
	return engine.Memo(&c.mu, c.named, name, func() bool {
		for _, m := range c.members {
			for _, d := range []string{m, path.Join(path.Dir(m), name), path.Join(path.Dir(m), strings.ReplaceAll(name, "_", "-"))} {
				if cr := c.crateAt(d); cr != nil && cr.name == name {
					return true
				}
			}
		}
		return false
	})
}

// RunsInside reports whether sub is a run of whole's parts.
func RunsInside(sub, whole []string) bool {
	if len(sub) == 0 {
		return false
	}
	for i := 0; i+len(sub) <= len(whole); i++ {
		if slices.Equal(sub, whole[i:i+len(sub)]) {
			return true
		}
	}
	return false
}
