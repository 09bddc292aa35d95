package lookup

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/scope"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"
)

// BatchInput is the body of /v1/repository/batch: requests with top-level
// defaults. The /v1/needs answer decodes into it as is (its limits and stats
// are ignored; its rejected entries are passed through).
type BatchInput struct {
	Workspace string              `json:"workspace"`
	RepoSlug  string              `json:"repoSlug"`
	Ref       string              `json:"ref"`
	Skip      bool                `json:"skip"`
	Requests  []pipeline.Request  `json:"requests"`
	Rejected  []pipeline.Rejected `json:"rejected,omitempty"`
}

// BatchResult is the answer of /v1/repository/batch. Results are in request
// order, one per request; Rejected is the input's rejected list unchanged
// (never null) so that the merge stage can tell the reviewer what was
// refused before the lookup.
type BatchResult struct {
	Results  []pipeline.LookupResult `json:"results"`
	Rejected []pipeline.Rejected     `json:"rejected"`
	Stats    BatchStats              `json:"stats"`
}

// BatchStats are the counts of one batch, for the answer and for metrics.
// Requested == OK + Failed always holds.
type BatchStats struct {
	// Requested is the number of requests received (processed or not).
	Requested int `json:"requested"`
	// OK counts results with ok:true, Failed those with ok:false (refused
	// paths, lookup failures and requests not processed).
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	// CacheHits counts results served from the commit cache without any
	// upstream call.
	CacheHits int `json:"cacheHits"`
	// Coalesced counts results that shared an identical lookup already in
	// flight (in this batch or a concurrent one) instead of calling upstream.
	Coalesced int `json:"coalesced"`
	// UpstreamCalls counts Repository calls this batch made (ResolveCommit,
	// ReadFile, ListDir). A repeat at the same full commit id makes 0.
	UpstreamCalls int `json:"upstreamCalls"`
	// NotProcessed counts requests beyond Limits.BatchMax.
	NotProcessed int `json:"notProcessed"`
	// ByError counts failed results by reason code (LookupNotFound, ...).
	ByError map[string]int `json:"byError"`
	// DurationMs is the wall time of the batch in milliseconds.
	DurationMs int64 `json:"durationMs"`
	// Redactions counts secrets replaced in the answer's contents and error
	// texts, by kind (redact.Kinds).
	Redactions map[string]int `json:"redactions"`
}

// Batcher runs repository lookups for /v1/repository/batch: bounded
// parallelism, a timeout per lookup, a byte-bounded cache keyed by
// (workspace, repoSlug, commit, op, path) and coalescing of identical
// lookups in flight. One Batcher serves all requests; it is safe for
// concurrent use.
type Batcher struct {
	repo   pipeline.Repository
	lim    pipeline.Limits
	cache  *lookupCache
	flight singleflight.Group
}

// NewBatcher returns a Batcher reading through repo. cacheBytes bounds the
// commit cache (contents, listings and keys); 0 disables it. Zero limits
// take DefaultLimits' values.
func NewBatcher(repo pipeline.Repository, lim pipeline.Limits, cacheBytes int64) *Batcher {
	return &Batcher{repo: repo, lim: lim.WithDefaults(), cache: newLookupCache(cacheBytes)}
}

// CacheStats returns the number of cached lookups and the bytes they weigh
// (for a gauge).
func (b *Batcher) CacheStats() (entries int, bytes int64) { return b.cache.stats() }

// repoRef is one distinct (repository, ref) of a batch, resolved once.
type repoRef struct {
	pipeline.Repo
	Ref string
}

// lookupPlan is one accepted request.
type lookupPlan struct {
	valid bool
	rr    repoRef
	op    string
	path  string
}

type refResolution struct {
	commit string
	err    error
	reason string
}

// batchCounters are updated by concurrent lookups.
type batchCounters struct {
	upstream  atomic.Int64
	cacheHits atomic.Int64
	coalesced atomic.Int64
}

