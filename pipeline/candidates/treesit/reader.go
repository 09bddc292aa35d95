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
	k, hk := engine.KeyAt("treesit", p, sum), engine.KeyAt("treesit-head", p, sum)
	if f, ok := engine.Get[*file](c, k); ok && (!spans || f == nil) {
		return f // a reading, or a kept refusal
	}
	if f, ok := engine.Get[*file](c, hk); ok && spans {
		return f
	}
	f, err := parseFile(ctx, l, p, src, spans)
	if err != nil {
		if err == errTooLarge || err == errTooDeep {
			c.Put(k, (*file)(nil), int64(len(p))+64)
		}
		return nil
	}
	c.Put(k, f, f.weight())
	if spans {
		c.Put(hk, f, f.weight())
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
