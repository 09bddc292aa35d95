package treesit

import (
	"context"
	"maps"
	"path"
	"slices"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// Reader reads the changes in the languages of the table when the build
// has their grammars (Built); without them it reads nothing.
var Reader = engine.ReaderOf(func(p string, changesLines bool) bool {
	return Built && changesLines && languageOf(p) != nil
}, find)

// find searches the changes of cs one family of languages at a time.
func find(ctx context.Context, tree engine.Tree, _, cs []*engine.Change, ev *engine.Evidence) error {
	byFamily := map[string][]*engine.Change{}
	for _, c := range cs {
		if l := languageOf(c.Path); l != nil {
			byFamily[l.family] = append(byFamily[l.family], c)
		}
	}
	for _, fam := range slices.Sorted(maps.Keys(byFamily)) {
		s := &search{tree: tree, ev: ev, family: fam}
		if err := s.run(ctx, byFamily[fam]); err != nil {
			return err
		}
	}
	return nil
}

// Languages names the languages of the table, in order.
func Languages() []string { return slices.Sorted(maps.Keys(languages)) }

// parseFile is the parse cachedFile makes (a test counts its calls).
var parseFile = parse

// cachedFile is the reading of the file at p with content src, kept across
// requests; nil when it cannot be parsed. A refusal the content alone
// decides (too large, too deep) is kept too: the same content would be
// refused again after the same work. One the moment decides is not: a
// parse past its time bound on a busy machine, or one whose ctx ended.
func cachedFile(ctx context.Context, c *engine.Cache, p string, src []byte) *file {
	return cachedReading(ctx, c, p, src, false)
}

// cachedHead is cachedFile for a changed file's head: its reading with
// the bracket spans refsOn asks, which no searched file's needs. It is
// kept as the plain reading too.
func cachedHead(ctx context.Context, c *engine.Cache, p string, src []byte) *file {
	return cachedReading(ctx, c, p, src, true)
}

func cachedReading(ctx context.Context, c *engine.Cache, p string, src []byte, spans bool) *file {
	l := languageOf(p)
	if l == nil {
		return nil
	}
	sum := engine.SumOf(src)
	if f, ok := kept(c, p, sum, spans); ok {
		return f
	}
	f, err := parseFile(ctx, l, p, src, spans)
	return keep(c, p, sum, spans, f, err)
}

// cachedSides are the readings of ch's head (cachedHead) and base
// (cachedFile), nil for a side it does not have. When neither is kept and
// both are of one language, the head is parsed from the base's tree
// (parseChange).
func cachedSides(ctx context.Context, c *engine.Cache, ch *engine.Change) (head, base *file) {
	l := languageOf(ch.Path)
	if ch.New == nil || ch.Old == nil || l == nil || languageOf(ch.BasePath()) != l {
		return readSides(ctx, c, ch)
	}
	hs, bs := engine.SumOf(ch.New), engine.SumOf(ch.Old)
	_, hok := kept(c, ch.Path, hs, true)
	_, bok := kept(c, ch.BasePath(), bs, false)
	if hok || bok {
		return readSides(ctx, c, ch)
	}
	bf, hf, berr, herr := parseSides(ctx, l, ch.BasePath(), ch.Old, ch.Path, ch.New, ch.Removed, ch.Added)
	return keep(c, ch.Path, hs, true, hf, herr), keep(c, ch.BasePath(), bs, false, bf, berr)
}

// parseSides is the parse cachedSides makes (a test counts its calls).
var parseSides = parseChange

// readSides reads ch's sides one at a time.
func readSides(ctx context.Context, c *engine.Cache, ch *engine.Change) (head, base *file) {
	if ch.New != nil {
		head = cachedHead(ctx, c, ch.Path, ch.New)
	}
	if ch.Old != nil {
		base = cachedFile(ctx, c, ch.BasePath(), ch.Old)
	}
	return head, base
}

// kept is the reading of the file at p with content sum kept in c (nil
// for a kept refusal): with its bracket spans when spans is set.
func kept(c *engine.Cache, p string, sum engine.Sum, spans bool) (*file, bool) {
	if f, ok := engine.Get[*file](c, engine.KeyAt("treesit", p, sum)); ok && (!spans || f == nil) {
		return f, true // a reading, or a kept refusal
	}
	if spans {
		return engine.Get[*file](c, engine.KeyAt("treesit-head", p, sum))
	}
	return nil, false
}

// keep keeps f, the reading of the file at p with content sum, or the
// refusal err when the content alone decides it (kept finds both); it
// answers f, nil on an error.
func keep(c *engine.Cache, p string, sum engine.Sum, spans bool, f *file, err error) *file {
	k := engine.KeyAt("treesit", p, sum)
	if err != nil {
		if err == errTooLarge || err == errTooDeep {
			c.Put(k, (*file)(nil), int64(len(p))+64)
		}
		return nil
	}
	if f == nil {
		return nil
	}
	c.Put(k, f, f.weight())
	if spans {
		c.Put(engine.KeyAt("treesit-head", p, sum), f, f.weight())
	}
	return f
}

// stem is a file's name without its extension; a module's directory for
// the files that stand for it (mod.rs, lib.rs, index.php, __init__...).
func stem(p string) string {
	s := lexed.Stem(p)
	switch s {
	case "mod", "lib", "index", "main", "init", "__init__":
		if d := engine.DirOf(p); d != "" {
			return path.Base(d)
		}
	}
	return s
}
