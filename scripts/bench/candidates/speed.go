package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/candidates/treesit"
	"github.com/prscout/prscout/pipeline/scope"
)

// speed times candidates.Find on a change of -files Go files of a large
// repository: the newest first-parent range HEAD~k..HEAD whose diff changes
// at least that many Go files, cut to the first -files of them.
func speed(args []string) int {
	fs := flag.NewFlagSet("speed", flag.ContinueOnError)
	repo := fs.String("repo", "", "a clone of a repository with at least 5,000 files")
	files := fs.Int("files", 20, "changed files of the language")
	langKey := fs.String("lang", "go", "the language of the changed files: go, ts, py, java or one the tree-sitter reader reads (rust, ruby, php, csharp, kotlin, c, cpp, swift, scala)")
	runs := fs.Int("runs", 10, "timed runs (after one warm-up)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	treeKind := fs.String("tree", "worktree", "the Tree: worktree (git grep + work tree reads), localgit (prscout's production tree: localgit.OpenTree at HEAD, opened per run) or mirror (the same over a warm blob-less gitmirror clone of -repo)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *repo == "" {
		fmt.Fprintln(os.Stderr, "speed: -repo is required")
		return 2
	}
	if _, err := os.Stat(filepath.Join(*repo, ".git")); err != nil {
		fmt.Fprintf(os.Stderr, "speed: %s is no git clone: %v\n", *repo, err)
		return 2
	}
	ls, err := git(*repo, "ls-tree", "-r", "--name-only", "HEAD")
	if err != nil {
		fmt.Fprintln(os.Stderr, "speed:", err)
		return 1
	}
	nFiles := strings.Count(ls, "\n")
	globs := speedGlobs(*langKey)
	if globs == nil {
		fmt.Fprintf(os.Stderr, "speed: -lang %q: want go, ts, py, java or one of %v\n", *langKey, treesit.Languages())
		return 2
	}
	changes, base, err := speedChange(*repo, *files, globs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "speed:", err)
		return 1
	}
	ctx := context.Background()
	defer func() {
		for _, c := range cleanups {
			c()
		}
	}()
	open, setup, err := openTree(ctx, *treeKind, *repo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "speed:", err)
		return 1
	}
	if setup != "" {
		fmt.Println(setup)
	}
	var got []candidates.Candidate
	var times, cpus []time.Duration
	var firstRun time.Duration
	timed := &timedTree{}
	tree := timed
	// A server keeps the readings of files across requests; so does this loop.
	cache := candidates.NewCache(128 << 20)
	for i := 0; i <= *runs; i++ {
		if i == 1 && *profile != "" {
			pf, err := os.Create(*profile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "speed:", err)
				return 1
			}
			defer pf.Close()
			if err := pprof.StartCPUProfile(pf); err != nil {
				fmt.Fprintln(os.Stderr, "speed:", err)
				return 1
			}
			defer pprof.StopCPUProfile()
		}
		start, cpu0 := time.Now(), cpuTime()
		got, err = open(func(tree candidates.Tree) ([]candidates.Candidate, error) {
			return candidates.Find(ctx, timed.with(tree), changes, candidates.Options{Cache: cache})
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "speed: find:", err)
			return 1
		}
		if i == 0 {
			firstRun = time.Since(start)
		} else {
			times = append(times, time.Since(start))
			cpus = append(cpus, cpuTime()-cpu0)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	med := times[len(times)/2]
	fmt.Printf("repository: %d files; change %s..HEAD: %d changed files; %d candidates; tree %s\n", nFiles, base[:10], len(changes), len(got), *treeKind)
	fmt.Printf("find: first run %.1f ms (the tree's blob cache cold); then best %.1f ms, median %.1f ms, worst %.1f ms over %d runs (target: median < %d ms)\n",
		ms(firstRun), ms(times[0]), ms(med), ms(times[len(times)-1]), len(times), targetSpeedMS)
	n := time.Duration(*runs + 1)
	fmt.Printf("tree calls per run: grep %.1f ms (%d calls), read %.1f ms (summed over goroutines; %d files, %d KiB), list %.1f ms (%d calls)\n",
		ms(tree.grep/n), tree.nGrep/int(n), ms(tree.read/n), tree.nRead/int(n), tree.readBytes/int64(n)>>10, ms(tree.list/n), tree.nList/int(n))
	fmt.Printf("cpu (this process and its git children): median %.1f ms; load average %s\n", ms(cpus[len(cpus)/2]), loadAvg())
	printPeer(*repo, changes, globs, *runs, med)
	if nFiles < 5000 {
		fmt.Println("MISS: the repository has fewer than 5,000 files")
		return 1
	}
	if ms(med) >= targetSpeedMS {
		fmt.Println("MISS")
		return 1
	}
	fmt.Println("PASS")
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// speedChange returns the changes of the newest range HEAD~k..HEAD that
// modifies at least n files matching globs, keeping n of them.
func speedChange(repo string, n int, globs []string) ([]candidates.Change, string, error) {
	for k := 1; k <= 400; k++ {
		base := fmt.Sprintf("HEAD~%d", k)
		names, err := git(repo, append([]string{"diff", "--name-only", "--diff-filter=M", base, "HEAD", "--"}, globs...)...)
		if err != nil {
			return nil, "", err
		}
		var paths []string
		for _, p := range strings.Fields(names) {
			if !strings.Contains(p, "/testdata/") && !strings.HasPrefix(p, "vendor/") {
				paths = append(paths, p)
			}
		}
		if len(paths) < n {
			continue
		}
		sha, err := git(repo, "rev-parse", base)
		if err != nil {
			return nil, "", err
		}
		sha = strings.TrimSpace(sha)
		diff, err := git(repo, append([]string{"diff", "--no-color", "--no-ext-diff", sha, "HEAD", "--"}, paths[:n]...)...)
		if err != nil {
			return nil, "", err
		}
		changes, err := candidates.ChangesFromDiff(diff)
		if err != nil {
			return nil, "", err
		}
		for i := range changes {
			c := &changes[i]
			if s, err := git(repo, "show", sha+":"+c.Path); err == nil {
				c.Old = []byte(s)
			}
			if s, err := git(repo, "show", "HEAD:"+c.Path); err == nil {
				c.New = []byte(s)
			}
		}
		return changes, sha, nil
	}
	return nil, "", fmt.Errorf("no range of the last 400 commits changes %d files matching %v", n, globs)
}

// cpuTime is the user and system time of this process and its waited-for
// children (git grep) so far.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// loadAvg is the 1-minute load average (the machine may be shared).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// timedTree adds up the time spent in each Tree method.
type timedTree struct {
	candidates.Tree
	grep, read, list    time.Duration
	nGrep, nRead, nList int
	readBytes           int64
	mu                  sync.Mutex
}

// with points the timer at tree for the next run.
func (t *timedTree) with(tree candidates.Tree) *timedTree {
	t.Tree = tree
	return t
}

func (t *timedTree) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	start := time.Now()
	defer func() { t.mu.Lock(); t.grep += time.Since(start); t.nGrep++; t.mu.Unlock() }()
	return t.Tree.Grep(ctx, words, globs, limit)
}

