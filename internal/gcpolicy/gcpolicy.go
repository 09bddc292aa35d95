// Package gcpolicy sets the garbage collector for a long-running prscout
// serve: GOGC and the soft memory limit from the environment and the
// container, and the memory given back when the server is idle.
package gcpolicy

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"
)

// The collector's settings for `prscout serve` (docs/operations.md,
// "Memory and the garbage collector").
//
// Go's default (GOGC=100) starts a collection each time the heap doubles
// its live part. prscout's live heap is mostly the candidates' kept
// readings (the readers' lexed files and the Go reader's indexes, up to
// 128 MiB by estimate, pointer-dense), and every cycle marks all of it:
// on a 200-file range of a large Go repository a cycle came every second
// or third request and cost about a third of the request's own CPU. With serveGCPercent a cycle comes
// four times less often for the same marking, and the soft memory limit
// makes the collector work harder before the heap nears what the
// container may use.
const (
	// serveGCPercent is GOGC's value when the environment sets none.
	serveGCPercent = 400
	// serveMemoryLimit is the soft memory limit when neither GOMEMLIMIT
	// nor a cgroup memory limit says one.
	serveMemoryLimit = 1 << 30
)

// CgroupMemoryFiles are where the container's memory limit is read:
// cgroup v2, then v1.
var CgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// Settings is what serve sets of the collector: percent (0 to leave
// GOGC as the environment says) and limit (0 to leave GOMEMLIMIT), with a
// line for the log.
type Settings struct {
	percent int
	limit   int64
	Says    string
}

// Decide decides the collector's settings from the environment and the
// container's memory limit (cgroupLimit: ok false when there is none). An
// operator's GOGC or GOMEMLIMIT is left as it is. The soft limit is three
// quarters of the container's, leaving room for what the collector does not
// count (git's children, stacks, the binary), else serveMemoryLimit.
func Decide(getenv func(string) string, cgroupLimit func() (int64, bool)) Settings {
	var s Settings
	gogc, memlimit := getenv("GOGC"), getenv("GOMEMLIMIT")
	if gogc == "" {
		s.percent = serveGCPercent
		s.Says = "GOGC " + strconv.Itoa(serveGCPercent)
	} else {
		s.Says = "GOGC " + gogc + " (environment)"
	}
	switch {
	case memlimit != "":
		s.Says += ", memory limit " + memlimit + " (environment)"
	default:
		if n, ok := cgroupLimit(); ok && n > 0 {
			s.limit = n / 4 * 3
			s.Says += fmt.Sprintf(", memory limit %d MiB (3/4 of the container's)", s.limit>>20)
		} else {
			s.limit = serveMemoryLimit
			s.Says += fmt.Sprintf(", memory limit %d MiB", s.limit>>20)
		}
	}
	return s
}

// Apply sets the collector as s says.
func (s Settings) Apply() {
	if s.percent > 0 {
		debug.SetGCPercent(s.percent)
	}
	if s.limit > 0 {
		debug.SetMemoryLimit(s.limit)
	}
}

// ReadCgroupLimit reads the container's memory limit from the first of
// files that holds a number ("max" and unlimited v1 values mean none).
func ReadCgroupLimit(files []string) (int64, bool) {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
		if err != nil {
			return 0, false // "max": no limit
		}
		// cgroup v1 says "no limit" as a huge page-rounded number.
		if n <= 0 || n >= 1<<60 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// IdleReleaseAfter is how long serve waits after its last request before
// it gives the heap's free pages back to the system.
const IdleReleaseAfter = 30 * time.Second

// IdleRelease gives memory back once the server is idle. Under GOGC=400
// the heap may grow to five times its live part during a burst of
// requests, and with no allocation afterwards no collection runs to free
// it, so a quiet server would keep its busiest hour's size. After
// IdleReleaseAfter without a request (those Quiet names do not count) and
// none in flight, it runs one collection that returns the free pages
// (free, debug.FreeOSMemory in serve); the kept readings and blobs stay.
// It releases once per idle spell.
type IdleRelease struct {
	After time.Duration
	Free  func()
	// Quiet reports the paths that do not count as work (the API's
	// probes and scrapes): a scrape every few seconds must not keep the
	// server from ever being idle. Nil counts every request.
	Quiet    func(path string) bool
	inFlight atomic.Int64
	last     atomic.Int64 // when the last counted request ended, unix ns
	pending  atomic.Bool  // a request ended since the last release
}

// Wrap counts h's requests.
func (r *IdleRelease) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.Quiet != nil && r.Quiet(req.URL.Path) {
			h.ServeHTTP(w, req)
			return
		}
		r.inFlight.Add(1)
		defer func() {
			r.last.Store(time.Now().UnixNano())
			r.pending.Store(true)
			r.inFlight.Add(-1)
		}()
		h.ServeHTTP(w, req)
	})
}

// check releases memory when the server has been idle long enough at now,
// and reports whether it did.
func (r *IdleRelease) check(now time.Time) bool {
	if !r.pending.Load() || r.inFlight.Load() > 0 || now.Sub(time.Unix(0, r.last.Load())) < r.After {
		return false
	}
	r.pending.Store(false)
	r.Free()
	return true
}

// Run checks every tick until ctx ends.
func (r *IdleRelease) Run(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick:
			r.check(now)
		}
	}
}
