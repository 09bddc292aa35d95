package localgit

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// A review asks git the same questions many times: every read verifies its
// commit id with `git rev-parse`, and the diff, the changed paths and the
// candidates' base each ask `git merge-base` of the same two commits. The
// answers about full commit ids are facts about immutable objects, so they
// are kept per repository directory instead of starting a git process each
// time.

// factsMax bounds each table; a full table is emptied and filled again.
const factsMax = 4096

// facts maps a repository directory and a question to git's answer.
type facts struct {
	mu     sync.Mutex
	m      map[string]string
	flight singleflight.Group
	asked  atomic.Int64 // questions put to git (tests count them)
}

// ask returns the answer kept for q, else runs ask once for every caller
// asking q at the same time (the diff and the changed paths of a review
// start together) and keeps its answer when keep says it is a fact.
func (f *facts) ask(dir, q string, ask func() (string, error), keep func(string) bool) (string, error) {
	if v, ok := f.get(dir, q); ok {
		return v, nil
	}
	v, err, _ := f.flight.Do(dir+"\x00"+q, func() (any, error) {
		f.asked.Add(1)
		v, err := ask()
		if err == nil && keep(v) {
			f.put(dir, q, v)
		}
		return v, err
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (f *facts) get(dir, q string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[dir+"\x00"+q]
	return v, ok
}

func (f *facts) put(dir, q, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil || len(f.m) >= factsMax {
		f.m = make(map[string]string)
	}
	f.m[dir+"\x00"+q] = v
}

var (
	// verifiedCommits maps a full commit id as given to the id rev-parse
	// verified for it.
	verifiedCommits facts
	// mergeBases maps "base head" (full ids) to their merge base.
	mergeBases facts
)
