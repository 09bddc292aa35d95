package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/prscout/prscout/localgit"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/cochange"
)

// ccRepo is a repository of the co-change benchmark. The split was fixed
// before any figure was seen: the tuning repositories are those the
// engines were tuned on (bench-candidates.sh, and one per language that
// had none, named before its first run); every other one is held out,
// and only the tuning ones set the co-change rules.
type ccRepo struct {
	name, lang string
	heldOut    bool
	// shown, when set, is the language family (ccFamily) the shown file
	// must be in: a repository written in two languages (deno's Rust and
	// TypeScript) then measures the one it stands for.
	shown string
}

var ccRepos = []ccRepo{
	{"spf13+cobra", "go", false, ""}, {"urfave+cli", "go", false, ""}, {"go-chi+chi", "go", false, ""},
	{"sirupsen+logrus", "go", true, ""}, {"google+go-cmp", "go", true, ""}, {"client_golang", "go", true, ""}, {"hashicorp+terraform", "go", true, ""},
	{"google+gson", "java", false, ""}, {"jhy+jsoup", "java", false, ""}, {"square+javapoet", "java", false, ""},
	{"apache+commons-cli", "java", true, ""}, {"spring-projects+spring-framework", "java", true, ""},
	{"encode+httpx", "py", false, ""}, {"pallets+click", "py", false, ""}, {"python-attrs+attrs", "py", false, ""},
	{"psf+requests", "py", true, ""}, {"ansible+ansible", "py", true, ""},
	{"honojs+hono", "ts", false, ""}, {"trpc+trpc", "ts", false, ""}, {"sindresorhus+got", "ts", false, ""},
	{"sindresorhus+ky", "ts", false, ""}, {"pmndrs+zustand", "ts", false, ""},
	{"vinejs+vine", "ts", false, ""}, {"sindresorhus+ow", "ts", false, ""}, {"runtypes+runtypes", "ts", false, ""},
	{"fabian-hiller+valibot", "ts", false, ""}, {"gcanti+io-ts", "ts", false, ""}, {"arktypeio+arktype", "ts", false, ""},
	{"jquense+yup", "ts", true, ""}, {"withastro+astro", "ts", true, ""},
	{"denoland+deno", "rust", false, "rust"}, {"BurntSushi+ripgrep", "rust", true, ""}, {"tokio-rs+axum", "rust", true, ""},
	{"rails+rails", "ruby", false, ""}, {"sinatra+sinatra", "ruby", true, ""}, {"jekyll+jekyll", "ruby", true, ""},
	{"symfony+symfony", "php", false, ""}, {"guzzle+guzzle", "php", true, ""}, {"slimphp+Slim", "php", true, ""},
	{"dotnet+efcore", "csharp", false, ""}, {"JamesNK+Newtonsoft.Json", "csharp", true, ""}, {"AutoMapper+AutoMapper", "csharp", true, ""},
	{"square+kotlinpoet", "kotlin", false, ""}, {"square+okio", "kotlin", true, ""}, {"square+moshi", "kotlin", true, ""},
	{"jqlang+jq", "c", false, ""}, {"libgit2+libgit2", "c", true, ""}, {"redis+hiredis", "c", true, ""},
	{"Kitware+CMake", "cpp", false, ""}, {"fmtlib+fmt", "cpp", true, ""}, {"gabime+spdlog", "cpp", true, ""},
	{"Quick+Nimble", "swift", false, ""}, {"Alamofire+Alamofire", "swift", true, ""}, {"apple+swift-argument-parser", "swift", true, ""},
	{"scala+scala", "scala", false, ""}, {"com-lihaoyi+os-lib", "scala", true, ""}, {"typelevel+cats", "scala", true, ""},
}

// The co-change baseline's rule, the one pipeline/candidates applies
// (support >= cochange.MinSupport, shrunk confidence >= ccMinConfidence), without
// its cap on how many it lists; -minconf tries another confidence.
var ccMinConfidence = 0.3

// ccMethods are the lists scored for each commit: prscout first, the
// three baselines, then prscout's list as answered, tests included. Every
// method is judged on the non-test code files it lists (ccCode), as the
// truth holds only those: the baselines list nothing else, prscout's
// answer also lists the tests that break (after its production files),
// which is scored apart in the last column.
var ccMethods = []string{"prscout", "grep", "same-dir", "co-change", "prscout+tests"}

