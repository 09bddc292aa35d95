package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// first measures what a fresh server's first request pays that a later
// one does not, for one or more builds asked alternately (see
// firstUsage): in each round and for each build, two fresh servers are
// asked the same two neighbouring ranges of the stream's windows in
// opposite orders, so that each range is asked once first and once after
// the other one. It prints, per build, the medians of the first requests'
// ratio to the raw git and CPU, of the same ranges' second requests, and
// their quotient (what being first costs).
func first(args []string) error {
	fs := flag.NewFlagSet("first", flag.ContinueOnError)
	repo := fs.String("repo", "", "git repository (read-only: never checked out)")
	bins := fs.String("bin", "", "prscout binaries, comma-separated (asked alternately)")
	head := fs.String("head", "", "newest commit of the history the windows are taken from (origin/main or origin/master by default)")
	k := fs.Int("ranges", 8, "windows the pairs are taken from (as stream picks them)")
	pairs := fs.Int("pairs", 3, "neighbouring windows asked, from the newest (pair i: windows i and i+1)")
	rounds := fs.Int("rounds", 2, "rounds over the pairs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *repo == "" || *bins == "" {
		return errors.New("-repo and -bin are required")
	}
	if *head == "" {
		*head = defaultHead(*repo)
	}
	rs, err := pickWindows(*repo, *head, *k, 25, 10, 0)
	if err != nil {
		return err
	}
	if len(rs) < *pairs+1 {
		return fmt.Errorf("%d windows, fewer than %d", len(rs), *pairs+1)
	}
	for _, r := range rs[:*pairs+1] { // warms the page cache for both sides
		if _, err := rawGit(*repo, r); err != nil {
			return err
		}
	}
	builds := strings.Split(*bins, ",")
	firsts := make([][]pair, len(builds))
	seconds := make([][]pair, len(builds))
	turn := 0
	for round := range *rounds {
		for i := range *pairs {
			for b := range builds {
				b = (b + round + i) % len(builds)
				for _, order := range [][2]int{{i, i + 1}, {i + 1, i}} {
					ps, err := askFresh(builds[b], *repo, rs[order[0]], rs[order[1]], turn)
					if err != nil {
						return err
					}
					turn++
					firsts[b] = append(firsts[b], ps[0])
					seconds[b] = append(seconds[b], ps[1])
					fmt.Printf("%s round %d, %s first: %s vs %s (%.2f×), cpu %s; after %s: %s vs %s (%.2f×), cpu %s\n",
						builds[b], round+1, rs[order[0]].Head[:12], ms(ps[0].context), ms(ps[0].raw), ps[0].ratio(), ms(ps[0].contextCPU),
						rs[order[1]].Head[:12], ms(ps[1].context), ms(ps[1].raw), ps[1].ratio(), ms(ps[1].contextCPU))
				}
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("load average %s\n", strings.TrimSpace(string(load)))
	for b, bin := range builds {
		// Each range's first request is paired with the same range asked
		// second on the other server of its round.
		var quot, quotCPU []float64
		for j := 0; j+1 < len(firsts[b]); j += 2 {
			for _, q := range [][2]int{{j, j + 1}, {j + 1, j}} {
				f, s := firsts[b][q[0]], seconds[b][q[1]]
				quot = append(quot, f.context.Seconds()/s.context.Seconds())
				quotCPU = append(quotCPU, f.contextCPU.Seconds()/s.contextCPU.Seconds())
			}
		}
		fp, sp := medianPair(firsts[b]), medianPair(seconds[b])
		fmt.Printf("%s: first %.2f× (%s vs %s, cpu %s vs %s, %.2f×); the same ranges second %.2f× (%s, cpu %s); first/second: wall %.2f, cpu %.2f\n",
			bin, medianRatio(firsts[b]), ms(fp.context), ms(fp.raw), ms(fp.contextCPU), ms(fp.rawCPU), fp.cpuRatio(),
			medianRatio(seconds[b]), ms(sp.context), ms(sp.contextCPU), medianOf(quot), medianOf(quotCPU))
	}
	return nil
}

// askFresh starts a fresh server of bin, asks it a then b (each paired
// with its raw git) and stops it.
func askFresh(bin, repo string, a, b changeRange, turn int) ([]pair, error) {
	s, err := startServer(bin, repo)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	var ps []pair
	for j, r := range []changeRange{a, b} {
		p, _, err := askPair(s, repo, r, turn+j)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}
