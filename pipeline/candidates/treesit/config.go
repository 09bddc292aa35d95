package treesit

import (
	"context"
	"sync/atomic"

	"github.com/pelletier/go-toml/v2"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cargo"
)

// configsDecoded counts the configuration files decoded (cachedConfig's
// decode calls), for the tests.
var configsDecoded atomic.Int64

// cachedConfig is what decode makes of the tree's configuration file p
// (composer.json, a Cargo.toml, a compilation database), with its weight,
// kept in cache by p and its content: such a file is mostly the same from
// one request to the next, and is decoded once per content. ok is false
// when p cannot be read or is larger than maxBytes.
func cachedConfig[T any](ctx context.Context, tree engine.Tree, cache *engine.Cache, p string, maxBytes int, decode func([]byte) (T, int64)) (v T, ok bool) {
	b, err := tree.ReadFile(ctx, p)
	if err != nil || len(b) > maxBytes {
		return v, false
	}
	return engine.CachedAt(cache, engine.KeyAt("treesit-config", p, engine.SumOf(b)), func() (T, int64) {
		configsDecoded.Add(1)
		return decode(b)
	}), true
}

// maxManifestBytes bounds a Cargo.toml read.
const maxManifestBytes = 1 << 20

// newCargo is the Rust workspace of the root Cargo.toml of tree (nil for
// none), its manifests decoded once per content (cachedConfig).
func newCargo(ctx context.Context, tree engine.Tree, cache *engine.Cache) *cargo.Workspace {
	return cargo.New(ctx, tree, func(p string) (cargo.Manifest, bool) {
		type decoded struct {
			m  cargo.Manifest
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
	})
}
