package lookup

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/pipelinetest"
	"github.com/prscout/prscout/pipeline/scope"
)

const batchCommit = "0123456789abcdef0123456789abcdef01234567"

func i64p(n int64) *int64 { return &n }

// newBatchFakeRepo is the repository at batchCommit ("main") the batch
// tests read. It is careless where the batch's own guards are under test:
// sloppy.log comes back over the size cap, img/logo.bin's bytes come back
// raw, and the listings come back unsorted, partly untyped and whole
// whatever the limit; huge.sql is refused with its size.
func newBatchFakeRepo() *pipelinetest.Fake {
	return pipelinetest.New().AddRef("main", batchCommit).
		AddFiles("", map[string]string{
			"src/a.go":      "package a\n",
			"src/b.go":      "package b\n",
			"img/logo.bin":  "GIF89a\x00\x01",
			"latin1.txt":    "caf\xe9\n",
			"huge.sql":      strings.Repeat("x", 2_200_000),
			"sloppy.log":    strings.Repeat("y", 600<<10),
			"src/slow.go":   "package slow\n",
			"src/flaky.go":  "package flaky\n",
			"src/.env.yaml": "not a secret path but close\n",
		}).
		SetListing("", "src", []pipeline.DirEntry{
			{Path: "src/sub", Type: "dir"},
			{Path: "src/b.go", Type: "file", Size: i64p(10)},
			{Path: "src/a.go", Type: "file", Size: i64p(10)},
		}).
		SetListing("", "big", []pipeline.DirEntry{{Path: "big/5"}, {Path: "big/4"}, {Path: "big/3"}, {Path: "big/2"}, {Path: "big/1"}}).
		SetListing("", "", []pipeline.DirEntry{{Path: "src", Type: "dir"}}).
		Careless("sloppy.log", "img/logo.bin", "src", "big", "")
}

func lookupOK(path, content string) pipeline.LookupResult {
	n := int64(len(content))
	return pipeline.LookupResult{OK: true, Op: pipeline.OpGetFile, Path: path, Content: &content, Size: &n}
}

func lookupFail(op, path, msg, reason string) pipeline.LookupResult {
	return pipeline.LookupResult{Op: op, Path: path, Error: msg, Reason: reason}
}

