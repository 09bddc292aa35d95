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

// tsRepos are the TypeScript repositories of "recall -lang ts". The
// held-out one took no part in tuning the token engine.
var tsRepos = []struct {
	name     string
	heldOut  bool
	fetchArg string
}{
	{"sindresorhus+ky", false, "github:sindresorhus/ky"},
	{"pmndrs+zustand", true, "github:pmndrs/zustand"},
}

// tsGlobs are the pathspecs of the files the TypeScript truth compiles.
var tsGlobs = []string{"*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"}

// tsTruth is the answer of ts/truth.mjs (see there).
type tsTruth struct {
	Uses        []string `json:"uses"`
	Impact      []string `json:"impact"`
	Errors      int      `json:"errors"`
	BodyChanged bool     `json:"bodyChanged"`
}

// recallTS is "recall -lang ts": the newest -n commits of each repository of
// tsRepos that change a function or method body, truth from the TypeScript
// compiler and language service (ts/truth.mjs run by node from -tsdir, where
// npm ci installed its pinned typescript).
func recallTS(reposDir string, n int, cacheDir, tsDir string, verbose bool, only string) int {
	if tsDir == "" {
		fmt.Fprintln(os.Stderr, "recall: -lang ts needs -tsdir, a copy of scripts/bench/candidates/ts with its dependencies installed (npm ci)")
		return 2
	}
	script := filepath.Join(tsDir, "truth.mjs")
	src, err := os.ReadFile(script)
	if err != nil {
		fmt.Fprintf(os.Stderr, "recall: -tsdir: %v\n", err)
		return 2
	}
	if _, err := os.Stat(filepath.Join(tsDir, "node_modules", "typescript")); err != nil {
		fmt.Fprintf(os.Stderr, "recall: -tsdir %s has no node_modules/typescript: run npm ci there\n", tsDir)
		return 2
	}
	sum := sha256.Sum256(src)
	version := hex.EncodeToString(sum[:6])
	var missing []string
	for _, r := range tsRepos {
		if _, err := os.Stat(filepath.Join(reposDir, r.name, ".git")); err != nil {
			missing = append(missing, r.name+" ("+r.fetchArg+")")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "recall: missing clones in %s: %s\n", reposDir, strings.Join(missing, ", "))
		return 2
	}
	fmt.Println("TypeScript: truth = the TypeScript compiler's symbols of identifiers on added lines (uses) and the language service's findReferences of touched declarations (impact)")
	fmt.Println("recall@k = |top k ∩ truth| / min(k, |truth|), precision@12 = |top 12 ∩ truth| / |top 12|, averaged over commits whose truth is not empty; empty = files listed on average when it is")
	fmt.Printf("%-28s %4s %4s %4s %5s | %-35s | %s\n", "", "", "", "", "", "engine", "baseline")
	fmt.Printf("%-28s %4s %4s %4s %5s | %5s %5s %5s %5s %5s %6s | %5s %5s %5s %5s\n", "repository", "cmts", "T>0", "T=0", "|T|", "r@5", "r@12", "p@12", "listed", "empty", "ms", "r@5", "r@12", "p@12", "empty")
	var allE, allB score
	for _, r := range tsRepos {
		if only != "" && r.name != only {
			continue
		}
		var se, sb score
		cache := filepath.Join(cacheDir, r.name, "ts-"+version)
		if err := benchRepoTS(filepath.Join(reposDir, r.name), r.name, n, cache, tsDir, verbose, &se, &sb); err != nil {
			fmt.Fprintf(os.Stderr, "recall: %s: %v\n", r.name, err)
			return 1
		}
		allE.merge(&se)
		allB.merge(&sb)
		label := r.name
		if r.heldOut {
			label += " (held out)"
		}
		fmt.Println(se.row(label, &sb))
	}
	fmt.Println(allE.row("all (TypeScript)", &allB))
	if allE.commits < 20 {
		fmt.Printf("MISS: %d commits, fewer than 20\n", allE.commits)
		return 1
	}
	// The TypeScript figures are reported, not held to the Go targets: the
	// token engine has no type information.
	return 0
}

