package collect

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/diff"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/scope"
	"golang.org/x/sync/errgroup"
)

// noSearchReason is the warning's reason when the provider cannot search
// code and the wiring gave no better one.
const noSearchReason = "the repository provider cannot search code"

// oldReadParallel is how many base-side sources are read at once through
// a code tree.
const oldReadParallel = 4

// candidateSourceMax is the largest source the candidates read, as large
// as a code tree reads (larger files are generated code or data).
const candidateSourceMax = 2 << 20

// findCandidates lists the context candidates of the shown files (see
// pipeline/candidates): files outside the change that declare what the
// change uses or refer to what it changed, ranked, at most
// lim.CandidatesMax, each with why. New sources are read from the code tree
// at the head; old sources at the diff's old side (the reviewed commit of a
// delta, otherwise the merge base of base and head). The search has
// lim.CandidatesBudget: when it runs out, what was found is listed with a
// warning. A provider without code search lists none, with a warning.
// Candidates never name a changed file (shown or excluded), a secret path or
// a default path (/v1/needs would refuse them).
//
// shown holds the parsed diffs of res.Files (by index), as git wrote them,
// which say the changes; with meta.OldFromDiff their sections rebuild the
// old sources they can say. heads holds head sources already read (by
// path). repo, when it is a FilesReader, reads the other old sources in one
// batch.
func (res *ContextResult) findCandidates(ctx context.Context, repo pipeline.Repository, meta ContextMeta, lim pipeline.Limits, heads map[string][]byte, shown []diffFile) {
	if lim.CandidatesMax <= 0 || len(res.Files) == 0 {
		return
	}
	changes, sections := changesOf(shown)
	if len(changes) == 0 {
		return
	}
	for i := range changes {
		if changes[i].Status != candidates.StatusDeleted {
			changes[i].New = heads[changes[i].Path]
		}
	}
	if meta.Search == nil {
		reason := meta.SearchOff
		if reason == "" {
			reason = noSearchReason
		}
		res.Warnings = append(res.Warnings, "candidates: none listed: "+reason)
		return
	}
	start := time.Now()
	defer func() { res.Stats.CandidatesMs = int(time.Since(start).Milliseconds()) }()
	budget := lim.CandidatesBudget
	cctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	stopped := func(err error) bool { return ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) }

	// The code tree opens while the old sides are rebuilt from the diff.
	type opened struct {
		tree pipeline.CodeTree
		err  error
	}
	treeDone := make(chan opened, 1)
	go func() {
		tree, err := meta.Search.OpenTree(cctx, meta.Repo, meta.Head)
		treeDone <- opened{tree, err}
	}()
	if meta.OldFromDiff {
		rebuildOld(changes, sections)
	}
	o := <-treeDone
	tree, err := o.tree, o.err
	if err != nil {
		if stopped(err) {
			err = fmt.Errorf("the repository was not searchable within %s (PRSCOUT_CANDIDATES_BUDGET)", budget)
		}
		res.Warnings = append(res.Warnings, "candidates: none listed: "+err.Error())
		return
	}
	defer tree.Close()
	readOld(cctx, repo, meta, changes)

	got, err := candidates.Find(cctx, tree, changes, candidates.Options{Max: lim.CandidatesMax + len(res.Excluded) + 4, Cache: meta.Readings, HistoryAt: meta.Base})
	var cut *candidates.CutError
	switch {
	case err == nil:
	case errors.As(err, &cut):
		res.Warnings = append(res.Warnings, "candidates: the search read only part of the files: "+strings.Join(cut.What, "; ")+"; listing what it found")
	case stopped(err):
		res.Warnings = append(res.Warnings, fmt.Sprintf("candidates: the search stopped after %s (PRSCOUT_CANDIDATES_BUDGET); listing what it found", budget))
	case ctx.Err() != nil:
		return // the request is gone
	default:
		res.Warnings = append(res.Warnings, "candidates: none listed: "+err.Error())
		return
	}
	if langs := candidates.IdentifierOnly(changes); len(langs) > 0 {
		res.Warnings = append(res.Warnings, "candidates: "+strings.Join(langs, ", ")+" files were searched by identifiers only: this build has no cgo for their tree-sitter readers")
	}
	skip := map[string]bool{}
	for _, e := range res.Excluded {
		skip[e.Path] = true
	}
	for _, c := range got {
		if len(res.Candidates) == lim.CandidatesMax {
			break
		}
		if skip[c.Path] || scope.IsSecretPath(c.Path) || scope.IsDefaultPath(c.Path) {
			continue
		}
		res.Candidates = append(res.Candidates, pipeline.Candidate{
			Path: c.Path, Kind: string(c.Kind), Reason: c.Reason, Symbols: nonNil(c.Symbols),
			Method: string(c.Method), Score: c.Score, Test: c.Test,
		})
	}
}

