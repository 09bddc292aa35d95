package java

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Where a Java type is declared: the source roots, the package
// directories an import or the same package puts it in, and the reads
// that load it.

// typeRef is a type name as file from names it.
type typeRef struct {
	from *jfile
	name string
}

// triedKey is a type name looked up from the file at a path.
type triedKey struct{ path, name string }

// loadTypes reads the files declaring the types in need and, level by
// level, their supertypes. A type T named in file F is looked for where
// Java's rules put it: T.java in F's package, in the package of a
// single-type import of T (or the file of its outer class), of an
// on-demand import, or of a static import's class, under every source root
// known (the directories above the packages of the files read).
func (s *javaSearch) loadTypes(ctx context.Context, need map[typeRef]bool) error {
	pending := map[string]bool{} // package dir + file of explicit imports not found
	for round := 0; round <= javaTypeRounds && len(need) > 0; round++ {
		next := map[typeRef]bool{}
		for r := range need {
			n := r.name
			if n == "" || s.tried[triedKey{r.from.Path, n}] || javaNotType[n] || javaPrimitives[n] || lexed.IsKeyword(lexed.LangJava, n) || !lexed.IsTypeName(n) {
				continue
			}
			s.tried[triedKey{r.from.Path, n}] = true
			if slices.ContainsFunc(s.classes[n], func(p *jfile) bool { return s.javaSees(r.from, p, n) > 0 }) {
				continue
			}
			for _, p := range javaTypePlaces(r.from, n) {
				f, err := s.readIn(ctx, r.from, p)
				if err != nil {
					return err
				}
				if f == nil {
					if p.explicit && !javaPlatform(p.dir) {
						pending[p.dir+"/"+p.file] = true
					}
					continue
				}
				needSupers(next, f)
			}
		}
		// An import of a module whose source root no file read has shown:
		// the files that name the type are searched for its path.
		if len(pending) > 0 {
			var words []string
			for tail := range pending {
				w := strings.TrimSuffix(path.Base(tail), ".java")
				words = engine.AppendNew(words, w)
			}
			slices.Sort(words)
			paths, err := s.tree.Grep(ctx, words, []string{"*.java"}, lexed.GrepLimit)
			if err != nil {
				return fmt.Errorf("search for imported types: %w", err)
			}
			for _, p := range paths {
				if !javaTailPending(pending, p) {
					continue
				}
				f, err := s.read(ctx, p)
				if err != nil {
					return err
				}
				if f != nil {
					needSupers(next, f)
				}
			}
			clear(pending)
		}
		need = next
	}
	return nil
}

// needSupers adds to need the supertypes of f's classes, each looked up
// from f.
func needSupers(need map[typeRef]bool, f *jfile) {
	for _, c := range f.java.classes {
		for _, sup := range c.supers {
			need[typeRef{f, sup}] = true
		}
	}
}

// javaPlatform reports whether package directory dir is the JDK's.
func javaPlatform(dir string) bool {
	for _, p := range []string{"java/", "javax/", "jdk/", "sun/", "com/sun/", "org/w3c/", "org/xml/", "org/ietf/"} {
		if strings.HasPrefix(dir+"/", p) {
			return true
		}
	}
	return false
}

// javaTailPending reports whether path p ends in one of pending's
// package directory + file tails: is one of them, or ends in / and one.
func javaTailPending(pending map[string]bool, p string) bool {
	for tail := p; ; {
		if pending[tail] {
			return true
		}
		i := strings.IndexByte(tail, '/')
		if i < 0 {
			return false
		}
		tail = tail[i+1:]
	}
}

// typePlace is a package directory (relative to a source root) and the
// file name a type may be declared in; explicit places (single-type and
// static imports) are looked for under every known root, the others (the
// file's package, on-demand imports) under the file's own roots.
type typePlace struct {
	dir, file string
	explicit  bool
}

