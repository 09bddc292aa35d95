package treesit

import (
	"context"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cinclude"
	"github.com/prscout/prscout/pipeline/candidates/treesit/compiledb"
)

// compileDBs are where a C or C++ project keeps its compilation database,
// in the order looked at.
var compileDBs = []string{"compile_commands.json", "build/compile_commands.json"}

// maxCompileDBBytes bounds the compilation database read.
const maxCompileDBBytes = 4 << 20

// sourceExts are the extensions of C and C++ source (not header) files.
var sourceExts = cinclude.SourceExts

// isHeader reports whether p is a C or C++ header.
func isHeader(p string) bool {
	l := languageOf(p)
	return l != nil && l.rules.includes && !sourceExts[extOf(p)]
}

// newIncludes is the resolver of the tree's #include paths (package
// cinclude), by the search path of the project's compilation database
// (compile_commands.json at the root or in build/) when it has one, kept
// in cache by the database's content, else by the include folders. An
// include resolving to no file of the tree is left to the trailing-parts
// rule (seesPath).
func newIncludes(ctx context.Context, tree engine.Tree, cache *engine.Cache) *cinclude.Includes {
	l := engine.NewListing(ctx, tree)
	type decoded struct {
		dirs []string
		ok   bool
	}
	for _, name := range compileDBs {
		d, _ := cachedConfig(ctx, tree, cache, name, maxCompileDBBytes, func(b []byte) (decoded, int64) {
			var d decoded
			d.dirs, d.ok = compiledb.SearchPath(b, l.Has)
			weight := int64(64)
			for _, dir := range d.dirs {
				weight += int64(len(dir)) + 16
			}
			return d, weight
		})
		if d.ok {
			return cinclude.New(l, d.dirs)
		}
	}
	return cinclude.New(l, nil)
}
