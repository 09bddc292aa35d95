package collect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/diff"
	"github.com/prscout/prscout/pipeline/readahead"
	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/scope"
)

// collectRange resolves base and head, diffs head against their merge base
// with in.ContextLines (default lim.ContextLines, 30), reads the
// new sources at head and assembles the context and the scout prompt. When
// diffs is a ChangeLister and repo a FilesReader, the sources are read while
// the diff runs.
//
// Missing head or base and contextLines outside 0..1000 fail with an
// *InvalidError naming the field; an unknown revision wraps ErrNotFound and
// names it.
func collectRange(ctx context.Context, repo pipeline.Repository, diffs pipeline.DiffSource, in ContextInput, lim pipeline.Limits) (ContextResult, error) {
	if strings.TrimSpace(in.Head) == "" {
		return ContextResult{}, pipeline.Invalidf("head", "required")
	}
	if strings.TrimSpace(in.Base) == "" {
		return ContextResult{}, pipeline.Invalidf("base", "required")
	}
	contextLines := lim.WithDefaults().ContextLines
	if in.ContextLines != nil {
		contextLines = *in.ContextLines
		if contextLines < 0 || contextLines > maxContextLines {
			return ContextResult{}, pipeline.Invalidf("contextLines", "must be between 0 and %d", maxContextLines)
		}
	}
	r := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
	search := in.search
	if search == nil {
		search, _ = repo.(pipeline.CodeSearch)
	}
	head, err := pipeline.ResolveCommit(ctx, repo, r, "head", in.Head)
	if err != nil {
		return ContextResult{}, err
	}
	base, err := pipeline.ResolveCommit(ctx, repo, r, "base", in.Base)
	if err != nil {
		return ContextResult{}, err
	}
	// The diff, the read-ahead of the changed sources and the rule and
	// instruction files run at once: the diff is the longest, and none
	// needs another's answer. A scope failure still wins over a diff one.
	opts := pipeline.DiffOptions{ContextLines: contextLines}
	preCtx, cancelPre := context.WithCancel(ctx)
	defer cancelPre()
	type diffAnswer struct {
		raw []byte
		err error
	}
	diffDone := make(chan diffAnswer, 1)
	go func() {
		raw, err := diffs.Diff(preCtx, r, base, head, opts)
		if err != nil {
			cancelPre()
		}
		diffDone <- diffAnswer{raw, err}
	}()
	pre := readahead.Start(preCtx, repo, diffs, r, base, head, opts, defaultMaxSourceBytes, defaultMaxTotalSourceBytes)
	gates, rules, root, scopeWarnings, err := scopeOf(ctx, repo, r, base, in)
	if err != nil {
		cancelPre()
		<-diffDone
		if pre != nil {
			pre.Wait()
		}
		return ContextResult{}, err
	}
	instructions, warns := scope.ReadInstructions(ctx, repo, r, base, in.Instructions, root)
	scopeWarnings = append(scopeWarnings, warns...)
	d := <-diffDone
	raw, err := d.raw, d.err
	if pre != nil {
		repo = pre.Wait()
	}
	if err != nil {
		return ContextResult{}, fmt.Errorf("diff %s..%s: %w", in.Base, in.Head, err)
	}
	meta := ContextMeta{
		Repo:         r,
		PRID:         in.PRID,
		Head:         head,
		Base:         base,
		Mode:         "full",
		PR:           pipeline.PullRequest{Title: in.Title, Description: in.Description},
		Jira:         in.Jira,
		Rules:        in.Rules.Text,
		ContextLines: contextLines,
		Gates:        gates,
		PathRules:    rules,
		Instructions: instructions,
		Warnings:     scopeWarnings,
		Search:       search,
		SearchOff:    in.searchOff,
		Readings:     in.readings,
		OldFromDiff:  true,
	}
	meta.RequirementsText, meta.Criteria = in.Requirements.Text, in.Requirements.Criteria
	if len(in.JiraKeys) > 0 && len(in.Jira) == 0 {
		meta.Warnings = append(meta.Warnings, "jira keys "+strings.Join(in.JiraKeys, ", ")+" were not looked up")
	}
	return assemble(ctx, repo, meta, raw, lim)
}