// Run looks up every request and answers one result per request, in order.
// A bad request, a refused path or a failed lookup is an ok:false result
// with a specific error; it never fails the batch. The error is reserved for
// *InvalidError and is nil for every input today.
//
// Every file's content and every error text is redacted (pipeline/redact)
// before it is answered: the answer becomes an n8n item and then a prompt.
// The cache keeps what the repository gave, so each answer redacts again
// (and counts again in stats.redactions); a file's size is its size in the
// repository.
func (b *Batcher) Run(ctx context.Context, in BatchInput) (BatchResult, error) {
	start := time.Now()
	out := BatchResult{
		Results:  make([]pipeline.LookupResult, len(in.Requests)),
		Rejected: in.Rejected,
		Stats:    BatchStats{Requested: len(in.Requests), ByError: map[string]int{}, Redactions: map[string]int{}},
	}
	if out.Rejected == nil {
		out.Rejected = []pipeline.Rejected{}
	}
	if in.Skip {
		out.Results = []pipeline.LookupResult{}
		out.Stats.Requested = 0
	}
	if len(out.Results) == 0 {
		out.Stats.DurationMs = time.Since(start).Milliseconds()
		return out, nil
	}

	plans := make([]lookupPlan, len(in.Requests))
	refs := map[repoRef]*refResolution{}
	// Each result's redaction counts, merged once every lookup is done.
	counts := make([]map[string]int, len(in.Requests))
	for i, req := range in.Requests {
		p, fail := b.plan(i, req, in)
		if !p.valid {
			out.Results[i] = redactResult(fail, &counts[i])
			continue
		}
		plans[i] = p
		refs[p.rr] = &refResolution{}
	}

	var c batchCounters
	var g errgroup.Group
	g.SetLimit(b.lim.BatchParallel)
	for rr, res := range refs {
		g.Go(func() error {
			*res = b.resolve(ctx, rr, &c)
			return nil
		})
	}
	_ = g.Wait()
	for i, p := range plans {
		if !p.valid {
			continue
		}
		res := refs[p.rr]
		if res.err != nil {
			out.Results[i] = redactResult(lookupFailure(p.op, p.path, res.err.Error(), res.reason), &counts[i])
			continue
		}
		g.Go(func() error {
			out.Results[i] = redactResult(b.lookup(ctx, p, res.commit, &c), &counts[i])
			return nil
		})
	}
	_ = g.Wait()

	st := &out.Stats
	for _, m := range counts {
		for kind, n := range m {
			st.Redactions[kind] += n
		}
	}
	for _, r := range out.Results {
		if r.OK {
			st.OK++
			continue
		}
		st.Failed++
		st.ByError[r.Outcome()]++
		if r.Reason == pipeline.LookupBatchLimit {
			st.NotProcessed++
		}
	}
	st.CacheHits = int(c.cacheHits.Load())
	st.Coalesced = int(c.coalesced.Load())
	st.UpstreamCalls = int(c.upstream.Load())
	st.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// redactResult redacts r's content and error text, counting into *counts
// (made when first needed). The content is replaced, never written through:
// the cache and coalesced callers share the string r points to.
func redactResult(r pipeline.LookupResult, counts *map[string]int) pipeline.LookupResult {
	if *counts == nil {
		*counts = map[string]int{}
	}
	if r.Content != nil {
		if c := redact.Secrets(*r.Content, *counts); c != *r.Content {
			r.Content = &c
		}
	}
	r.Error = redact.Secrets(r.Error, *counts)
	return r
}

// plan checks one request against the limits and the defaults. It returns
// a valid plan, or the failed result to answer.
func (b *Batcher) plan(i int, req pipeline.Request, in BatchInput) (lookupPlan, pipeline.LookupResult) {
	// Failed entries echo what was asked, clipped (and marked) so that a
	// megabyte of garbage is not sent back.
	rawOp, rawPath := clipEcho(req.Op, 64), clipEcho(req.Path, b.lim.MaxPathLen+16)
	if i >= b.lim.BatchMax {
		return lookupPlan{}, lookupFailure(rawOp, rawPath,
			fmt.Sprintf("batch limit of %d reached: not processed", b.lim.BatchMax), pipeline.LookupBatchLimit)
	}
	op := strings.ToLower(strings.TrimSpace(req.Op))
	switch op {
	case "":
		op = pipeline.OpGetFile
	case pipeline.OpGetFile, pipeline.OpListDir:
	default:
		return lookupPlan{}, lookupFailure(rawOp, rawPath,
			fmt.Sprintf("unsupported op %q: use get_file or list_dir", rawOp), pipeline.LookupUnsupportedOp)
	}
	var clean string
	if t := strings.TrimSpace(req.Path); op == pipeline.OpListDir && (t == "" || t == "/" || t == ".") {
		clean = "" // the repository root
	} else {
		var reason string
		var err error
		clean, reason, err = CheckLookupPath(req.Path, b.lim)
		if err != nil {
			return lookupPlan{}, lookupFailure(op, rawPath, err.Error(), reason)
		}
	}
	rr := repoRef{Repo: pipeline.Repo{Workspace: batchDefault(req.Workspace, in.Workspace),
		RepoSlug: batchDefault(req.RepoSlug, in.RepoSlug)}, Ref: batchDefault(req.Ref, in.Ref)}
	for _, f := range []struct{ name, value string }{
		{"workspace", rr.Workspace}, {"repoSlug", rr.RepoSlug}, {"ref", rr.Ref},
	} {
		if f.value == "" {
			return lookupPlan{}, lookupFailure(op, clean, "missing "+f.name, pipeline.LookupMissingRepo)
		}
		if !batchValidRepoField(f.name, f.value) {
			return lookupPlan{}, lookupFailure(op, clean, "invalid "+f.name, pipeline.LookupInvalidRepo)
		}
	}
	if pipeline.IsFullCommit(rr.Ref) {
		rr.Ref = strings.ToLower(rr.Ref)
	}
	return lookupPlan{valid: true, rr: rr, op: op, path: clean}, pipeline.LookupResult{}
}

// checkLookupPath is the batch's last line of defence: the hardened
// CheckRequestPath (normalize + secret refusal), plus a refusal of the root
// for get_file. reason is the lookupFailure's snake_case code.
func CheckLookupPath(raw string, lim pipeline.Limits) (clean string, reason string, err error) {
	clean, reason, err = scope.CheckRequestPath(raw, lim)
	if err != nil {
		return "", reason, err
	}
	if clean == "" {
		return "", scope.ReasonEmpty, scope.ErrPathEmpty
	}
	return clean, "", nil
}

// batchRepoName accepts Bitbucket workspace ids and repository slugs
// (letters, digits, '-', '_', '.', and the {uuid} form) and refuses names
// that could escape a directory on the local provider.
var batchRepoName = regexp.MustCompile(`^[A-Za-z0-9_{}-][A-Za-z0-9._{}-]{0,127}$`)

func batchValidRepoField(name, v string) bool {
	if name != "ref" {
		return batchRepoName.MatchString(v)
	}
	// A ref is a branch, tag or commit id. Refuse what git would read as an
	// option or a range, and anything unprintable.
	if len(v) > 255 || strings.HasPrefix(v, "-") || strings.Contains(v, "..") {
		return false
	}
	for _, r := range v {
		if r <= ' ' || r == 0x7f || r == '\\' || r == ':' {
			return false
		}
	}
	return utf8.ValidString(v)
}

// resolve turns rr.Ref into a full commit id, with the lookup timeout.
func (b *Batcher) resolve(ctx context.Context, rr repoRef, c *batchCounters) refResolution {
	if pipeline.IsFullCommit(rr.Ref) {
		return refResolution{commit: rr.Ref}
	}
	ctx, cancel := context.WithTimeout(ctx, b.lim.LookupTimeout)
	defer cancel()
	c.upstream.Add(1)
	commit, err := b.repo.ResolveCommit(ctx, rr.Repo, rr.Ref)
	if err == nil && commit == "" {
		err = fmt.Errorf("resolve %s: empty commit id: %w", rr.Ref, pipeline.ErrUpstream)
	}
	if err == nil {
		return refResolution{commit: commit}
	}
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		msg, reason := b.ctxFailure(ctx, err)
		return refResolution{err: fmt.Errorf("resolving ref %s %s", rr.Ref, msg), reason: reason}
	case errors.Is(err, pipeline.ErrNotFound):
		return refResolution{err: fmt.Errorf("ref %s not found", rr.Ref), reason: pipeline.LookupRefNotFound}
	default:
		return refResolution{err: fmt.Errorf("upstream error resolving ref %s: %s", rr.Ref, clipEcho(err.Error(), 300)), reason: pipeline.LookupUpstream}
	}
}

