package treesit

import (
	"context"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/psr4"
)

// autoloadFiles are the files that map a family's namespaces to
// directories, by family: composer.json's PSR-4 map for PHP.
var autoloadFiles = map[string]string{"php": "composer.json"}

// maxAutoloadBytes bounds the autoload file read.
const maxAutoloadBytes = 1 << 20

// readAutoload reads the PSR-4 map of the composer.json at the root (its
// autoload and autoload-dev sections): namespace prefix (App\) to
// directory (src/), kept in cache by the file's content. A missing or
// unreadable file maps nothing.
func readAutoload(ctx context.Context, tree engine.Tree, cache *engine.Cache, name string) map[string]string {
	m, _ := cachedConfig(ctx, tree, cache, name, maxAutoloadBytes, func(b []byte) (map[string]string, int64) {
		m := psr4.Decode(b)
		weight := int64(64)
		for prefix, dir := range m {
			weight += int64(len(prefix)+len(dir)) + 32
		}
		return m, weight
	})
	return m
}