// assemble is the provider-neutral core of /v1/context: it takes an
// already-fetched raw git diff (merge base..head, with meta.ContextLines of
// context), sorts its files into shown and excluded, reads the shown files'
// new sources at meta.Head (whole up to lim.FullSourceLines lines, otherwise
// labelled windows around the changes) and builds the scout prompt and stats.
//
// Each changed file passes meta.Gates (FileGates.Decide, in GateOrder) or is
// excluded with the gate's reason; a secret path's diff never reaches the
// prompt. A source that turns out binary when read is excluded as "binary".
//
// To keep a 20 MB change cheap, the result's strings alias rawDiff and the
// source bytes the repository returns instead of copying them: neither may be
// modified after the call.
func assemble(ctx context.Context, repo pipeline.Repository, meta ContextMeta, rawDiff []byte, lim pipeline.Limits) (ContextResult, error) {
	res := newContextResult(meta, len(rawDiff))
	if res.Mode == "skip" {
		res.Skip = true
		res.redactWarnings()
		return res, nil
	}
	lim.FullSourceLines = lim.WithDefaults().FullSourceLines
	pad := meta.ContextLines
	if pad < 0 {
		pad = 0
	}
	maxSource := meta.MaxSourceBytes
	if maxSource <= 0 {
		maxSource = defaultMaxSourceBytes
	}

	// No copy: every file's Diff is a substring of the raw diff itself.
	preamble, sections := diff.Split(bytesString(rawDiff))
	if strings.TrimSpace(preamble) != "" {
		res.Warnings = append(res.Warnings, "diff text before the first file ignored")
	}
	parsed, err := parseSections(ctx, sections)
	if err != nil {
		return ContextResult{}, err
	}
	if len(parsed) == 0 {
		res.Mode, res.Skip, res.SkipCode, res.SkipReason = "skip", true, SkipEmpty, skipEmptyReason
		res.redactWarnings()
		return res, nil
	}
	if meta.SkipTrivial {
		if reason := trivialReason(parsed, meta.Gates); reason != "" {
			res.Mode, res.Skip, res.SkipCode, res.SkipReason = "skip", true, SkipTrivial, reason
			res.redactWarnings()
			return res, nil
		}
	}
	shown := res.gate(parsed, meta.Gates)

	// Read the new sources of shown files that have changed lines.
	var want []int
	for i, d := range shown {
		if !d.Symlink && len(d.NewRanges) > 0 {
			want = append(want, i)
		}
	}
	guard := meta.MaxTotalSourceBytes
	if guard <= 0 {
		guard = defaultMaxTotalSourceBytes
	}
	// The candidates read the same head sources: they are kept for them
	// when the candidates will run.
	var heads map[string][]byte
	if lim.CandidatesMax > 0 && meta.Search != nil {
		heads = map[string][]byte{}
	}
	sources, err := readSources(ctx, repo, meta.Repo, meta.Head, shown, want, maxSource, guard, pad, lim.FullSourceLines, heads)
	if err != nil {
		return ContextResult{}, err
	}

	redacted := redactShown(shown, sources)
	rules := pipeline.NewRuleRedactor(res.Stats.Redactions)
	learned := map[string]bool{}
	// The candidates are handed the shown files' diffs as parsed here, from
	// the text git wrote (the answer's are redacted).
	var parsedShown []diffFile // by index in res.Files
	for i, d := range shown {
		sh, hasSource := sources[i]
		rule, kept := res.addShown(d, sh, hasSource, meta.PathRules, rules, maxSource, guard, &redacted[i])
		if kept && rule != "" {
			learned[rule] = true
		}
		if kept && lim.CandidatesMax > 0 {
			parsedShown = append(parsedShown, d)
		}
		shown[i] = diffFile{} // drop parsed ranges early
	}

	res.Stats.LearnedRules = len(learned)
	if heads != nil && res.mayGroup(lim) {
		// The review groups' planning reads the files alone: it starts
		// in the background, and the groups a review cannot keep are
		// dropped before the candidates are found for the files left.
		res.startPlanPrep(lim.WithDefaults().MaxPromptChars)
		if kept := res.dropAhead(lim); kept != nil && parsedShown != nil {
			left := make([]diffFile, len(kept))
			for i, k := range kept {
				left[i] = parsedShown[k]
			}
			parsedShown = left
		}
	}
	res.findCandidates(ctx, repo, meta, lim, heads, parsedShown)
	res.finish(lim)
	res.countMemo = nil
	res.redactWarnings()
	return res, nil
}

