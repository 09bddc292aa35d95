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
// A delivery is a duplicate only once its forward succeeded. While the
// first copy is being forwarded it is reserved (in flight): a copy arriving
// then is handed the first one's delivery to wait on (webhook.go waits a
// little, then answers 409 with Retry-After so Bitbucket tries again), and
// a failed forward forgets the delivery, so the retry goes through.
type replayGuard struct {
	window     time.Duration
	maxEntries int
	now        func() time.Time

	mu    sync.Mutex
	seen  map[string]seenEntry // key -> the delivery that holds it
	order []guardEntry         // insertion order, for expiry and the bound
	head  int                  // first live index of order
}

// delivery is one forward of an event, shared by the keys it reserved.
type delivery struct {
	done chan struct{} // closed when the forward ended
	ok   bool          // the forward succeeded; read only after done
}

type seenEntry struct {
	at time.Time
	d  *delivery
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
	return &replayGuard{window: window, maxEntries: maxEntries, now: time.Now, seen: map[string]seenEntry{}}
}

// reserve records keys (empty ones are skipped) for a new delivery, which
// the caller ends with finish. When one of the keys belongs to a delivery
// seen within the window, nothing is recorded and that delivery is
// returned as prior instead: forwarded already when prior.done is closed
// and prior.ok, in flight while prior.done is open.
func (g *replayGuard) reserve(keys ...string) (d, prior *delivery) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.expire(now)
	for _, k := range keys {
		if k == "" {
			continue
		}
		if e, ok := g.seen[k]; ok && now.Sub(e.at) < g.window {
			return nil, e.d
		}
	}
	d = &delivery{done: make(chan struct{})}
	for _, k := range keys {
		if k == "" {
			continue
		}
		g.seen[k] = seenEntry{now, d}
		g.order = append(g.order, guardEntry{k, now})
	}
	for (len(g.seen) > g.maxEntries || len(g.order)-g.head > 2*g.maxEntries) && g.head < len(g.order) {
		g.drop(g.order[g.head])
		g.head++
	}
	g.compact()
	return d, nil
}

// finish ends delivery d, reserved under keys: remembered when ok, else
// forgotten so Bitbucket's retry of the failed delivery goes through.
// Copies waiting on d wake up either way.
func (g *replayGuard) finish(d *delivery, ok bool, keys ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d.ok = ok
	if !ok {
		for _, k := range keys {
			if e, found := g.seen[k]; found && e.d == d {
				delete(g.seen, k)
			}
		}
	}
	close(d.done)
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
	if s, ok := g.seen[e.key]; ok && !s.at.After(e.at) {
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
