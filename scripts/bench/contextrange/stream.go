package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// pickWindows picks k disjoint first-parent windows of commits commits
// each along head's history (its newest span commits when span > 0),
// spread evenly from the oldest to the newest (a server meets changes of
// every age of a repository, not only the newest). A window changing fewer than minFiles files, or no file with a
// new source, is slid towards the older end within its share of the
// history; a share with no such window is left out. They come newest
// first.
func pickWindows(repo, head string, k, commits, minFiles, span int) ([]changeRange, error) {
	out, err := git(repo, "rev-list", "--first-parent", head)
	if err != nil {
		return nil, err
	}
	chain := strings.Fields(out) // chain[0] is head
	if span > 0 && span+1 < len(chain) {
		chain = chain[:span+1]
	}
	if k < 1 || commits < 1 || len(chain) < k*commits+1 {
		return nil, fmt.Errorf("%s has %d first-parent commits, fewer than %d windows of %d", head, len(chain), k, commits)
	}
	share := (len(chain) - 1) / k
	var rs []changeRange
	for i := range k {
		for at := i * share; at+commits <= (i+1)*share && at+commits < len(chain); at += commits {
			r, err := rangeOf(repo, chain[at+commits], chain[at], commits)
			if err != nil {
				return nil, err
			}
			if r.Files >= minFiles && len(r.Blobs) > 0 {
				rs = append(rs, r)
				break
			}
		}
	}
	return rs, nil
}

// pair is one range's request and the raw git just before or after it:
// their wall times and CPU (the server's until it went idle after the
// request, git's).
type pair struct{ context, raw, contextCPU, rawCPU time.Duration }

func (p pair) ratio() float64 { return p.context.Seconds() / p.raw.Seconds() }

// askPair times r's raw git and one request of r on s, in the order the
// turn says, after s has finished what it does between requests.
func askPair(s *server, repo string, r changeRange, turn int) (pair, answer, error) {
	s.waitIdle(30 * time.Second)
	var p pair
	var a answer
	serverCPU := s.cpu()
	steps := []func() error{
		func() (err error) {
			cpu0 := cpuTime()
			p.raw, err = timed(func() error { _, err := rawGit(repo, r); return err })
			_, p.rawCPU = cpuTime().sub(cpu0)
			return err
		},
		func() (err error) {
			a, _, p.context, err = s.post(r)
			return err
		},
	}
	for k := range steps {
		if err := steps[(k+turn)%2](); err != nil {
			return p, a, err
		}
	}
	s.waitIdle(30 * time.Second)
	p.contextCPU = s.cpu() - serverCPU
	return p, a, nil
}

func medianRatio(ps []pair) float64 {
	qs := make([]float64, len(ps))
	for i, p := range ps {
		qs[i] = p.ratio()
	}
	return medianOf(qs)
}

func medianOf(qs []float64) float64 {
	qs = slices.Clone(qs)
	slices.Sort(qs)
	if len(qs) == 0 {
		return 0
	}
	if len(qs)%2 == 1 {
		return qs[len(qs)/2]
	}
	return (qs[len(qs)/2-1] + qs[len(qs)/2]) / 2
}

func medianPair(ps []pair) pair {
	var c, r, cc, rc []time.Duration
	for _, p := range ps {
		c, r, cc, rc = append(c, p.context), append(r, p.raw), append(cc, p.contextCPU), append(rc, p.rawCPU)
	}
	return pair{median(c), median(r), median(cc), median(rc)}
}

// cpuRatio is the pair's CPU ratio, less sensitive than wall time to a
// busy machine.
func (p pair) cpuRatio() float64 { return p.contextCPU.Seconds() / p.rawCPU.Seconds() }

