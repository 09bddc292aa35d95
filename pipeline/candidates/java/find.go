package java

import (
	"context"
	"slices"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// find adds the evidence of the Java changes cs to ev.
func find(ctx context.Context, tree engine.Tree, _, cs []*engine.Change, ev *engine.Evidence) error {
	s := &javaSearch{tree: tree, ev: ev, h: lexed.NewHierarchy(), files: map[string]*jfile{}, classes: map[string][]*jfile{},
		tried: map[triedKey]bool{}, declared: map[string]int{}, listing: engine.NewListing(ctx, tree), rootSeen: map[string]bool{}}
	heads, added, touched := s.readChanges(cs)
	impactFiles, seen, err := s.impactFiles(ctx, touched)
	if err != nil {
		return err
	}
	// The types the changed lines and the impact files name, each looked
	// up from the file naming it.
	need := map[typeRef]bool{}
	named := make([]map[string]bool, len(heads))
	pipeline.Parallel(len(heads), func(i int) { named[i] = javaNamedTypes(heads[i], added[heads[i]]) })
	for i, f := range heads {
		for n := range named[i] {
			need[typeRef{f, n}] = true
		}
	}
	for _, t := range touched {
		need[typeRef{t.f, t.d.Container}] = true
	}
	byName := touchedByName(touched)
	hits := impactHits(ctx, impactFiles, &byName, seen, need)
	if err := s.loadTypes(ctx, need); err != nil {
		return err
	}
	if err := s.chainTypes(ctx, heads, added); err != nil {
		return err
	}
	// Every file is read: the uses and the references are walked on every
	// core.
	err = s.inParts(ctx, heads, func(f *jfile) int { return len(added[f]) }, func(w *javaSearch, f *jfile) {
		w.usesIn(f, added[f])
	})
	if err != nil {
		return err
	}
	// The parts are cut by hits, each weighed as hitTokens tokens.
	return s.inParts(ctx, impactFiles, func(g *jfile) int { return len(hits[g]) * hitTokens }, func(w *javaSearch, g *jfile) {
		w.impactIn(g, hits[g], touched, &byName)
	})
}

// readChanges reads each change's sides and finds its touched declarations
// on every core; the search learns them in the change's order. It answers
// the heads, the indices of each head's tokens on its added lines, and the
// touched declarations.
func (s *javaSearch) readChanges(cs []*engine.Change) ([]*jfile, map[*jfile][]int, []javaTouch) {
	type side struct {
		nf      *jfile
		on      []int
		touched []javaTouch
	}
	sides := make([]side, len(cs))
	pipeline.Parallel(len(cs), func(i int) {
		c := cs[i]
		nf, of := engine.Sides(c, func(p string, src []byte) *jfile { return cachedJava(s.ev.Cache, p, src) })
		if nf != nil {
			sides[i].nf, sides[i].on = nf, lexed.TokensOn(nf.Toks, c.Added)
			for k := range lexed.EnclosingCalls(nf.File, c.Added) {
				sides[i].on = append(sides[i].on, k)
			}
			slices.Sort(sides[i].on)
		}
		sides[i].touched = javaTouched(c, nf, of)
	})
	var heads []*jfile
	var touched []javaTouch
	added := map[*jfile][]int{}
	for _, sd := range sides {
		if sd.nf != nil {
			heads = append(heads, sd.nf)
			added[sd.nf] = sd.on
			s.addFile(sd.nf)
		}
		touched = append(touched, sd.touched...)
	}
	return heads, added, touched
}

// impactFiles reads the files that can refer to a touched name, and
// answers the touched names.
func (s *javaSearch) impactFiles(ctx context.Context, touched []javaTouch) ([]*jfile, map[string]bool, error) {
	var words []string
	seen := map[string]bool{}
	for _, t := range touched {
		w := t.d.Name
		if t.d.Container != "" && (lexed.CommonMember[w] || javaCommonMember[w] || len(w) < 3) {
			// A name every other class declares or calls: the files that
			// can reach it through a typed receiver name its class.
			w = javaTopName(t.d.Container)
		}
		seen[t.d.Name] = true
		words = engine.AppendNew(words, w)
	}
	paths, err := engine.Found(ctx, s.tree, s.ev, lexed.Query(lexed.LangJava, words))
	if err != nil {
		return nil, nil, err
	}
	// Many files: those naming most touched declarations together with
	// their class (as a typed receiver or an import does) are lexed, at
	// most javaManyFiles of them.
	if len(paths) > javaManyFiles {
		if paths, err = s.mostNaming(ctx, paths, touched); err != nil {
			return nil, nil, err
		}
	}
	// The files the subtypes' search read are not read again: the
	// subtypes' files are added to the search's, and the search's files
	// that search read too are taken as read; both take their tokens from
	// the bound here.
	subPaths, subRead := s.subtypeFiles(ctx, touched)
	read := map[string]*jfile{}
	for _, p := range paths {
		if f := subRead[p]; f != nil && s.ev.Keep(len(f.Toks)) {
			read[p] = f
		}
	}
	for _, p := range subPaths {
		if slices.Contains(paths, p) {
			continue
		}
		if f := subRead[p]; s.ev.Keep(len(f.Toks)) {
			read[p] = f
		}
		paths = append(paths, p)
	}
	fs, err := s.readAll(ctx, paths, read)
	if err != nil {
		return nil, nil, err
	}
	var out []*jfile
	for _, f := range fs {
		if f != nil {
			out = append(out, f)
		}
	}
	return out, seen, nil
}

// impactHits walks each impact file once for the tokens that name a
// touched declaration (the impact walk asks only those), and adds to need
// the declared types of the receivers of the touched names and the files'
// supertypes (so that their hierarchy is known).
func impactHits(ctx context.Context, files []*jfile, byName *touchedNames, touched map[string]bool, need map[typeRef]bool) map[*jfile][]int32 {
	recvs := make([]map[string]bool, len(files))
	hits := make([][]int32, len(files))
	pipeline.ParallelCtx(ctx, len(files), func(i int) {
		g := files[i]
		recvs[i] = map[string]bool{}
		for k, tk := range g.Toks {
			if tk.Kind != lexed.TkIdent || len(byName.of(tk.Text)) == 0 {
				continue
			}
			hits[i] = append(hits[i], int32(k))
			if k > 0 && g.Toks[k-1].Text == "." && touched[tk.Text] {
				for _, typ := range g.Types.TypesOf(lexed.Receiver(g.Toks, k)) {
					recvs[i][typ] = true
				}
			}
		}
	})
	out := make(map[*jfile][]int32, len(files))
	for i, g := range files {
		out[g] = hits[i]
		for n := range recvs[i] {
			need[typeRef{g, n}] = true
		}
		needSupers(need, g)
	}
	return out
}

// chainTypes types chains a.b().c() on the heads' added lines, each call
// by the previous one's return type: the files of the types reached are
// read until no new type appears (javaTypeRounds at most).
func (s *javaSearch) chainTypes(ctx context.Context, heads []*jfile, added map[*jfile][]int) error {
	// The members (x.name) on each head's added lines, found once.
	members := map[*jfile][]int{}
	for _, f := range heads {
		var ms []int
		for _, i := range added[f] {
			if i > 0 && f.Toks[i].Kind == lexed.TkIdent && f.Toks[i-1].Text == "." {
				ms = append(ms, i)
			}
		}
		members[f] = ms
	}
	for round := 0; round < javaTypeRounds; round++ {
		next := map[typeRef]bool{}
		for _, f := range heads {
			for _, i := range members[f] {
				for _, typ := range s.resolveTypes(f, i, 0) {
					if len(s.classes[typ]) == 0 && !s.tried[triedKey{f.Path, typ}] {
						next[typeRef{f, typ}] = true
					}
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		if err := s.loadTypes(ctx, next); err != nil {
			return err
		}
	}
	return nil
}

// Reader reads Java changes.
var Reader = lexed.ReaderOf(lexed.LangJava, find)

// subtypeFiles answers the paths of the files declaring classes below the
// classes of the touched methods (lexed.Subtypes: their overrides name
// neither), and the readings of every file its search read, by path.
func (s *javaSearch) subtypeFiles(ctx context.Context, touched []javaTouch) ([]string, map[string]*jfile) {
	var classes []string
	for _, t := range touched {
		if c := lexed.LastName(t.d.Container); t.d.Kind == "method" && c != "" && !slices.Contains(classes, c) {
			classes = append(classes, c)
		}
	}
	if len(classes) == 0 {
		return nil, nil
	}
	var mu sync.Mutex
	read := map[string]*jfile{}
	paths, _, _ := lexed.Subtypes(ctx, s.tree, s.ev, lexed.LangJava, classes, func(p string, src []byte) (*jfile, map[string][]string) {
		f := cachedJava(s.ev.Cache, p, src)
		mu.Lock()
		read[p] = f
		mu.Unlock()
		out := map[string][]string{}
		for _, c := range f.java.classes {
			out[lexed.LastName(c.name)] = c.supers
		}
		return f, out
	})
	return paths, read
}
