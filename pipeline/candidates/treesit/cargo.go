package treesit

import (
	"context"
	"path"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// maxManifestBytes bounds a Cargo.toml read.
const maxManifestBytes = 1 << 20

// cargo is a Rust workspace: the member crates the root Cargo.toml's
// [workspace] names. In it, a use path naming a member crate
// (use calc_core::ops::add) reaches that crate's src/ only, and one
// starting at crate:: only the importing file's own crate.
type cargo struct {
	*engine.Listing
	ctx     context.Context
	tree    engine.Tree
	cache   *engine.Cache
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

// manifest is what the reader keeps of a Cargo.toml.
type manifest struct {
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

// newCargo reads the workspace of the root Cargo.toml; nil when there is
// none. The manifests' readings are kept in cache by their content.
func newCargo(ctx context.Context, tree engine.Tree, cache *engine.Cache) *cargo {
	m, ok := readManifest(ctx, tree, cache, "Cargo.toml")
	if !ok || len(m.Workspace.Members) == 0 {
		return nil
	}
	c := &cargo{Listing: engine.NewListing(ctx, tree), ctx: ctx, tree: tree, cache: cache, crates: map[string]*crate{}, of: map[string]*crate{}, named: map[string]bool{}}
	for _, mem := range m.Workspace.Members {
		c.members = append(c.members, strings.Trim(path.Clean(mem), "/"))
	}
	return c
}

// readManifest reads the Cargo.toml at p; ok is false when it cannot be
// read or is no TOML.
func readManifest(ctx context.Context, tree engine.Tree, cache *engine.Cache, p string) (manifest, bool) {
	type decoded struct {
		m  manifest
		ok bool
	}
	d, _ := cachedConfig(ctx, tree, cache, p, maxManifestBytes, func(b []byte) (decoded, int64) {
		var d decoded
		d.ok = toml.Unmarshal(b, &d.m) == nil
		weight := int64(len(d.m.Package.Name)+len(d.m.Lib.Name)) + 64
		for _, mem := range d.m.Workspace.Members {
			weight += int64(len(mem)) + 16
		}
		return d, weight
	})
	return d.m, d.ok
}

// crateOf is the workspace member p belongs to: the nearest directory above
// it holding a Cargo.toml, when the workspace names it; nil for none.
func (c *cargo) crateOf(p string) *crate {
	c.mu.Lock()
	cr, done := c.of[p]
	c.mu.Unlock()
	if done {
		return cr
	}
	for d := engine.DirOf(p); d != ""; d = engine.DirOf(d) {
		if c.Has(d + "/Cargo.toml") {
			cr = c.crateAt(d)
			break
		}
	}
	c.mu.Lock()
	c.of[p] = cr
	c.mu.Unlock()
	return cr
}

// crateAt is the member crate whose manifest d holds (nil for none).
func (c *cargo) crateAt(d string) *crate {
	c.mu.Lock()
	cr, done := c.crates[d]
	c.mu.Unlock()
	if done {
		return cr
	}
	mp := d + "/Cargo.toml"
	if !c.Has(mp) {
		return nil
	}
	if m, ok := readManifest(c.ctx, c.tree, c.cache, mp); ok && c.member(d) {
		name := m.Lib.Name
		if name == "" {
			name = m.Package.Name
		}
		if name != "" {
			cr = &crate{dir: d, name: strings.ReplaceAll(name, "-", "_")}
		}
	}
	c.mu.Lock()
	c.crates[d] = cr
	c.mu.Unlock()
	return cr
}

// member reports whether the workspace names the directory d.
func (c *cargo) member(d string) bool {
	for _, m := range c.members {
		if ok, _ := path.Match(m, d); ok {
			return true
		}
	}
	return false
}

// target is what sees needs of a file: its member crate (nil for none)
// and its module path below the crate's src/ (tp is its whole module
// path).
type target struct {
	crate *crate
	mod   []string
}

func (c *cargo) target(p string, tp []string) target {
	tc := c.crateOf(p)
	if tc == nil {
		return target{}
	}
	mod := tp[min(len(tp), strings.Count(tc.dir, "/")+1):]
	if len(mod) > 0 && mod[0] == "src" {
		mod = mod[1:]
	}
	return target{tc, mod}
}

// sees decides whether the use path ip of the file from reaches the file
// to (its target) when to is in a member crate: the path must name to's
// crate (by its name, or crate/self/super from inside it) and run through
// to's module path below the crate's src/. decided is false for a path the
// workspace says nothing of (another library, a mod declaration).
func (c *cargo) sees(from string, to target, ip []string) (reaches, decided bool) {
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
		return runsInside(mod, ip[1:]), true
	case len(ip) > 1 && c.names(first):
		return false, true // another member crate
	}
	return false, false
}

// names reports whether some member crate is called name, by the
// directories the workspace names (a glob's matches found as name or
// name with dashes).
func (c *cargo) names(name string) bool {
	c.mu.Lock()
	found, done := c.named[name]
	c.mu.Unlock()
	if done {
		return found
	}
	for _, m := range c.members {
		for _, d := range []string{m, path.Join(path.Dir(m), name), path.Join(path.Dir(m), strings.ReplaceAll(name, "_", "-"))} {
			if cr := c.crateAt(d); cr != nil && cr.name == name {
				found = true
			}
		}
	}
	c.mu.Lock()
	c.named[name] = found
	c.mu.Unlock()
	return found
}
