package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates"
)

// An analyzed language is measured against its own analyzer: a script that
// reads one commit's changes on stdin and answers the files a reviewer needs
// (see analyzerTruth). Its figures are held to the same targets as Go's
// engine, per language.
type analyzedLang struct {
	key, title string
	// truth says what the analyzer's truth is, for the report's header.
	truth string
	// script is the analyzer, relative to the analyzers' directory.
	script string
	repos  []langRepo
	globs  []string
	ident  *regexp.Regexp
	// reserved are the language's keywords and predeclared names, left out
	// of the baseline's words.
	reserved map[string]bool
	// exclude marks build output and dependency folders neither side lists.
	exclude []string
}

type langRepo struct {
	name     string
	heldOut  bool
	fetchArg string
}

// Per-language targets, the same for every analyzed language.
const (
	langTargetRecall12  = 0.90
	langTargetRecall5   = 0.80
	langTargetPrecision = 0.50
	langTargetEmptyAvg  = 2.0
	langMinCommits      = 60
)

var analyzedLangs = []*analyzedLang{
	{
		key: "ts", title: "TypeScript/JavaScript", script: "ts/truth.mjs",
		truth: "the TypeScript compiler's symbols of identifiers on added lines (uses) and the language service's findReferences of touched declarations (impact)",
		repos: []langRepo{
			{"honojs+hono", false, "github:honojs/hono"},
			{"trpc+trpc", false, "github:trpc/trpc"},
			{"sindresorhus+got", false, "github:sindresorhus/got"},
			{"sindresorhus+ky", false, "github:sindresorhus/ky"},
			{"pmndrs+zustand", false, "github:pmndrs/zustand"},
			{"ianstormtaylor+superstruct", false, "github:ianstormtaylor/superstruct"},
			{"iamkun+dayjs", false, "github:iamkun/dayjs"},
			{"typestack+class-validator", false, "github:typestack/class-validator"},
			{"colinhacks+zod", false, "github:colinhacks/zod"},
			{"mobxjs+mobx", false, "github:mobxjs/mobx"},
			{"date-fns+date-fns", false, "github:date-fns/date-fns"},
			{"ajv-validator+ajv", false, "github:ajv-validator/ajv"},
			{"sinclairzx81+typebox", false, "github:sinclairzx81/typebox"},
			{"typestack+class-transformer", false, "github:typestack/class-transformer"},
			{"vinejs+vine", false, "github:vinejs/vine"},
			{"sindresorhus+ow", false, "github:sindresorhus/ow"},
			{"runtypes+runtypes", false, "github:runtypes/runtypes"},
			{"fabian-hiller+valibot", false, "github:fabian-hiller/valibot"},
			{"gcanti+io-ts", false, "github:gcanti/io-ts"},
			{"arktypeio+arktype", false, "github:arktypeio/arktype"},
			{"jquense+yup", true, "github:jquense/yup"},
			{"immerjs+immer", true, "github:immerjs/immer"},
		},
		globs:   []string{"*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"},
		ident:   regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`),
		exclude: []string{"node_modules", "dist", "build", "coverage"},
		reserved: words(`break case catch class const continue debugger default delete do else export
			extends false finally for function if import in instanceof new null return super switch this throw true
			try typeof var void while with yield let static enum await implements package protected interface private
			public as async from of type readonly declare abstract any boolean number string unknown never undefined
			keyof infer is satisfies get set`),
	},
	{
		key: "py", title: "Python", script: "py/truth.py",
		truth: "jedi's goto of identifiers on added lines, imports followed (uses) and its references of touched declarations (impact)",
		repos: []langRepo{
			{"encode+httpx", false, "github:encode/httpx"},
			{"pallets+click", false, "github:pallets/click"},
			{"python-attrs+attrs", false, "github:python-attrs/attrs"},
			{"psf+requests", true, "github:psf/requests"},
			{"marshmallow-code+marshmallow", true, "github:marshmallow-code/marshmallow"},
		},
		globs:   []string{"*.py", "*.pyi"},
		ident:   regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`),
		exclude: []string{"build", "dist", "venv", ".venv", "site-packages"},
		reserved: words(`False None True and as assert async await break class continue def del elif else except
			finally for from global if import in is lambda nonlocal not or pass raise return try while with yield
			self cls print len str int list dict set tuple bool float object super isinstance range`),
	},
	{
		key: "java", title: "Java", script: "java/Truth.java",
		truth: "javac's attributed trees (com.sun.source): the declarations identifiers on added lines resolve to (uses) and every reference to a touched declaration (impact)",
		repos: []langRepo{
			{"google+gson", false, "github:google/gson"},
			{"jhy+jsoup", false, "github:jhy/jsoup"},
			{"square+javapoet", false, "github:square/javapoet"},
			{"apache+commons-cli", true, "github:apache/commons-cli"},
			{"apache+commons-lang", true, "github:apache/commons-lang"},
		},
		globs:   []string{"*.java"},
		ident:   regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`),
		exclude: []string{"target", "build", "out"},
		reserved: words(`abstract assert boolean break byte case catch char class const continue default do double
			else enum extends final finally float for goto if implements import instanceof int interface long native
			new package private protected public return short static strictfp super switch synchronized this throw
			throws transient try void volatile while true false null var record String Object Override`),
	},
	cLang("c", "C", []langRepo{
		{"jqlang+jq", false, "github:jqlang/jq"},
		{"libgit2+libgit2", true, "github:libgit2/libgit2"},
		{"redis+hiredis", true, "github:redis/hiredis"},
	}, []string{"*.c", "*.h"}),
	cLang("cpp", "C++", []langRepo{
		{"Kitware+CMake", false, "github:Kitware/CMake"},
		{"jbeder+yaml-cpp", false, "github:jbeder/yaml-cpp"},
		{"google+googletest", false, "github:google/googletest"},
		{"fmtlib+fmt", true, "github:fmtlib/fmt"},
		{"gabime+spdlog", true, "github:gabime/spdlog"},
	}, []string{"*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h", "*.c"}),
}

// cLang is C's or C++'s entry: both are measured against clangd (c/truth.py).
func cLang(key, title string, repos []langRepo, globs []string) *analyzedLang {
	return &analyzedLang{
		key: key, title: title, script: "c/truth.py", repos: repos, globs: globs,
		truth: "clangd's textDocument/references (declarations included) of the declarations around the changed lines, " +
			"over the changed files and at most 24 others naming them (impact)",
		ident:   regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`),
		exclude: []string{"build", "out", "third_party", "vendor"},
		reserved: words(`auto break case char const continue default do double else enum extern float for goto if
			inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
			void volatile while bool true false NULL nullptr class namespace template typename public private protected
			virtual override final new delete this operator using constexpr noexcept size_t std include define ifdef
			ifndef endif`),
	}
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func langByKey(key string) *analyzedLang {
	for _, l := range analyzedLangs {
		if l.key == key {
			return l
		}
	}
	return nil
}

