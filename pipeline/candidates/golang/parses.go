package golang

import (
	"sync"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
)

// parseTable holds one request's parses of head files by path. The
// engine's lookups and the background search for references both parse
// through it, so that a file both need is parsed once: a parse under way
// is waited for rather than made again, and a parse is made again only
// when it lacks a body the caller walks.
type parseTable struct {
	mu sync.Mutex
	m  map[string]*parseSlot
	// made counts the parses made, by path.
	made map[string]int
}

// parseSlot is one path's parse, made or under way.
type parseSlot struct {
	done chan struct{} // closed once f is set
	f    *goFile       // nil: the file cannot be read or is no Go
}

func newParseTable() *parseTable {
	return &parseTable{m: map[string]*parseSlot{}, made: map[string]int{}}
}

// parsed returns the parse of p with at least the bodies keep asks for
// (nil: none): the table's when it has them, else the one parse makes,
// which replaces it. parse must return a parse covering keep (or nil).
func (t *parseTable) parsed(p string, keep func(goscan.Body) bool, parse func() *goFile) *goFile {
	t.mu.Lock()
	s, ok := t.m[p]
	for ok {
		t.mu.Unlock()
		<-s.done
		if s.f == nil || s.f.covers(keep) {
			return s.f
		}
		t.mu.Lock()
		if t.m[p] == s {
			break // the caller replaces s
		}
		s = t.m[p] // replaced meanwhile: that parse may do
	}
	s = &parseSlot{done: make(chan struct{})}
	t.m[p] = s
	t.made[p]++
	t.mu.Unlock()
	defer close(s.done)
	s.f = parse()
	return s.f
}

// parses answers how many parses the table made, by path.
func (t *parseTable) parses() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.made))
	for p, n := range t.made {
		out[p] = n
	}
	return out
}