// ccBaselines are the indexes in ccMethods of the baselines.
var ccBaselines = []int{1, 2, 3}

// ccSums holds each method's score over a set of commits.
type ccSums [5]score

func (s *ccSums) merge(o *ccSums) {
	for i := range s {
		s[i].merge(&o[i])
	}
}

func cochangeBench(args []string) int {
	fs := flag.NewFlagSet("cochange", flag.ContinueOnError)
	reposDir := fs.String("repos", "", "directory holding the clones <owner>+<name> (read only)")
	work := fs.String("work", "", "directory for this run's own mirror clones (kept between runs)")
	n := fs.Int("n", 35, "commits per repository that changed >= 2 non-test code files")
	nEmpty := fs.Int("empty", 8, "commits per repository that changed one non-test code file (empty truth)")
	langs := fs.String("langs", "", "only these languages (comma-separated)")
	only := fs.String("only", "", "only this repository")
	set := fs.String("set", "", "only the tuning or the held-out repositories (tuning, held)")
	workers := fs.Int("j", 2, "repositories benchmarked at once")
	verbose := fs.Bool("v", false, "print every commit's lists")
	dumpTo := fs.String("dump", "", "write each tuning commit's signals to this file as JSON lines")
	fs.Float64Var(&ccMinConfidence, "minconf", ccMinConfidence, "the co-change baseline's confidence bound (tuning)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *reposDir == "" || *work == "" {
		fmt.Fprintln(os.Stderr, "cochange: -repos and -work are required")
		return 2
	}
	if *set != "" && *set != "tuning" && *set != "held" {
		fmt.Fprintf(os.Stderr, "cochange: -set %q: want tuning or held\n", *set)
		return 2
	}
	var todo []ccRepo
	for _, r := range ccRepos {
		inSet := *set == "" || *set == "tuning" && !r.heldOut || *set == "held" && r.heldOut
		if inSet && (*langs == "" || strings.Contains(","+*langs+",", ","+r.lang+",")) && (*only == "" || *only == r.name) {
			todo = append(todo, r)
		}
	}
	var missing []string
	for _, r := range todo {
		if _, err := os.Stat(filepath.Join(*reposDir, r.name)); err != nil {
			missing = append(missing, r.name)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "cochange: missing clones in %s: %s\n", *reposDir, strings.Join(missing, ", "))
		return 2
	}
	var dump *ccDumper
	if *dumpTo != "" {
		f, err := os.Create(*dumpTo)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cochange:", err)
			return 2
		}
		defer f.Close()
		dump = &ccDumper{f: f}
	}
	results := make([]ccSums, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *workers))
	var out sync.Mutex
	for i, r := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = ccRepoBench(r, *reposDir, *work, *n, *nEmpty, *verbose, dump, &out, &results[i])
			if errs[i] == nil {
				out.Lock()
				fmt.Fprintf(os.Stderr, "cochange: %s done\n", r.name)
				out.Unlock()
			}
		}()
	}
	wg.Wait()
	var ok []ccRepo
	var okResults []ccSums
	failed := false
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(os.Stderr, "cochange: %s: %v\n", todo[i].name, err)
			failed = true
			continue
		}
		ok, okResults = append(ok, todo[i]), append(okResults, results[i])
	}
	if rc := ccReport(ok, okResults); rc != 0 || failed {
		return 1
	}
	return 0
}