// addShown adds one shown file to the answer: its path rule, its source
// (or a warning saying why it is not shown), everything redacted. A source
// that turns out binary excludes the file (kept false). rule names the
// learned rule that applied, "" when none did.
func (res *ContextResult) addShown(d diffFile, sh shapedSource, hasSource bool, pathRules *scope.RuleSet, rules *pipeline.RuleRedactor,
	maxSource, guard int64, red *redactedFile) (rule string, kept bool) {
	f := pipeline.ChangedFile{Path: d.Path, OldPath: d.OldPath, Status: string(d.Status), Language: scope.Language(d.Path), Diff: d.Section}
	if pathRules != nil {
		m := pathRules.Resolve(d.Path)
		f.Rules, f.RuleSource = rules.Redact(m.Rule), ruleSourceLabel(m)
		if m.Learned {
			rule = m.Layer + "\x00" + m.Pattern + "\x00" + m.Rule
		}
	}
	if hasSource {
		switch {
		case errors.Is(sh.Err, pipeline.ErrBinary):
			res.exclude(d.Path, "binary")
			return "", false
		case errors.Is(sh.Err, pipeline.ErrTooLarge):
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: source not shown (over %d bytes); the diff is shown", d.Path, maxSource))
		case errors.Is(sh.Err, errSourceGuard):
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: source not shown (sources of this change over %d bytes); the diff is shown", d.Path, guard))
		case sh.Err != nil:
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: source not shown: %v", d.Path, sh.Err))
		default:
			f.Source, f.SourceRange = sh.Source, sh.Range
		}
	}
	// Nothing leaves prscout for a prompt before secrets are redacted.
	f.Diff = red.diff
	if f.Source != "" {
		f.Source = red.source
	}
	for k, n := range red.counts {
		res.Stats.Redactions[k] += n
	}
	res.Stats.Additions += len(d.Added)
	res.Stats.Deletions += len(d.Removed)
	res.Files = append(res.Files, f)
	return rule, true
}

// redactedFile is a shown file's diff and source with secrets redacted
// (redact.Secrets), and what was redacted in them by kind.
type redactedFile struct {
	diff, source string
	counts       map[string]int
}

// redactShown redacts each shown file's diff and the source addShown
// would show (sources' entry without an error), on every core: addShown
// takes them, and adds the counts of the files it keeps.
func redactShown(shown []diffFile, sources map[int]shapedSource) []redactedFile {
	out := make([]redactedFile, len(shown))
	pipeline.Parallel(len(shown), func(i int) {
		r := &out[i]
		r.counts = map[string]int{}
		r.diff = redact.Secrets(shown[i].Section, r.counts)
		if sh, ok := sources[i]; ok && sh.Err == nil && sh.Source != "" {
			r.source = redact.Secrets(sh.Source, r.counts)
		}
	})
	return out
}

