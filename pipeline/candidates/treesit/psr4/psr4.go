// Package psr4 reads PHP's PSR-4 autoload map from a composer.json and
// resolves a namespaced name to the file the map puts it in.
package psr4

import (
	"encoding/json"
	"path"
	"strings"
)

// Decode is the PSR-4 map of the composer.json b (its autoload and
// autoload-dev sections): namespace prefix (App\) to directory (src/).
// A composer.json that does not decode maps nothing.
func Decode(b []byte) map[string]string {
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

// File is the file an import names under the autoload map, without
// its extension (App\Models\User under App\ => src/ is src/Models/User),
// by the longest prefix; ok is false when no prefix covers it.
func File(imp, sep string, autoload map[string]string) (string, bool) {
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
