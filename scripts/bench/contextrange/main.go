// Command contextrange times /v1/context on a real range of a git
// repository against the git work the stage cannot avoid.
//
//	contextrange run -repo R -bin prscout [-files 200] [-n 7] [-head main] [-max-ratio 1.5] [-max-first-ratio 0]
//	contextrange stream -repo R -bin prscout [-ranges 8] [-commits 25] [-passes 3] [-max-median 1.3] [-max-worst 2] [-max-first 2.5]
//	contextrange profile -repo R [-files 200 | -windows 8 [-start K]] [-n 5] -cpuprofile F [-warm] [-memprofile F] [-read-ahead]
//	contextrange first -repo R -bin A[,B...] [-pairs 3] [-rounds 2]
//
// run picks a first-parent range of R ending at -head with at least -files
// changed files, starts `prscout serve` twice on loopback ports with the
// local provider over R (one with candidates, one with
// PRSCOUT_CANDIDATES_MAX=0) and times, in -n alternating rounds, a POST
// /v1/context of that range on each (the answer read to its end) and the raw
// git: `git diff -U30 base head` plus `git cat-file --batch` fed the changed
// files' head blob ids. It prints the medians and the ratios, and, for a
// process that has cached nothing yet, the first request of a fresh server
// against the raw git just before it, and the CPU per request of each side
// (less sensitive than wall time to a busy machine). It exits 1 when the
// median ratio with candidates over the rounds is over -max-ratio (issue
// #22's target), or, with -max-first-ratio, when a fresh server's is over
// that.
//
// stream picks -ranges disjoint first-parent windows of -commits commits
// spread over R's history and, in each of -passes passes, starts a fresh
// `prscout serve` and asks it every range once (each pass starting at
// another range), each request paired with that range's raw git (the
// order alternating), after the server went idle from the request before.
// It prints each range's median context and raw git times and ratio, the
// same ranges asked again on the same server (what a repeated range
// measures; printed, not judged), and exits 1 when the median over the
// ranges is over -max-median, the worst range over -max-worst, or a fresh
// server's first request (median over the passes) over -max-first.
//
// profile runs the same stage in-process (collect.Collect over the local
// provider, the answer streamed as the API does) to write a CPU profile;
// -read-ahead first reads ahead as prscout serve does when it starts.
//
// first compares a fresh server's first request with the same range asked
// second, for one build or several asked alternately (first.go).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/collect"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: contextrange run|stream|profile|first -repo R ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = run(os.Args[2:])
	case "stream":
		err = stream(os.Args[2:])
	case "profile":
		err = profile(os.Args[2:])
	case "first":
		err = first(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contextrange:", err)
		os.Exit(1)
	}
}

// git runs git in repo and returns its trimmed stdout.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// defaultHead is the clone's origin/main or origin/master, else HEAD.
func defaultHead(repo string) string {
	for _, b := range []string{"origin/main", "origin/master"} {
		if _, err := git(repo, "rev-parse", "-q", "--verify", "refs/remotes/"+b); err == nil {
			return b
		}
	}
	return "HEAD"
}

// changeRange is a base..head range and the head blob ids of its changed
// files (deleted files, symbolic links and submodules left out).
type changeRange struct {
	Base, Head string
	Commits    int
	Files      int
	Blobs      []string
}

// pickRange walks back along head's first parents until base..head changes
// at least files files: doubling the distance, then a binary search, so a
// busy repository costs a dozen tree diffs.
func pickRange(repo, head string, files int) (changeRange, error) {
	headID, err := git(repo, "rev-parse", "--verify", head+"^{commit}")
	if err != nil {
		return changeRange{}, err
	}
	out, err := git(repo, "rev-list", "--first-parent", headID)
	if err != nil {
		return changeRange{}, err
	}
	chain := strings.Fields(out)
	count := func(k int) (int, error) {
		s, err := git(repo, "diff", "--name-only", "-z", chain[k], headID)
		if err != nil {
			return 0, err
		}
		return strings.Count(s, "\x00") + 1, nil
	}
	lo, hi := 0, 1
	for {
		if hi >= len(chain) {
			return changeRange{}, fmt.Errorf("%s has fewer than %d changed files along its first parents", head, files)
		}
		n, err := count(hi)
		if err != nil {
			return changeRange{}, err
		}
		if n >= files {
			break
		}
		if hi == len(chain)-1 {
			return changeRange{}, fmt.Errorf("%s has fewer than %d changed files along its first parents", head, files)
		}
		lo, hi = hi, min(hi*2, len(chain)-1)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		n, err := count(mid)
		if err != nil {
			return changeRange{}, err
		}
		if n >= files {
			hi = mid
		} else {
			lo = mid
		}
	}
	return rangeOf(repo, chain[hi], headID, hi)
}