// newContextResult starts the answer from meta: every list empty, never
// nil, and the mode full unless meta says otherwise. The pull request's
// text, Jira text, rules and requirements are redacted here, before
// anything else reads them.
func newContextResult(meta ContextMeta, diffBytes int) ContextResult {
	redactions, answerOnly := map[string]int{}, map[string]int{}
	meta.PR = pipeline.RedactPR(meta.PR, redactions)
	meta.Jira = pipeline.RedactIssues(meta.Jira, redactions, answerOnly)
	meta.Rules = redact.Secrets(meta.Rules, redactions)
	instructions := make([]pipeline.InstructionFile, 0, len(meta.Instructions))
	for _, f := range meta.Instructions {
		f.Content = redact.Secrets(f.Content, redactions)
		instructions = append(instructions, f)
	}
	meta.RequirementsText = redact.Secrets(meta.RequirementsText, redactions)
	meta.Criteria = pipeline.RedactCriteria(meta.Criteria, redactions)
	res := ContextResult{
		Mode:           meta.Mode,
		SkipReason:     redact.Secrets(meta.SkipReason, redactions), // it may quote the author's name
		SkipCode:       meta.SkipCode,
		Interdiff:      meta.Interdiff,
		Workspace:      meta.Repo.Workspace,
		RepoSlug:       meta.Repo.RepoSlug,
		PRID:           meta.PRID,
		Ref:            meta.Head,
		Base:           meta.Base,
		ReviewedCommit: meta.ReviewedCommit,
		PR:             meta.PR,
		Jira:           nonNil(meta.Jira),
		Rules:          meta.Rules,
		Instructions:   instructions,
		Files:          []pipeline.ChangedFile{},
		Excluded:       []pipeline.Excluded{},
		Candidates:     []pipeline.Candidate{},
		Warnings:       append([]string{}, meta.Warnings...),
	}
	res.RequirementsText, res.Requirements = meta.RequirementsText, pipeline.CriteriaOf(meta.Criteria, meta.Jira)
	res.Stats.ExcludedByReason = map[string]int{}
	res.Stats.ShownRanges = []string{}
	res.Stats.Redactions = redactions
	res.answerOnly = answerOnly
	res.Coverage = pipeline.CoverageOf(0, nil)
	res.Stats.DiffBytes = diffBytes
	if res.Mode == "" {
		res.Mode = "full"
	}
	return res
}

// gate runs the file gates over the parsed diff: excluded files are recorded
// with their reason, the rest are returned to be shown.
func (res *ContextResult) gate(parsed []diffFile, gates scope.FileGates) []diffFile {
	var shown []diffFile
	for _, d := range parsed {
		gf := scope.GateFile{Path: d.Path, OldPath: d.OldPath, Status: string(d.Status), Binary: d.Binary, Submodule: d.Submodule}
		if reason := gates.Decide(gf); reason != "" {
			res.exclude(d.Path, reason)
			continue
		}
		shown = append(shown, d)
	}

	return shown
}

// finish counts the shown files' stats and coverage, forms the review
// groups and writes the scout prompt (formGroups).
func (res *ContextResult) finish(lim pipeline.Limits) {
	res.recount()
	res.formGroups(lim)
	// Split into groups, the sources are shown by the groups' prompts.
	prompts := res.Stats.PromptChars
	if len(res.Groups) > 1 {
		prompts = 0
		for _, g := range res.Groups {
			prompts += g.Stats.PromptChars
		}
	}
	if prompts > 0 {
		res.Stats.SourceShare = math.Round(float64(res.Stats.SourceChars)/float64(prompts)*1e4) / 1e4
	}
	for i := range res.Groups {
		if st := &res.Groups[i].Stats; st.PromptChars > 0 {
			st.SourceShare = math.Round(float64(st.SourceChars)/float64(st.PromptChars)*1e4) / 1e4
		}
	}
}

// redactWarnings redacts the warnings (they may quote upstream error text)
// and adds the counts that only the answer carries: the last step of an
// answer, after the scout prompt's note is written.
func (res *ContextResult) redactWarnings() {
	pipeline.AddCounts(res.Stats.Redactions, res.answerOnly)
	res.answerOnly = nil
	for i, w := range res.Warnings {
		res.Warnings[i] = redact.Secrets(w, res.Stats.Redactions)
	}
}