func javaTypePlaces(f *jfile, n string) []typePlace {
	n = javaTopName(n)
	pkgDir := func(parts []string) string { return strings.Join(parts, "/") }
	out := []typePlace{{strings.ReplaceAll(f.pkg, ".", "/"), n + ".java", false}}
	for _, im := range f.java.imports {
		k := len(im.parts)
		switch {
		case im.wildcard && !im.static:
			out = append(out, typePlace{pkgDir(im.parts), n + ".java", false})
		case !im.wildcard && !im.static && im.parts[k-1] == n:
			out = append(out, typePlace{pkgDir(im.parts[:k-1]), n + ".java", true})
			// a.b.Outer.T: T nested in Outer.java.
			if k >= 3 && lexed.IsTypeName(im.parts[k-2]) {
				out = append(out, typePlace{pkgDir(im.parts[:k-2]), im.parts[k-2] + ".java", true})
			}
		case im.static && k >= 2:
			cls := k - 1
			if !im.wildcard {
				cls = k - 2
			}
			if cls >= 1 && im.parts[cls] == n {
				out = append(out, typePlace{pkgDir(im.parts[:cls]), n + ".java", true})
			}
		}
	}
	return out
}

// roots answers the source roots known: for each file read, its directory
// less its package's path.
func (s *javaSearch) roots() []string {
	if s.rootList != nil && len(s.rootSeen) == len(s.files) {
		return s.rootList
	}
	for p, f := range s.files {
		if s.rootSeen[p] {
			continue
		}
		// A file that could not be read counts as seen too: else every call
		// walked every file again.
		s.rootSeen[p] = true
		if f == nil {
			continue
		}
		dir := engine.DirOf(p)
		pkg := strings.ReplaceAll(f.pkg, ".", "/")
		root := dir
		if pkg != "" {
			if dir != pkg && !strings.HasSuffix(dir, "/"+pkg) {
				continue
			}
			root = strings.TrimSuffix(strings.TrimSuffix(dir, pkg), "/")
		}
		// Maven and Gradle put a module's tests beside its sources.
		for _, r := range []string{root, swapRoot(root, "src/main/", "src/test/"), swapRoot(root, "src/test/", "src/main/")} {
			if r != "" && !slices.Contains(s.rootList, r) {
				s.rootList = append(s.rootList, r)
			}
		}
	}
	slices.Sort(s.rootList)
	return s.rootList
}

// placeAnswer is readIn's answer for an explicit place and the number of
// source roots it was looked for under.
type placeAnswer struct {
	f     *jfile
	roots int
}

// ownRootsOf is ownRoots(f), found once per file by one search.
func (s *javaSearch) ownRootsOf(f *jfile) []string {
	if r, ok := s.own[f]; ok {
		return r
	}
	if s.own == nil {
		s.own = map[*jfile][]string{}
	}
	r := s.ownRoots(f)
	s.own[f] = r
	return r
}

// ownRoots answers f's source root and its sibling main/test root.
func (s *javaSearch) ownRoots(f *jfile) []string {
	dir := engine.DirOf(f.Path)
	pkg := strings.ReplaceAll(f.pkg, ".", "/")
	root := dir
	if pkg != "" {
		if dir != pkg && !strings.HasSuffix(dir, "/"+pkg) {
			return []string{dir}
		}
		root = strings.TrimSuffix(strings.TrimSuffix(dir, pkg), "/")
	}
	out := []string{root}
	for _, r := range []string{swapRoot(root, "src/main/", "src/test/"), swapRoot(root, "src/test/", "src/main/")} {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// swapRoot answers root with the last from replaced by to, "" when root
// has no from.
func swapRoot(root, from, to string) string {
	i := strings.LastIndex(root+"/", from)
	if i < 0 {
		return ""
	}
	return strings.TrimSuffix(root[:i]+to+(root + "/")[i+len(from):], "/")
}

// readIn reads the file of place p under the source roots where its
// directory lists it: every known root for an explicit place, else the
// roots of from (its own and its sibling main/test root).
func (s *javaSearch) readIn(ctx context.Context, from *jfile, p typePlace) (*jfile, error) {
	dir, file := p.dir, p.file
	var roots []string
	if p.explicit {
		roots = s.roots()
		// The roots only grow: while they are the same, so is the answer.
		if a, ok := s.explicitAt[p]; ok && a.roots == len(roots) {
			return a.f, nil
		}
	} else {
		roots = s.ownRootsOf(from)
	}
	var found *jfile
	for _, root := range roots {
		fp := engine.JoinDir(engine.JoinDir(root, dir), file)
		if !s.listing.Has(fp) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			continue
		}
		f, err := s.read(ctx, fp)
		if err != nil {
			return nil, err
		}
		if f != nil && found == nil {
			found = f
		}
	}
	if p.explicit {
		if s.explicitAt == nil {
			s.explicitAt = map[typePlace]placeAnswer{}
		}
		s.explicitAt[p] = placeAnswer{found, len(roots)}
	}
	return found, nil
}
