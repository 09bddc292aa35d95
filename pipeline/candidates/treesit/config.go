package treesit

import (
	"context"
	"sync/atomic"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
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
