package treesit

import (
	"context"
	"path"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/candidates/treesit/compiledb"
)

// compileDBs are where a C or C++ project keeps its compilation database,
// in the order looked at.
var compileDBs = []string{"compile_commands.json", "build/compile_commands.json"}

// maxCompileDBBytes bounds the compilation database read.
const maxCompileDBBytes = 4 << 20

// includes resolves a C or C++ file's #include paths to the tree's files
// as a compiler would: the including file's directory, then the search
// path. The search path is the -I, -iquote and -isystem directories of the
// project's compilation database (compile_commands.json at the root or in
// build/) when it has one, else the include folders: each of the
// including file's directories and the include/ beside it, up to the root,
// then the directories holding headers the search came upon (learn), the
// nearest to the including file when one is nearer than the others: a
// project's build puts its header folders on the search path.
// An include resolving to no file of the tree (a system header, a
// generated one) is left to the trailing-parts rule (seesPath).
type includes struct {
	*engine.Listing
	dirs []string // the compilation database's search path; nil: the include folders
	// headerDirs are the directories holding headers the search came
	// upon, the include folders' last resort.
	headerDirs map[string]bool

	resolvedMu sync.Mutex
	resolved   map[[2]string]string // (from, include) => the file ("" for none)
}

// newIncludes reads the project's compilation database, if any; its
// search path (or that it names none) is kept in cache by the database's
// content.
func newIncludes(ctx context.Context, tree engine.Tree, cache *engine.Cache) *includes {
	in := &includes{Listing: engine.NewListing(ctx, tree), resolved: map[[2]string]string{}, headerDirs: map[string]bool{}}
	type decoded struct {
		dirs []string
		ok   bool
	}
	for _, name := range compileDBs {
		d, _ := cachedConfig(ctx, tree, cache, name, maxCompileDBBytes, func(b []byte) (decoded, int64) {
			var d decoded
			d.dirs, d.ok = compiledb.SearchPath(b, in.Has)
			weight := int64(64)
			for _, dir := range d.dirs {
				weight += int64(len(dir)) + 16
			}
			return d, weight
		})
		if d.ok {
			in.dirs = d.dirs
			break
		}
	}
	return in
}

// resolve is the file the include inc of the file from names; ok is false
// when it names none of the tree's.
func (in *includes) resolve(from, inc string) (string, bool) {
	k := [2]string{from, inc}
	in.resolvedMu.Lock()
	p, ok := in.resolved[k]
	in.resolvedMu.Unlock()
	if !ok {
		p = in.find(from, inc)
		in.resolvedMu.Lock()
		in.resolved[k] = p
		in.resolvedMu.Unlock()
	}
	return p, p != ""
}

// find is resolve's search.
func (in *includes) find(from, inc string) string {
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

// learn adds the directories of the headers among paths, files of the
// tree, to the search path's last resort (headerDirs). It is called
// before the includes are resolved.
func (in *includes) learn(paths []string) {
	for _, p := range paths {
		if l := languageOf(p); l != nil && l.rules.includes && !sourceExts[extOf(p)] {
			in.headerDirs[engine.DirOf(p)] = true
		}
	}
}

// nearestHeader is inc found in the header directories learnt: in the
// one sharing the most leading directories with dir, when no other holding
// it shares as many ("" for none, or several alike).
func (in *includes) nearestHeader(dir, inc string) string {
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

// reaches reports whether the header h, an include resolved, stands for
// the file p: p is h, or p is the source file of h's name that defines
// what h declares (calc.c beside calc.h; src/format.cc for
// include/fmt/format.h when no format.* source sits beside the header).
func (in *includes) reaches(h, p string) bool {
	if h == p {
		return true
	}
	if sourceExts[strings.ToLower(path.Ext(h))] || !sourceExts[strings.ToLower(path.Ext(p))] || lexed.Stem(p) != lexed.Stem(h) {
		return false
	}
	if engine.DirOf(p) == engine.DirOf(h) {
		return true
	}
	for _, q := range in.List(engine.DirOf(h)) {
		if q != h && lexed.Stem(q) == lexed.Stem(h) && sourceExts[strings.ToLower(path.Ext(q))] {
			return false // the header's own source file is beside it
		}
	}
	return true
}

// sourceExts are the extensions of C and C++ source (not header) files.
var sourceExts = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".m": true, ".mm": true}
