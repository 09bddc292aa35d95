package java

import (
	"context"
	"slices"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
	"github.com/prscout/prscout/pipeline/ident"
)

// The Java search. Almost every Java call is receiver.method(), so names
// are resolved through types: a receiver's declared type (field, local,
// parameter, a method's return type), the class hierarchy (extends,
// implements: inherited members and overrides), and Java's visibility rules
// (the file's package, single-type, on-demand and static imports). A type
// is looked for where those rules put it: Type.java in the package's
// directory under the source roots known.

const (
	scoreJavaTyped    = 0.85 // resolved through a declared type or an import
	scoreJavaOnDemand = 0.75 // through an on-demand import a.b.*
	scoreJavaSees     = 0.6  // an untyped receiver in a file that sees the class
	scoreJavaLoose    = 0.3  // an untyped receiver, the member name rare: textual
	javaTypeRounds    = 3    // supertype levels read beyond the named types
	javaManyFiles     = 200  // more files than this name a touched name: mostNaming picks among them
)

// javaSearch is the search of all the changed Java files together.
type javaSearch struct {
	tree     engine.Tree
	ev       *engine.Evidence
	h        *lexed.Hierarchy
	files    map[string]*jfile   // every file read, by path
	classes  map[string][]*jfile // class simple name -> files declaring it
	tried    map[triedKey]bool   // the type names looked up from a file (by path)
	declared map[string]int      // member name -> files declaring it (read files)
	listing  *engine.Listing     // the directories readIn lists
	own      map[*jfile][]string // ownRootsOf's answers
	// explicitAt is readIn's answers for explicit places.
	explicitAt map[typePlace]placeAnswer
	rootList   []string            // source roots known (roots)
	rootSeen   map[string]bool     // files whose root is in rootList
	sees       map[seesKey]float64 // javaSees's answers
}

// javaTouch is a declaration of a changed file that the change touched.
type javaTouch struct {
	f      *jfile
	d      lexed.Decl
	change engine.DeclChange
}

// namingScore is a file with the number of touched declarations it names.
type namingScore struct {
	path string
	n    int
}

// mostFirst answers the paths of the javaManyFiles files naming the most,
// ties in their given order.
func mostFirst(out []namingScore) []string {
	slices.SortStableFunc(out, func(a, b namingScore) int { return b.n - a.n })
	var keep []string
	for _, x := range out[:min(len(out), javaManyFiles)] {
		keep = append(keep, x.path)
	}
	return keep
}

