// Command candidates measures the recall of the candidates package on real
// Go repositories against the Go type checker, next to a textual baseline,
// and times it on a large repository.
//
//	candidates recall -repos DIR [-n 20] [-cache DIR] [-v]
//	candidates recall -lang ts -tsdir DIR -repos DIR [-n 20] [-v]
//	candidates recall -lang py|java|c|cpp [-analyzers DIR] -repos DIR [-n 20] [-v]
//	candidates speed  -repo DIR [-lang go|ts|py|java] [-files 20] [-runs 10]
//	candidates cochange -repos DIR -work DIR [-n 25] [-empty 8] [-langs go,rust] [-v]
//
// recall reads the clones DIR/<owner>+<name> of the repositories in
// benchRepos, picks the newest -n commits of each that change a Go function
// body, and for each one compares the candidates with the type checker's
// truth (see truth.go) and with the baseline (see baseline.go). It prints
// recall@5, recall@12 and precision@12 over the commits whose truth is not
// empty, and the average number listed when it is, per repository, for the
// tuning repositories together, for the held-out repository, and for all;
// it exits 1 when the engine misses a target over all repositories and 2
// when a repository is missing. The clones are checked out commit by commit.
//
// recall -lang ts, py, java, c or cpp does the same for that language
// against its own analyzer (langbench.go), held to the per-language
// targets.
//
// cochange scores the candidates against a second truth, the other code
// files of real commits (cochange.go), next to three baselines.
//
// speed finds a commit range of the repository with -files changed files of
// the language and times candidates.Find over it; it exits 1 above 300 ms.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline/candidates"
)

// benchRepos are the repositories of the recall benchmark. The held-out ones
// took no part in tuning the engine.
var benchRepos = []struct {
	name     string
	heldOut  bool
	fetchArg string
}{
	{"spf13+cobra", false, "github:spf13/cobra"},
	{"urfave+cli", false, "github:urfave/cli"},
	{"go-chi+chi", false, "github:go-chi/chi"},
	{"sirupsen+logrus", true, "github:sirupsen/logrus"},
	{"google+go-cmp", true, "github:google/go-cmp"},
}

// Targets over all repositories.
const (
	targetRecall12  = 0.95
	targetRecall5   = 0.85
	targetPrecision = 0.45
	targetEmptyAvg  = 2.0
	targetSpeedMS   = 300
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: candidates recall|speed [flags]")
		os.Exit(2)
	}
	var code int
	switch os.Args[1] {
	case "recall":
		code = recall(os.Args[2:])
	case "speed":
		code = speed(os.Args[2:])
	case "one":
		code = one(os.Args[2:])
	case "cochange":
		code = cochangeBench(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "candidates: unknown subcommand %q\n", os.Args[1])
		code = 2
	}
	os.Exit(code)
}

// scratchTree adds a detached work tree of the clone dir at rev in a new
// temporary folder: the benchmark checks its commits out there, never in
// the clone, so a clone's own work tree is left as it was and two runs on
// the same clones do not check out over each other. done removes it.
func scratchTree(dir, rev string) (string, func(), error) {
	tmp, err := os.MkdirTemp("", "recall-tree-")
	if err != nil {
		return "", nil, err
	}
	wt := filepath.Join(tmp, filepath.Base(dir))
	if _, err := git(dir, "worktree", "add", "-q", "--detach", wt, rev); err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	return wt, func() {
		git(dir, "worktree", "remove", "--force", wt) //nolint:errcheck // pruned below when it fails
		os.RemoveAll(tmp)
		git(dir, "worktree", "prune") //nolint:errcheck // best effort
	}, nil
}

// git runs git in dir. A run the machine could not give a process or a
// thread (a loaded machine) is tried again, up to gitTries times: such a
// failure must not pass for the commit's, or which commits a benchmark
// samples would change from one run to the next.
func git(dir string, args ...string) (string, error) {
	var err error
	for try := range gitTries {
		if try > 0 {
			time.Sleep(time.Duration(try) * 200 * time.Millisecond)
		}
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var out []byte
		out, err = cmd.Output()
		if err == nil {
			return string(out), nil
		}
		err = fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		var exit *exec.ExitError
		if errors.As(err, &exit) && !gitOutOfResources(stderr.String()) {
			return "", err
		}
	}
	return "", err
}

// gitTries bounds the runs of one git command (git).
const gitTries = 5