// ccReport prints the figures per repository and per language (tuning and
// held-out sets apart) and checks the targets on each language's
// held-out set.
func ccReport(todo []ccRepo, results []ccSums) int {
	fmt.Println("truth: the other non-test code files of a commit that changed >= 2 of them, the one with most changed lines shown; empty truth: commits that changed one")
	fmt.Println("r@12 = |top 12 ∩ truth| / min(12, |truth|), p@12 = |top 12 ∩ truth| / |top 12| (over commits listing something), empty = files listed on average when the truth is empty")
	fmt.Printf("%-34s %4s %4s %4s", "", "cmts", "T>0", "T=0")
	for _, m := range ccMethods {
		fmt.Printf(" | %-16s", m)
	}
	fmt.Printf("\n%-34s %4s %4s %4s", "repository", "", "", "")
	for range ccMethods {
		fmt.Printf(" | %4s %4s %5s", "r@12", "p@12", "empty")
	}
	fmt.Println()
	row := func(label string, s *ccSums) {
		fmt.Printf("%-34s %4d %4d %4d", label, s[0].commits, s[0].n, s[0].nEmpty)
		for i := range s {
			_, r12, p12, empty := s[i].figures()
			fmt.Printf(" | %4.2f %4.2f %5.1f", r12, p12, empty)
		}
		fmt.Println()
	}
	type set struct{ tune, held ccSums }
	byLang := map[string]*set{}
	var order []string
	for i, r := range todo {
		label := r.lang + " " + r.name
		if r.heldOut {
			label += " (held out)"
		}
		row(label, &results[i])
		if byLang[r.lang] == nil {
			byLang[r.lang] = &set{}
			order = append(order, r.lang)
		}
		if r.heldOut {
			byLang[r.lang].held.merge(&results[i])
		} else {
			byLang[r.lang].tune.merge(&results[i])
		}
	}
	fmt.Println()
	rc := 0
	for _, l := range order {
		s := byLang[l]
		if s.tune[0].commits > 0 {
			row(l+" tuning", &s.tune)
		}
		if s.held[0].commits == 0 {
			continue
		}
		row(l+" held out", &s.held)
		if miss := ccTargets(&s.held); miss != "" {
			fmt.Printf("  MISS %s held out: %s\n", l, miss)
			rc = 1
		}
	}
	if rc == 0 {
		fmt.Println("PASS")
	}
	return rc
}

// ccTargets says which target a set misses: prscout above the best single
// baseline on recall@12 and on precision@12, <= 3 listed on empty truth,
// >= 50 commits with a truth.
func ccTargets(s *ccSums) string {
	var miss []string
	_, r12, p12, empty := s[0].figures()
	var bestR, bestP float64
	for _, i := range ccBaselines {
		_, r, p, _ := s[i].figures()
		bestR, bestP = max(bestR, r), max(bestP, p)
	}
	if r12 <= bestR {
		miss = append(miss, fmt.Sprintf("recall@12 %.2f <= best baseline %.2f", r12, bestR))
	}
	if p12 <= bestP {
		miss = append(miss, fmt.Sprintf("precision@12 %.2f <= best baseline %.2f", p12, bestP))
	}
	if empty > 3 {
		miss = append(miss, fmt.Sprintf("%.1f listed on empty truth > 3", empty))
	}
	if s[0].n < 50 {
		miss = append(miss, fmt.Sprintf("%d commits with a truth < 50", s[0].n))
	}
	return strings.Join(miss, "; ")
}

// ccCommit is a sampled commit: its first parent, the file shown as the
// change and the truth.
type ccCommit struct {
	sha, parent string
	time        int64
	shown       string
	truth       map[string]bool
}

// ccRepoBench mirrors one clone into work, samples its commits and scores
// every method on each.
func ccRepoBench(r ccRepo, reposDir, work string, n, nEmpty int, verbose bool, dump *ccDumper, out *sync.Mutex, sums *ccSums) error {
	dir, ref, err := ccMirror(filepath.Join(reposDir, r.name), filepath.Join(work, r.name))
	if err != nil {
		return err
	}
	commits, err := ccSample(dir, ref, r, n, nEmpty)
	if err != nil {
		return err
	}
	prov := localgit.New(dir)
	for _, c := range commits {
		if r.heldOut {
			dump = nil
		}
		lists, err := ccLists(prov, dir, r, c, dump)
		if err != nil {
			return fmt.Errorf("%s: %w", c.sha[:10], err)
		}
		for i := range sums {
			sums[i].add(lists[i], c.truth)
		}
		if verbose {
			out.Lock()
			ccPrint(r.name, c, lists)
			out.Unlock()
		}
	}
	return nil
}

// ccMirror makes (once) a bare mirror clone of src at dst, leaving src as
// it is, and answers it with the commit of the default branch.
func ccMirror(src, dst string) (string, string, error) {
	if _, err := os.Stat(filepath.Join(dst, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", "", err
		}
		if _, err := git(filepath.Dir(dst), "clone", "-q", "--mirror", src, dst); err != nil {
			return "", "", err
		}
	}
	for _, ref := range []string{"refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "HEAD"} {
		if sha, err := git(dst, "rev-parse", "-q", "--verify", ref+"^{commit}"); err == nil {
			return dst, strings.TrimSpace(sha), nil
		}
	}
	return "", "", errors.New("no default branch")
}