func TestBatchRun(t *testing.T) {
	lim := pipeline.DefaultLimits()
	twelve := make([]pipeline.Request, 13)
	for i := range twelve {
		twelve[i] = pipeline.Request{Op: pipeline.OpGetFile, Path: "src/a.go"}
	}
	twelveWant := make([]pipeline.LookupResult, 13)
	for i := range 12 {
		twelveWant[i] = lookupOK("src/a.go", "package a\n")
	}
	twelveWant[12] = lookupFail(pipeline.OpGetFile, "src/a.go", "batch limit of 12 reached: not processed", pipeline.LookupBatchLimit)

	tests := []struct {
		name      string
		in        BatchInput
		lim       func(*pipeline.Limits)
		anyCached bool // identical requests may be served by the cache or coalesced
		want      []pipeline.LookupResult
		wantStats BatchStats // DurationMs, CacheHits and Coalesced are not compared
	}{
		{
			name: "files and listings, typed and sorted",
			in: BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: []pipeline.Request{
				{Op: "get_file", Path: "/src/a.go"},
				{Op: "list_dir", Path: "src/"},
				{Path: "./src/b.go"}, // missing op -> get_file
				{Op: "list_dir", Path: "/"},
			}},
			want: []pipeline.LookupResult{
				lookupOK("src/a.go", "package a\n"),
				{OK: true, Op: pipeline.OpListDir, Path: "src", Entries: []pipeline.DirEntry{
					{Path: "src/a.go", Type: "file", Size: i64p(10)},
					{Path: "src/b.go", Type: "file", Size: i64p(10)},
					{Path: "src/sub", Type: "dir"},
				}},
				lookupOK("src/b.go", "package b\n"),
				{OK: true, Op: pipeline.OpListDir, Path: "", Entries: []pipeline.DirEntry{{Path: "src", Type: "dir"}}},
			},
			wantStats: BatchStats{Requested: 4, OK: 4, UpstreamCalls: 4, ByError: map[string]int{}},
		},
		{
			name: "every lookupFailure is isolated with a specific error",
			in: BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: []pipeline.Request{
				{Op: "get_file", Path: "src/missing.go"},
				{Op: "get_file", Path: "img/logo.bin"},
				{Op: "get_file", Path: "latin1.txt"},
				{Op: "get_file", Path: "huge.sql"},
				{Op: "get_file", Path: "sloppy.log"},
				{Op: "get_file", Path: ".env.production"},
				{Op: "get_file", Path: "../etc/passwd"},
				{Op: "get_file", Path: "src"},
				{Op: "list_dir", Path: "src/a.go"},
				{Op: "delete", Path: "src/a.go"},
				{Op: "get_file", Path: ""},
				{Op: "get_file", Path: "src/a.go"},
			}},
			want: []pipeline.LookupResult{
				lookupFail(pipeline.OpGetFile, "src/missing.go", "not found at 0123456789ab", pipeline.LookupNotFound),
				lookupFail(pipeline.OpGetFile, "img/logo.bin", "binary file", pipeline.LookupBinary),
				lookupFail(pipeline.OpGetFile, "latin1.txt", "binary file (not valid UTF-8 text)", pipeline.LookupBinary),
				lookupFail(pipeline.OpGetFile, "huge.sql", "file is 2.1 MiB, over the 512 KiB limit", pipeline.LookupTooLarge),
				lookupFail(pipeline.OpGetFile, "sloppy.log", "file is 600 KiB, over the 512 KiB limit", pipeline.LookupTooLarge),
				lookupFail(pipeline.OpGetFile, ".env.production", "secret path refused: .env files are never read", pipeline.LookupSecret),
				lookupFail(pipeline.OpGetFile, "../etc/passwd", "parent directory segment (..) refused", "parent_escape"),
				lookupFail(pipeline.OpGetFile, "src", "is a directory: use list_dir", pipeline.LookupIsDir),
				lookupFail(pipeline.OpListDir, "src/a.go", "not a directory: use get_file", pipeline.LookupNotDir),
				lookupFail("delete", "src/a.go", `unsupported op "delete": use get_file or list_dir`, pipeline.LookupUnsupportedOp),
				lookupFail(pipeline.OpGetFile, "", "empty path", "empty"),
				lookupOK("src/a.go", "package a\n"),
			},
			wantStats: BatchStats{Requested: 12, OK: 1, Failed: 11, UpstreamCalls: 8, ByError: map[string]int{
				"not_found": 1, "binary": 2, "too_large": 2, "secret": 1, "parent_escape": 1,
				"is_dir": 1, "not_dir": 1, "unsupported_op": 1, "empty": 1,
			}},
		},
		{
			name:      "cap: requests beyond the batch limit are not processed",
			in:        BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: twelve},
			anyCached: true,
			want:      twelveWant,
			wantStats: BatchStats{Requested: 13, OK: 12, Failed: 1, NotProcessed: 1, UpstreamCalls: 1,
				ByError: map[string]int{"batch_limit": 1}},
		},
		{
			name: "list_dir is bounded and says so",
			in: BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit,
				Requests: []pipeline.Request{{Op: "list_dir", Path: "big"}}},
			lim: func(l *pipeline.Limits) { l.MaxListEntries = 3 },
			want: []pipeline.LookupResult{{OK: true, Op: pipeline.OpListDir, Path: "big", Truncated: true, Entries: []pipeline.DirEntry{
				{Path: "big/3", Type: "file"}, {Path: "big/4", Type: "file"}, {Path: "big/5", Type: "file"},
			}}},
			wantStats: BatchStats{Requested: 1, OK: 1, UpstreamCalls: 1, ByError: map[string]int{}},
		},
		{
			name: "a branch ref resolves once per batch; request fields override defaults",
			in: BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: "main", Requests: []pipeline.Request{
				{Path: "src/a.go"},
				{Path: "src/b.go", Ref: "main"},
				{Path: "src/a.go", Ref: "gone"},
				{Path: "src/a.go", Workspace: "../x"},
			}},
			want: []pipeline.LookupResult{
				lookupOK("src/a.go", "package a\n"),
				lookupOK("src/b.go", "package b\n"),
				lookupFail(pipeline.OpGetFile, "src/a.go", "ref gone not found", pipeline.LookupRefNotFound),
				lookupFail(pipeline.OpGetFile, "src/a.go", "invalid workspace", pipeline.LookupInvalidRepo),
			},
			wantStats: BatchStats{Requested: 4, OK: 2, Failed: 2, UpstreamCalls: 4,
				ByError: map[string]int{"ref_not_found": 1, "invalid_repo": 1}},
		},
		{
			name: "a request without a repository and no default is one failed result",
			in: BatchInput{Ref: batchCommit, Requests: []pipeline.Request{
				{Path: "src/a.go", Workspace: "ws", RepoSlug: "repo"},
				{Path: "src/b.go", Workspace: "ws"},
				{Path: "src/b.go", Workspace: "ws", RepoSlug: "repo", Ref: "-n"},
			}},
			want: []pipeline.LookupResult{
				lookupOK("src/a.go", "package a\n"),
				lookupFail(pipeline.OpGetFile, "src/b.go", "missing repoSlug", pipeline.LookupMissingRepo),
				lookupFail(pipeline.OpGetFile, "src/b.go", "invalid ref", pipeline.LookupInvalidRepo),
			},
			wantStats: BatchStats{Requested: 3, OK: 1, Failed: 2, UpstreamCalls: 1,
				ByError: map[string]int{"missing_repo": 1, "invalid_repo": 1}},
		},
		{
			name:      "skip answers an empty result list",
			in:        BatchInput{Skip: true, Requests: []pipeline.Request{}},
			want:      []pipeline.LookupResult{},
			wantStats: BatchStats{ByError: map[string]int{}},
		},
		{
			name:      "no requests answers an empty result list",
			in:        BatchInput{},
			want:      []pipeline.LookupResult{},
			wantStats: BatchStats{ByError: map[string]int{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lim
			if tt.lim != nil {
				tt.lim(&l)
			}
			repo := newBatchFakeRepo()
			got, err := NewBatcher(repo, l, 1<<20).Run(context.Background(), tt.in)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var opts []cmp.Option
			if tt.anyCached {
				opts = append(opts, cmpopts.IgnoreFields(pipeline.LookupResult{}, "Cached"))
			}
			if diff := cmp.Diff(tt.want, got.Results, opts...); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			st := got.Stats
			st.DurationMs, st.CacheHits, st.Coalesced = 0, 0, 0
			if diff := cmp.Diff(tt.wantStats, st, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			if got.Stats.UpstreamCalls != repo.TotalCalls() {
				t.Errorf("stats.upstreamCalls = %d, repository saw %d calls", got.Stats.UpstreamCalls, repo.TotalCalls())
			}
		})
	}
}

