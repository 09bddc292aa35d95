package golang

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/golang/goast"
	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// goEngine resolves Go names over the head tree. Everything is read lazily
// and cached: a directory's files are read when a name of its package is
// looked up, and a file is parsed only when its line index says it declares
// the name (or when it is a candidate to inspect).
type goEngine struct {
	ctx  context.Context
	tree engine.Tree
	err  error

	heads   map[string][]byte // head content of changed files, authoritative over the tree
	content map[string][]byte // file contents read so far (nil: unreadable)
	files   *parseTable       // shared with the background search
	// plan is the search for references, once made: a parse keeps the
	// bodies it walks.
	plan     *impactPlan
	dirs     map[string]*goDir
	modules  map[string]*goModule // by directory; nil value: no go.mod there
	modList  []*goModule          // the modules found, in the order found
	typeMemo map[string]*gtype
	// aliases holds the imports found under a package name other than
	// their path's last element, by file: a parse is shared by the
	// request's lookups and its search for references, and never changed.
	aliases map[*goFile]map[string]string
	fields  map[fieldsKey][]found   // fieldsNamed's answers
	sums    map[srcID]engine.Sum    // sumOf's answers
	bodies  map[srcID][]goscan.Body // bodiesOf's answers
	cache   *engine.Cache           // readings kept across requests
	sumMu   sync.Mutex              // guards sums and bodies: the search's reading runs beside the uses
	depth   int
}

// goModule is a go.mod's module path and the directory it sits in.
type goModule struct{ dir, path string }

// pkgKey identifies a Go package at the head: its directory, and whether it
// is the external test package (package x_test) of that directory.
type pkgKey struct {
	dir   string
	xtest bool
}

// goDir is one directory's Go files and the names each declares at top level.
type goDir struct {
	paths []string
	decls map[string][]string // top-level name or "Recv.Method" -> paths
	// byMethod holds the "Recv.Method" entries of decls by method name,
	// made on first use (decls is complete once dir returns).
	byMethod map[string][]recvDecl
	names    map[string]string // package name by path
}

// recvDecl is a method or field name's receiver type and the files that
// declare it.
type recvDecl struct {
	recv  string
	paths []string
}

// methods returns the receivers that declare a method name in g.
func (g *goDir) methods(name string) []recvDecl {
	if g.byMethod == nil {
		g.byMethod = map[string][]recvDecl{}
		for k, paths := range g.decls {
			if recv, meth, ok := strings.Cut(k, "."); ok {
				g.byMethod[meth] = append(g.byMethod[meth], recvDecl{recv, paths})
			}
		}
	}
	return g.byMethod[name]
}

// goFile is one parsed Go file.
type goFile struct {
	path    string
	pk      pkgKey
	pkgName string
	test    bool
	src     []byte
	ast     *ast.File
	tf      *token.File
	imports map[string]string // local name -> import path
	top     map[string]topDecl
	methods map[string]*ast.FuncDecl // "Recv.Name"
	// blanked holds the function bodies left out of the parse, by the
	// offset of their "func" keyword (see skeleton.go).
	blanked map[int]goscan.Body
}

type declKind int

const (
	dFunc declKind = iota + 1
	dType
	dVar
	dConst
)

// topDecl is one package-level declaration of a file.
type topDecl struct {
	kind  declKind
	fn    *ast.FuncDecl
	typ   *ast.TypeSpec
	val   *ast.ValueSpec
	index int // the name's index in val
}

func newGoEngine(ctx context.Context, tree engine.Tree, cache *engine.Cache) *goEngine {
	return &goEngine{
		ctx: ctx, tree: tree, cache: cache, aliases: map[*goFile]map[string]string{},
		fields: map[fieldsKey][]found{},
		sums:   map[srcID]engine.Sum{}, bodies: map[srcID][]goscan.Body{},
		heads: map[string][]byte{}, content: map[string][]byte{},
		files: newParseTable(), dirs: map[string]*goDir{},
		modules: map[string]*goModule{}, typeMemo: map[string]*gtype{},
	}
}

// read returns a head file's content, nil when it cannot be read.
func (e *goEngine) read(p string) []byte {
	if b, ok := e.heads[p]; ok {
		return b
	}
	if b, ok := e.content[p]; ok {
		return b
	}
	b, err := e.tree.ReadFile(e.ctx, p)
	if err != nil {
		if e.ctx.Err() != nil && e.err == nil {
			e.err = e.ctx.Err()
		}
		b = nil
	}
	e.content[p] = b
	return b
}

