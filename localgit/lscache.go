package localgit

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/maypok86/otter/v2"

	"github.com/prscout/prscout/pipeline"
)

// defaultLsCacheEntries bounds the tree entries a Provider keeps from the
// `git ls-tree` runs of its reads (ReadFile, ReadFiles, ListDir).
const defaultLsCacheEntries = 64 << 10

// lsCache keeps what `git ls-tree -l -z <commit> [paths]` printed, keyed by
// repository, commit id, limit and paths. A commit's trees never change,
// so an answer kept is the answer git would give again: a review reads
// the same rule and instruction files at the destination, and the same
// changed paths at the head, each time it runs.
type lsCache struct {
	c    *otter.Cache[string, lsAnswer]
	runs atomic.Int64 // ls-tree runs made for a miss (tests count them)
}

type lsAnswer struct {
	entries []treeEntry // shared: never changed after it is kept
	more    bool
}

func newLsCache(maxEntries int) *lsCache {
	return &lsCache{c: otter.Must(&otter.Options[string, lsAnswer]{
		MaximumWeight: uint64(maxEntries),
		Weigher: func(k string, a lsAnswer) uint32 {
			return uint32(min(1+len(a.entries)+len(k)/64, math.MaxUint32))
		},
	})}
}

// lsTree answers lsTree(ctx, dir, commit, limit, paths...) from the cache
// when commit is a full commit id, else runs it (and keeps a successful
// answer). A nil cache always runs it. The entries are shared: callers
// must not change them.
func (c *lsCache) lsTree(ctx context.Context, dir, commit string, limit int, paths ...string) ([]treeEntry, bool, error) {
	if c == nil || !pipeline.IsFullCommit(commit) {
		return lsTree(ctx, dir, commit, limit, paths...)
	}
	var k strings.Builder
	k.WriteString(dir)
	k.WriteByte(0)
	k.WriteString(commit)
	k.WriteByte(0)
	k.WriteString(strconv.Itoa(limit))
	for _, p := range paths {
		k.WriteByte(0)
		k.WriteString(p)
	}
	key := k.String()
	if a, ok := c.c.GetIfPresent(key); ok {
		return a.entries, a.more, nil
	}
	c.runs.Add(1)
	entries, more, err := lsTree(ctx, dir, commit, limit, paths...)
	if err != nil {
		return nil, false, err
	}
	c.c.Set(key, lsAnswer{entries: entries, more: more})
	return entries, more, nil
}