// lookup serves one planned request from the cache, an identical lookup in
// flight, or the repository, within its own timeout.
func (b *Batcher) lookup(ctx context.Context, p lookupPlan, commit string, c *batchCounters) pipeline.LookupResult {
	key := lookupKey{Workspace: p.rr.Workspace, RepoSlug: p.rr.RepoSlug, Commit: commit, Op: p.op, Path: p.path}
	if r, ok := b.cache.get(key); ok {
		c.cacheHits.Add(1)
		r = r.Clone()
		r.Cached = true
		return r
	}
	lctx, cancel := context.WithTimeout(ctx, b.lim.LookupTimeout)
	defer cancel()
	leader := false
	ch := b.flight.DoChan(key.String(), func() (any, error) {
		leader = true
		if r, ok := b.cache.get(key); ok { // stored by a flight that just ended
			r.Cached = true
			return r, nil
		}
		// The flight serves every caller that joins it, so it must not die
		// with the first caller's context; it keeps that context's values
		// and is bounded by its own timeout.
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), b.lim.LookupTimeout)
		defer fcancel()
		c.upstream.Add(1)
		r := b.fetch(fctx, key)
		if lookupCacheable(r) {
			b.cache.add(key, r)
		}
		return r, nil
	})
	select {
	case res := <-ch:
		r := res.Val.(pipeline.LookupResult).Clone()
		switch {
		case r.Cached:
			c.cacheHits.Add(1)
		case res.Shared && !leader:
			c.coalesced.Add(1)
		}
		return r
	case <-lctx.Done():
		msg, reason := b.ctxFailure(lctx, lctx.Err())
		return lookupFailure(p.op, p.path, msg, reason)
	}
}