func TestBatchJSONShape(t *testing.T) {
	var in BatchInput
	needsAnswer := `{"skip":true,"requests":[],"rejected":[{"ok":false,"op":"get_file","path":"../x","error":"parent directory segment (..) refused","reason":"parent_escape"}],"limits":{"total":12,"perFile":5},"stats":{}}`
	if err := json.Unmarshal([]byte(needsAnswer), &in); err != nil {
		t.Fatal(err)
	}
	got, err := NewBatcher(newBatchFakeRepo(), pipeline.DefaultLimits(), 0).Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	s := string(b)
	for _, want := range []string{`"results":[]`, `"rejected":[{"ok":false,"op":"get_file","path":"../x"`, `"requested":0`} {
		if !strings.Contains(s, want) {
			t.Errorf("answer %s lacks %s", s, want)
		}
	}
	got, _ = NewBatcher(newBatchFakeRepo(), pipeline.DefaultLimits(), 0).Run(context.Background(), BatchInput{})
	if b, _ := json.Marshal(got); !strings.Contains(string(b), `"rejected":[]`) {
		t.Errorf("rejected must be an array, got %s", b)
	}
}

func TestBatchTimeoutIsolatedAndNotCached(t *testing.T) {
	// In a bubble the 50ms timeout passes on the fake clock, as soon as
	// everything else waits.
	synctest.Test(t, func(t *testing.T) {
		repo := newBatchFakeRepo()
		repo.Hook = func(ctx context.Context, _, path string) error {
			if path == "src/slow.go" {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}
		lim := pipeline.DefaultLimits()
		lim.LookupTimeout = 50 * time.Millisecond
		b := NewBatcher(repo, lim, 1<<20)
		in := BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: []pipeline.Request{
			{Path: "src/a.go"}, {Path: "src/slow.go"}, {Path: "src/b.go"},
		}}
		for run := 1; run <= 2; run++ {
			// A repeat while the timed-out upstream call is still winding
			// down would join it: let it end and its flight be forgotten.
			synctest.Wait()
			if n := repo.InFlight(); n != 0 {
				t.Fatalf("run %d: %d upstream calls still running", run, n)
			}
			got, _ := b.Run(context.Background(), in)
			want := []pipeline.LookupResult{
				lookupOK("src/a.go", "package a\n"),
				lookupFail(pipeline.OpGetFile, "src/slow.go", "timed out after 50ms", pipeline.LookupTimeout),
				lookupOK("src/b.go", "package b\n"),
			}
			if run == 2 {
				want[0].Cached, want[2].Cached = true, true
			}
			if diff := cmp.Diff(want, got.Results); diff != "" {
				t.Errorf("run %d results (-want +got):\n%s", run, diff)
			}
			if c := repo.Calls(pipelinetest.OpRead, "src/slow.go"); c != run {
				t.Errorf("run %d: slow file read %d times, want %d (timeouts are never cached)", run, c, run)
			}
			if run == 2 && (got.Stats.UpstreamCalls != 1 || got.Stats.CacheHits != 2) {
				t.Errorf("run 2 stats = %+v, want 1 upstream call and 2 cache hits", got.Stats)
			}
		}
	})
}