func (t *timedTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	start := time.Now()
	b, err := t.Tree.ReadFile(ctx, p)
	t.mu.Lock()
	t.read += time.Since(start)
	t.nRead++
	t.readBytes += int64(len(b))
	t.mu.Unlock()
	return b, err
}

func (t *timedTree) ListDir(ctx context.Context, d string) ([]string, error) {
	start := time.Now()
	defer func() { t.mu.Lock(); t.list += time.Since(start); t.nList++; t.mu.Unlock() }()
	return t.Tree.ListDir(ctx, d)
}

// speedGlobs are the pathspec globs of a -lang's files; nil for a language
// the benchmark does not know.
func speedGlobs(key string) []string {
	if key == "go" {
		return []string{"*.go"}
	}
	if l := langByKey(key); l != nil {
		return l.globs
	}
	if !slices.Contains(treesit.Languages(), key) {
		return nil
	}
	var globs []string
	for _, ext := range scope.Extensions(key) {
		globs = append(globs, "*"+ext)
	}
	return globs
}

// printPeer times the peer the candidates are weighed against: git grep of
// the changed lines' identifiers (added and removed, as the co-change
// benchmark's identifier baseline takes them) as whole words over the
// language's files at HEAD, listing the files, with as many runs after a
// warm-up (at most peerRuns: over a clone without a work tree it inflates
// every blob, seconds each); and prints its median beside the candidates'
// median.
func printPeer(repo string, changes []candidates.Change, globs []string, runs int, find time.Duration) {
	runs = min(runs, peerRuns)
	words := map[string]bool{}
	for _, c := range changes {
		ccIdents(c.New, c.AddedLines, words)
		ccIdents(c.Old, c.RemovedLines, words)
	}
	args := []string{"grep", "-l", "-w", "-F", "-I", "--no-color"}
	for w := range words {
		args = append(args, "-e", w)
	}
	args = append(append(args, "HEAD", "--"), globs...)
	var times []time.Duration
	nFiles := 0
	for i := 0; i <= runs; i++ {
		start := time.Now()
		out, _ := git(repo, args...) // exit status 1: no match
		if i > 0 {
			times = append(times, time.Since(start))
		}
		nFiles = strings.Count(out, "\n")
	}
	slices.Sort(times)
	peer := times[len(times)/2]
	fmt.Printf("peer: git grep -l -w -F of the changed lines' %d identifiers at HEAD: median %.1f ms, %d files; candidates %.1f ms = %.2f× the peer\n",
		len(words), ms(peer), nFiles, ms(find), float64(find)/float64(max(peer, time.Microsecond)))
}

// peerRuns bounds the peer's timed runs.
const peerRuns = 3