// analyzerTruth is an analyzer's answer: uses, impact, the number of
// diagnostics in the changed files, and whether a changed line falls in a
// function or method body.
type analyzerTruth struct {
	Uses        []string `json:"uses"`
	Impact      []string `json:"impact"`
	Errors      int      `json:"errors"`
	BodyChanged bool     `json:"bodyChanged"`
}

// analyzer runs one language's script.
type analyzer struct {
	lang    *analyzedLang
	command []string // the command line; the request is its stdin
	version string   // a hash of the script: a changed script recomputes its truths
}

// newAnalyzer prepares l's analyzer from dir, the directory holding the
// scripts (for TypeScript, a copy of ts/ with node_modules installed). A
// Java analyzer is compiled once into tmp.
func newAnalyzer(l *analyzedLang, dir, tmp string) (*analyzer, error) {
	script := filepath.Join(dir, l.script)
	if l.key == "ts" {
		script = filepath.Join(dir, filepath.Base(l.script))
	}
	src, err := os.ReadFile(script)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	a := &analyzer{lang: l, version: hex.EncodeToString(sum[:6])}
	switch filepath.Ext(script) {
	case ".mjs":
		if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "typescript")); err != nil {
			return nil, fmt.Errorf("%s has no node_modules/typescript: run npm ci there", filepath.Dir(script))
		}
		// The checker recurses on deeply nested types (mobx's): a larger
		// stack than V8's default, well within the usual 8 MB of the main
		// thread.
		a.command = []string{"node", "--stack-size=6000", script}
	case ".py":
		a.command = []string{"python3", script}
	case ".java":
		out := filepath.Join(tmp, "java-truth")
		// Truth.java uses JavacTaskImpl's enter() and analyze(classes),
		// which jdk.compiler does not export.
		export := "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED"
		if b, err := exec.Command("javac", export, "-d", out, script).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("javac %s: %w: %s", script, err, b)
		}
		// C1 only and the serial collector: javac runs a few seconds per
		// commit, too short for C2's compilations to pay off.
		a.command = []string{"java", export, "-Xss16m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", out, strings.TrimSuffix(filepath.Base(script), ".java")}
	default:
		return nil, fmt.Errorf("%s: no runner for this kind of script", script)
	}
	return a, nil
}

