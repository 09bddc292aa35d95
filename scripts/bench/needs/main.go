//go:build unix

// Command needs is scripts/bench-needs.sh: it times one /v1/needs call at
// the API's cap (1,000 needs) and at a realistic size (12 needs), from the
// request body's bytes to the answer's bytes (decode, pipeline.Needs,
// encode), and exits 1 when either costs more than its bound.
//
//	go run ./scripts/bench/needs
//	go run ./scripts/bench/needs -max-cap 5ms -max-small 200us
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/lookup"
)

// The API's caps on one /v1/needs request (PRSCOUT_MAX_NEEDS and
// PRSCOUT_MAX_SCOUT_BYTES at their defaults): the input at the cap must fit
// within them, or the figure would time an input the API refuses.
const (
	apiMaxNeeds      = 1000
	apiMaxScoutBytes = 1 << 20
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
	maxCap := flag.Duration("max-cap", 5*time.Millisecond, "bound on one call with 1,000 needs (50 files × 20)")
	maxSmall := flag.Duration("max-small", 200*time.Microsecond, "bound on one call with 12 needs (4 files × 3)")
	flag.Parse()

	fmt.Println("needs benchmark: one /v1/needs call, request body bytes to answer bytes (decode, pipeline.Needs, encode)")
	fmt.Println("CPU time per call (process CPU, GC included) is bounded; wall time is shown, it swings with the machine's load")
	ok := true
	for _, c := range []struct {
		name         string
		files, needs int
		bound        time.Duration
	}{
		{"cap", 50, 20, *maxCap},
		{"small", 4, 3, *maxSmall},
	} {
		body, scoutBytes := request(c.files, c.needs)
		var res lookup.NeedsResult
		call := func() error {
			var in lookup.NeedsInput
			if err := json.Unmarshal(body, &in); err != nil {
				return err
			}
			var err error
			if res, err = lookup.Needs(in, pipeline.DefaultLimits()); err != nil {
				return err
			}
			_, err = json.Marshal(res)
			return err
		}
		if err := call(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if n := res.Stats.Proposed; n > apiMaxNeeds || scoutBytes > apiMaxScoutBytes {
			fmt.Fprintf(os.Stderr, "%s: %d needs in %d scout bytes is over the API's caps (%d needs, %d bytes)\n", c.name, n, scoutBytes, apiMaxNeeds, apiMaxScoutBytes)
			return 1
		}
		t := timeIt(call)
		verdict := "PASS"
		if t.cpu > c.bound {
			verdict, ok = "FAIL", false
		}
		fmt.Printf("%-5s %4d needs (%d files × %d), %7d body bytes: CPU %8.3f ms  wall %8.3f ms  (%d runs; %d accepted, %d rejected)  bound %.3f ms: %s\n",
			c.name, res.Stats.Proposed, c.files, c.needs, len(body), ms(t.cpu), ms(t.wall), t.runs, res.Stats.Accepted, res.Stats.Rejected, ms(c.bound), verdict)
	}
	if !ok {
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// request returns the body of a /v1/needs request whose scout answer (parsed
// JSON) asks files × needs needs, and the scout answer's size.
func request(files, needs int) ([]byte, int) {
	scout := generate(files, needs)
	scoutJSON, err := json.Marshal(map[string]any{"files": scout})
	if err != nil {
		panic(err)
	}
	changed := make([]pipeline.ChangedFile, len(scout))
	for i, f := range scout {
		changed[i] = pipeline.ChangedFile{Path: f.Path, Status: "modified"}
	}
	body, err := json.Marshal(lookup.NeedsInput{Workspace: "acme", RepoSlug: "shop", Ref: "9f2c1e0", Files: changed, Scout: scoutJSON})
	if err != nil {
		panic(err)
	}
	return body, len(scoutJSON)
}

type timing struct {
	cpu, wall time.Duration // per call
	runs      int
}

// timeIt runs fn (after 10 warm-up calls) until 1s of process CPU time and
// 20 calls have passed.
func timeIt(fn func() error) timing {
	for range 10 {
		_ = fn()
	}
	cpu0, wall0 := cpuNow(), time.Now()
	runs := 0
	for runs < 20 || cpuNow()-cpu0 < time.Second {
		_ = fn()
		runs++
	}
	return timing{cpu: (cpuNow() - cpu0) / time.Duration(runs), wall: time.Since(wall0) / time.Duration(runs), runs: runs}
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