// fetch calls the repository for one lookup and turns the answer into a
// result. It never truncates: a file over the cap, a binary file or a
// non-UTF-8 file is refused with the reason.
func (b *Batcher) fetch(ctx context.Context, k lookupKey) pipeline.LookupResult {
	repo := pipeline.Repo{Workspace: k.Workspace, RepoSlug: k.RepoSlug}
	switch k.Op {
	case pipeline.OpListDir:
		entries, truncated, err := b.repo.ListDir(ctx, repo, k.Commit, k.Path, b.lim.MaxListEntries)
		if err != nil {
			return b.errorResult(ctx, k, err)
		}
		if len(entries) > b.lim.MaxListEntries {
			entries, truncated = entries[:b.lim.MaxListEntries], true
		}
		entries = append([]pipeline.DirEntry(nil), entries...)
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
		for i := range entries {
			if entries[i].Type == "" {
				entries[i].Type = "file"
			}
		}
		if entries == nil {
			entries = []pipeline.DirEntry{}
		}
		return pipeline.LookupResult{OK: true, Op: k.Op, Path: k.Path, Entries: entries, Truncated: truncated}
	default:
		data, err := b.repo.ReadFile(ctx, repo, k.Commit, k.Path, b.lim.MaxFileBytes)
		if err != nil {
			return b.errorResult(ctx, k, err)
		}
		size := int64(len(data))
		if size > b.lim.MaxFileBytes {
			return lookupFailure(k.Op, k.Path, b.tooLargeMessage(size), pipeline.LookupTooLarge)
		}
		if pipeline.LooksBinary(data) {
			return lookupFailure(k.Op, k.Path, "binary file", pipeline.LookupBinary)
		}
		if !utf8.Valid(data) {
			return lookupFailure(k.Op, k.Path, "binary file (not valid UTF-8 text)", pipeline.LookupBinary)
		}
		content := string(data)
		return pipeline.LookupResult{OK: true, Op: k.Op, Path: k.Path, Content: &content, Size: &size}
	}
}