func (l *analyzedLang) owns(p string) bool {
	for _, g := range l.globs {
		if strings.HasSuffix(p, g[1:]) {
			return true
		}
	}
	return false
}

// truth answers the analyzer's truth for one commit, cached in file.
func (a *analyzer) truth(dir string, changes []candidates.Change, file string) (analyzerTruth, error) {
	var t analyzerTruth
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &t) == nil {
		return t, nil
	}
	type in struct {
		Path    string  `json:"path"`
		OldPath string  `json:"oldPath,omitempty"`
		Added   []int   `json:"added"`
		Removed []int   `json:"removed"`
		Old     *string `json:"old"`
	}
	req := struct {
		Dir     string `json:"dir"`
		Changes []in   `json:"changes"`
	}{Dir: dir}
	for _, c := range changes {
		if !a.lang.owns(c.Path) {
			continue
		}
		x := in{Path: c.Path, OldPath: c.OldPath, Added: c.AddedLines, Removed: c.RemovedLines}
		if c.Old != nil {
			s := string(c.Old)
			x.Old = &s
		}
		req.Changes = append(req.Changes, x)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return t, err
	}
	cmd := exec.Command(a.command[0], a.command[1:]...)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return t, fmt.Errorf("%s: %w: %s", a.lang.script, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(out, &t); err != nil {
		return t, fmt.Errorf("%s answer: %w", a.lang.script, err)
	}
	return t, os.WriteFile(file, out, 0o644)
}

// recallLang is "recall -lang KEY": the newest -n commits of each of the
// language's repositories that change a function or method body, truth
// from its analyzer, scored per repository, for the tuning repositories,
// the held-out one and all; exit 1 when the language misses a target.
func recallLang(l *analyzedLang, reposDir string, n int, cacheDir, scriptsDir string, verbose bool, only string) int {
	tmp, err := os.MkdirTemp("", "bench-analyzer")
	if err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	a, err := newAnalyzer(l, scriptsDir, tmp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "recall: -lang %s: %v\n", l.key, err)
		return 2
	}
	var missing []string
	for _, r := range l.repos {
		if _, err := os.Stat(filepath.Join(reposDir, r.name, ".git")); err != nil {
			missing = append(missing, r.name+" ("+r.fetchArg+")")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "recall: missing clones in %s: %s\n", reposDir, strings.Join(missing, ", "))
		return 2
	}
	fmt.Printf("%s: truth = %s\n", l.title, l.truth)
	fmt.Println("recall@k = |top k ∩ truth| / min(k, |truth|), precision@12 = |top 12 ∩ truth| / |top 12|, averaged over commits whose truth is not empty; empty = files listed on average when it is")
	fmt.Printf("%-28s %4s %4s %4s %5s | %-35s | %s\n", "", "", "", "", "", "engine", "baseline")
	fmt.Printf("%-28s %4s %4s %4s %5s | %5s %5s %5s %5s %5s %6s | %5s %5s %5s %5s\n", "repository", "cmts", "T>0", "T=0", "|T|", "r@5", "r@12", "p@12", "listed", "empty", "ms", "r@5", "r@12", "p@12", "empty")
	var sums repoSums
	for _, r := range l.repos {
		if (only != "" && r.name != only) || !sample.runs(r.heldOut) {
			continue
		}
		var se, sb score
		cache := filepath.Join(cacheDir, r.name, l.key+"-"+a.version)
		if err := benchRepoLang(a, filepath.Join(reposDir, r.name), r.name, n, cache, verbose, &se, &sb); err != nil {
			fmt.Fprintf(os.Stderr, "recall: %s: %v\n", r.name, err)
			return 1
		}
		sums.add(r.name, r.heldOut, &se, &sb)
	}
	allE := sums.finish("all (" + l.title + ")")
	if sample.set == "held-out" {
		return judgeHeldOut(allE)
	}
	r5, r12, p12, empty := allE.figures()
	fmt.Printf("targets over all: recall@12 %.3f (>= %.2f), recall@5 %.3f (>= %.2f), precision@12 %.3f (>= %.2f), empty %.1f (<= %.1f)\n",
		r12, langTargetRecall12, r5, langTargetRecall5, p12, langTargetPrecision, empty, langTargetEmptyAvg)
	if only != "" || sample.set == "tuned" {
		return 0
	}
	if allE.commits < langMinCommits {
		fmt.Printf("MISS: %d commits, fewer than %d\n", allE.commits, langMinCommits)
		return 1
	}
	if r12 < langTargetRecall12 || r5 < langTargetRecall5 || p12 < langTargetPrecision || empty > langTargetEmptyAvg {
		fmt.Println("MISS")
		return 1
	}
	fmt.Println("PASS")
	return 0
}