func TestBatchUpstreamErrorsNotCached(t *testing.T) {
	repo := newBatchFakeRepo()
	var fails atomic.Bool
	fails.Store(true)
	repo.Hook = func(_ context.Context, _, path string) error {
		if path == "src/flaky.go" && fails.Load() {
			return fmt.Errorf("GET src: 503: %w", pipeline.ErrUpstream)
		}
		return nil
	}
	b := NewBatcher(repo, pipeline.DefaultLimits(), 1<<20)
	in := BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: []pipeline.Request{
		{Path: "src/flaky.go"}, {Path: "src/nope.go"},
	}}
	got, _ := b.Run(context.Background(), in)
	if r := got.Results[0]; r.Reason != pipeline.LookupUpstream || r.Error != "upstream error: GET src: 503: upstream error" {
		t.Errorf("first run = %+v", r)
	}
	fails.Store(false)
	got, _ = b.Run(context.Background(), in)
	if !got.Results[0].OK || got.Results[0].Cached {
		t.Errorf("second run of a failed lookup = %+v, want a fresh ok answer", got.Results[0])
	}
	if r := got.Results[1]; !r.Cached || r.Reason != pipeline.LookupNotFound {
		t.Errorf("not found must be cached at a commit, got %+v", r)
	}
	if got.Stats.UpstreamCalls != 1 {
		t.Errorf("upstream calls = %d, want 1", got.Stats.UpstreamCalls)
	}
}