// dir returns a directory's Go files with their declared names.
func (e *goEngine) dir(d string) *goDir {
	if g, ok := e.dirs[d]; ok {
		return g
	}
	g := &goDir{decls: map[string][]string{}, names: map[string]string{}}
	add := func(p, n string) {
		if n != "" && n != "_" {
			g.decls[n] = append(g.decls[n], p)
		}
	}
	e.dirs[d] = g
	list, err := e.tree.ListDir(e.ctx, d)
	if err != nil {
		if e.ctx.Err() != nil && e.err == nil {
			e.err = e.ctx.Err()
		}
		return g
	}
	// Files are read and scanned in parallel; the results are merged in
	// listing order.
	var paths []string
	for _, p := range list {
		if strings.HasSuffix(p, ".go") && engine.DirOf(p) == d {
			paths = append(paths, p)
		}
	}
	res := make([]*fileDecls, len(paths))
	srcs := make([][]byte, len(paths))
	pipeline.ParallelCtx(e.ctx, len(paths), func(i int) { res[i], srcs[i] = e.scan(paths[i]) })
	for i, p := range paths {
		r := res[i]
		if r == nil {
			continue
		}
		if srcs[i] != nil {
			if _, ok := e.heads[p]; !ok {
				e.content[p] = srcs[i]
			}
		}
		g.paths = append(g.paths, p)
		g.names[p] = r.pkg
		for _, n := range r.names {
			add(p, n)
		}
	}
	if e.ctx.Err() != nil && e.err == nil {
		e.err = e.ctx.Err()
	}
	return g
}

// fileDecls is what goscan.Decls reads of a file, kept across requests by
// path and content, or path and blob id (never changed once kept).
type fileDecls struct {
	pkg   string
	names []string
}

// scan returns goscan.Decls's reading of head file p, and its content
// when it was read: a file the tree names by its blob id (engine.BlobIDs)
// and whose reading is kept is not read. nil when p cannot be read.
func (e *goEngine) scan(p string) (*fileDecls, []byte) {
	src, ok := e.heads[p]
	if ok {
		if src == nil {
			return nil, nil
		}
		return e.declsOf(engine.KeyAt("go/decls", p, e.sumOf(src)), src), src
	}
	var key engine.Key
	ids, named := e.tree.(engine.BlobIDs)
	if named {
		var id string
		if id, named = ids.BlobID(e.ctx, p); named {
			key = engine.BlobKey("go/decls", p, id)
			if d, ok := engine.Get[*fileDecls](e.cache, key); ok {
				return d, nil
			}
		}
	}
	src, err := e.tree.ReadFile(e.ctx, p)
	if err != nil || src == nil {
		return nil, nil
	}
	if !named {
		key = engine.KeyAt("go/decls", p, e.sumOf(src))
	}
	return e.declsOf(key, src), src
}

// declsOf returns goscan.Decls's reading of content src, kept under k.
func (e *goEngine) declsOf(k engine.Key, src []byte) *fileDecls {
	return engine.CachedAt(e.cache, k, func() (*fileDecls, int64) {
		d := &fileDecls{}
		w := int64(64)
		d.pkg = goscan.Decls(src, func(n string) {
			d.names = append(d.names, n)
			w += int64(len(n)) + 16
		})
		return d, w
	})
}

// parse parses a head file once for its declarations (function bodies
// blanked, see skeleton.go); nil when it cannot be read or is no Go.
func (e *goEngine) parse(p string) *goFile { return e.parsedFor(p, nil, nil) }

// parseSrc parses all of Go source of path p; an AST with syntax errors is
// kept for what it holds.
func parseSrc(p string, src []byte) *goFile {
	fset := token.NewFileSet()
	a, _ := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	return fileOf(fset, p, src, a)
}

// fileOf indexes a parsed file: its package, imports and top-level
// declarations. src is the file's own source, whatever the parser read;
// fset holds the file alone.
func fileOf(fset *token.FileSet, p string, src []byte, a *ast.File) *goFile {
	if a == nil || a.Name == nil {
		return nil
	}
	tf := fset.File(a.FileStart)
	if tf == nil {
		return nil
	}
	f := &goFile{
		path: p, tf: tf, pkgName: a.Name.Name, test: strings.HasSuffix(p, "_test.go"), src: src, ast: a,
		imports: map[string]string{}, top: map[string]topDecl{}, methods: map[string]*ast.FuncDecl{},
	}
	f.pk = pkgKey{dir: engine.DirOf(p), xtest: f.test && strings.HasSuffix(f.pkgName, "_test")}
	for _, im := range a.Imports {
		ip, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := goscan.ImportName(ip)
		if im.Name != nil {
			name = im.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		f.imports[name] = ip
	}
	for _, d := range a.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if r := goast.RecvName(d.Recv.List[0].Type); r != "" {
					f.methods[r+"."+d.Name.Name] = d
				}
				continue
			}
			f.top[d.Name.Name] = topDecl{kind: dFunc, fn: d}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					f.top[s.Name.Name] = topDecl{kind: dType, typ: s}
				case *ast.ValueSpec:
					k := dVar
					if d.Tok == token.CONST {
						k = dConst
					}
					for i, n := range s.Names {
						f.top[n.Name] = topDecl{kind: k, val: s, index: i}
					}
				}
			}
		}
	}
	return f
}

