package localgit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// A code tree reads blobs through `git cat-file --batch` processes, and
// every request opens a tree of its own: starting two processes a request
// costs git more CPU than most of the reads they serve. A closed tree
// hands its processes to the provider's readerPool, and the next tree of
// the same repository takes them instead of starting new ones. A process
// left idle for readerIdle stops.

// readerIdle is how long a pooled process waits for the next tree.
const readerIdle = 2 * time.Minute

// readerPoolDirs bounds the repositories whose processes are kept.
const readerPoolDirs = 16

// readerPool keeps idle blob readers by repository directory, at most
// treeReaders of each. A nil pool keeps none.
type readerPool struct {
	mu      sync.Mutex
	idle    map[string][]*blobReader
	started atomic.Int64 // processes started (tests count them)
}

func newReaderPool() *readerPool { return &readerPool{idle: map[string][]*blobReader{}} }

// get returns an idle reader of dir, or starts one; pooled tells which.
func (p *readerPool) get(dir string) (br *blobReader, pooled bool, err error) {
	if p != nil {
		p.mu.Lock()
		if rs := p.idle[dir]; len(rs) > 0 {
			br = rs[len(rs)-1]
			if len(rs) == 1 {
				delete(p.idle, dir)
			} else {
				p.idle[dir] = rs[:len(rs)-1]
			}
		}
		p.mu.Unlock()
		if br != nil {
			br.stopIdle()
			return br, true, nil
		}
		p.started.Add(1)
	}
	br, err = startBlobReader(dir)
	return br, false, err
}

// put keeps br for the next tree of dir, or stops it (broken, the pool
// full for dir or holding too many directories).
func (p *readerPool) put(dir string, br *blobReader) {
	if p == nil || br.broken {
		br.close()
		return
	}
	p.mu.Lock()
	if len(p.idle[dir]) >= treeReaders || (p.idle[dir] == nil && len(p.idle) >= readerPoolDirs) {
		p.mu.Unlock()
		br.close()
		return
	}
	p.idle[dir] = append(p.idle[dir], br)
	br.idleStop = time.AfterFunc(readerIdle, func() { p.expire(dir, br) })
	p.mu.Unlock()
}

// expire stops br if it is still idle in the pool.
func (p *readerPool) expire(dir string, br *blobReader) {
	p.mu.Lock()
	rs := p.idle[dir]
	i := -1
	for k, r := range rs {
		if r == br {
			i = k
		}
	}
	if i < 0 {
		p.mu.Unlock()
		return
	}
	rs = append(rs[:i], rs[i+1:]...)
	if len(rs) == 0 {
		delete(p.idle, dir)
	} else {
		p.idle[dir] = rs
	}
	p.mu.Unlock()
	br.close()
}

// stopIdle cancels the idle timer of a reader taken from the pool.
func (br *blobReader) stopIdle() {
	if br.idleStop != nil {
		br.idleStop.Stop()
		br.idleStop = nil
	}
}

// readKept reads oid (at most maxBytes) through br. When br came from the
// pool (pooled) and its process stopped while it was kept, a new process
// reads instead. It answers the reader to keep using: br, its replacement,
// or nil when none could start.
func readKept(ctx context.Context, dir string, br *blobReader, pooled bool, oid string, maxBytes int64) (*blobReader, []byte, error) {
	var data []byte
	br, err := keptDo(ctx, dir, br, pooled, func(br *blobReader) (err error) {
		data, err = br.read(ctx, oid, maxBytes)
		return err
	})
	return br, data, err
}

// keptDo is readKept for any read do makes with a reader.
func keptDo(ctx context.Context, dir string, br *blobReader, pooled bool, do func(*blobReader) error) (*blobReader, error) {
	err := do(br)
	if err == nil || !pooled || !br.broken || ctx.Err() != nil {
		return br, err
	}
	br.close()
	if br, err = startBlobReader(dir); err != nil {
		return nil, err
	}
	return br, do(br)
}

// ask reads the object name names, of type kind, through a kept cat-file
// process of dir instead of a git process of its own, and answers its full
// id (its content, at most maxObject bytes, is dropped). An object of
// another type wraps errOtherType, none pipeline.ErrNotFound.
func (p *readerPool) ask(ctx context.Context, dir, name, kind string) (string, error) {
	br, pooled, err := p.get(dir)
	if err != nil {
		return "", err
	}
	var id string
	br, err = keptDo(ctx, dir, br, pooled, func(br *blobReader) (err error) {
		id, _, err = br.object(ctx, name, kind, maxObject)
		return err
	})
	if br != nil {
		p.put(dir, br)
	}
	return id, err
}

// maxObject bounds a commit or tree object ask reads: far above a real
// commit, or a directory of a hundred thousand entries.
const maxObject = 16 << 20

// lacksDir reports whether commit (a full id) has no directory d: a path
// under d names nothing, and ReadFile answers so without a git ls-tree.
// False when d is a directory or the answer is unknown.
func (p *readerPool) lacksDir(ctx context.Context, dir, commit, d string) bool {
	if p == nil || d == "" {
		return false
	}
	_, err := p.ask(ctx, dir, commit+":"+d, "tree")
	return errors.Is(err, pipeline.ErrNotFound) || errors.Is(err, errOtherType)
}
