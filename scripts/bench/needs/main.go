//go:build unix

// Command needs is the Go half of scripts/bench-needs.sh: it generates a scout
// answer of -files changed files × -needs needs each (deterministic, with the
// hostile and noisy paths a model produces), writes it for the node half, and
// times pipeline.Needs on it (process CPU time and wall time per call).
//
//	go run ./scripts/bench/needs -out needs-input.json
//	go run ./scripts/bench/needs -check reference-requests.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/lookup"
	"github.com/prscout/prscout/pipeline/scope"
)

type needJSON struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

type fileJSON struct {
	Path  string     `json:"path"`
	Needs []needJSON `json:"needs"`
}

func main() {
	os.Exit(run())
}

func run() int {
	files := flag.Int("files", 2000, "changed files in the scout answer")
	needs := flag.Int("needs", 20, "needs per changed file")
	out := flag.String("out", "", "write the generated input (NeedsInput JSON) here")
	check := flag.String("check", "", "read the reference workflow JavaScript's requests (JSON array of {op, path}) and count those prscout refuses")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed parsed-JSON calls here")
	flag.Parse()

	if *check != "" {
		return checkReference(*check)
	}

	scout := generate(*files, *needs)
	scoutJSON, err := json.Marshal(map[string]any{"files": scout})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	changed := make([]pipeline.ChangedFile, len(scout))
	for i, f := range scout {
		changed[i] = pipeline.ChangedFile{Path: f.Path, Status: "modified"}
	}
	in := lookup.NeedsInput{Workspace: "acme", RepoSlug: "shop", Ref: "9f2c1e0", Files: changed, Scout: scoutJSON}
	if *out != "" {
		b, err := json.Marshal(in)
		if err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// The same answer as raw LLM text (a ```json block in prose), as n8n
	// forwards it when no parser node sits in between.
	text, _ := json.Marshal("Here is what I need:\n```json\n" + string(scoutJSON) + "\n```\n")
	inText := in
	inText.Scout = text

	lim := pipeline.DefaultLimits()
	res, err := lookup.Needs(in, lim)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	rj := timeIt(func() { _, _ = lookup.Needs(in, lim) })
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	rt := timeIt(func() { _, _ = lookup.Needs(inText, lim) })
	fmt.Printf("go_version=%s go_input_bytes=%d\n", runtime.Version(), len(scoutJSON))
	fmt.Printf("go_proposed=%d go_accepted=%d go_rejected=%d\n", res.Stats.Proposed, res.Stats.Accepted, res.Stats.Rejected)
	fmt.Printf("go_reasons=%v\n", res.Stats.Reasons)
	fmt.Printf("go_json_cpu_ns_per_op=%d go_json_wall_ns_per_op=%d go_json_runs=%d\n", rj.cpu, rj.wall, rj.runs)
	fmt.Printf("go_text_cpu_ns_per_op=%d go_text_wall_ns_per_op=%d go_text_runs=%d\n", rt.cpu, rt.wall, rt.runs)
	return 0
}

type timing struct {
	cpu, wall int64 // per call, ns
	runs      int
}

// timeIt runs fn (after 3 warm-up calls) until 2s of process CPU time and 5
// calls have passed. CPU time (user+system, all threads, so GC counts) is the
// figure to compare: the machine is shared and wall time swings with its load.
func timeIt(fn func()) timing {
	for range 3 {
		fn()
	}
	cpu0, wall0 := cpuNow(), time.Now()
	runs := 0
	for runs < 5 || cpuNow()-cpu0 < 2*time.Second {
		fn()
		runs++
	}
	return timing{cpu: int64(cpuNow()-cpu0) / int64(runs), wall: int64(time.Since(wall0)) / int64(runs), runs: runs}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// generate builds the scout answer: mostly plausible repository paths that
// overlap (duplicates), plus list_dir, noise, changed files, parent escapes,
// secrets, URLs and query/fragment suffixes.
func generate(files, needs int) []fileJSON {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]fileJSON, files)
	for i := range out {
		f := fileJSON{Path: fmt.Sprintf("src/c%04d.go", i)}
		for range needs {
			n := needJSON{Op: "get_file", Reason: "caller of the changed function"}
			k := r.IntN(500)
			switch c := r.IntN(100); {
			case c < 60:
				n.Path = fmt.Sprintf("pkg/m%03d/f%02d.go", k, r.IntN(40))
			case c < 65:
				n.Op, n.Path = "list_dir", fmt.Sprintf("pkg/m%03d/", k)
			case c < 73:
				n.Path = []string{"node_modules/x/i.js", "dist/app.js", "yarn.lock", "img/logo.png"}[k%4]
			case c < 78:
				n.Path = fmt.Sprintf("src/c%04d.go", r.IntN(files))
			case c < 83:
				n.Path = []string{"../../etc/passwd", "%2e%2e/x", "src/../../x", "..\\..\\win.ini"}[k%4]
			case c < 88:
				n.Path = []string{".env", "config/.env.production", "keys/server.pem", ".ssh/id_rsa"}[k%4]
			case c < 93:
				n.Path = fmt.Sprintf("./pkg/m%03d/f.go?raw=1#L10", k)
			default:
				n.Path = fmt.Sprintf("/pkg//m%03d/./g.go", k)
			}
			f.Needs = append(f.Needs, n)
		}
		out[i] = f
	}
	return out
}

// checkReference counts the requests of the reference workflow's JavaScript
// (seed.js) that prscout would refuse.
func checkReference(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var reqs []pipeline.Need
	if err := json.Unmarshal(b, &reqs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	refused := map[string]int{}
	for _, r := range reqs {
		if _, reason, err := scope.CheckNeed(r.Op, r.Path, pipeline.DefaultLimits()); err != nil {
			refused[reason]++
		} else if scope.IsDefaultPath(r.Path) {
			refused[scope.ReasonNoise]++
		}
	}
	n := 0
	for _, c := range refused {
		n += c
	}
	fmt.Printf("ref_requests=%d ref_requests_prscout_refuses=%d %v\n", len(reqs), n, refused)
	return 0
}
