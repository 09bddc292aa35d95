package engine

import (
	"context"
	"fmt"
	"slices"
)

// Query is a reader's search for the files outside the change that may
// refer to its names: those holding one of Words as an identifier among the
// files matching Globs, at most Limit of them (Tree.Grep).
type Query struct {
	Words, Globs []string
	Limit        int
	// Skip leaves out more of the files found than the change's own and
	// those SkippedPath names; nil leaves out no more.
	Skip func(p string) bool
}

// Found runs q and answers the paths found, in the tree's order, without
// the change's files, the skipped ones and those of a vendored copy the
// change does not touch (VendoredCopy). Every reader gates its
// search's hits here. A search the evidence's Reading context ends finds
// nothing, recorded as a cut.
func Found(ctx context.Context, tree Tree, ev *Evidence, q Query) ([]string, error) {
	if len(q.Words) == 0 {
		return nil, nil
	}
	rctx := ev.reading(ctx)
	paths, err := tree.Grep(rctx, q.Words, q.Globs, q.Limit)
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		ev.Cut(fmt.Sprintf("a search for %d changed names did not finish in the time of the search", len(q.Words)))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search for changed names: %w", err)
	}
	copies := map[string]bool{} // the vendored copies the change touches
	for p := range ev.Changed {
		copies[VendoredCopy(p)] = true
	}
	return slices.DeleteFunc(paths, func(p string) bool {
		if c := VendoredCopy(p); c != "" && !copies[c] {
			return true
		}
		return ev.Changed[p] || SkippedPath(p) || (q.Skip != nil && q.Skip(p))
	}), nil
}

// Search runs q (Found) and reads the files found (ReadFiles, under lang's
// name): it answers their paths and, in the same order, what read made of
// each (the zero T for a file not read or refused).
func Search[T any](ctx context.Context, tree Tree, ev *Evidence, lang string, q Query, read func(p string, src []byte) (v T, tokens int, ok bool)) ([]string, []T, error) {
	paths, err := Found(ctx, tree, ev, q)
	if err != nil {
		return nil, nil, err
	}
	return paths, ReadFiles(ctx, tree, ev, lang, paths, read), nil
}