// ccSample lists the non-merge commits since 2020 of ref's history with
// at most cochange.DefaultBounds.MaxFiles files, and samples uniformly (a
// fixed seed per repository) n that changed >= 2 non-test code files and
// nEmpty that changed one, oldest first. A commit git cannot diff (a
// blob missing upstream), or whose shown file is not in the family
// r.shown names, is passed over.
func ccSample(dir, ref string, r ccRepo, n, nEmpty int) ([]ccCommit, error) {
	// The bound is midnight UTC: git reads a date without a time as that
	// day at the time of the run, and a sample must not depend on it.
	out, err := git(dir, "log", "--no-merges", "--since=2020-01-01T00:00:00Z", "--no-renames", "--name-only", "--format=%x1e%H %P %ct", ref)
	if err != nil {
		return nil, err
	}
	var multi, single []ccCommit
	for _, rec := range strings.Split(out, "\x1e")[1:] {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		head := strings.Fields(lines[0])
		if len(head) < 3 {
			continue // a root commit
		}
		files, code := 0, 0
		for _, l := range lines[1:] {
			if l != "" {
				files++
				if ccCode(l) {
					code++
				}
			}
		}
		if files > cochange.DefaultBounds.MaxFiles || code == 0 {
			continue
		}
		t, _ := strconv.ParseInt(head[len(head)-1], 10, 64)
		c := ccCommit{sha: head[0], parent: head[1], time: t}
		if code == 1 {
			single = append(single, c)
		} else {
			multi = append(multi, c)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(r.name))
	rnd := rand.New(rand.NewPCG(45, h.Sum64()))
	var picked []ccCommit
	pick := func(cs []ccCommit, k int, multi bool) {
		rnd.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		got := 0
		for i := 0; i < len(cs) && got < k; i++ {
			if ccTruth(dir, &cs[i]) && (len(cs[i].truth) > 0) == multi && (r.shown == "" || ccFamily[path.Ext(cs[i].shown)] == r.shown) {
				picked = append(picked, cs[i])
				got++
			}
		}
	}
	pick(multi, n, true)
	pick(single, nEmpty, false)
	sort.Slice(picked, func(i, j int) bool { return picked[i].time < picked[j].time })
	return picked, nil
}

// ccTruth sets the commit's shown file (the non-test code file with most
// changed lines) and its truth (the other ones still present after the
// commit: no method can list a deleted file); false when git cannot diff
// the commit or it changed no code line.
func ccTruth(dir string, c *ccCommit) bool {
	out, err := git(dir, "diff", "--no-renames", "--numstat", c.parent, c.sha)
	if err != nil {
		return false
	}
	type file struct {
		path  string
		lines int
	}
	var code []file
	for _, l := range strings.Split(out, "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 || !ccCode(f[2]) {
			continue
		}
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		if a+d > 0 {
			code = append(code, file{f[2], a + d})
		}
	}
	if len(code) == 0 {
		return false
	}
	sort.SliceStable(code, func(i, j int) bool { return code[i].lines > code[j].lines })
	c.shown, c.truth = code[0].path, map[string]bool{}
	for _, f := range code[1:] {
		if _, err := git(dir, "cat-file", "-e", c.sha+":"+f.path); err == nil {
			c.truth[f.path] = true
		}
	}
	return true
}

// ccCode reports whether p is production code the truth counts: a source
// file of a programming language, not a test, fixture or vendored copy.
func ccCode(p string) bool {
	_, ok := ccFamily[path.Ext(p)]
	return ok && !ccTest(p)
}

// ccFamily maps a code extension to its language family (the grep
// baseline searches the shown file's family).
var ccFamily = map[string]string{
	".go": "go", ".java": "jvm", ".kt": "jvm", ".kts": "jvm", ".scala": "jvm", ".py": "py",
	".ts": "js", ".tsx": "js", ".mts": "js", ".cts": "js", ".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js",
	".rs": "rust", ".rb": "ruby", ".php": "php", ".cs": "cs",
	".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".hpp": "c", ".swift": "swift",
}