// mostNaming answers the javaManyFiles paths whose content names the most
// touched declarations together with their class's name (ties in grep's
// order). A file's distinct identifiers (in comments and strings too) are
// kept across requests: the files a range's names reach are mostly the
// same from one request to the next, and a file holds far fewer names
// than bytes.
func (s *javaSearch) mostNaming(ctx context.Context, paths []string, touched []javaTouch) ([]string, error) {
	// Each file is read and scored on every core; counts[i] is paths[i]'s.
	counts := make([]int, len(paths))
	pipeline.Parallel(len(paths), func(i int) {
		p := paths[i]
		src, err := s.tree.ReadFile(ctx, p)
		if err != nil {
			return
		}
		fi := engine.Cached(s.ev.Cache, "java-names", p, src, func() (*engine.Idents, int64) {
			fi := engine.ListIdents(src, javaChars)
			return fi, fi.Weight()
		})
		for _, t := range touched {
			if fi.Has(t.d.Name) && (t.d.Container == "" || fi.Has(javaTopName(t.d.Container))) {
				counts[i]++
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []namingScore
	for i, n := range counts {
		if n > 0 {
			out = append(out, namingScore{paths[i], n})
		}
	}
	return mostFirst(out), nil
}

// javaChars are the bytes of Java identifiers besides ASCII letters, digits
// and '_' (every non-ASCII byte counts, as the letters of other scripts do).
const javaChars = ident.Dollar | ident.Unicode

// read reads and parses one file outside the change (nil when it cannot).
func (s *javaSearch) read(ctx context.Context, p string) (*jfile, error) {
	if f, ok := s.files[p]; ok {
		return f, nil
	}
	if s.ev.Changed[p] || engine.SkippedPath(p) || lexed.LangOf(p) != lexed.LangJava {
		return nil, nil
	}
	src, err := s.tree.ReadFile(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.files[p] = nil
		return nil, nil
	}
	f := cachedJava(s.ev.Cache, p, src)
	s.addFile(f)
	return f, nil
}

// readAll reads the files at paths (a search's, engine.Found) as read
// does, in order: those the search does not know yet are read and lexed on
// every core unless read holds them (read by another search), then added
// in the order of paths.
func (s *javaSearch) readAll(ctx context.Context, paths []string, read map[string]*jfile) ([]*jfile, error) {
	var todo []string
	for _, p := range paths {
		if _, ok := s.files[p]; !ok && read[p] == nil {
			todo = append(todo, p)
		}
	}
	got := engine.ReadFiles(ctx, s.tree, s.ev, lexed.LangJava.String(), todo, func(p string, src []byte) (*jfile, int, bool) {
		f := cachedJava(s.ev.Cache, p, src)
		return f, len(f.Toks), true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, p := range todo {
		s.files[p] = nil // unread unless added below
		if got[i] != nil {
			read[p] = got[i]
		}
	}
	for _, p := range paths {
		if f := read[p]; f != nil && s.files[p] == nil {
			s.addFile(f)
		}
	}
	out := make([]*jfile, len(paths))
	for i, p := range paths {
		out[i] = s.files[p]
	}
	return out, nil
}

func (s *javaSearch) addFile(f *jfile) {
	s.files[f.Path] = f
	s.h.Add(f.File, f.java.members)
	for _, d := range f.Decls {
		switch d.Kind {
		case "class", "interface", "enum":
			k := lexed.Display(d)
			s.classes[k] = engine.AppendNew(s.classes[k], f)
		}
	}
	for _, n := range f.java.memberNames {
		s.declared[n]++
	}
}

// javaTouched answers the declarations of one changed file that the change
// touched (lexed.Touched), each with the side that declares it.
func javaTouched(c *engine.Change, nf, of *jfile) []javaTouch {
	var out []javaTouch
	for _, t := range lexed.Touched(c, nf, of) {
		f := nf
		if t.Base {
			f = of
		}
		out = append(out, javaTouch{f, t.Decl, t.Change})
	}
	return out
}

// usesIn records the files declaring what the added lines of f refer to;
// added holds the indices of the tokens on them (lexed.TokensOn).
func (s *javaSearch) usesIn(f *jfile, added []int) {
	for _, i := range added {
		t := f.Toks[i]
		if t.Kind != lexed.TkIdent || f.java.declTok.Has(i) || lexed.IsKeyword(lexed.LangJava, t.Text) && t.Text != "super" {
			continue
		}
		member := i > 0 && f.Toks[i-1].Text == "."
		call := i+1 < len(f.Toks) && f.Toks[i+1].Text == "("
		switch {
		case member:
			for _, typ := range s.resolveTypes(f, i, 0) {
				for _, g := range s.declaringFiles(f, typ, t.Text) {
					s.addUse(g, typ+"."+t.Text, f, scoreJavaTyped)
				}
			}
		case t.Text == "super" && call:
			if c := f.java.classAt(i); c != nil {
				for _, sup := range c.supers {
					fs, sc := s.typeFiles(f, sup)
					for _, g := range fs {
						s.addUse(g, sup, f, sc)
					}
				}
			}
		case lexed.IsTypeName(t.Text) && (!call || i > 0 && f.Toks[i-1].Text == "new"):
			cls := f.java.qualify(t.Text)
			fs, sc := s.typeFiles(f, cls)
			for _, g := range fs {
				s.addUse(g, cls, f, sc)
			}
		case call:
			s.usesUnqualified(f, i)
		default:
			// A field of the enclosing class's supertypes, or statically
			// imported.
			s.usesUnqualified(f, i)
		}
	}
}

// usesUnqualified resolves a name used without a receiver: a member the
// enclosing class inherits, or a static import.
func (s *javaSearch) usesUnqualified(f *jfile, i int) {
	name := f.Toks[i].Text
	if c := f.java.classAt(i); c != nil {
		if f.java.contained[name] {
			return // declared in the file itself
		}
		if f.Types.Vars[name] != nil && !lexed.IsTypeName(name) {
			return // a local or parameter
		}
		for _, sup := range c.supers {
			for _, g := range s.declaringFiles(f, sup, name) {
				s.addUse(g, sup+"."+name, f, scoreJavaTyped)
			}
		}
	}
	for _, im := range f.java.imports {
		if !im.static || len(im.parts) < 2 {
			continue
		}
		cls := im.parts[len(im.parts)-1]
		if !im.wildcard {
			if cls != name {
				continue
			}
			cls = im.parts[len(im.parts)-2]
		}
		for _, g := range s.classes[cls] {
			if s.javaSees(f, g, cls) > 0 && slices.ContainsFunc(g.Decls, func(d lexed.Decl) bool { return d.Name == name && d.Container == cls }) {
				s.addUse(g, cls+"."+name, f, scoreJavaTyped)
			}
		}
	}
}

func (s *javaSearch) addUse(g *jfile, sym string, from *jfile, score float64) {
	if g == nil || g == from || s.ev.Changed[g.Path] {
		return
	}
	s.ev.Add(g.Path, engine.UseItem(sym, from.Path, score, engine.MethodTokens))
}

// touchedByName indexes the touched declarations by the identifiers that
// refer to them (a constructor's also by super; new C() and C::new are
// found at C), with each one's class and the number of its (declaring
// file, class) pair: how a file sees a class is asked once per pair.
func touchedByName(touched []javaTouch) touchedNames {
	byName := touchedNames{cls: make([]string, len(touched)), seen: make([]int, len(touched))}
	add := func(n string, k int) {
		ks, _ := byName.at.Get(n)
		byName.at.Put(n, append(ks, k))
	}
	type pair struct {
		f   *jfile
		cls string
	}
	pairs := map[pair]int{}
	for k, t := range touched {
		add(t.d.Name, k)
		if t.d.Kind == "constructor" {
			add("super", k)
		}
		byName.cls[k] = touchedClass(t.d)
		pr := pair{t.f, byName.cls[k]}
		id, ok := pairs[pr]
		if !ok {
			id = len(pairs)
			pairs[pr] = id
		}
		byName.seen[k] = id
	}
	byName.pairs = len(pairs)
	return byName
}

// touchedNames indexes the touched declarations by name (at): most of a
// file's identifiers are none of the names.
type touchedNames struct {
	at ident.Set[[]int]
	// cls is each touched declaration's class (touchedClass); seen its
	// (declaring file, class) pair's number, of pairs.
	cls   []string
	seen  []int
	pairs int
}

// of returns the indices of the touched declarations named n.
func (tn *touchedNames) of(n string) []int {
	ks, _ := tn.at.Get(n)
	return ks
}

// hitTokens is what one token naming a touched declaration costs the
// impact walk (refAt resolves its receiver), in the tokens of a plain walk
// that inParts's partMinTokens counts.
const hitTokens = 32

// impactIn records g's references to the touched declarations (byName:
// touchedByName's index of them), asking each of hits, the indices of g's
// tokens that name one, in order.
func (s *javaSearch) impactIn(g *jfile, hits []int32, touched []javaTouch, byName *touchedNames) {
	best := make([]float64, len(touched))
	calls := make([]bool, len(touched))
	over := make([]bool, len(touched)) // the best reference is an override's declaration
	// sees[k] is how g sees touched pair k's class, -2 until asked.
	sees := make([]float64, byName.pairs)
	for k := range sees {
		sees[k] = -2
	}
	for _, h := range hits {
		i, tk := int(h), g.Toks[h]
		at := atTok{i: i}
		for _, k := range byName.of(tk.Text) {
			if best[k] < 0 || (best[k] == scoreJavaTyped && calls[k]) {
				continue // another class's name, or a typed call found: nothing scores more
			}
			t := &touched[k]
			sk := byName.seen[k]
			if sees[sk] == -2 {
				sees[sk] = s.seesTouched(g, t, byName.cls[k])
			}
			if sees[sk] < 0 {
				best[k] = -1 // g's class of that name is another
				continue
			}
			sc, call := s.refAt(g, &at, t, byName.cls[k], sees[sk])
			if sc > best[k] || (sc == best[k] && sc > 0 && call) {
				best[k], calls[k], over[k] = sc, call, g.java.declTok.Has(i)
			}
		}
	}
	for k, t := range touched {
		if best[k] <= 0 {
			continue
		}
		name := lexed.Display(t.d)
		if t.d.Kind == "constructor" {
			name = "new " + t.d.Name
		}
		verb := engine.Verb(calls[k])
		if over[k] {
			verb = "overrides"
		}
		method := engine.MethodTokens
		if best[k] <= scoreJavaLoose {
			method = engine.MethodTextual // the receiver's type is unknown: the name matched as text
		}
		s.ev.Add(g.Path, engine.ImpactItem(verb, name, t.change, best[k], method, calls[k]))
	}
}

// touchedClass is the class a touched declaration belongs to (a class:
// itself, named as the hierarchy names it: A.B for a class B nested in A).
func touchedClass(d lexed.Decl) string {
	if d.Kind == "class" || d.Kind == "interface" || d.Kind == "enum" {
		return lexed.Display(d)
	}
	return d.Container
}

// javaTopName is the top-level class of a class key (A of A.B).
func javaTopName(cls string) string {
	if i := strings.IndexByte(cls, '.'); i >= 0 {
		return cls[:i]
	}
	return cls
}

// seesTouched answers how g sees cls, the class of touched declaration t
// (javaSees, or a fully qualified name), -1 when g's class of that name
// is another package's.
func (s *javaSearch) seesTouched(g *jfile, t *javaTouch, cls string) float64 {
	// Each (file, class) pair is asked once (touchedNames.seen): javaSees's
	// memo would only grow.
	sees := javaSeesImports(g, t.f, cls)
	if sees == 0 && lexed.RefersTo(g.File, cls) && s.fullyQualified(g, t.f, cls) {
		sees = scoreJavaTyped
	}
	if sees == 0 && javaImportsOther(g, cls) {
		return -1
	}
	return sees
}

// atTok is what refAt found of one token for one touched declaration, kept
// for the next of the same name (overloads, one method of many classes).
type atTok struct {
	i                 int
	typesDone, inDone bool
	types             []string // resolveTypes(g, i, 0)
	in                *jclass  // the class whose body holds the token
}

func (a *atTok) typesOf(s *javaSearch, g *jfile) []string {
	if !a.typesDone {
		a.types, a.typesDone = s.resolveTypes(g, a.i, 0), true
	}
	return a.types
}

func (a *atTok) classOf(g *jfile) *jclass {
	if !a.inDone {
		a.in, a.inDone = g.java.classAt(a.i), true
	}
	return a.in
}

// refAt answers how surely token at.i of g refers to touched declaration t
// of class cls (0: it does not), and whether by a call.
func (s *javaSearch) refAt(g *jfile, at *atTok, t *javaTouch, cls string, sees float64) (float64, bool) {
	i := at.i
	d := &t.d
	toks := g.Toks
	k := toks[i]
	if g.java.declTok.Has(i) {
		// A method declared in a class below cls overrides it.
		if k.Text == d.Name && d.Kind == "method" {
			if c := at.classOf(g); c != nil && c.name != cls && s.h.Reaches(c.name, cls) {
				return scoreJavaTyped, false
			}
		}
		return 0, false
	}
	member := i > 0 && toks[i-1].Text == "."
	ref := i > 1 && toks[i-1].Text == ":" && toks[i-2].Text == ":"
	isCall := i+1 < len(toks) && toks[i+1].Text == "("
	switch d.Kind {
	case "class", "interface", "enum":
		if k.Text == d.Name && !member && sees > 0 {
			return sees, isCall
		}
	case "constructor":
		if k.Text == d.Name && i > 0 && toks[i-1].Text == "new" && sees > 0 {
			return sees, true
		}
		if k.Text == d.Name && i+3 < len(toks) && toks[i+1].Text == ":" && toks[i+2].Text == ":" && toks[i+3].Text == "new" && sees > 0 {
			return sees, true // C::new
		}
		if k.Text == "super" && isCall && !member {
			if c := at.classOf(g); c != nil && (slices.Contains(c.supers, d.Container) || slices.Contains(c.supers, d.Name)) {
				return scoreJavaTyped, true
			}
		}
	default:
		if k.Text != d.Name || (d.Kind == "method" && !isCall && !ref) || (d.Kind == "field" && isCall) {
			return 0, false
		}
		if member || ref {
			var types []string
			if member {
				types = at.typesOf(s, g)
			} else if p := toks[i-3]; p.Kind == lexed.TkIdent {
				types = g.Types.TypesOf(p.Text)
				if len(types) == 0 && lexed.IsTypeName(p.Text) {
					types = []string{p.Text}
				}
			}
			switch {
			case len(types) > 0 && s.anyReaches(types, cls, d.Name):
				return scoreJavaTyped, isCall
			case len(types) > 0 && s.allKnown(types):
				// a known type that does not reach the class
			case lexed.CommonMember[d.Name] || javaCommonMember[d.Name]:
			case sees > 0 || lexed.RefersTo(g.File, cls):
				return scoreJavaSees, isCall
			case s.declared[d.Name] <= 1 && len(d.Name) >= 6:
				return scoreJavaLoose, isCall
			}
			return 0, false
		}
		// Unqualified: in a subclass, or statically imported.
		if c := at.classOf(g); c != nil && s.h.Reaches(c.name, cls) {
			return scoreJavaTyped, isCall
		}
		if d.Static && s.staticImports(g, cls, d.Name) {
			return scoreJavaTyped, isCall
		}
	}
	return 0, false
}

// anyReaches reports whether a member name of one of types can be cls's:
// the type is cls or a subtype of it, and no nearer class declares name.
func (s *javaSearch) anyReaches(types []string, cls, name string) bool {
	for _, t := range types {
		if t == cls {
			return true
		}
		decl := s.h.Declaring(t, name)
		if s.h.Reaches(t, cls) && (len(decl) == 0 || slices.Contains(decl, cls)) {
			return true
		}
	}
	return false
}

// allKnown reports whether the hierarchy knows every one of types (their
// files were read), so that not reaching a class is a fact.
func (s *javaSearch) allKnown(types []string) bool {
	for _, t := range types {
		if len(s.classes[t]) == 0 {
			return false
		}
	}
	return true
}

// staticImports reports whether g imports member name of class cls
// statically.
func (s *javaSearch) staticImports(g *jfile, cls, name string) bool {
	for _, im := range g.java.imports {
		if !im.static || len(im.parts) < 2 {
			continue
		}
		last := im.parts[len(im.parts)-1]
		if (im.wildcard && last == cls) || (!im.wildcard && last == name && im.parts[len(im.parts)-2] == cls) {
			return true
		}
	}
	return false
}

// fullyQualified reports whether g writes cls with the package of p in
// front (a.b.C).
func (s *javaSearch) fullyQualified(g, p *jfile, cls string) bool {
	if p.pkg == "" {
		return false
	}
	// The package's first name is one of g's identifiers, or no token
	// spells the package.
	if first, _, _ := strings.Cut(p.pkg, "."); !lexed.RefersTo(g.File, first) {
		return false
	}
	parts := strings.Split(p.pkg, ".")
	n := 2 * len(parts)
	for i := n; i < len(g.Toks); i++ {
		if g.Toks[i].Text != cls || g.Toks[i-1].Text != "." {
			continue
		}
		ok := true
		for k, part := range parts {
			at := i - n + 2*k
			if g.Toks[at].Text != part || g.Toks[at+1].Text != "." {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// javaImportsOther reports whether g imports a class named cls by a
// single-type import (one that javaSees did not match to the touched file).
func javaImportsOther(g *jfile, cls string) bool {
	for _, im := range g.java.imports {
		if !im.static && !im.wildcard && len(im.parts) > 0 && im.parts[len(im.parts)-1] == cls {
			return true
		}
	}
	return false
}

// javaCommonMember are Java method names that nearly every class declares
// or calls: without a typed receiver they say nothing.
var javaCommonMember = engine.Words("get set add put remove size isEmpty contains close apply accept of build create value values name type getName getValue getType write read next hasNext iterator compareTo clone length copy")