// changesOf turns the shown files' parsed diffs into the engine's changes
// (paths, statuses and changed lines; contents are read later), each with
// its diff section.
func changesOf(shown []diffFile) ([]candidates.Change, []string) {
	var out []candidates.Change
	var sections []string
	for _, d := range shown {
		if c, ok := candidates.ChangeOf(d.Summary); ok {
			out, sections = append(out, c), append(sections, d.Section)
		}
	}
	return out, sections
}

// rebuildOld sets the old side of the changes whose raw diff section (by
// index) and new source say it (diff.OldSide) as a read at the diff's old
// commit gives it: up to candidateSourceMax bytes, text only
// (pipeline.LooksBinary), on every core. A change without its new source
// read is left to readOld.
func rebuildOld(changes []candidates.Change, sections []string) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range changes {
		c := &changes[i]
		switch c.Status {
		case candidates.StatusModified, candidates.StatusRenamed:
			if c.New == nil {
				continue
			}
		case candidates.StatusDeleted:
		default:
			continue
		}
		g.Go(func() error {
			old, ok := diff.OldSide(sections[i], c.New)
			if ok && len(old) > 0 && len(old) <= candidateSourceMax && !pipeline.LooksBinary(old) {
				c.Old = old
			}
			return nil
		})
	}
	_ = g.Wait()
}

// readOld reads the old side of the changes that have one and have none
// yet, when an engine reads them (candidates.Reads): in one batch when
// repo is a FilesReader, otherwise through a code tree. Failures leave Old
// nil: removed declarations of that file then go unseen.
func readOld(ctx context.Context, repo pipeline.Repository, meta ContextMeta, changes []candidates.Change) {
	var todo []int
	for i, c := range changes {
		if c.Status != candidates.StatusAdded && c.Old == nil && candidates.Reads(c) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return
	}
	old := meta.ReviewedCommit
	if meta.Mode != "delta" || old == "" {
		if meta.Base == "" {
			return
		}
		old = meta.Base
		if mb, err := meta.Search.MergeBase(ctx, meta.Repo, meta.Base, meta.Head); err == nil && mb != "" {
			old = mb
		}
	}
	if fr, ok := repo.(pipeline.FilesReader); ok {
		var paths []string
		var idx []int
		for _, i := range todo {
			c := changes[i]
			p := c.Path
			if c.OldPath != "" {
				p = c.OldPath
			}
			paths, idx = append(paths, p), append(idx, i)
		}
		if len(paths) == 0 {
			return
		}
		_ = fr.ReadFiles(ctx, meta.Repo, old, paths, candidateSourceMax, func(k int, data []byte, err error) {
			if err == nil && k >= 0 && k < len(idx) {
				changes[idx[k]].Old = data
			}
		})
		return
	}
	tree, err := meta.Search.OpenTree(ctx, meta.Repo, old)
	if err != nil {
		return
	}
	defer tree.Close()
	// A file whose old side cannot be read is left without it: the
	// goroutines return nil.
	var g errgroup.Group
	g.SetLimit(oldReadParallel)
	for _, i := range todo {
		c := &changes[i]
		p := c.Path
		if c.OldPath != "" {
			p = c.OldPath
		}
		g.Go(func() error {
			if b, err := tree.ReadFile(ctx, p); err == nil {
				c.Old = b
			}
			return nil
		})
	}
	_ = g.Wait()
}

// candidatesPrompt renders the candidates for the scout: one line each, the
// weaker textual evidence labelled.
func candidatesPrompt(cs []pipeline.Candidate) string {
	var b strings.Builder
	writeCandidatesPrompt(&b, cs)
	return b.String()
}

// writeCandidatesPrompt writes candidatesPrompt's answer to b.
func writeCandidatesPrompt(b merge.Writer, cs []pipeline.Candidate) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("\n# Candidates (" + strconv.Itoa(len(cs)) + ")\n\n")
	b.WriteString("prscout found these files outside the change by reading the code: \"uses\" files declare names the change uses, \"impact\" files refer to names the change modified or removed (\"history\": files that changed together with the changed ones before). You may ask for these; ask only for those the review needs.\n\n")
	for _, c := range cs {
		b.WriteString("- " + c.Path + " (" + c.Kind)
		switch c.Method {
		case string(candidates.MethodIdentifier):
			b.WriteString(", identifier search")
		case string(candidates.MethodTextual):
			b.WriteString(", textual")
		case string(candidates.MethodCoChange):
			b.WriteString(", history")
		}
		if c.Test {
			b.WriteString(", test")
		}
		b.WriteString("): " + pipeline.OneLine(c.Reason) + "\n")
	}
}