// rangeOf reads base..head's changed files and their head blob ids;
// commits is the first-parent distance, for the print.
func rangeOf(repo, base, head string, commits int) (changeRange, error) {
	r := changeRange{Base: base, Head: head, Commits: commits}
	raw, err := git(repo, "diff", "--raw", "-z", "--no-abbrev", r.Base, r.Head)
	if err != nil {
		return r, err
	}
	// Records: ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0",
	// with a second path for renames and copies (status R<n> or C<n>).
	f := strings.Split(raw, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) != 5 {
			return r, fmt.Errorf("unexpected diff --raw record %q", f[i])
		}
		if meta[4][0] == 'R' || meta[4][0] == 'C' {
			i++
		}
		r.Files++
		if meta[4] != "D" && meta[1] != "120000" && meta[1] != "160000" {
			r.Blobs = append(r.Blobs, meta[3])
		}
	}
	return r, nil
}

// rawGit is the git work the stage cannot avoid: the range's diff with 30
// lines of context and the changed files' new sources through one
// `git cat-file --batch`. It returns the bytes read.
func rawGit(repo string, r changeRange) (int, error) {
	cmd := exec.Command("git", "-C", repo, "diff", "-U30", r.Base, r.Head)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("git diff: %v", err)
	}
	n := len(out)
	cat := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cat.Stdin = strings.NewReader(strings.Join(r.Blobs, "\n") + "\n")
	stdout, err := cat.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cat.Start(); err != nil {
		return 0, err
	}
	m, _ := io.Copy(io.Discard, stdout)
	if err := cat.Wait(); err != nil {
		return 0, fmt.Errorf("git cat-file: %v", err)
	}
	return n + int(m), nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// server is one `prscout serve` process.
type server struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
}

func startServer(bin, root string, env ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append([]string{"PRSCOUT_ADDR=" + addr, "PRSCOUT_LOG_LEVEL=warn", "PRSCOUT_LOCAL_ROOT=" + root}, env...)...)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://" + addr, logs: logs}
	for range 200 {
		if resp, err := http.Get(s.base + "/healthz"); err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("prscout did not start:\n%s", logs)
}

// cpu is the server's CPU time so far with its children's: the finished
// ones' and those still running (the git processes a server keeps for
// its next requests work for each request too).
func (s *server) cpu() time.Duration {
	return procCPU(s.cmd.Process.Pid, true) + liveChildrenCPU(s.cmd.Process.Pid)
}

// procCPU is the CPU time of process pid (utime and stime of
// /proc/<pid>/stat), with its finished children's (cutime and cstime)
// when finished is set.
func procCPU(pid int, finished bool) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil || bytes.LastIndexByte(data, ')') < 0 {
		return 0
	}
	// The command name in parentheses may hold spaces: fields start after it.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 15 {
		return 0
	}
	fields := f[11:15]
	if !finished {
		fields = f[11:13]
	}
	var ticks int64
	for _, v := range fields {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// liveChildrenCPU is the CPU time of pid's git children still running (or
// not yet waited for), from /proc/<pid>/task/*/children.
func liveChildrenCPU(pid int) time.Duration {
	lists, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var total time.Duration
	for _, l := range lists {
		data, _ := os.ReadFile(l)
		for _, c := range strings.Fields(string(data)) {
			n, err := strconv.Atoi(c)
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%s/comm", c)); err == nil && strings.TrimSpace(string(comm)) == "git" {
				total += procCPU(n, true)
			}
		}
	}
	return total
}