func TestBatchRepeatAtSameCommitMakesNoUpstreamCalls(t *testing.T) {
	repo := newBatchFakeRepo()
	b := NewBatcher(repo, pipeline.DefaultLimits(), 1<<20)
	in := BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: strings.ToUpper(batchCommit), Requests: []pipeline.Request{
		{Path: "src/a.go"}, {Op: "list_dir", Path: "src"}, {Path: "img/logo.bin"}, {Path: "src/none.go"},
	}}
	first, _ := b.Run(context.Background(), in)
	second, _ := b.Run(context.Background(), in)
	if first.Stats.UpstreamCalls != 4 || second.Stats.UpstreamCalls != 0 || second.Stats.CacheHits != 4 {
		t.Fatalf("first %+v, second %+v: want 4 then 0 upstream calls", first.Stats, second.Stats)
	}
	for i := range first.Results {
		want := first.Results[i]
		want.Cached = true
		if diff := cmp.Diff(want, second.Results[i]); diff != "" {
			t.Errorf("result %d differs when cached (-want +got):\n%s", i, diff)
		}
	}
	if n, bytes := b.CacheStats(); n != 4 || bytes <= 0 {
		t.Errorf("CacheStats = %d, %d", n, bytes)
	}
}

// TestBatchCoalescesIdenticalLookups: identical lookups in flight at the
// same time, within one batch and across concurrent batches, make one
// upstream call. In a bubble, synctest.Wait holds the one upstream call
// until every lookup has started and is waiting, so none of them can be
// answered by the cache instead: each must have joined the flight.
func TestBatchCoalescesIdenticalLookups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := newBatchFakeRepo()
		release := make(chan struct{})
		repo.Hook = func(context.Context, string, string) error {
			<-release
			return nil
		}
		b := NewBatcher(repo, pipeline.DefaultLimits(), 1<<20)
		in := BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: batchCommit, Requests: []pipeline.Request{
			{Path: "src/a.go"}, {Path: "/src/a.go"}, {Path: "./src//a.go"},
		}}
		var wg sync.WaitGroup
		results := make([]BatchResult, 4)
		for i := range results {
			wg.Go(func() { results[i], _ = b.Run(context.Background(), in) })
		}
		synctest.Wait() // every lookup waits: on the repository, or on its flight
		if n := repo.InFlight(); n != 1 {
			t.Errorf("%d upstream calls in flight for twelve identical lookups, want 1", n)
		}
		close(release)
		wg.Wait()
		if c := repo.Calls(pipelinetest.OpRead, "src/a.go"); c != 1 {
			t.Errorf("twelve identical lookups made %d upstream calls, want 1", c)
		}
		coalesced, hits, upstream := 0, 0, 0
		for _, r := range results {
			coalesced += r.Stats.Coalesced
			hits += r.Stats.CacheHits
			upstream += r.Stats.UpstreamCalls
			for i, l := range r.Results {
				if !l.OK || *l.Content != "package a\n" || l.Cached {
					t.Errorf("result %d = %+v, want the file, not from the cache", i, l)
				}
			}
		}
		if coalesced != 11 || hits != 0 || upstream != 1 {
			t.Errorf("coalesced %d, cache hits %d, upstream calls %d; want 11, 0 and 1", coalesced, hits, upstream)
		}
	})
}