// parseSections parses diff sections on all cores, keeping their order.
func parseSections(ctx context.Context, sections []string) ([]diffFile, error) {
	out := make([]diffFile, len(sections))
	workers := min(runtime.GOMAXPROCS(0), len(sections), 8)
	if workers <= 1 {
		for i, sec := range sections {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := parseSection(sec)
			if err != nil {
				return nil, fmt.Errorf("parse diff: %w", err)
			}
			out[i] = d
		}
		return out, nil
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for i, sec := range sections {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			d, err := parseSection(sec)
			if err != nil {
				return fmt.Errorf("parse diff: %w", err)
			}
			out[i] = d
			return nil
		})
	}
	first := g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// bytesString views b as a string without copying. The context stage owns
// the raw diff and the source bytes handed to it and never changes them; the
// strings it returns alias them.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// exclude records an excluded file.
func (r *ContextResult) exclude(p, reason string) {
	r.Excluded = append(r.Excluded, pipeline.Excluded{Path: p, Reason: reason})
	r.Stats.ExcludedByReason[reason]++
}

// shapedSource is a changed file's source as the prompt shows it, or why not.
type shapedSource struct {
	Source string
	Range  *pipeline.SourceRange
	Err    error
}

// readSources reads the new sources of shown[want...] at commit and shapes
// each as soon as it arrives (whole, or labelled windows padded by pad lines),
// so a long file costs only its windows. It reads through FilesReader when the
// repository offers it (in file order), otherwise with ReadFile, at most
// sourceParallel at once. Once the kept sources reach guard bytes, further
// files get errSourceGuard. Per-file failures are in the map; only a
// cancelled context or a whole-call failure is an error. When heads is not
// nil, the bytes of each source read, up to candidateSourceMax, are kept in
// it by path.
func readSources(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string, shown []diffFile, want []int,
	maxBytes, guard int64, pad, fullLines int, heads map[string][]byte) (map[int]shapedSource, error) {
	out := make(map[int]shapedSource, len(want))
	if len(want) == 0 {
		return out, nil
	}
	var (
		mu   sync.Mutex
		kept int64
	)
	shape := func(i int, data []byte, err error) {
		sh := shapedSource{Err: err}
		if err == nil {
			sh.Source, sh.Range = shapeSource(data, shown[i].NewRanges, pad, fullLines)
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil && heads != nil && len(data) <= candidateSourceMax {
			heads[shown[i].Path] = data
		}
		if sh.Err == nil {
			if kept+int64(len(sh.Source)) > guard {
				sh = shapedSource{Err: errSourceGuard}
			} else {
				kept += int64(len(sh.Source))
			}
		}
		out[i] = sh
	}
	if fr, ok := repo.(pipeline.FilesReader); ok {
		paths := make([]string, len(want))
		for k, i := range want {
			paths[k] = shown[i].Path
		}
		calls := 0
		err := fr.ReadFiles(ctx, r, commit, paths, maxBytes, func(k int, data []byte, err error) {
			if k < 0 || k >= len(want) {
				return
			}
			calls++
			shape(want[k], data, err)
		})
		if err != nil {
			return nil, fmt.Errorf("read changed sources: %w", err)
		}
		if calls != len(want) {
			return nil, fmt.Errorf("read changed sources: %d answers for %d files", calls, len(want))
		}
		return out, nil
	}
	// Each file keeps its own read error (shape records it), so the
	// goroutines return nil: one failed read never fails the others.
	var g errgroup.Group
	g.SetLimit(sourceParallel)
	for _, i := range want {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			data, err := repo.ReadFile(ctx, r, commit, shown[i].Path, maxBytes)
			shape(i, data, err)
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read changed sources: %w", err)
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ruleSourceLabel names where a file's rules came from, e.g.
// "repository .prscout/rules.json@1a2b3c4d5e6f, pattern src/**/*.go".
func ruleSourceLabel(m scope.RuleMatch) string {
	switch m.Layer {
	case scope.LayerNone:
		return ""
	case scope.LayerBuiltin:
		return "built-in " + m.Pattern
	}
	s := m.Layer
	if m.Source != "" && m.Source != m.Layer {
		s += " " + m.Source
	}
	s += ", pattern " + m.Pattern
	if m.MergedSystemRule {
		s += " + built-in"
	}
	return s
}
