package cochange

import (
	"sync"

	"golang.org/x/sync/singleflight"
)

// Cache keeps the windows of recent commits, at most max of them over all
// repositories, the least recently used dropped first. It is safe for
// concurrent use; its owner sizes it (a window of 2,000 commits takes
// about a megabyte).
type Cache struct {
	bounds Bounds
	max    int

	mu   sync.Mutex
	kept []keptWindow // most recently used last

	flight singleflight.Group // one read per repository and head at a time
}

type keptWindow struct {
	repo string
	w    *Window
}

// NewCache returns a cache of at most max windows (none kept when max is
// not positive) built with bounds b.
func NewCache(max int, b Bounds) *Cache {
	return &Cache{bounds: b, max: max}
}

// Reader streams the first-parent history from commit from (a full commit
// id, that commit first) newest first into add until add answers false or
// the history ends (then it returns nil).
type Reader func(from string, add func(Commit) bool) error

// Window answers the window of repo as of commit at (a full commit id):
// the kept one, or one built with read, which reads only the commits up to
// the first one a kept window of repo holds when that window's older
// commits are those the new window needs. When a kept window holds at
// itself (an older destination than one asked before), its commits from
// at on are taken as they are and read reads only what lies past its end.
// Requests for the same window at once share one read; one whose shared
// read failed (another caller's read, stopped with its caller) reads again
// with its own.
func (c *Cache) Window(repo, at string, read Reader) (*Window, error) {
	if w := c.get(repo, at); w != nil {
		return w, nil
	}
	v, err, shared := c.flight.Do(repo+"\x00"+at, func() (any, error) { return c.build(repo, at, read) })
	if err != nil && shared {
		return c.build(repo, at, read)
	}
	if err != nil {
		return nil, err
	}
	return v.(*Window), nil
}

// Bounds are the bounds the cache's windows are built with: a Reader
// reads at least as many commits (LogArgs).
func (c *Cache) Bounds() Bounds { return c.bounds }

// build reads the window of repo as of at with read and keeps it.
func (c *Cache) build(repo, at string, read Reader) (*Window, error) {
	b := NewBuilder(c.bounds, func(id string) (*Window, int) { return c.holding(repo, id) })
	from, add := at, b.Add
	if w, i := c.holding(repo, at); w != nil {
		if last, ok := b.resume(w, i); ok {
			// The history goes on from the last commit taken, which the
			// reader streams first: it is not taken twice.
			first := true
			from, add = last, func(c Commit) bool {
				if first {
					first = false
					if c.ID == last {
						return true
					}
				}
				return b.Add(c)
			}
		}
	}
	if !b.done {
		if err := read(from, add); err != nil {
			return nil, err
		}
	}
	w := b.Window()
	c.put(repo, w)
	return w, nil
}

// get returns the kept window of repo whose head is at, marked as used.
func (c *Cache) get(repo, at string) *Window {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range c.kept {
		if k.repo == repo && k.w.Head() == at {
			c.kept = append(append(c.kept[:i:i], c.kept[i+1:]...), k)
			return k.w
		}
	}
	return nil
}

// holding returns a kept window of repo that holds commit id, and where.
func (c *Cache) holding(repo, id string) (*Window, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.kept) - 1; i >= 0; i-- {
		k := c.kept[i]
		if j, ok := k.w.pos[id]; ok && k.repo == repo {
			return k.w, j
		}
	}
	return nil, 0
}

// put keeps w, dropping the least recently used window past max.
func (c *Cache) put(repo string, w *Window) {
	if c.max <= 0 || w.Len() == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.kept {
		if k.repo == repo && k.w.Head() == w.Head() {
			return // built twice at once: keep the first
		}
	}
	c.kept = append(c.kept, keptWindow{repo, w})
	if len(c.kept) > c.max {
		c.kept = append(c.kept[:0:0], c.kept[len(c.kept)-c.max:]...)
	}
}