// TestBatchParallelismIsBounded: with BatchParallel 2, two upstream calls
// run while the others wait their turn.
func TestBatchParallelismIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := newBatchFakeRepo()
		release := make(chan struct{})
		repo.Hook = func(context.Context, string, string) error { <-release; return nil }
		lim := pipeline.DefaultLimits()
		lim.BatchParallel = 2
		var reqs []pipeline.Request
		for _, p := range []string{"src/a.go", "src/b.go", "src/slow.go", "src/flaky.go", "huge.sql", "nope"} {
			reqs = append(reqs, pipeline.Request{Path: p})
		}
		var got BatchResult
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, _ = NewBatcher(repo, lim, 0).Run(context.Background(), BatchInput{Workspace: "w", RepoSlug: "r", Ref: batchCommit, Requests: reqs})
		}()
		synctest.Wait()
		if n := repo.InFlight(); n != 2 {
			t.Errorf("%d upstream calls running while all wait, want BatchParallel = 2", n)
		}
		close(release)
		<-done
		if m := repo.MaxInFlight(); m != 2 {
			t.Errorf("max concurrent upstream calls = %d, want 2", m)
		}
		if got.Stats.UpstreamCalls != 6 {
			t.Errorf("upstream calls = %d with the cache disabled, want 6", got.Stats.UpstreamCalls)
		}
	})
}

// TestBatchCancelledContext: a batch whose caller leaves while a lookup
// waits upstream answers that lookup cancelled.
func TestBatchCancelledContext(t *testing.T) {
	repo := newBatchFakeRepo()
	ctx, cancel := context.WithCancel(context.Background())
	repo.Hook = func(ctx context.Context, _, _ string) error {
		cancel() // the caller leaves while the lookup waits upstream
		<-ctx.Done()
		return ctx.Err()
	}
	got, err := NewBatcher(repo, pipeline.DefaultLimits(), 0).Run(ctx, BatchInput{Workspace: "w", RepoSlug: "r", Ref: batchCommit,
		Requests: []pipeline.Request{{Path: "src/a.go"}}})
	if err != nil || got.Results[0].Reason != pipeline.LookupCancelled {
		t.Errorf("got %+v, %v; want a cancelled result", got.Results, err)
	}
}