// stream asks a stream of distinct ranges once each on one server, as a
// server meets pull requests: see streamUsage.
func stream(args []string) error {
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	repo := fs.String("repo", "", "git repository (read-only: never checked out)")
	bin := fs.String("bin", "", "prscout binary")
	head := fs.String("head", "", "newest commit of the history the windows are taken from (origin/main or origin/master by default)")
	k := fs.Int("ranges", 8, "distinct ranges")
	commits := fs.Int("commits", 25, "first-parent commits per range")
	minFiles := fs.Int("min-files", 10, "changed files a range has at least")
	span := fs.Int("span", 0, "spread the ranges over the newest span first-parent commits only (0: the whole history)")
	passes := fs.Int("passes", 3, "fresh servers, each asked every range once (each starting at another range)")
	maxMedian := fs.Float64("max-median", 1.3, "largest accepted median over the ranges of their ratio")
	maxWorst := fs.Float64("max-worst", 2, "largest accepted ratio of any range")
	maxFirst := fs.Float64("max-first", 2.5, "largest accepted ratio of a fresh server's first request (median over the passes)")
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
	rs, err := pickWindows(*repo, *head, *k, *commits, *minFiles, *span)
	if err != nil {
		return err
	}
	if len(rs) < *k {
		return fmt.Errorf("only %d of %d windows change %d files or more", len(rs), *k, *minFiles)
	}
	for _, r := range rs { // warms the page cache for both sides
		if _, err := rawGit(*repo, r); err != nil {
			return err
		}
	}
	distinct := make([][]pair, len(rs))
	repeat := make([][]pair, len(rs))
	answers := make([]answer, len(rs))
	var first []pair
	for pass := range *passes {
		s, err := startServer(*bin, *repo)
		if err != nil {
			return err
		}
		err = func() error {
			defer s.stop()
			for j := range rs {
				i := (pass + j) % len(rs)
				p, a, err := askPair(s, *repo, rs[i], pass+j)
				if err != nil {
					return err
				}
				answers[i] = a
				if j == 0 {
					first = append(first, p)
					fmt.Printf("pass %d: first request %s..%s: context %s, raw git %s, %.2f×; cpu %s vs %s, %.2f×\n", pass+1,
						rs[i].Base[:12], rs[i].Head[:12], ms(p.context), ms(p.raw), p.ratio(), ms(p.contextCPU), ms(p.rawCPU), p.cpuRatio())
				} else {
					distinct[i] = append(distinct[i], p)
				}
			}
			// The same ranges again: what the figures were when one range
			// was repeated, printed for comparison and not judged.
			for i, r := range rs {
				p, _, err := askPair(s, *repo, r, pass+i+1)
				if err != nil {
					return err
				}
				repeat[i] = append(repeat[i], p)
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return streamReport(rs, answers, distinct, repeat, first, *maxMedian, *maxWorst, *maxFirst)
}

func streamReport(rs []changeRange, answers []answer, distinct, repeat [][]pair, first []pair, maxMedian, maxWorst, maxFirst float64) error {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d ranges, each asked once per fresh server (%d passes: median per range); load average %s\n",
		len(rs), len(first), strings.TrimSpace(string(load)))
	fmt.Printf("%-27s %7s %6s %6s %10s %10s %7s %7s %10s %7s\n", "range", "commits", "files", "cands", "context", "raw git", "ratio", "cpu", "repeat", "ratio")
	var perRange, perRepeat []float64
	var cpu []pair
	for i, r := range rs {
		rep, qRep := medianPair(repeat[i]), medianRatio(repeat[i])
		perRepeat = append(perRepeat, qRep)
		name := r.Base[:12] + ".." + r.Head[:12]
		if len(distinct[i]) == 0 {
			// With one pass, a range asked first is only a first request:
			// it has no distinct figure, and none enters the median.
			fmt.Printf("%-27s %7d %6d %6d %10s %10s %7s %7s %10s %7.2f\n", name, r.Commits, r.Files, len(answers[i].Candidates),
				"first", "", "", "", ms(rep.context), qRep)
			continue
		}
		d, q := medianPair(distinct[i]), medianRatio(distinct[i])
		perRange = append(perRange, q)
		fmt.Printf("%-27s %7d %6d %6d %10s %10s %7.2f %7.2f %10s %7.2f\n", name, r.Commits, r.Files, len(answers[i].Candidates),
			ms(d.context), ms(d.raw), q, d.cpuRatio(), ms(rep.context), qRep)
		cpu = append(cpu, d)
	}
	if len(perRange) == 0 {
		return fmt.Errorf("no range was asked after a first request: ask more ranges or passes")
	}
	med, worst, firstQ := medianOf(perRange), slices.Max(perRange), medianRatio(first)
	fp, mc := medianPair(first), medianPair(cpu)
	fmt.Printf("cpu per distinct request (median): context %s (until the server went idle), raw git %s, %.2f×; first request %.2f×\n",
		ms(mc.contextCPU), ms(mc.rawCPU), mc.cpuRatio(), fp.cpuRatio())
	fmt.Printf("distinct ranges: median %.2f×, worst %.2f×; fresh server's first request %s vs %s, %.2f×; the same ranges repeated (not judged): median %.2f×, worst %.2f×\n",
		med, worst, ms(fp.context), ms(fp.raw), firstQ, medianOf(perRepeat), slices.Max(perRepeat))
	var over []string
	if med > maxMedian {
		over = append(over, fmt.Sprintf("median %.2f over %.2f", med, maxMedian))
	}
	if worst > maxWorst {
		over = append(over, fmt.Sprintf("worst %.2f over %.2f", worst, maxWorst))
	}
	if firstQ > maxFirst {
		over = append(over, fmt.Sprintf("first request %.2f over %.2f", firstQ, maxFirst))
	}
	if len(over) > 0 {
		return errors.New(strings.Join(over, "; "))
	}
	fmt.Printf("ok: median within %.2f, worst within %.2f, first request within %.2f\n", maxMedian, maxWorst, maxFirst)
	return nil
}
