package main

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/cochange"
)

// ccDumper writes, with -dump, each tuning commit's signals as one JSON
// line, to weigh the ranking's signals offline: prscout's whole answer
// (each candidate's method, score and reason), every file the identifier
// baseline finds with its matching lines, the shown file's directory and
// every pair the history answers. Held-out repositories are never
// dumped: nothing is tuned on them.
type ccDumper struct {
	mu sync.Mutex
	f  *os.File
}

// ccRecord is one commit's line of the dump.
type ccRecord struct {
	Repo, Lang, Sha, Shown string
	Truth                  []string
	Prscout                []ccDumpCandidate
	Grep                   map[string]int // path -> matching lines
	GrepOrder              []string
	SameDir                []string // every file of the shown file's directory
	Pairs                  []ccDumpPair
}

type ccDumpCandidate struct {
	Path   string  `json:"p"`
	Method string  `json:"m"`
	Score  float64 `json:"s"`
	Test   bool    `json:"t"`
	Kind   string  `json:"k"`
	Reason string  `json:"r"`
}

type ccDumpPair struct {
	With     string `json:"w"`
	Together int    `json:"n"`
	Touching int    `json:"of"`
}

// ccDumpMax is the number of candidates prscout answers in the dump.
const ccDumpMax = 60

// record gathers one commit's signals, at tree, for the change ch.
func (d *ccDumper) record(ctx context.Context, r ccRepo, tree pipeline.CodeTree, dir string, c ccCommit, changes []candidates.Change) error {
	rec := ccRecord{Repo: r.name, Lang: r.lang, Sha: c.sha, Shown: c.shown, Grep: map[string]int{}}
	for p := range c.truth {
		rec.Truth = append(rec.Truth, p)
	}
	got, _ := candidates.Find(ctx, tree, changes, candidates.Options{Max: ccDumpMax, HistoryAt: c.parent})
	for _, g := range got {
		rec.Prscout = append(rec.Prscout, ccDumpCandidate{g.Path, string(g.Method), g.Score, g.Test, string(g.Kind), g.Reason})
	}
	for _, h := range ccGrepAll(dir, c, &changes[0]) {
		rec.Grep[h.p] = h.n
		rec.GrepOrder = append(rec.GrepOrder, h.p)
	}
	spec := path.Dir(c.shown) + "/"
	if spec == "./" {
		spec = "."
	}
	out, err := git(dir, "ls-tree", "--name-only", c.sha, "--", spec)
	if err != nil {
		return err
	}
	for _, p := range strings.Split(strings.TrimSpace(out), "\n") {
		if p != "" && p != c.shown {
			rec.SameDir = append(rec.SameDir, p)
		}
	}
	if h, ok := tree.(interface {
		CoChanged(context.Context, string, []string) ([]cochange.Pair, error)
	}); ok {
		pairs, err := h.CoChanged(ctx, c.parent, []string{c.shown})
		if err != nil {
			return err
		}
		for _, p := range pairs {
			if _, err := git(dir, "cat-file", "-e", c.sha+":"+p.With); err == nil {
				rec.Pairs = append(rec.Pairs, ccDumpPair{p.With, p.Together, p.Touching})
			}
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err = d.f.Write(append(b, '\n'))
	return err
}
