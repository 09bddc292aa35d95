package treesit

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
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
		m := decodeAutoload(b)
		weight := int64(64)
		for prefix, dir := range m {
			weight += int64(len(prefix)+len(dir)) + 32
		}
		return m, weight
	})
	return m
}

// decodeAutoload is readAutoload's map of the composer.json b.
func decodeAutoload(b []byte) map[string]string {
	var c struct {
		Autoload struct {
			PSR4 map[string]json.RawMessage `json:"psr-4"`
		} `json:"autoload"`
		AutoloadDev struct {
			PSR4 map[string]json.RawMessage `json:"psr-4"`
		} `json:"autoload-dev"`
	}
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	out := map[string]string{}
	for _, m := range []map[string]json.RawMessage{c.Autoload.PSR4, c.AutoloadDev.PSR4} {
		for prefix, raw := range m {
			var dir string
			if json.Unmarshal(raw, &dir) != nil {
				var dirs []string // several directories: the first is kept
				if json.Unmarshal(raw, &dirs) != nil || len(dirs) == 0 {
					continue
				}
				dir = dirs[0]
			}
			if prefix != "" && !strings.HasSuffix(prefix, `\`) {
				prefix += `\`
			}
			out[prefix] = strings.TrimPrefix(path.Clean("/"+dir), "/")
		}
	}
	return out
}

// autoloaded is the file an import names under the autoload map, without
// its extension (App\Models\User under App\ => src/ is src/Models/User),
// by the longest prefix; ok is false when no prefix covers it.
func autoloaded(imp, sep string, autoload map[string]string) (string, bool) {
	if len(autoload) == 0 {
		return "", false
	}
	best := ""
	for prefix := range autoload {
		if strings.HasPrefix(imp, prefix) && len(prefix) > len(best) {
			best = prefix
		}
	}
	if best == "" {
		return "", false
	}
	rel := strings.ReplaceAll(strings.TrimPrefix(imp, best), sep, "/")
	return path.Join(autoload[best], rel), true
}
