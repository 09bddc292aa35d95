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
// directory (src/). A missing or unreadable file maps nothing.
func readAutoload(ctx context.Context, tree engine.Tree, name string) map[string]string {
	b, err := tree.ReadFile(ctx, name)
	if err != nil || len(b) > maxAutoloadBytes {
		return nil
	}
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