// gitOutOfResources reports whether git's stderr says the machine refused
// it a process, a thread or memory.
func gitOutOfResources(stderr string) bool {
	for _, s := range []string{"unable to create thread", "Resource temporarily unavailable", "cannot fork", "Out of memory", "unable to fork"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// repoSums adds up the engine's (e) and the baseline's (b) scores of the
// repositories: the tuning ones, the held-out ones and all.
type repoSums struct {
	tuneE, tuneB, heldE, heldB, allE, allB score
}

// add prints one repository's row and counts it in its set.
func (t *repoSums) add(name string, heldOut bool, se, sb *score) {
	label := name
	if heldOut {
		label += " (held out)"
		t.heldE.merge(se)
		t.heldB.merge(sb)
	} else {
		t.tuneE.merge(se)
		t.tuneB.merge(sb)
	}
	t.allE.merge(se)
	t.allB.merge(sb)
	fmt.Println(se.row(label, sb))
}

// finish prints the rows of the tuning set, the held-out set and all, and
// answers the engine's score over all.
func (t *repoSums) finish(allLabel string) score {
	fmt.Println(t.tuneE.row("tuning repositories", &t.tuneB))
	fmt.Println(t.heldE.row("held-out repositories", &t.heldB))
	fmt.Println(t.allE.row(allLabel, &t.allB))
	return t.allE
}

// score is one side's figures over a set of commits.
type score struct {
	r5, r12, p12  float64
	n, nPrecision int // commits with a truth; of them, those that listed something
	emptyListed   int
	nEmpty        int
	ms            float64
	commits       int
	truthSize     int // summed over commits with a truth
	listed        int // summed over commits with a truth
}

func (s *score) add(listed []string, truth map[string]bool) {
	s.commits++
	if len(truth) == 0 {
		s.nEmpty++
		s.emptyListed += len(listed)
		return
	}
	s.n++
	s.truthSize += len(truth)
	s.listed += len(listed)
	hits := func(k int) int {
		h := 0
		for i, p := range listed {
			if i >= k {
				break
			}
			if truth[p] {
				h++
			}
		}
		return h
	}
	s.r5 += float64(hits(5)) / float64(min(5, len(truth)))
	s.r12 += float64(hits(12)) / float64(min(12, len(truth)))
	if n := min(12, len(listed)); n > 0 {
		s.nPrecision++
		s.p12 += float64(hits(12)) / float64(n)
	}
}

func (s *score) merge(o *score) {
	s.r5 += o.r5
	s.r12 += o.r12
	s.p12 += o.p12
	s.n += o.n
	s.nPrecision += o.nPrecision
	s.emptyListed += o.emptyListed
	s.nEmpty += o.nEmpty
	s.ms += o.ms
	s.commits += o.commits
	s.truthSize += o.truthSize
	s.listed += o.listed
}

func (s *score) figures() (r5, r12, p12, empty float64) {
	if s.n > 0 {
		r5, r12 = s.r5/float64(s.n), s.r12/float64(s.n)
	}
	if s.nPrecision > 0 {
		p12 = s.p12 / float64(s.nPrecision)
	}
	if s.nEmpty > 0 {
		empty = float64(s.emptyListed) / float64(s.nEmpty)
	}
	return
}

func (s *score) row(label string, base *score) string {
	r5, r12, p12, empty := s.figures()
	b5, b12, bp, be := base.figures()
	ms := 0.0
	if s.commits > 0 {
		ms = s.ms / float64(s.commits)
	}
	avgT, avgL := 0.0, 0.0
	if s.n > 0 {
		avgT, avgL = float64(s.truthSize)/float64(s.n), float64(s.listed)/float64(s.n)
	}
	return fmt.Sprintf("%-28s %4d %4d %4d %5.1f | %5.2f %5.2f %5.2f %5.1f %5.1f %6.1f | %5.2f %5.2f %5.2f %5.1f",
		label, s.commits, s.n, s.nEmpty, avgT, r5, r12, p12, avgL, empty, ms, b5, b12, bp, be)
}

func recall(args []string) int {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	reposDir := fs.String("repos", "", "directory holding the clones <owner>+<name>")
	n := fs.Int("n", 20, "commits per repository")
	cacheDir := fs.String("cache", "", "directory caching the type checker's truth per commit (default: <repos>/.truth)")
	verbose := fs.Bool("v", false, "print each commit's misses and extra candidates")
	only := fs.String("only", "", "run only this repository (<owner>+<name>)")
	lang := fs.String("lang", "go", "go: the Go repositories against the Go type checker; ts, py, java, c, cpp: that language's repositories against its analyzer (the TypeScript language service, jedi, javac, clangd)")
	tsDir := fs.String("tsdir", "", "with -lang ts: a copy of ts/ with its dependencies installed by npm ci")
	fs.StringVar(&sample.since, "since", "", "score a uniform sample of the commits since this date (e.g. 2020-01-01: commits taken in the order of their ids) instead of the newest")
	fs.StringVar(&sample.set, "set", "all", "which repositories run: all, tuned or held-out")
	scriptsDir := fs.String("analyzers", ".", "with -lang py, java, c or cpp: the directory holding py/truth.py, java/Truth.java and c/truth.py (this command's source directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *reposDir == "" {
		fmt.Fprintln(os.Stderr, "recall: -repos is required")
		return 2
	}
	if *cacheDir == "" {
		*cacheDir = filepath.Join(*reposDir, ".truth")
	}
	if sample.set != "all" && sample.set != "tuned" && sample.set != "held-out" {
		fmt.Fprintf(os.Stderr, "recall: -set %q: want all, tuned or held-out\n", sample.set)
		return 2
	}
	if *lang != "go" {
		l := langByKey(*lang)
		if l == nil {
			fmt.Fprintf(os.Stderr, "recall: -lang %q: want go, ts, py, java, c or cpp\n", *lang)
			return 2
		}
		dir := *scriptsDir
		if l.key == "ts" {
			if *tsDir == "" {
				fmt.Fprintln(os.Stderr, "recall: -lang ts needs -tsdir, a copy of scripts/bench/candidates/ts with its dependencies installed (npm ci)")
				return 2
			}
			dir = *tsDir
		}
		return recallLang(l, *reposDir, *n, *cacheDir, dir, *verbose, *only)
	}
	var missing []string
	for _, r := range benchRepos {
		if _, err := os.Stat(filepath.Join(*reposDir, r.name, ".git")); err != nil {
			missing = append(missing, r.name+" ("+r.fetchArg+")")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "recall: missing clones in %s: %s\n", *reposDir, strings.Join(missing, ", "))
		fmt.Fprintln(os.Stderr, "recall: clone each repository (with its history) into <repos>/<owner>+<name>; the Go module proxy must be reachable for the type checker's dependencies")
		return 2
	}
	fmt.Println("recall@k = |top k ∩ truth| / min(k, |truth|), precision@12 = |top 12 ∩ truth| / |top 12|, both averaged over commits whose truth is not empty (precision over those that list something); empty = files listed on average when the truth is empty")
	fmt.Println("cmts = commits, T>0 / T=0 = commits with / without a truth, |T| = files in a non-empty truth on average, listed = files listed for those on average, ms = candidates.Find per commit")
	fmt.Printf("%-28s %4s %4s %4s %5s | %-35s | %s\n", "", "", "", "", "", "engine", "baseline")
	fmt.Printf("%-28s %4s %4s %4s %5s | %5s %5s %5s %5s %5s %6s | %5s %5s %5s %5s\n", "repository", "cmts", "T>0", "T=0", "|T|", "r@5", "r@12", "p@12", "listed", "empty", "ms", "r@5", "r@12", "p@12", "empty")
	var sums repoSums
	for _, r := range benchRepos {
		if (*only != "" && r.name != *only) || !sample.runs(r.heldOut) {
			continue
		}
		dir := filepath.Join(*reposDir, r.name)
		var se, sb score
		if err := benchRepo(dir, r.name, *n, filepath.Join(*cacheDir, r.name, "go-codelines"), *verbose, &se, &sb); err != nil {
			fmt.Fprintf(os.Stderr, "recall: %s: %v\n", r.name, err)
			return 1
		}
		sums.add(r.name, r.heldOut, &se, &sb)
	}
	allE := sums.finish("all")
	switch {
	case sample.set == "held-out":
		return judgeHeldOut(allE)
	case sample.set == "tuned" || *only != "":
		return 0
	}
	r5, r12, p12, empty := allE.figures()
	fmt.Printf("targets over all: recall@12 %.3f (>= %.2f), recall@5 %.3f (>= %.2f), precision@12 %.3f (>= %.2f), empty %.1f (<= %.1f)\n",
		r12, targetRecall12, r5, targetRecall5, p12, targetPrecision, empty, targetEmptyAvg)
	if allE.commits < 60 {
		fmt.Printf("MISS: %d commits, fewer than 60\n", allE.commits)
		return 1
	}
	if r12 < targetRecall12 || r5 < targetRecall5 || p12 < targetPrecision || empty > targetEmptyAvg {
		fmt.Println("MISS")
		return 1
	}
	fmt.Println("PASS")
	return 0
}

// benchRepo scores the newest n commits of one clone.
func benchRepo(dir, name string, n int, cache string, verbose bool, se, sb *score) error {
	orig, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	orig = strings.TrimSpace(orig)
	dir, done, err := scratchTree(dir, orig)
	if err != nil {
		return err
	}
	defer done()
	commits, err := pickCommits(dir, orig, n)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	for _, sha := range commits {
		if _, err := git(dir, "checkout", "-q", "-f", sha); err != nil {
			// A clone that lacks a blob of the commit is skipped, as in
			// the other languages' benchmark (benchRepoLang).
			fmt.Fprintf(os.Stderr, "recall: %s %s skipped: %v\n", name, sha[:10], err)
			continue
		}
		changes, err := loadChanges(dir, sha)
		if err != nil {
			return err
		}
		t, err := cachedTruth(dir, sha, changes, filepath.Join(cache, sha+".json"))
		if err != nil {
			return fmt.Errorf("%s: %w", sha[:10], err)
		}
		if err := scoreCommit(dir, name, sha, changes, t, baseline, verbose, se, sb); err != nil {
			return err
		}
	}
	return nil
}

// scoreCommit runs the engine and the textual baseline on one commit's
// changes and scores both against the commit's truth.
func scoreCommit(dir, name, sha string, changes []candidates.Change, t truth,
	base func(dir string, changes []candidates.Change, k int) ([]string, error), verbose bool, se, sb *score) error {
	all := t.all()
	start := time.Now()
	got, err := candidates.Find(context.Background(), gitTree{dir}, changes, candidates.Options{})
	if cut := (*candidates.CutError)(nil); errors.As(err, &cut) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", sha[:10], err) // scored on what was found
	} else if err != nil {
		return fmt.Errorf("%s: find: %w", sha[:10], err)
	}
	se.ms += float64(time.Since(start).Microseconds()) / 1000
	var listed []string
	for _, c := range got {
		listed = append(listed, c.Path)
	}
	se.add(listed, all)
	b, err := base(dir, changes, 12)
	if err != nil {
		return fmt.Errorf("%s: baseline: %w", sha[:10], err)
	}
	sb.add(b, all)
	if verbose {
		printCommit(name, sha, t, got, all)
	}
	return nil
}

func printCommit(name, sha string, t truth, got []candidates.Candidate, all map[string]bool) {
	listed := map[string]bool{}
	fmt.Printf("-- %s %s truth uses=%v impact=%v errors=%d\n", name, sha[:10], t.Uses, t.Impact, t.Errors)
	for i, c := range got {
		mark := "  ok"
		if !all[c.Path] {
			mark = "  XX"
		}
		listed[c.Path] = true
		fmt.Printf("%s %2d %.3f %-6s %s: %s\n", mark, i+1, c.Score, c.Kind, c.Path, c.Reason)
	}
	var miss []string
	for p := range all {
		if !listed[p] {
			miss = append(miss, p)
		}
	}
	sort.Strings(miss)
	for _, p := range miss {
		fmt.Printf("  MISS %s\n", p)
	}
}

func cachedTruth(dir, sha string, changes []candidates.Change, file string) (truth, error) {
	var t truth
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &t) == nil {
		return t, nil
	}
	t, err := computeTruth(dir, changes)
	if err != nil {
		return t, err
	}
	b, _ := json.Marshal(t)
	return t, os.WriteFile(file, b, 0o644)
}