func benchRepoTS(dir, name string, n int, cache, tsDir string, verbose bool, se, sb *score) error {
	orig, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	orig = strings.TrimSpace(orig)
	defer git(dir, "checkout", "-q", "-f", orig) //nolint:errcheck // best effort
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	out, err := git(dir, append([]string{"rev-list", "--no-merges", orig, "--"}, tsGlobs...)...)
	if err != nil {
		return err
	}
	picked := 0
	for _, sha := range strings.Fields(out) {
		if picked >= n {
			break
		}
		parents, err := git(dir, "rev-list", "--parents", "-n", "1", sha)
		if err != nil || len(strings.Fields(parents)) != 2 {
			continue
		}
		diff, err := git(dir, append([]string{"diff", "-M", "--no-color", "--no-ext-diff", sha + "^", sha, "--"}, tsGlobs...)...)
		if err != nil {
			continue
		}
		if cs, err := candidates.ChangesFromDiff(diff); err != nil || len(cs) == 0 || len(cs) > 40 {
			continue
		}
		if _, err := git(dir, "checkout", "-q", "-f", sha); err != nil {
			return err
		}
		changes, err := loadChanges(dir, sha)
		if err != nil {
			return err
		}
		t, err := cachedTSTruth(dir, changes, tsDir, filepath.Join(cache, sha+".json"))
		if err != nil {
			return fmt.Errorf("%s: %w", sha[:10], err)
		}
		if !t.BodyChanged {
			continue
		}
		picked++
		tt := truth{Uses: t.Uses, Impact: t.Impact, Errors: t.Errors}
		if err := scoreCommit(dir, name, sha, changes, tt, baselineTS, verbose, se, sb); err != nil {
			return err
		}
	}
	return nil
}

func isTSPath(p string) bool {
	for _, g := range tsGlobs {
		if strings.HasSuffix(p, g[1:]) {
			return true
		}
	}
	return false
}

func cachedTSTruth(dir string, changes []candidates.Change, tsDir, file string) (tsTruth, error) {
	var t tsTruth
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
		if !isTSPath(c.Path) {
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
	cmd := exec.Command("node", filepath.Join(tsDir, "truth.mjs"))
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return t, fmt.Errorf("truth.mjs: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(out, &t); err != nil {
		return t, fmt.Errorf("truth.mjs answer: %w", err)
	}
	return t, os.WriteFile(file, out, 0o644)
}

var (
	jsIdent    = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
	jsReserved = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else export
		extends false finally for function if import in instanceof new null return super switch this throw true
		try typeof var void while with yield let static enum await implements package protected interface private
		public as async from of type readonly declare abstract any boolean number string unknown never undefined
		keyof infer is satisfies get set`) {
		jsReserved[w] = true
	}
}

// baselineTS is the textual method for TypeScript: the identifiers of the
// changed lines (keywords left out), searched as whole words in the
// repository's TypeScript/JavaScript files, files ranked by matching lines.
func baselineTS(dir string, changes []candidates.Change, k int) ([]string, error) {
	words := map[string]bool{}
	changed := map[string]bool{}
	onLines := func(src []byte, lines []int) {
		all := bytes.Split(src, []byte("\n"))
		for _, l := range lines {
			if l >= 1 && l <= len(all) {
				for _, w := range jsIdent.FindAll(all[l-1], -1) {
					if !jsReserved[string(w)] {
						words[string(w)] = true
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
		if !isTSPath(c.Path) {
			continue
		}
		onLines(c.New, c.AddedLines)
		onLines(c.Old, c.RemovedLines)
	}
	if len(words) == 0 {
		return nil, nil
	}
	return grepRank(dir, words, tsGlobs, k, func(p string) bool {
		return !changed[p] && !skipped(p) && !strings.Contains("/"+p, "/node_modules/")
	})
}
