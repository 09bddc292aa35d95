package treesit

import (
	"path"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cargo"
	"github.com/prscout/prscout/pipeline/candidates/treesit/psr4"
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
func (s *search) sees(from, to *file) sight {
	r := from.lang.rules
	if r.namespaces && seesNamespace(from, to, r.sep) {
		return visible
	}
	if r.paths != "" && s.seesPath(from, to, r) {
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

// seesPath: one of from's imports names to's file by its path. By the
// "last" rule the import's last parts are the path's (as many as the
// import has, at least two when it has two: use App\Lib\Calc reaches
// src/Lib/Calc.php, not src/Other/Calc.php; #include "calc.h" reaches
// any calc.*). By the "any" rule the file's module path, from its source
// root, runs inside the import (use crate::net::http::Client reaches
// src/net/http.rs and src/net/http/mod.rs).
//
// An import under a prefix of the project's autoload map (composer.json's
// PSR-4) reaches the one file the map puts it in; a C or C++ include
// resolving to a file of the tree (includes) reaches that file and the
// source file standing for it; in a Cargo workspace, a use path naming
// a member crate reaches only that crate's files (cargo).
func (s *search) seesPath(from, to *file, r rules) bool {
	tp := to.modPath
	var ct *cargo.Target // to's crate, worked out at the first use path
	for i, imp := range from.imports {
		if s.includes != nil && r.includes {
			if h, ok := s.includes.Resolve(from.path, imp); ok {
				if s.includes.Reaches(h, to.path) {
					return true
				}
				continue
			}
		}
		if p, ok := psr4.File(imp, r.sep, s.autoload); ok {
			if p == strings.TrimSuffix(to.path, path.Ext(to.path)) {
				return true
			}
			continue
		}
		ip := from.importParts[i]
		if len(ip) == 0 {
			continue
		}
		if r.paths == "any" {
			if s.cargo != nil {
				if ct == nil {
					t := s.cargo.Target(to.path, tp)
					ct = &t
				}
				if reaches, decided := s.cargo.Sees(from.path, *ct, ip); decided {
					if reaches {
						return true
					}
					continue
				}
			}
			if cargo.RunsInside(tp[lastIndex(tp, "src")+1:], ip) {
				return true
			}
			continue
		}
		if lastPartsReach(ip, tp) {
			return true
		}
	}
	return false
}

// modulePath is p's parts without the file's extension; a file standing
// for its directory (mod.rs, index.php, ...) is its directory.
func modulePath(p string) []string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	parts[len(parts)-1] = strings.TrimSuffix(last, path.Ext(last))
	if len(parts) > 1 && stem(p) != parts[len(parts)-1] {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func lastIndex(parts []string, s string) int {
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == s {
			return i
		}
	}
	return -1
}

// lastPartsReach reports whether an import of parts ip names the file of
// module path tp by the "last" rule (seesPath).
func lastPartsReach(ip, tp []string) bool {
	n := commonSuffix(ip, tp)
	return n > 0 && n >= min(len(ip), 2)
}

// commonSuffix is the number of trailing parts a and b share, by case.
func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && strings.EqualFold(a[len(a)-1-n], b[len(b)-1-n]) {
		n++
	}
	return n
}

// importParts splits an import by '/' and the family's separator; the
// last part loses its file extension.
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
	if n := len(out); n > 0 {
		if ext := path.Ext(out[n-1]); len(ext) > 1 && len(ext) <= 4 {
			out[n-1] = strings.TrimSuffix(out[n-1], ext)
		}
	}
	return out
}