// TestLookupCacheBoundByBytes: the cache keeps what fits, never weighs
// more than its bound, refuses an entry heavier than itself and keeps
// nothing when disabled.
func TestLookupCacheBoundByBytes(t *testing.T) {
	key := func(p string) lookupKey { return lookupKey{"w", "r", batchCommit, pipeline.OpGetFile, p} }
	r := lookupOK("x", strings.Repeat("z", 1000))
	w := cacheWeight(key("a"), r)
	c := newLookupCache(10*w + w/2) // room for ten entries
	c.add(key("a"), r)
	c.add(key("b"), r)
	for _, k := range []string{"a", "b"} {
		if got, ok := c.get(key(k)); !ok || *got.Content != *r.Content {
			t.Errorf("%s: got %v, %v; want the stored result", k, got, ok)
		}
	}
	if n, bytes := c.stats(); n != 2 || bytes != 2*w {
		t.Errorf("stats = %d entries, %d bytes; want 2, %d", n, bytes, 2*w)
	}
	for i := range 100 {
		c.add(key(fmt.Sprint("f", i)), r)
	}
	if n, bytes := c.stats(); n > 10 || bytes > c.maxBytes {
		t.Errorf("after 102 adds: %d entries, %d bytes; want at most 10 entries, %d bytes", n, bytes, c.maxBytes)
	}
	c.add(key("huge"), lookupOK("x", strings.Repeat("z", int(20*w))))
	if _, ok := c.get(key("huge")); ok {
		t.Error("an entry heavier than the cache must not be stored")
	}
	var none *lookupCache = newLookupCache(0)
	none.add(key("a"), r)
	if _, ok := none.get(key("a")); ok {
		t.Error("a disabled cache keeps nothing")
	}
	if n, bytes := none.stats(); n != 0 || bytes != 0 {
		t.Errorf("a disabled cache reports %d entries, %d bytes", n, bytes)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 900: "900 bytes", 512 << 10: "512 KiB", 1536: "1.5 KiB", 2_200_000: "2.1 MiB"} {
		if got := lookupSizeText(n); got != want {
			t.Errorf("lookupSizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLookupOutcome(t *testing.T) {
	if got := lookupOK("a", "").Outcome(); got != "ok" {
		t.Errorf("ok outcome = %q", got)
	}
	if got := lookupFail(pipeline.OpGetFile, "a", "x", pipeline.LookupBinary).Outcome(); got != pipeline.LookupBinary {
		t.Errorf("binary outcome = %q", got)
	}
}

func TestLookupResultJSON(t *testing.T) {
	for _, tt := range []struct {
		r    pipeline.LookupResult
		want string
	}{
		{pipeline.LookupResult{OK: true, Op: pipeline.OpListDir, Path: "empty"}, `{"ok":true,"op":"list_dir","path":"empty","entries":[]}`},
		{pipeline.LookupResult{OK: true, Op: pipeline.OpListDir, Path: "d", Entries: []pipeline.DirEntry{{Path: "d/a", Type: "file", Size: i64p(3)}}},
			`{"ok":true,"op":"list_dir","path":"d","entries":[{"path":"d/a","type":"file","size":3}]}`},
		{lookupOK("a.go", ""), `{"ok":true,"op":"get_file","path":"a.go","content":"","size":0}`},
		{lookupFail(pipeline.OpGetFile, "b.go", "binary file", pipeline.LookupBinary), `{"ok":false,"op":"get_file","path":"b.go","error":"binary file","reason":"binary"}`},
	} {
		b, err := json.Marshal(tt.r)
		if err != nil || string(b) != tt.want {
			t.Errorf("json = %s, %v; want %s", b, err, tt.want)
		}
		var back pipeline.LookupResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("decode %s: %v", b, err)
		}
	}
}

// FuzzBatchRequests feeds model-chosen ops, paths and refs to a batch: it
// never panics, answers one result per request in order, refuses secret and
// escaping paths and keeps ok + failed == requested.
func FuzzBatchRequests(f *testing.F) {
	f.Add("get_file", "src/a.go", batchCommit)
	f.Add("list_dir", "/", "main")
	f.Add("", "../../etc/passwd", "-x")
	f.Add("LIST_DIR", "src/%2e%2e/.env", "a..b")
	f.Add("get_file", "src/a.go?raw=1#x", "refs/heads/main")
	f.Add("get_file", ".git/config", batchCommit)
	repo := newBatchFakeRepo()
	lim := pipeline.DefaultLimits()
	lim.LookupTimeout = time.Second
	b := NewBatcher(repo, lim, 1<<20)
	f.Fuzz(func(t *testing.T, op, path, ref string) {
		in := BatchInput{Workspace: "ws", RepoSlug: "repo", Ref: ref, Requests: []pipeline.Request{
			{Op: op, Path: path}, {Op: op, Path: path, Ref: batchCommit}, {Path: "src/a.go"},
		}}
		got, err := b.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Results) != 3 || got.Stats.OK+got.Stats.Failed != 3 {
			t.Fatalf("results %+v stats %+v", got.Results, got.Stats)
		}
		for _, r := range got.Results {
			if r.OK && (scope.IsSecretPath(r.Path) || strings.Contains("/"+r.Path+"/", "/../")) {
				t.Fatalf("read a refused path: %+v", r)
			}
			if !r.OK && (r.Error == "" || r.Reason == "") {
				t.Fatalf("failure without error or reason: %+v", r)
			}
		}
	})
}

func TestBatchEchoIsClipped(t *testing.T) {
	long := strings.Repeat("a/", 5000)
	got, _ := NewBatcher(newBatchFakeRepo(), pipeline.DefaultLimits(), 0).Run(context.Background(),
		BatchInput{Workspace: "w", RepoSlug: "r", Ref: batchCommit, Requests: []pipeline.Request{{Path: long}}})
	r := got.Results[0]
	if r.Reason != "too_long" || len(r.Path) > pipeline.DefaultLimits().MaxPathLen+16+len("…") || !strings.HasSuffix(r.Path, "…") {
		t.Errorf("result = %s (%d bytes, reason %s)", clipEcho(r.Path, 40), len(r.Path), r.Reason)
	}
}
