// Command batch is benchmark (a): 12 repository lookups against an upstream
// that takes 100 ms per call, run by pipeline.Batcher in parallel and one by
// one as the n8n sub-workflow loop does, then repeated at the same commit.
// It prints the times side by side, the ratios and the repeat's upstream
// calls, and exits 1 when a target is missed.
//
//	go run ./scripts/bench/batch [-latency 100ms] [-n 12]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/lookup"
)

// slowRepo is a Repository that sleeps latency on every call and counts them.
type slowRepo struct {
	latency time.Duration
	calls   atomic.Int64
}

var _ pipeline.Repository = (*slowRepo)(nil)

func (r *slowRepo) wait(ctx context.Context) error {
	r.calls.Add(1)
	t := time.NewTimer(r.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *slowRepo) ResolveCommit(ctx context.Context, _ pipeline.Repo, rev string) (string, error) {
	return rev, r.wait(ctx)
}

func (r *slowRepo) ReadFile(ctx context.Context, _ pipeline.Repo, _, path string, _ int64) ([]byte, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	return []byte("// " + path + "\npackage x\n"), nil
}

func (r *slowRepo) ListDir(ctx context.Context, _ pipeline.Repo, _, path string, _ int) ([]pipeline.DirEntry, bool, error) {
	if err := r.wait(ctx); err != nil {
		return nil, false, err
	}
	return []pipeline.DirEntry{{Path: path + "/a.go", Type: "file"}}, false, nil
}

func main() {
	latency := flag.Duration("latency", 100*time.Millisecond, "upstream latency per call")
	n := flag.Int("n", 12, "lookups per batch")
	flag.Parse()

	const commit = "0123456789abcdef0123456789abcdef01234567" // a full id: no ResolveCommit
	in := lookup.BatchInput{Workspace: "acme", RepoSlug: "shop", Ref: commit}
	for i := range *n {
		op := pipeline.OpGetFile
		if i%4 == 3 {
			op = pipeline.OpListDir
		}
		in.Requests = append(in.Requests, pipeline.Request{Op: op, Path: fmt.Sprintf("src/pkg%02d/file.go", i)})
	}
	ctx := context.Background()

	// (1) Batcher, parallel.
	repo := &slowRepo{latency: *latency}
	b := lookup.NewBatcher(repo, pipeline.DefaultLimits(), 64<<20)
	start := time.Now()
	first, err := b.Run(ctx, in)
	parallel := time.Since(start)
	if err != nil || first.Stats.OK != *n {
		fmt.Fprintf(os.Stderr, "parallel batch failed: %v %+v\n", err, first.Stats)
		os.Exit(1)
	}
	parallelCalls := repo.calls.Load()

	// (2) One by one, as the n8n sub-workflow loop calls the repository tool
	// once per item.
	seq := &slowRepo{latency: *latency}
	start = time.Now()
	for _, r := range in.Requests {
		repo := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
		if r.Op == pipeline.OpListDir {
			_, _, err = seq.ListDir(ctx, repo, commit, r.Path, 500)
		} else {
			_, err = seq.ReadFile(ctx, repo, commit, r.Path, 512<<10)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sequential lookup failed:", err)
			os.Exit(1)
		}
	}
	sequential := time.Since(start)

	// (3) The same batch again at the same commit.
	before := repo.calls.Load()
	start = time.Now()
	repeat, err := b.Run(ctx, in)
	repeatTime := time.Since(start)
	repeatCalls := repo.calls.Load() - before
	if err != nil || repeat.Stats.OK != *n {
		fmt.Fprintf(os.Stderr, "repeat failed: %v %+v\n", err, repeat.Stats)
		os.Exit(1)
	}

	speedup := float64(sequential) / float64(parallel)
	vsOne := float64(parallel) / float64(*latency)
	fmt.Printf("benchmark (a): %d lookups, upstream latency %v per call\n", *n, *latency)
	fmt.Printf("%-34s %12s %16s\n", "run", "time", "upstream calls")
	fmt.Printf("%-34s %12v %16d\n", "(1) Batcher.Run, parallel", parallel.Round(time.Millisecond), parallelCalls)
	fmt.Printf("%-34s %12v %16d\n", "(2) one by one (n8n loop)", sequential.Round(time.Millisecond), seq.calls.Load())
	fmt.Printf("%-34s %12v %16d   (cacheHits %d)\n", "(3) repeat at the same commit", repeatTime.Round(time.Microsecond), repeatCalls, repeat.Stats.CacheHits)
	fmt.Printf("speedup (2)/(1):               %6.1fx   target >= 8x\n", speedup)
	fmt.Printf("(1) / one call's latency:      %6.2fx   target <= 1.3x\n", vsOne)
	fmt.Printf("repeat upstream calls:         %6d    target 0\n", repeatCalls)

	ok := speedup >= 8 && vsOne <= 1.3 && repeatCalls == 0
	if !ok {
		fmt.Println("RESULT: target missed")
		os.Exit(1)
	}
	fmt.Println("RESULT: targets met")
}
