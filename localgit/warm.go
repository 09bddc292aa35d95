package localgit

import (
	"context"

	"github.com/prscout/prscout/pipeline"
)

// Warm reads ahead, when Root is itself a repository, what a first request
// of it would otherwise pay for and later requests reuse: the blob readers
// (left in the provider's pool), the co-change window as of HEAD (a later
// window of an older destination is taken from it), and the identifiers of
// HEAD's files up to identInlineMax of them (kept by blob id, they answer
// the searches of every commit that has the blobs). The answers are those
// a cold provider gives. It returns when done or when ctx ends.
func (p *Provider) Warm(ctx context.Context) error {
	if !isGitDir(p.Root) {
		return nil
	}
	tree, err := p.OpenTree(ctx, pipeline.Repo{}, "HEAD")
	if err != nil {
		return err
	}
	t := tree.(*codeTree)
	defer t.Close()
	if _, err := t.CoChanged(ctx, t.commit, nil); err != nil {
		return err
	}
	if err := t.load(ctx); err != nil {
		return err
	}
	var missing []treeEntry
	seen := map[string]bool{}
	for _, path := range t.listing.order {
		e := t.listing.index[path]
		if e.kind() != "file" || e.Size > t.maxBytes || seen[e.OID] {
			continue
		}
		seen[e.OID] = true
		if _, ok := t.idents.get(e.OID); !ok {
			missing = append(missing, e)
		}
		if len(missing) == identInlineMax {
			break
		}
	}
	_, err = t.indexAll(ctx, missing)
	return err
}

// HeadFiles answers the paths of HEAD's files when Root is itself a
// repository (nil otherwise), from the tree's listing, which Warm has
// kept: what a server prepares for the languages it will read.
func (p *Provider) HeadFiles(ctx context.Context) ([]string, error) {
	if !isGitDir(p.Root) {
		return nil, nil
	}
	tree, err := p.OpenTree(ctx, pipeline.Repo{}, "HEAD")
	if err != nil {
		return nil, err
	}
	t := tree.(*codeTree)
	defer t.Close()
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	var paths []string
	for _, path := range t.listing.order {
		if t.listing.index[path].kind() == "file" {
			paths = append(paths, path)
		}
	}
	return paths, nil
}