// module returns the module whose go.mod governs dir, nil when none.
func (e *goEngine) module(dir string) *goModule {
	if m, ok := e.modules[dir]; ok {
		return m
	}
	var m *goModule
	if src := e.read(engine.JoinDir(dir, "go.mod")); src != nil {
		if mp := goscan.ModulePath(src); mp != "" {
			m = &goModule{dir: dir, path: mp}
			e.modList = append(e.modList, m)
		}
	}
	if m == nil && dir != "" {
		m = e.module(engine.DirOf(dir))
	}
	e.modules[dir] = m
	return m
}

// importDir maps an import path to its directory at the head, using the
// module of the importing file and every module found so far.
func (e *goEngine) importDir(from *goFile, ip string) (string, bool) {
	try := func(m *goModule) (string, bool) {
		if m == nil {
			return "", false
		}
		if ip == m.path {
			return m.dir, true
		}
		if len(ip) > len(m.path) && ip[len(m.path)] == '/' && strings.HasPrefix(ip, m.path) {
			return engine.JoinDir(m.dir, ip[len(m.path)+1:]), true
		}
		return "", false
	}
	if d, ok := try(e.module(from.pk.dir)); ok {
		return d, true
	}
	for _, m := range e.modList {
		if d, ok := try(m); ok {
			return d, true
		}
	}
	return "", false
}

// importPathOf returns the import path of the package in dir, "" when it is
// in no known module.
func (e *goEngine) importPathOf(dir string) string {
	m := e.module(dir)
	if m == nil {
		return ""
	}
	if dir == m.dir {
		return m.path
	}
	rest := strings.TrimPrefix(dir, m.dir+"/")
	if m.dir == "" {
		rest = dir
	}
	return m.path + "/" + rest
}

// importedPkg resolves a selector's package name in file f: the import it
// names, and the package's directory when it is in the repository.
func (e *goEngine) importedPkg(f *goFile, name string) (ip string, dir string, inRepo bool, ok bool) {
	ip, ok = f.imports[name]
	if !ok {
		ip, ok = e.aliases[f][name]
	}
	if ok {
		d, in := e.importDir(f, ip)
		return ip, d, in, true
	}
	// An import whose package name differs from its path's last element.
	for _, im := range f.ast.Imports {
		if im.Name != nil {
			continue
		}
		ip, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		d, in := e.importDir(f, ip)
		if !in {
			continue
		}
		g := e.dir(d)
		for _, p := range g.paths {
			if !strings.HasSuffix(p, "_test.go") && g.names[p] == name {
				if e.aliases[f] == nil {
					e.aliases[f] = map[string]string{}
				}
				e.aliases[f][name] = ip
				return ip, d, true, true
			}
		}
	}
	return "", "", false, false
}

// lookupTop finds a package-level declaration of name in package pk.
// fromTest allows declarations in _test.go files.
func (e *goEngine) lookupTop(pk pkgKey, name string, fromTest bool) (*goFile, topDecl, bool) {
	g := e.dir(pk.dir)
	for _, p := range g.decls[name] {
		if !fromTest && strings.HasSuffix(p, "_test.go") {
			continue
		}
		f := e.parse(p)
		if f == nil || f.pk != pk {
			continue
		}
		if d, ok := f.top[name]; ok {
			return f, d, true
		}
	}
	return nil, topDecl{}, false
}

// lookupTopPath finds the file declaring name at package level in package
// pk from the directory's line index alone, without parsing.
func (e *goEngine) lookupTopPath(pk pkgKey, name string, fromTest bool) string {
	g := e.dir(pk.dir)
	for _, p := range g.decls[name] {
		if !fromTest && strings.HasSuffix(p, "_test.go") {
			continue
		}
		xtest := strings.HasSuffix(p, "_test.go") && strings.HasSuffix(g.names[p], "_test")
		if xtest == pk.xtest {
			return p
		}
	}
	return ""
}

// lookupMethod finds the method recv.name declared in package pk.
func (e *goEngine) lookupMethod(pk pkgKey, recv, name string) (*goFile, *ast.FuncDecl) {
	g := e.dir(pk.dir)
	for _, p := range g.decls[recv+"."+name] {
		f := e.parse(p)
		if f == nil || f.pk != pk {
			continue
		}
		if d := f.methods[recv+"."+name]; d != nil {
			return f, d
		}
	}
	return nil, nil
}