// ccTest reports test, fixture, example and vendored paths of the
// benchmark's languages.
func ccTest(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(lower, "_test.go"), strings.HasPrefix(lower, "test_"), strings.HasSuffix(stem, "_test"),
		strings.HasSuffix(stem, "_spec"), strings.Contains(lower, ".test."), strings.Contains(lower, ".spec."),
		strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"), strings.HasSuffix(stem, "IT"),
		lower == "conftest.py", strings.HasSuffix(lower, ".d.ts") && strings.Contains(p, "test"):
		return true
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		ld := strings.ToLower(d)
		switch {
		case ld == "test", ld == "tests", ld == "__tests__", ld == "testdata", ld == "spec", ld == "specs",
			ld == "fixtures", ld == "testing", ld == "benches", ld == "bench", ld == "benchmarks", ld == "examples", ld == "example",
			ld == "vendor", ld == "node_modules", ld == "third_party",
			strings.HasSuffix(ld, "test"), strings.HasSuffix(ld, ".tests"), strings.HasSuffix(ld, ".test"),
			strings.HasPrefix(d, ".") && len(d) > 1:
			return true
		}
	}
	return false
}

// ccLists answers each method's list for one commit, prscout first; a
// dump, when not nil, records the commit's signals.
func ccLists(prov *localgit.Provider, dir string, r ccRepo, c ccCommit, dump *ccDumper) ([5][]string, error) {
	var lists [5][]string
	ctx := context.Background()
	diff, err := git(dir, "diff", "--no-renames", "--no-color", "--no-ext-diff", c.parent, c.sha, "--", c.shown)
	if err != nil {
		return lists, err
	}
	changes, err := candidates.ChangesFromDiff(diff)
	if err != nil || len(changes) != 1 {
		return lists, fmt.Errorf("the diff of %s: %d changes, %v", c.shown, len(changes), err)
	}
	ch := &changes[0]
	if s, err := git(dir, "show", c.parent+":"+c.shown); err == nil && ch.Status != candidates.StatusAdded {
		ch.Old = []byte(s)
	}
	if s, err := git(dir, "show", c.sha+":"+c.shown); err == nil {
		ch.New = []byte(s)
	}
	tree, err := prov.OpenTree(ctx, pipeline.Repo{Workspace: "bench", RepoSlug: "repo"}, c.sha)
	if err != nil {
		return lists, err
	}
	defer tree.Close()
	if dump != nil {
		if err := dump.record(ctx, r, tree, dir, c, changes); err != nil {
			return lists, err
		}
	}
	got, err := candidates.Find(ctx, tree, changes, candidates.Options{Max: 12, HistoryAt: c.parent})
	var cut *candidates.CutError
	if err != nil && !errors.As(err, &cut) {
		return lists, err
	}
	for _, g := range got {
		lists[4] = append(lists[4], g.Path)
		if ccCode(g.Path) {
			lists[0] = append(lists[0], g.Path)
		}
	}
	if lists[1], err = ccGrep(dir, c, ch); err != nil {
		return lists, err
	}
	if lists[2], err = ccSameDir(dir, c); err != nil {
		return lists, err
	}
	lists[3], err = ccHistory(ctx, tree, dir, c)
	return lists, err
}

// ccGrep is the identifier baseline: the identifiers of the changed lines
// (comments, keywords and names under three letters left out) searched as whole
// words in the shown file's language family at the commit, files ranked
// by matching lines.
func ccGrep(dir string, c ccCommit, ch *candidates.Change) ([]string, error) {
	hits := ccGrepAll(dir, c, ch)
	var paths []string
	for i := 0; i < len(hits) && i < 12; i++ {
		paths = append(paths, hits[i].p)
	}
	return paths, nil
}

// ccHit is a file the identifier baseline found, with its matching lines.
type ccHit struct {
	p string
	n int
}

