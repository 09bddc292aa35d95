// Package cinclude resolves a C or C++ file's #include paths to the files
// of a tree as a compiler would: the including file's directory, then the
// search path. The search path is the one a compilation database names
// (package compiledb) when the project has one, else the include folders:
// each of the including file's directories and the include/ beside it, up
// to the root, then the directories holding headers the search came upon
// (Learn), the nearest to the including file when one is nearer than the
// others: a project's build puts its header folders on the search path.
// It also tells which source file a header stands for (Reaches).
package cinclude

import (
	"path"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Includes resolves the #include paths of a tree's files. An include
// resolving to no file of the tree (a system header, a generated one) is
// left to its reader's rules.
type Includes struct {
	*engine.Listing
	dirs []string // the compilation database's search path; nil: the include folders
	// headerDirs are the directories holding headers the search came
	// upon, the include folders' last resort.
	headerDirs map[string]bool

	resolvedMu sync.Mutex
	resolved   map[[2]string]string // (from, include) => the file ("" for none)
}

// New is the resolver over the tree l lists; dirs is the compilation
// database's search path, nil when the project has none.
func New(l *engine.Listing, dirs []string) *Includes {
	return &Includes{Listing: l, dirs: dirs, resolved: map[[2]string]string{}, headerDirs: map[string]bool{}}
}

// Resolve is the file the include inc of the file from names; ok is false
// when it names none of the tree's.
func (in *Includes) Resolve(from, inc string) (string, bool) {
	p := engine.Memo(&in.resolvedMu, in.resolved, [2]string{from, inc}, func() string { return in.find(from, inc) })
	return p, p != ""
}

// find is resolve's search.
func (in *Includes) find(from, inc string) string {
	if inc == "" || path.IsAbs(inc) {
		return ""
	}
	dir := engine.DirOf(from)
	try := []string{dir}
	if in.dirs != nil {
		try = append(try, in.dirs...)
	} else {
		for d := dir; ; d = engine.DirOf(d) {
			try = append(try, path.Join(d, "include"))
			if d != dir { // dir is tried first
				try = append(try, d)
			}
			if d == "" {
				break
			}
		}
	}
	for _, d := range try {
		p := path.Join(d, inc)
		if strings.HasPrefix(p, "../") || p == ".." {
			continue
		}
		if in.Has(p) {
			return p
		}
	}
	if in.dirs == nil {
		return in.nearestHeader(dir, inc)
	}
	return ""
}

// Learn adds the directories of the headers among paths, files of the
// tree that header says are C or C++ headers, to the search path's last
// resort. It is called before the includes are resolved.
func (in *Includes) Learn(paths []string, header func(string) bool) {
	for _, p := range paths {
		if header(p) {
			in.headerDirs[engine.DirOf(p)] = true
		}
	}
}

// nearestHeader is inc found in the header directories learnt: in the
// one sharing the most leading directories with dir, when no other holding
// it shares as many ("" for none, or several alike).
func (in *Includes) nearestHeader(dir, inc string) string {
	shared := func(d string) int {
		n := 0
		for a, b := strings.Split(d, "/"), strings.Split(dir, "/"); n < len(a) && n < len(b) && a[n] == b[n]; n++ {
		}
		return n
	}
	best, bestShared, alike := "", -1, false
	for d := range in.headerDirs {
		p := path.Join(d, inc)
		if strings.HasPrefix(p, "../") || !in.Has(p) {
			continue
		}
		switch n := shared(d); {
		case n > bestShared:
			best, bestShared, alike = p, n, false
		case n == bestShared:
			alike = true
		}
	}
	if alike {
		return ""
	}
	return best
}

// Reaches reports whether the header h, an include resolved, stands for
// the file p: p is h, or p is the source file of h's name that defines
// what h declares (calc.c beside calc.h; src/format.cc for
// include/fmt/format.h when no format.* source sits beside the header).
func (in *Includes) Reaches(h, p string) bool {
	if h == p {
		return true
	}
	if SourceExts[strings.ToLower(path.Ext(h))] || !SourceExts[strings.ToLower(path.Ext(p))] || lexed.Stem(p) != lexed.Stem(h) {
		return false
	}
	if engine.DirOf(p) == engine.DirOf(h) {
		return true
	}
	for _, q := range in.List(engine.DirOf(h)) {
		if q != h && lexed.Stem(q) == lexed.Stem(h) && SourceExts[strings.ToLower(path.Ext(q))] {
			return false // the header's own source file is beside it
		}
	}
	return true
}

// SourceExts are the extensions of C and C++ source (not header) files.
var SourceExts = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".m": true, ".mm": true}
