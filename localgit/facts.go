package localgit

import "sync"

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
	mu sync.Mutex
	m  map[string]string
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
