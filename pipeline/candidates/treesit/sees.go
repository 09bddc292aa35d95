package treesit

import (
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// How well a file is seen from another, by its family's rules.
type sight int

const (
	unseen  sight = iota // nothing ties them but the name
	nearby               // the same directory, or a language whose files all see each other
	visible              // an import, using, include or namespace ties them
)

// sees answers how well from sees to: whether from's imports or namespace
// reach to's namespace or path.
func sees(from, to *file) sight {
	r := from.lang.rules
	if r.namespaces && seesNamespace(from, to, r.sep) {
		return visible
	}
	if r.paths != "" && seesPath(from, to, r) {
		return visible
	}
	if r.global || engine.DirOf(from.path) == engine.DirOf(to.path) {
		return nearby
	}
	return unseen
}

// seesNamespace: from declares to's namespace or one inside it, or imports
// it, alone or as the parent of an imported name.
func seesNamespace(from, to *file, sep string) bool {
	for _, n := range to.namespaces {
		for _, m := range from.namespaces {
			if m == n || strings.HasPrefix(m, n+sep) {
				return true
			}
		}
		for _, imp := range from.imports {
			if imp == n || (strings.HasPrefix(imp, n+sep) && !strings.Contains(imp[len(n)+len(sep):], sep)) {
				return true
			}
		}
	}
	return false
}

// seesPath: one of from's imports names to's file by its path's stem, as
// its last part or, by the "any" rule, any part.
func seesPath(from, to *file, r rules) bool {
	want := stem(to.path)
	for _, imp := range from.imports {
		parts := importParts(imp, r.sep)
		if len(parts) == 0 {
			continue
		}
		if r.paths == "any" {
			for _, p := range parts {
				if p == want {
					return true
				}
			}
			continue
		}
		last := parts[len(parts)-1]
		if last == want || strings.TrimSuffix(last, path.Ext(last)) == want {
			return true
		}
	}
	return false
}

// importParts splits an import by '/' and the family's separator.
func importParts(imp, sep string) []string {
	if sep != "" && sep != "/" {
		imp = strings.ReplaceAll(imp, sep, "/")
	}
	var out []string
	for _, p := range strings.Split(imp, "/") {
		if p != "" && p != "." && p != ".." {
			out = append(out, p)
		}
	}
	return out
}