// ccGrepAll answers every file the identifier baseline finds, by matching
// lines.
func ccGrepAll(dir string, c ccCommit, ch *candidates.Change) []ccHit {
	words := map[string]bool{}
	ccIdents(ch.New, ch.AddedLines, words)
	ccIdents(ch.Old, ch.RemovedLines, words)
	if len(words) == 0 {
		return nil
	}
	fam := ccFamily[path.Ext(c.shown)]
	var globs []string
	for ext, f := range ccFamily {
		if f == fam {
			globs = append(globs, "*"+ext)
		}
	}
	sort.Strings(globs)
	// The longest names (the rarest, mostly) at most ccGrepWords, as one
	// extended regular expression (git grep runs it far faster than as
	// many fixed strings).
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
	list = list[:min(len(list), ccGrepWords)]
	args := []string{"grep", "-c", "-w", "-E", "-I", "--no-color", "-e", strings.Join(list, "|"), c.sha, "--"}
	args = append(args, globs...)
	out, err := git(dir, args...)
	if err != nil {
		return nil // no match
	}
	var hits []ccHit
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), c.sha+":")
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		cnt, _ := strconv.Atoi(line[i+1:])
		if p := line[:i]; p != c.shown && ccCode(p) {
			hits = append(hits, ccHit{p, cnt})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].n != hits[j].n {
			return hits[i].n > hits[j].n
		}
		return hits[i].p < hits[j].p
	})
	return hits
}

// ccGrepWords bounds the names the identifier baseline searches.
const ccGrepWords = 60

// ccStop are keywords and common names of the benchmark's languages.
var ccStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`func return package import type struct interface var const if else for range switch case default
		break continue defer go chan map nil true false error string int bool byte self this super class def from None True False
		public private protected static final void new null function let async await export extends implements throws throw try
		catch finally while elif pass lambda yield with assert raise not and or del global end module require include use impl
		pub mod crate mut match where enum trait dyn namespace using override virtual readonly fun val object companion
		when sealed data internal typeof instanceof undefined const echo array isset unset elseif foreach abstract`) {
		m[w] = true
	}
	return m
}()

// ccIdents adds the identifiers on the given lines of src.
func ccIdents(src []byte, lines []int, into map[string]bool) {
	want := map[int]bool{}
	for _, l := range lines {
		want[l] = true
	}
	for i, line := range strings.Split(string(src), "\n") {
		if !want[i+1] {
			continue
		}
		// Comment text is not code: lines that start a comment are left
		// out, and a trailing // comment.
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#[") ||
			strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "'''") {
			continue
		}
		if j := strings.Index(line, " //"); j >= 0 {
			line = line[:j]
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if len(f) >= 3 && !ccStop[f] && !(f[0] >= '0' && f[0] <= '9') {
				into[f] = true
			}
		}
	}
}

// ccSameDir is the directory baseline: the other code files of the shown
// file's directory at the commit, by name.
func ccSameDir(dir string, c ccCommit) ([]string, error) {
	d := path.Dir(c.shown)
	spec := d + "/"
	if d == "." {
		spec = "."
	}
	out, err := git(dir, "ls-tree", "--name-only", c.sha, "--", spec)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimSpace(out), "\n") {
		if p != "" && p != c.shown && ccCode(p) && len(paths) < 12 {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// ccHistory is the co-change baseline: the history alone, by confidence,
// under the rule prscout applies (support and confidence), production
// code present at the commit.
func ccHistory(ctx context.Context, tree pipeline.CodeTree, dir string, c ccCommit) ([]string, error) {
	h, ok := tree.(interface {
		CoChanged(context.Context, string, []string) ([]cochange.Pair, error)
	})
	if !ok {
		return nil, errors.New("the tree keeps no history")
	}
	pairs, err := h.CoChanged(ctx, c.parent, []string{c.shown})
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range pairs {
		if len(paths) == 12 {
			break
		}
		if p.Shrunk() < ccMinConfidence || !ccCode(p.With) {
			continue
		}
		if _, err := git(dir, "cat-file", "-e", c.sha+":"+p.With); err == nil {
			paths = append(paths, p.With)
		}
	}
	return paths, nil
}

// ccPrint prints one commit's lists, each hit marked.
func ccPrint(name string, c ccCommit, lists [5][]string) {
	var truth []string
	for p := range c.truth {
		truth = append(truth, p)
	}
	sort.Strings(truth)
	fmt.Printf("-- %s %s shown %s truth %v\n", name, c.sha[:10], c.shown, truth)
	for i, l := range lists {
		var marked []string
		for _, p := range l {
			if c.truth[p] {
				p = "+" + p
			}
			marked = append(marked, p)
		}
		fmt.Printf("   %-9s %v\n", ccMethods[i], marked)
	}
}