// fileSizer is implemented by adapter errors that know the refused file's
// size (optional: the message then names it).
type fileSizer interface{ FileSize() int64 }

// errorResult maps a Repository error to a specific failed result.
func (b *Batcher) errorResult(ctx context.Context, k lookupKey, err error) pipeline.LookupResult {
	var sizer fileSizer
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		msg, reason := b.ctxFailure(ctx, err)
		return lookupFailure(k.Op, k.Path, msg, reason)
	case errors.Is(err, pipeline.ErrNotFound):
		return lookupFailure(k.Op, k.Path, "not found at "+pipeline.ShortCommit(k.Commit), pipeline.LookupNotFound)
	case errors.Is(err, pipeline.ErrTooLarge):
		size := int64(-1)
		if errors.As(err, &sizer) {
			size = sizer.FileSize()
		}
		return lookupFailure(k.Op, k.Path, b.tooLargeMessage(size), pipeline.LookupTooLarge)
	case errors.Is(err, pipeline.ErrBinary):
		return lookupFailure(k.Op, k.Path, "binary file", pipeline.LookupBinary)
	case errors.Is(err, pipeline.ErrIsDir):
		return lookupFailure(k.Op, k.Path, "is a directory: use list_dir", pipeline.LookupIsDir)
	case errors.Is(err, pipeline.ErrNotDir):
		return lookupFailure(k.Op, k.Path, "not a directory: use get_file", pipeline.LookupNotDir)
	case errors.Is(err, pipeline.ErrSecret):
		return lookupFailure(k.Op, k.Path, "secret path refused", pipeline.LookupSecret)
	default:
		return lookupFailure(k.Op, k.Path, "upstream error: "+clipEcho(err.Error(), 300), pipeline.LookupUpstream)
	}
}

// ctxFailure words a timeout or a cancellation.
func (b *Batcher) ctxFailure(ctx context.Context, err error) (msg, reason string) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return "timed out after " + b.lim.LookupTimeout.String(), pipeline.LookupTimeout
	}
	return "cancelled", pipeline.LookupCancelled
}

func (b *Batcher) tooLargeMessage(size int64) string {
	if size < 0 {
		return "file is over the " + lookupSizeText(b.lim.MaxFileBytes) + " limit"
	}
	return "file is " + lookupSizeText(size) + ", over the " + lookupSizeText(b.lim.MaxFileBytes) + " limit"
}

// lookupCacheable reports whether a result is permanent at its commit: answers and
// refusals that the same commit would always give again. Timeouts,
// cancellations and upstream errors are transient and never cached.
func lookupCacheable(r pipeline.LookupResult) bool {
	if r.OK {
		return true
	}
	switch r.Reason {
	case pipeline.LookupNotFound, pipeline.LookupBinary, pipeline.LookupTooLarge, pipeline.LookupIsDir, pipeline.LookupNotDir, pipeline.LookupSecret:
		return true
	}
	return false
}

func lookupFailure(op, path, msg, reason string) pipeline.LookupResult {
	return pipeline.LookupResult{OK: false, Op: op, Path: path, Error: msg, Reason: reason}
}

func batchDefault(a, b string) string {
	if a = strings.TrimSpace(a); a != "" {
		return a
	}
	return strings.TrimSpace(b)
}

// clipEcho cuts s to at most n bytes on a rune boundary, marking the cut. Used
// only for echoed input and upstream error texts, never for content.
func clipEcho(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// lookupSizeText renders a size with binary units: "900 bytes", "512 KiB",
// "2.1 MiB".
func lookupSizeText(n int64) string {
	const kib, mib = 1 << 10, 1 << 20
	num := func(v float64) string {
		s := fmt.Sprintf("%.1f", v)
		return strings.TrimSuffix(s, ".0")
	}
	switch {
	case n < kib:
		return fmt.Sprintf("%d bytes", n)
	case n < mib:
		return num(float64(n)/kib) + " KiB"
	default:
		return num(float64(n)/mib) + " MiB"
	}
}
