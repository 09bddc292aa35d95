package main

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates"
)

// baseline is the textual method the engine is compared with: the
// identifiers of the changed lines (added and removed, keywords and
// predeclared names left out), searched as whole words in the repository's
// Go files with git grep, files ranked by the number of matching lines.
func baseline(dir string, changes []candidates.Change, k int) ([]string, error) {
	words := map[string]bool{}
	changed := map[string]bool{}
	for _, c := range changes {
		changed[c.Path] = true
		if c.OldPath != "" {
			changed[c.OldPath] = true
		}
		if !strings.HasSuffix(c.Path, ".go") {
			continue
		}
		identsOnLines(c.New, c.AddedLines, words)
		identsOnLines(c.Old, c.RemovedLines, words)
	}
	if len(words) == 0 {
		return nil, nil
	}
	return grepRank(dir, words, []string{"*.go"}, k, func(p string) bool { return !changed[p] && !skipped(p) })
}

// grepRank is the textual search both baselines share: the words as whole
// words in the files matching globs (git grep), files that keep accepts
// ranked by the number of matching lines, the top k.
func grepRank(dir string, words map[string]bool, globs []string, k int, keep func(path string) bool) ([]string, error) {
	// One extended regexp of the words, longest first: git grep -w -F with
	// hundreds of fixed strings, one of them a letter, takes minutes on a
	// large tree, the alternation under a second. A word is an identifier,
	// $ its one character an extended regexp reads otherwise.
	alts := make([]string, 0, len(words))
	for w := range words {
		alts = append(alts, strings.ReplaceAll(w, "$", `\$`))
	}
	sort.Slice(alts, func(i, j int) bool {
		if len(alts[i]) != len(alts[j]) {
			return len(alts[i]) > len(alts[j])
		}
		return alts[i] < alts[j]
	})
	args := []string{"-C", dir, "grep", "-c", "-w", "-E", "-I", "--no-color", "-e", "(" + strings.Join(alts, "|") + ")", "--"}
	args = append(args, globs...)
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil, nil
		}
		return nil, err
	}
	type hit struct {
		path string
		n    int
	}
	var hits []hit
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		n, _ := strconv.Atoi(line[i+1:])
		if p := line[:i]; keep(p) {
			hits = append(hits, hit{p, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].n != hits[j].n {
			return hits[i].n > hits[j].n
		}
		return hits[i].path < hits[j].path
	})
	var paths []string
	for i := 0; i < len(hits) && i < k; i++ {
		paths = append(paths, hits[i].path)
	}
	return paths, nil
}

var predeclared = map[string]bool{
	"bool": true, "byte": true, "error": true, "int": true, "int64": true, "string": true, "rune": true,
	"uint": true, "any": true, "true": true, "false": true, "nil": true, "iota": true, "append": true,
	"len": true, "cap": true, "make": true, "new": true, "panic": true, "recover": true, "_": true,
}

// identsOnLines adds the identifiers found on the given lines of src.
func identsOnLines(src []byte, lines []int, into map[string]bool) {
	if src == nil || len(lines) == 0 {
		return
	}
	want := map[int]bool{}
	for _, l := range lines {
		want[l] = true
	}
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		if tok == token.IDENT && want[fset.Position(pos).Line] && !predeclared[lit] {
			into[lit] = true
		}
	}
}

// changesFuncBody reports whether a commit changes lines inside the body of
// a Go function of a file that exists on both sides.
func changesFuncBody(dir, sha string, changes []candidates.Change) bool {
	for _, c := range changes {
		if c.Status != candidates.StatusModified || !strings.HasSuffix(c.Path, ".go") || len(c.AddedLines) == 0 {
			continue
		}
		src, err := git(dir, "show", sha+":"+c.Path)
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, c.Path, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		lines := map[int]bool{}
		for _, l := range c.AddedLines {
			lines[l] = true
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			for l := fset.Position(fd.Body.Lbrace).Line + 1; l < fset.Position(fd.Body.Rbrace).Line; l++ {
				if lines[l] {
					return true
				}
			}
		}
	}
	return false
}