func benchRepoLang(a *analyzer, dir, name string, n int, cache string, verbose bool, se, sb *score) error {
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
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	shas, err := sample.commitsToTry(dir, orig, a.lang.globs...)
	if err != nil {
		return err
	}
	picked := 0
	for _, sha := range shas {
		if picked >= n {
			break
		}
		parents, err := git(dir, "rev-list", "--parents", "-n", "1", sha)
		if err != nil || len(strings.Fields(parents)) != 2 {
			continue
		}
		diff, err := git(dir, append([]string{"diff", "-M", "--no-color", "--no-ext-diff", sha + "^", sha, "--"}, a.lang.globs...)...)
		if err != nil {
			continue
		}
		if cs, err := candidates.ChangesFromDiff(diff); err != nil || len(cs) == 0 || len(cs) > 40 {
			continue
		}
		if _, err := git(dir, "checkout", "-q", "-f", sha); err != nil {
			// A clone that lacks a blob of the commit (a large binary
			// fetched without its content) cannot check it out; the
			// commit is skipped, the next checkout -f restores the tree.
			fmt.Fprintf(os.Stderr, "recall: %s %s skipped: %v\n", name, sha[:10], err)
			continue
		}
		changes, err := loadChanges(dir, sha)
		if err != nil {
			return err
		}
		t, err := a.truth(dir, changes, filepath.Join(cache, sha+".json"))
		if err != nil {
			return fmt.Errorf("%s: %w", sha[:10], err)
		}
		if !t.BodyChanged {
			continue
		}
		picked++
		tt := truth{Uses: t.Uses, Impact: t.Impact, Errors: t.Errors}
		base := func(dir string, changes []candidates.Change, k int) ([]string, error) {
			return a.lang.baseline(dir, changes, k)
		}
		if err := scoreCommit(dir, name, sha, changes, tt, base, verbose, se, sb); err != nil {
			return err
		}
	}
	return nil
}

// baseline is the textual method for the language: the identifiers of the
// changed lines (keywords left out), searched as whole words in the
// language's files, files ranked by matching lines.
func (l *analyzedLang) baseline(dir string, changes []candidates.Change, k int) ([]string, error) {
	ws := map[string]bool{}
	changed := map[string]bool{}
	onLines := func(src []byte, lines []int) {
		all := bytes.Split(src, []byte("\n"))
		for _, n := range lines {
			if n >= 1 && n <= len(all) {
				for _, w := range l.ident.FindAll(all[n-1], -1) {
					if !l.reserved[string(w)] {
						ws[string(w)] = true
					}
				}
			}
		}
	}
	for _, c := range changes {
		changed[c.Path] = true
		if c.OldPath != "" {
			changed[c.OldPath] = true
		}
		if !l.owns(c.Path) {
			continue
		}
		onLines(c.New, c.AddedLines)
		onLines(c.Old, c.RemovedLines)
	}
	if len(ws) == 0 {
		return nil, nil
	}
	return grepRank(dir, ws, l.globs, k, func(p string) bool {
		if changed[p] || skipped(p) {
			return false
		}
		for _, d := range l.exclude {
			if strings.Contains("/"+p, "/"+d+"/") {
				return false
			}
		}
		return true
	})
}