// pickCommits returns n non-merge commits reachable from head (the newest,
// or a sample: see sampling)
// that have a go.mod and change the body of a Go function in a file that
// exists on both sides, with at most 40 changed Go files.
func pickCommits(dir, head string, n int) ([]string, error) {
	shas, err := sample.commitsToTry(dir, head, "*.go")
	if err != nil {
		return nil, err
	}
	var picked []string
	for _, sha := range shas {
		if len(picked) >= n {
			break
		}
		parents, err := git(dir, "rev-list", "--parents", "-n", "1", sha)
		if err != nil || len(strings.Fields(parents)) != 2 {
			continue
		}
		if _, err := git(dir, "cat-file", "-e", sha+":go.mod"); err != nil {
			continue
		}
		diff, err := git(dir, "diff", "-M", "--no-color", "--no-ext-diff", sha+"^", sha, "--", "*.go")
		if err != nil {
			continue
		}
		changes, err := candidates.ChangesFromDiff(diff)
		if err != nil || len(changes) == 0 || len(changes) > 40 {
			continue
		}
		if changesFuncBody(dir, sha, changes) {
			picked = append(picked, sha)
		}
	}
	return picked, nil
}

// loadChanges reads a commit's diff against its parent with both sides'
// contents.
func loadChanges(dir, sha string) ([]candidates.Change, error) {
	diff, err := git(dir, "diff", "-M", "--no-color", "--no-ext-diff", sha+"^", sha)
	if err != nil {
		return nil, err
	}
	changes, err := candidates.ChangesFromDiff(diff)
	if err != nil {
		return nil, err
	}
	for i := range changes {
		c := &changes[i]
		if c.Status != candidates.StatusAdded {
			op := c.Path
			if c.OldPath != "" {
				op = c.OldPath
			}
			if s, err := git(dir, "show", sha+"^:"+op); err == nil {
				c.Old = []byte(s)
			}
		}
		if c.Status != candidates.StatusDeleted {
			if b, err := os.ReadFile(filepath.Join(dir, c.Path)); err == nil {
				c.New = b
			}
		}
	}
	return changes, nil
}