// waitIdle waits until the server has used no CPU for half a second (its
// background work after a request, such as filling the identifier index,
// is done), at most limit; it reports how long it waited.
func (s *server) waitIdle(limit time.Duration) time.Duration {
	start := time.Now()
	last := s.cpu()
	for time.Since(start) < limit {
		time.Sleep(500 * time.Millisecond)
		now := s.cpu()
		if now == last {
			break
		}
		last = now
	}
	return time.Since(start)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat times.
const clockTicks = 100

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// answer is what the benchmark reads of a /v1/context answer.
type answer struct {
	Files      []json.RawMessage `json:"files"`
	Excluded   []json.RawMessage `json:"excluded"`
	Candidates []json.RawMessage `json:"candidates"`
	Warnings   []string          `json:"warnings"`
	Stats      struct {
		DiffBytes    int `json:"diffBytes"`
		CandidatesMs int `json:"candidatesMs"`
	} `json:"stats"`
}

// post sends one /v1/context request for r and reads the whole answer. d
// is the time from sending the request to the answer's last byte: what a
// caller waits for, as the raw git is timed to its output's end. Decoding
// the JSON is the caller's work and is left out.
func (s *server) post(r changeRange) (a answer, n int, d time.Duration, err error) {
	body, _ := json.Marshal(map[string]string{"workspace": "bench", "repoSlug": "range", "base": r.Base, "head": r.Head, "title": "bench"})
	start := time.Now()
	resp, err := http.Post(s.base+"/v1/context", "application/json", bytes.NewReader(body))
	if err != nil {
		return answer{}, 0, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	d = time.Since(start)
	if err != nil {
		return answer{}, 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return answer{}, 0, 0, fmt.Errorf("/v1/context: %s: %.300s", resp.Status, data)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return answer{}, 0, 0, fmt.Errorf("/v1/context answer: %v", err)
	}
	return a, len(data), d, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	repo := fs.String("repo", "", "git repository (read-only: never checked out)")
	bin := fs.String("bin", "", "prscout binary")
	files := fs.Int("files", 200, "changed files the range has at least")
	n := fs.Int("n", 7, "rounds (each: raw git, context with and without candidates, in alternating order)")
	cold := fs.Int("cold", 3, "fresh servers whose first request is timed")
	warmed := fs.Int("warmed", 3, "fresh servers that serve the preceding range first, then this one timed")
	head := fs.String("head", "", "head of the range (a branch, tag or commit of -repo; origin/main or origin/master by default)")
	maxRatio := fs.Float64("max-ratio", 1.5, "largest accepted ratio of the context's median (with candidates) to the raw git's, over the rounds")
	maxFirst := fs.Float64("max-first-ratio", 0, "largest accepted ratio of a fresh server's first request (cold, and after the preceding range) to the raw git's; 0 prints them unjudged")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *repo == "" || *bin == "" {
		return errors.New("-repo and -bin are required")
	}
	if *head == "" {
		*head = defaultHead(*repo)
	}
	fmt.Printf("head: %s\n", *head)
	r, err := pickRange(*repo, *head, *files)
	if err != nil {
		return err
	}
	rawBytes, err := rawGit(*repo, r) // also warms the page cache
	if err != nil {
		return err
	}
	with, err := startServer(*bin, *repo)
	if err != nil {
		return err
	}
	defer with.stop()
	without, err := startServer(*bin, *repo, "PRSCOUT_CANDIDATES_MAX=0")
	if err != nil {
		return err
	}
	defer without.stop()

	// The first request of each server fills its caches (code tree
	// indexes, blobs, identifiers): it is timed in the cold series below,
	// not here.
	a, answerBytes, _, err := with.post(r)
	if err != nil {
		return err
	}
	if _, _, _, err := without.post(r); err != nil {
		return err
	}
	var tRaw, tWith, tWithout []time.Duration
	// CPU: the servers' own and their git children's (from /proc), the
	// raw git's from this process's git children.
	var cRawCPU, cWithCPU, cWithoutCPU time.Duration
	withCPU0, withoutCPU0, rawCPU0 := with.cpu(), without.cpu(), cpuTime()
	for i := range *n {
		steps := []func() error{
			func() error {
				d, err := timed(func() error { _, err := rawGit(*repo, r); return err })
				tRaw = append(tRaw, d)
				return err
			},
			func() error {
				_, _, d, err := with.post(r)
				tWith = append(tWith, d)
				return err
			},
			func() error {
				_, _, d, err := without.post(r)
				tWithout = append(tWithout, d)
				return err
			},
		}
		// Rotate the order so no side always runs right after another.
		for k := range steps {
			if err := steps[(k+i)%len(steps)](); err != nil {
				return err
			}
		}
	}

	_, rawChildren := cpuTime().sub(rawCPU0)
	cRawCPU, cWithCPU, cWithoutCPU = rawChildren/time.Duration(*n), (with.cpu()-withCPU0)/time.Duration(*n), (without.cpu()-withoutCPU0)/time.Duration(*n)

	// Cold: a fresh server's first request, right after the raw git.
	var cRaw, cWith []time.Duration
	for range *cold {
		d, err := timed(func() error { _, err := rawGit(*repo, r); return err })
		if err != nil {
			return err
		}
		cRaw = append(cRaw, d)
		s, err := startServer(*bin, *repo)
		if err != nil {
			return err
		}
		_, _, d, err = s.post(r)
		s.stop()
		if err != nil {
			return err
		}
		cWith = append(cWith, d)
	}

	// Warmed: a long-running server meets a new change. Each fresh server
	// first serves the range that ends where this one begins (the files it
	// changes mostly differ from this range's), so what it kept is the
	// repository's unchanged files, not this range's readings; then this
	// range is timed against the raw git run just before it.
	var wRaw, wWith, idle []time.Duration
	if *warmed > 0 {
		prev, err := pickRange(*repo, r.Base, *files)
		if err != nil {
			return fmt.Errorf("the range before %s: %w", r.Base[:12], err)
		}
		for range *warmed {
			s, err := startServer(*bin, *repo)
			if err != nil {
				return err
			}
			if _, _, _, err := s.post(prev); err != nil {
				s.stop()
				return err
			}
			// Between two pull requests a server is idle: let it finish
			// what it does after a request.
			idle = append(idle, s.waitIdle(time.Minute))
			d, err := timed(func() error { _, err := rawGit(*repo, r); return err })
			if err != nil {
				s.stop()
				return err
			}
			wRaw = append(wRaw, d)
			_, _, d, err = s.post(r)
			s.stop()
			if err != nil {
				return err
			}
			wWith = append(wWith, d)
		}
		fmt.Printf("warmed on: %s..%s, %d first-parent commits, %d changed files; idle after it in %s (median)\n",
			prev.Base[:12], prev.Head[:12], prev.Commits, prev.Files, ms(median(idle)))
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("range: %s..%s, %d first-parent commits, %d changed files (%d new sources), raw git %.2f MB\n",
		r.Base[:12], r.Head[:12], r.Commits, r.Files, len(r.Blobs), float64(rawBytes)/1e6)
	fmt.Printf("answer: %d files shown, %d excluded, %d candidates (candidatesMs %d), %.2f MB; load average %s\n",
		len(a.Files), len(a.Excluded), len(a.Candidates), a.Stats.CandidatesMs, float64(answerBytes)/1e6, strings.TrimSpace(string(load)))
	for _, w := range a.Warnings {
		fmt.Printf("warning: %s\n", w)
	}
	mRaw, mWith, mWithout := median(tRaw), median(tWith), median(tWithout)
	mcRaw, mcWith := median(cRaw), median(cWith)
	ratio := func(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
	fmt.Printf("%-36s %12s %12s %8s\n", fmt.Sprintf("median of %d rounds", *n), "context", "raw git", "ratio")
	fmt.Printf("%-36s %12s %12s %8.2f\n", "with candidates", ms(mWith), ms(mRaw), ratio(mWith, mRaw))
	fmt.Printf("%-36s %12s %12s %8.2f\n", "without candidates", ms(mWithout), ms(mRaw), ratio(mWithout, mRaw))
	fmt.Printf("%-36s %12s %12s %8.2f\n", fmt.Sprintf("first request, fresh server (%d)", *cold), ms(mcWith), ms(mcRaw), ratio(mcWith, mcRaw))
	mwRaw, mwWith := median(wRaw), median(wWith)
	if *warmed > 0 {
		fmt.Printf("%-36s %12s %12s %8.2f\n", fmt.Sprintf("after the preceding range (%d)", *warmed), ms(mwWith), ms(mwRaw), ratio(mwWith, mwRaw))
	}
	fmt.Printf("%-36s %12s %12s %8.2f\n", "cpu per request, with candidates", ms(cWithCPU), ms(cRawCPU), ratio(cWithCPU, cRawCPU))
	fmt.Printf("%-36s %12s %12s %8.2f\n", "cpu per request, without", ms(cWithoutCPU), ms(cRawCPU), ratio(cWithoutCPU, cRawCPU))
	var errs []string
	if q := ratio(mWith, mRaw); q > *maxRatio {
		errs = append(errs, fmt.Sprintf("with candidates %.2f", q))
	}
	if len(errs) > 0 {
		return fmt.Errorf("ratio over %.2f: %s", *maxRatio, strings.Join(errs, ", "))
	}
	if *maxFirst > 0 {
		if q := ratio(mcWith, mcRaw); *cold > 0 && q > *maxFirst {
			errs = append(errs, fmt.Sprintf("first request %.2f", q))
		}
		if q := ratio(mwWith, mwRaw); *warmed > 0 && q > *maxFirst {
			errs = append(errs, fmt.Sprintf("after the preceding range %.2f", q))
		}
		if len(errs) > 0 {
			return fmt.Errorf("first-request ratio over %.2f: %s", *maxFirst, strings.Join(errs, ", "))
		}
	}
	fmt.Printf("ok: the ratio with candidates over the rounds is within %.2f\n", *maxRatio)
	return nil
}

func profile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	repo := fs.String("repo", "", "git repository (read-only)")
	files := fs.Int("files", 200, "changed files the range has at least")
	n := fs.Int("n", 5, "runs")
	head := fs.String("head", "HEAD", "head of the range")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile here")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the runs after the first here")
	fresh := fs.Bool("fresh", false, "a new provider per run (no caches kept between runs)")
	warm := fs.Bool("warm", false, "start the CPU profile after the first run (the caches filled)")
	noCandidates := fs.Bool("nocandidates", false, "list no candidates")
	dump := fs.String("dump", "", "write the last answer's candidates, files and warnings here (JSON), to compare two builds; with -windows, every range's answer to this path suffixed .1, .2, ...")
	warmFirst := fs.Bool("after-preceding", false, "serve the preceding range once first, unprofiled (with -n 1: a long-running server meeting a new change)")
	span := fs.Int("span", 0, "with -windows: spread them over the newest span first-parent commits only")
	windows := fs.Int("windows", 0, "run the stream's ranges instead (this many windows of 25 commits spread over the history, as stream picks them), each once: -n is their number unless given")
	readAhead := fs.Bool("read-ahead", false, "read ahead as prscout serve does when it starts (localgit's Warm) before the runs")
	start := fs.Int("start", 0, "with -windows: begin at this window (0 the newest), as the stream's passes do")
	if err := fs.Parse(args); err != nil {
		return err
	}
	nSet := false
	fs.Visit(func(f *flag.Flag) { nSet = nSet || f.Name == "n" })
	if *repo == "" {
		return errors.New("-repo is required")
	}
	var rs []changeRange
	var err error
	if *windows > 0 {
		rs, err = pickWindows(*repo, *head, *windows, 25, 10, *span)
		if len(rs) > 0 {
			k := *start % len(rs)
			rs = append(rs[k:], rs[:k]...)
		}
		if !nSet || *n > len(rs) {
			*n = len(rs)
		}
	} else {
		var r changeRange
		r, err = pickRange(*repo, *head, *files)
		rs = []changeRange{r}
	}
	if err != nil || len(rs) == 0 {
		return fmt.Errorf("no range: %v", err)
	}
	r := rs[0]
	lim := pipeline.DefaultLimits()
	if *noCandidates {
		lim.CandidatesMax = 0
	}
	// The collector as prscout serve sets it (internal/gcpolicy).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	p := localgit.New(*repo)
	if *readAhead {
		if err := p.Warm(context.Background()); err != nil {
			return err
		}
	}
	// The readings a server keeps across requests (prscout serve's default size).
	readings := candidates.NewCache(128 << 20)
	if *fresh {
		readings = nil
	}
	if *warmFirst {
		prev, err := pickRange(*repo, r.Base, *files)
		if err != nil {
			return err
		}
		in := collect.ContextInput{Workspace: "bench", RepoSlug: "range", Base: prev.Base, Head: prev.Head, Title: "bench"}
		if _, err := collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p, Search: p, Readings: readings}, in, lim); err != nil {
			return err
		}
	}
	var profFile *os.File
	startCPU := func() error {
		if *cpuProfile == "" {
			return nil
		}
		var err error
		if profFile, err = os.Create(*cpuProfile); err != nil {
			return err
		}
		return pprof.StartCPUProfile(profFile)
	}
	defer func() {
		if profFile != nil {
			pprof.StopCPUProfile()
			profFile.Close()
		}
	}()
	if !*warm {
		if err := startCPU(); err != nil {
			return err
		}
	}
	for i := range *n {
		if i == 1 && *memProfile != "" {
			runtime.MemProfileRate = 4096
		}
		if i == 1 && *warm {
			if err := startCPU(); err != nil {
				return err
			}
		}
		if *fresh {
			p = localgit.New(*repo)
		}
		r := rs[i%len(rs)]
		in := collect.ContextInput{Workspace: "bench", RepoSlug: "range", Base: r.Base, Head: r.Head, Title: "bench"}
		var res collect.ContextResult
		cpu0 := cpuTime()
		d, err := timed(func() error {
			var err error
			res, err = collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: p, Search: p, Readings: readings}, in, lim)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(io.Discard)
			if err := res.WriteJSON(w); err != nil {
				return err
			}
			return w.Flush()
		})
		if err != nil {
			return err
		}
		self, children := cpuTime().sub(cpu0)
		fmt.Printf("run %d: %s, cpu prscout %s + git %s, %d files, %d candidates (candidatesMs %d)\n", i+1, ms(d), ms(self), ms(children),
			len(res.Files), len(res.Candidates), res.Stats.CandidatesMs)
		if *dump != "" && (i == *n-1 || *windows > 0) {
			out := *dump
			if *windows > 0 {
				out = fmt.Sprintf("%s.%d", *dump, (i+*start)%len(rs)+1)
			}
			data, err := json.MarshalIndent(struct {
				Candidates any
				Groups     any
				Files      any
				Warnings   any
			}{res.Candidates, res.Groups, res.Files, res.Warnings}, "", " ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return err
			}
		}
	}
	if *memProfile != "" {
		runtime.GC()
		f, err := os.Create(*memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	return nil
}

// cpu is the CPU time (user and system) of this process and of its
// children (git), finished or running.
type cpu struct{ self, children time.Duration }

func cpuTime() cpu {
	var a, b syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &a)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &b)
	t := func(r syscall.Rusage) time.Duration { return time.Duration(r.Utime.Nano() + r.Stime.Nano()) }
	// Git processes kept for the next requests are counted as they run.
	return cpu{t(a), t(b) + liveChildrenCPU(os.Getpid())}
}

func (c cpu) sub(o cpu) (self, children time.Duration) {
	return c.self - o.self, c.children - o.children
}
