package api

import (
	"sync"
	"time"
)

// replayGuard remembers webhook deliveries for a window so a replayed
// delivery is not forwarded twice. A delivery is known by its X-Request-UUID
// (the same on Bitbucket's own retries) and by its event key and body
// digest (the UUID header is not signed: a replay can change it, the body it
// cannot). Memory is bounded: past maxEntries the oldest are forgotten.
//
// A delivery is reserved while it is forwarded, so two copies arriving
// together are not both forwarded, and released when the forward fails, so
// Bitbucket's retry of a failed delivery goes through.
type replayGuard struct {
	window     time.Duration
	maxEntries int
	now        func() time.Time

	mu    sync.Mutex
	seen  map[string]time.Time // key -> when it was first seen
	order []guardEntry         // insertion order, for expiry and the bound
	head  int                  // first live index of order
}

type guardEntry struct {
	key string
	at  time.Time
}

// defaultReplayEntries bounds the guard: about 100 bytes per key.
const defaultReplayEntries = 10_000

func newReplayGuard(window time.Duration, maxEntries int) *replayGuard {
	if maxEntries <= 0 {
		maxEntries = defaultReplayEntries
	}
	return &replayGuard{window: window, maxEntries: maxEntries, now: time.Now, seen: map[string]time.Time{}}
}

// reserve records keys (empty ones are skipped) unless one of them was seen
// within the window; it reports whether the delivery is new.
func (g *replayGuard) reserve(keys ...string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.expire(now)
	for _, k := range keys {
		if k == "" {
			continue
		}
		if at, ok := g.seen[k]; ok && now.Sub(at) < g.window {
			return false
		}
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		g.seen[k] = now
		g.order = append(g.order, guardEntry{k, now})
	}
	for (len(g.seen) > g.maxEntries || len(g.order)-g.head > 2*g.maxEntries) && g.head < len(g.order) {
		g.drop(g.order[g.head])
		g.head++
	}
	g.compact()
	return true
}

// release forgets keys reserved by a delivery whose forward failed.
func (g *replayGuard) release(keys ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		delete(g.seen, k)
	}
}

// expire forgets entries older than the window.
func (g *replayGuard) expire(now time.Time) {
	for g.head < len(g.order) && now.Sub(g.order[g.head].at) >= g.window {
		g.drop(g.order[g.head])
		g.head++
	}
}

// drop forgets e unless its key was reserved again later.
func (g *replayGuard) drop(e guardEntry) {
	if at, ok := g.seen[e.key]; ok && !at.After(e.at) {
		delete(g.seen, e.key)
	}
}

// compact reuses order's backing array once half of it is dead.
func (g *replayGuard) compact() {
	if g.head > 0 && g.head >= len(g.order)/2 {
		n := copy(g.order, g.order[g.head:])
		clear(g.order[n:])
		g.order = g.order[:n]
		g.head = 0
	}
}
