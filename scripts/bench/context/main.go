// Command context benchmarks /v1/context's stage (collect.Collect
// through the local git provider) on a large change.
//
//	context gen -dir D [-files 2000]   create a git repository in D whose branch
//	                                   "feature" changes -files files against "main"
//	context run -dir D [-n 3]          collect the context -n times and print the
//	                                   wall time and the process's peak RSS (VmHWM)
//
// gen and run are separate processes so the peak RSS is the stage's own.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/collect"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: context gen|run -dir D")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "context:", err)
		os.Exit(1)
	}
}

// fileLines returns the line count of generated file i: most are short and
// shown whole; every tenth is long and shown as windows.
func fileLines(i int) int {
	if i%10 == 0 {
		return 1500
	}
	return 260
}

// content writes file i's lines; head versions change every 6th line of
// short files and three spots of long ones.
func content(i int, head bool) []byte {
	var b strings.Builder
	n := fileLines(i)
	for l := 1; l <= n; l++ {
		changed := head && ((n < 900 && l%6 == 0) || (n >= 900 && (l == 40 || l == 700 || l == n-5)))
		if changed {
			fmt.Fprintf(&b, "\tvalue%d := compute(%d, %d) // changed in feature\n", l, i, l)
		} else {
			fmt.Fprintf(&b, "\tvalue%d := compute(%d, %d)\n", l, i, l)
		}
	}
	return []byte(b.String())
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	dir := fs.String("dir", "", "repository directory to create")
	files := fs.Int("files", 2000, "changed files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("-dir is required")
	}
	if out, err := exec.Command("git", "init", "-q", "-b", "main", *dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "-C", *dir, "fast-import", "--quiet")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	mark := 0
	blob := func(data []byte) int {
		mark++
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n", mark, len(data))
		w.Write(data)
		w.WriteString("\n")
		return mark
	}
	path := func(i int) string { return fmt.Sprintf("src/mod%02d/file%04d.go", i%50, i) }
	commit := func(ref, msg string, from int, marks []int) int {
		mark++
		fmt.Fprintf(w, "commit %s\nmark :%d\ncommitter bench <bench@example.com> 1767225600 +0000\ndata %d\n%s\n", ref, mark, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(w, "from :%d\n", from)
		}
		for i, m := range marks {
			fmt.Fprintf(w, "M 100644 :%d %s\n", m, path(i))
		}
		return mark
	}
	baseMarks := make([]int, *files)
	for i := range baseMarks {
		baseMarks[i] = blob(content(i, false))
	}
	base := commit("refs/heads/main", "base", 0, baseMarks)
	headMarks := make([]int, *files)
	for i := range headMarks {
		headMarks[i] = blob(content(i, true))
	}
	commit("refs/heads/feature", "feature", base, headMarks)
	if err := w.Flush(); err != nil {
		return err
	}
	stdin.Close()
	return cmd.Wait()
}

// peakRSS reads the process's peak resident set size (VmHWM) in KiB.
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "n/a"
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	dir := fs.String("dir", "", "repository made by gen")
	n := fs.Int("n", 3, "runs")
	encode := fs.String("json", "stream", "also encode the answer: stream (ContextResult.WriteJSON), marshal (json.Marshal, as gin's c.JSON) or none")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile here")
	readAhead := fs.Bool("readahead", true, "let collectRange read sources while the diff runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	p := localgit.New(*dir)
	in := collect.ContextInput{Base: "main", Head: "feature", Title: "bench"}
	var best, worst time.Duration
	var phases []string
	var ru0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	var rc0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &rc0)
	var res collect.ContextResult
	for i := 0; i < *n; i++ {
		runtime.GC()
		start := time.Now()
		var err error
		var diffs pipeline.DiffSource = p
		if !*readAhead {
			diffs = diffOnly{p}
		}
		res, err = collect.Collect(context.Background(), collect.ContextSources{Repo: p, Diffs: diffs}, in, pipeline.DefaultLimits())
		if err != nil {
			return err
		}
		collected := time.Since(start)
		switch *encode {
		case "stream":
			if err := res.WriteJSON(io.Discard); err != nil {
				return err
			}
		case "marshal":
			if _, err := json.Marshal(res); err != nil {
				return err
			}
		case "none":
		default:
			return fmt.Errorf("-json %q: want stream, marshal or none", *encode)
		}
		d := time.Since(start)
		phases = append(phases, fmt.Sprintf("collect %s + json %s", collected.Round(time.Millisecond), (d-collected).Round(time.Millisecond)))
		if i == 0 || d < best {
			best = d
		}
		worst = max(worst, d)
	}
	s := res.Stats
	fmt.Printf("change: %d files shown, %d excluded, diff %.1f MB, prompt %.1f M chars (sources %.1f M, share %.0f%%), %d windowed sources\n",
		s.Files, s.Excluded, float64(s.DiffBytes)/1e6, float64(s.PromptChars)/1e6, float64(s.SourceChars)/1e6, s.SourceShare*100, s.WindowedSources)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("runs: %d (json encode: %s, read-ahead: %v), cores: %d, load average: %s\n", *n, *encode, *readAhead, runtime.NumCPU(), strings.TrimSpace(string(load)))
	fmt.Printf("per run: %s\n", strings.Join(phases, "; "))
	fmt.Printf("%-10s %12s %12s %8s\n", "figure", "measured", "target", "ratio")
	fmt.Printf("%-10s %12s %12s %8.2f\n", "time best", best.Round(time.Millisecond), "2s", best.Seconds()/2)
	fmt.Printf("%-10s %12s %12s %8.2f\n", "time worst", worst.Round(time.Millisecond), "2s", worst.Seconds()/2)
	var ru1, rc1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &rc1)
	cpu := func(a, b syscall.Rusage) time.Duration {
		return time.Duration(b.Utime.Nano()-a.Utime.Nano()+b.Stime.Nano()-a.Stime.Nano()) / time.Duration(*n)
	}
	fmt.Printf("%-10s %12s %12s %8s\n", "cpu/run", cpu(ru0, ru1).Round(time.Millisecond), "", "prscout")
	fmt.Printf("%-10s %12s %12s %8s\n", "cpu/run", cpu(rc0, rc1).Round(time.Millisecond), "", "git")
	rss := peakRSS()
	var kb float64
	fmt.Sscanf(rss, "%f", &kb)
	fmt.Printf("%-10s %12s %12s %8.2f\n", "peak RSS", fmt.Sprintf("%.0f MB", kb/1024), "300 MB", kb/1024/300)
	return nil
}

// diffOnly hides the provider's ChangeLister, turning the read-ahead off.
type diffOnly struct{ pipeline.DiffSource }
