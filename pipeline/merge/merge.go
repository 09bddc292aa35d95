package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/lookup"
	"github.com/prscout/prscout/pipeline/redact"
)

// MergeContext is the part of the /v1/context answer the merge stage needs,
// with the same JSON names (a subset of ContextResult).
type MergeContext struct {
	Mode           string               `json:"mode"`
	Skip           bool                 `json:"skip"`
	Interdiff      bool                 `json:"interdiff,omitempty"`
	Workspace      string               `json:"workspace"`
	RepoSlug       string               `json:"repoSlug"`
	PRID           int                  `json:"prId,omitempty"`
	Ref            string               `json:"ref"`
	Base           string               `json:"base,omitempty"`
	ReviewedCommit string               `json:"reviewedCommit,omitempty"`
	PR             pipeline.PullRequest `json:"pr"`
	Jira           []pipeline.Issue     `json:"jira"`
	Rules          string               `json:"rules"`
	// Instructions are the repository's instruction files (AGENTS.md,
	// REVIEW.md, ...), shown as repository guidance.
	Instructions []pipeline.InstructionFile `json:"instructions,omitempty"`
	Files        []pipeline.ChangedFile     `json:"files"`
	Excluded     []pipeline.Excluded        `json:"excluded"`
	Coverage     *pipeline.Coverage         `json:"coverage,omitempty"`

	// Requirements are the acceptance criteria to judge; a string is read
	// as free requirements text (the context answer's shape before
	// criteria). Without criteria, the Jira issues' own are judged.
	Requirements     pipeline.RequirementsField `json:"requirements"`
	RequirementsText string                     `json:"requirementsText,omitempty"`
	// Group and Part are set when the context is one review group of a
	// large change (an item of the context answer's groups[]).
	Group string       `json:"group,omitempty"`
	Part  *groups.Part `json:"part,omitempty"`
}

// MergeInput is the body of /v1/merge: the context answer and the batch
// answer. It decodes from either shape n8n can build:
//
//	{"context": <context answer>, "results": [...], "rejected": [...]}
//	{<context answer's fields>, "results": [...], "rejected": [...]}
//
// and the batch answer may also come whole as "batch": {"results", "rejected"}.
type MergeInput struct {
	Context  MergeContext            `json:"context"`
	Results  []pipeline.LookupResult `json:"results"`
	Rejected []pipeline.Rejected     `json:"rejected"`

	nested bool // Context came from the "context" field (for error field paths)
}

// UnmarshalJSON accepts both input shapes (see MergeInput).
func (in *MergeInput) UnmarshalJSON(data []byte) error {
	var probe struct {
		Context  json.RawMessage         `json:"context"`
		Batch    json.RawMessage         `json:"batch"`
		Results  []pipeline.LookupResult `json:"results"`
		Rejected []pipeline.Rejected     `json:"rejected"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	*in = MergeInput{Results: probe.Results, Rejected: probe.Rejected}
	ctxData, prefix := data, ""
	if c := bytes.TrimSpace(probe.Context); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
		ctxData, prefix, in.nested = c, "context.", true
	}
	if err := json.Unmarshal(ctxData, &in.Context); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && prefix != "" {
			te.Field = prefix + te.Field
		}
		return err
	}
	if b := bytes.TrimSpace(probe.Batch); len(b) > 0 && !bytes.Equal(b, []byte("null")) {
		var batch struct {
			Results  []pipeline.LookupResult `json:"results"`
			Rejected []pipeline.Rejected     `json:"rejected"`
		}
		if err := json.Unmarshal(b, &batch); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = "batch." + te.Field
			}
			return err
		}
		if in.Results == nil {
			in.Results = batch.Results
		}
		if in.Rejected == nil {
			in.Rejected = batch.Rejected
		}
	}
	return nil
}

// MergeResult is the answer of /v1/merge: the second (review) pass's input.
type MergeResult struct {
	ReviewPass int `json:"reviewPass"` // always 2
	// AdditionalContext holds every lookup result, failures
	// and refusals kept so the reviewer knows what it could not read, and
	// context dropped for the budget turned into ok:false items.
	AdditionalContext []pipeline.ContextItem `json:"additionalContext"`
	ReviewPrompt      pipeline.Prompt        `json:"reviewPrompt"`
	Stats             MergeStats             `json:"stats"`
	Warnings          []string               `json:"warnings"`

	// Echoed for /v1/comments. Files carry path, oldPath, status and diff
	// only (no sources) to keep that request small.
	Workspace string                 `json:"workspace"`
	RepoSlug  string                 `json:"repoSlug"`
	PRID      int                    `json:"prId,omitempty"`
	Ref       string                 `json:"ref"`
	Mode      string                 `json:"mode"`
	Interdiff bool                   `json:"interdiff,omitempty"`
	Files     []pipeline.ChangedFile `json:"files"`
	Excluded  []pipeline.Excluded    `json:"excluded"`
	// Instructions name the instruction files the review prompt showed
	// (path, size, cut; no content), for the summary's coverage line.
	Instructions []pipeline.InstructionFile `json:"instructions,omitempty"`
	// Requirements are the acceptance criteria the review prompt asks a
	// verdict for; PRURL is the pull request's web page (pr.url), which
	// the summary's evidence links point into.
	Requirements []pipeline.Requirement `json:"requirements"`
	PRURL        string                 `json:"prUrl,omitempty"`
	// SourceBranch is the pull request's source branch (pr.sourceBranch),
	// which /v1/comments sets the build status on.
	SourceBranch string `json:"sourceBranch,omitempty"`
	// Coverage is the context's coverage with contextDropped set to the
	// additional context dropped here.
	Coverage pipeline.Coverage `json:"coverage"`
	// Group and Part echo the review group the context was (for
	// /v1/comments' reviews[]); empty for a whole change.
	Group string       `json:"group,omitempty"`
	Part  *groups.Part `json:"part,omitempty"`
}

// MergeStats are the counts of one merge, for the answer and for metrics.
type MergeStats struct {
	// PromptChars is the review prompt's size in characters (Unicode code
	// points) of system plus user.
	PromptChars int `json:"promptChars"`
	// Budget is Limits.MaxPromptChars (0 in Limits: the default).
	Budget int `json:"budget"`
	// Dropped lists the context items left out whole to meet the budget,
	// in the order they were dropped.
	Dropped []pipeline.DroppedContext `json:"dropped"`
	// ContextItems is len(additionalContext); Included counts those whose
	// content is in the prompt, Failed those with ok:false (unreadable,
	// refused or dropped).
	ContextItems int `json:"contextItems"`
	Included     int `json:"included"`
	Failed       int `json:"failed"`
	// ContextChars is the characters the additional context adds to the
	// prompt (included items and the list of what could not be read).
	ContextChars int `json:"contextChars"`
	// OverBudget is true when the changed files alone exceed the budget:
	// they are kept whole and all additional context is dropped.
	OverBudget bool `json:"overBudget"`
	// Redactions counts secrets replaced here, by kind: in the additional
	// context, and in any text of the context answer the context stage had
	// not redacted (a caller-built context).
	Redactions map[string]int `json:"redactions"`
}

// Reasons of a dropped context item.
const (
	dropBudget     = "budget"      // did not fit in what the budget had left
	dropOverBudget = "over_budget" // the changed files alone exceed the budget
)

// contextItem is one entry of the additional context while the prompt is
// being fitted: ContextItem as read, and whether the budget left it out.
type contextItem struct {
	pipeline.ContextItem
	entries   []pipeline.DirEntry // list_dir only
	truncated bool
	dropped   bool   // left out whole for the budget
	dropNote  string // the error the reviewer sees instead
	need      int    // characters the item's section takes in the prompt
}

// view is the item as additionalContext shows it.
func (it contextItem) view() pipeline.ContextItem {
	if it.dropped {
		return pipeline.ContextItem{Op: it.Op, Path: it.Path, Error: it.dropNote}
	}
	return it.ContextItem
}

// Merge builds the review pass's input: additionalContext (every lookup
// result in the stage contract's shape) and a review prompt within
// Limits.MaxPromptChars.
//
// Budget rule: changed files (diffs and sources), PR metadata, Jira, rules
// and the one-line notes about unreadable context are always kept. The
// successful lookups are then taken in request order (the scout's order,
// earlier ranks higher), each kept whole if it still fits in what is left of
// the budget and dropped whole otherwise; a later, smaller item may still
// fit after a larger one was dropped. A dropped item becomes an ok:false
// item saying why, is listed in the prompt as not included and reported in
// stats.dropped. If the changed files alone exceed the budget they are kept
// anyway, every context item is dropped and stats.overBudget is set with a
// warning.
//
// Bad input (an ok:true result with an unknown op or without a path, a
// changed file without a path) is an *InvalidError naming the field.
func Merge(in MergeInput, lim pipeline.Limits) (MergeResult, error) {
	lim = lim.WithDefaults() // a zero budget means the default, as in every stage
	mc := in.Context
	prefix := ""
	if in.nested {
		prefix = "context."
	}
	for i, f := range mc.Files {
		if strings.TrimSpace(f.Path) == "" {
			return MergeResult{}, pipeline.Invalidf(fmt.Sprintf("%sfiles[%d].path", prefix, i), "missing path")
		}
	}
	items, warnings, err := mergeItems(in, lim)
	if err != nil {
		return MergeResult{}, err
	}
	// One view of the criteria for the prompt and the echo.
	if mc.RequirementsText == "" {
		mc.RequirementsText = mc.Requirements.Text
	}
	if len(mc.Requirements.Criteria) == 0 {
		mc.Requirements.Criteria = pipeline.CriteriaOf(nil, mc.Jira)
	} else {
		mc.Requirements.Criteria = pipeline.CriteriaOf(mc.Requirements.Criteria, nil)
	}
	// Nothing leaves prscout for a prompt before secrets are redacted: the
	// fetched context (the batch stage redacted what it answered, but the
	// caller may have built the results itself), and everything the context
	// stage redacted already, again in case the caller built it: text
	// redacted once holds nothing more to count.
	redactions := map[string]int{}
	for i := range items {
		items[i].Content = redact.Secrets(items[i].Content, redactions)
		items[i].Error = redact.Secrets(items[i].Error, redactions)
	}
	mc.PR = pipeline.RedactPR(mc.PR, redactions)
	mc.Jira = pipeline.RedactIssues(mc.Jira, redactions, redactions)
	mc.Rules = redact.Secrets(mc.Rules, redactions)
	mc.Instructions = append([]pipeline.InstructionFile(nil), mc.Instructions...)
	for i := range mc.Instructions {
		mc.Instructions[i].Content = redact.Secrets(mc.Instructions[i].Content, redactions)
	}
	mc.Requirements = pipeline.RequirementsField{Text: redact.Secrets(mc.Requirements.Text, redactions), Criteria: pipeline.RedactCriteria(mc.Requirements.Criteria, redactions)}
	mc.Files = append([]pipeline.ChangedFile(nil), mc.Files...)
	rules := pipeline.NewRuleRedactor(redactions)
	for i := range mc.Files {
		mc.Files[i].Diff = redact.Secrets(mc.Files[i].Diff, redactions)
		mc.Files[i].Source = redact.Secrets(mc.Files[i].Source, redactions)
		mc.Files[i].Rules = rules.Redact(mc.Files[i].Rules)
	}
	if mc.Skip {
		warnings = append(warnings, "the context answer says skip (head already reviewed): the workflow should have stopped before the review")
	}

	budget := lim.MaxPromptChars
	st := MergeStats{Budget: budget, Dropped: []pipeline.DroppedContext{}, Redactions: redactions}
	if budget > 0 {
		warnings = append(warnings, fitBudget(mc, items, budget, &st)...)
	}
	prompt := renderReviewPrompt(mc, items)
	return mergeResult(mc, items, prompt, st, warnings), nil
}

// fitBudget marks the context items left out to keep the review prompt
// within budget, records them in st.Dropped and returns a warning when the
// changed files alone are over the budget.
//
// It starts with every readable item dropped (its note costs a line), then
// takes items back in priority order while the prompt fits. Each step
// changes one item only, so the prompt stays within the budget once the base
// fits.
func fitBudget(mc MergeContext, items []contextItem, budget int, st *MergeStats) []string {
	var warnings []string
	var candidates []int
	for i := range items {
		if items[i].OK {
			candidates = append(candidates, i)
			items[i].dropped = true
			items[i].need = utf8.RuneCountInString(contextSection(items[i]))
			items[i].dropNote = fmt.Sprintf("not included: over the review prompt budget of %d chars (this %s needs %d)",
				budget, reviewItemNoun(items[i].Op), items[i].need)
		}
	}
	if base := reviewChars(mc, items, nil); base > budget {
		st.OverBudget = true
		warnings = append(warnings, fmt.Sprintf(
			"the review prompt without additional context is %d chars, over the budget of %d: changed files kept whole, all additional context dropped",
			base, budget))
		for _, i := range candidates {
			items[i].dropNote = fmt.Sprintf("not included: the changed files alone exceed the review prompt budget of %d chars", budget)
		}
	} else {
		// Each item is one independent chunk of the prompt, so taking
		// it back changes the size by the difference of its two forms.
		used := base
		for _, i := range candidates {
			dropped := utf8.RuneCountInString(contextChunk(items[i]))
			items[i].dropped = false
			delta := utf8.RuneCountInString(contextChunk(items[i])) - dropped
			if used+delta > budget {
				items[i].dropped = true
				continue
			}
			used += delta
		}
	}
	for _, i := range candidates {
		if items[i].dropped {
			reason := dropBudget
			if st.OverBudget {
				reason = dropOverBudget
			}
			st.Dropped = append(st.Dropped, pipeline.DroppedContext{Op: items[i].Op, Path: items[i].Path, Chars: items[i].need, Reason: reason})
		}
	}
	return warnings
}

// mergeResult assembles the /v1/merge answer around the review prompt: the
// additional context as the workflow sees it, the changed files echoed for
// /v1/comments, the stats and the coverage.
func mergeResult(mc MergeContext, items []contextItem, prompt pipeline.Prompt, st MergeStats, warnings []string) MergeResult {

	out := MergeResult{
		ReviewPass:        2,
		AdditionalContext: make([]pipeline.ContextItem, len(items)),
		ReviewPrompt:      prompt,
		Warnings:          warnings,
		Workspace:         mc.Workspace,
		RepoSlug:          mc.RepoSlug,
		PRID:              mc.PRID,
		Ref:               mc.Ref,
		Mode:              mc.Mode,
		Interdiff:         mc.Interdiff,
		Files:             make([]pipeline.ChangedFile, len(mc.Files)),
		Excluded:          mc.Excluded,
		Group:             mc.Group,
		Part:              mc.Part,
		Requirements:      mc.Requirements.Criteria,
		PRURL:             mc.PR.URL,
		SourceBranch:      mc.PR.SourceBranch,
	}
	if out.Requirements == nil {
		out.Requirements = []pipeline.Requirement{}
	}
	out.Instructions = make([]pipeline.InstructionFile, 0, len(mc.Instructions))
	for _, f := range mc.Instructions {
		out.Instructions = append(out.Instructions, pipeline.InstructionFile{Path: f.Path, Size: f.Size, Cut: f.Cut})
	}
	if out.Excluded == nil {
		out.Excluded = []pipeline.Excluded{}
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for i, f := range mc.Files {
		out.Files[i] = pipeline.ChangedFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Diff: f.Diff, DiffOmitted: f.DiffOmitted}
	}
	for i, it := range items {
		out.AdditionalContext[i] = it.view()
		if out.AdditionalContext[i].OK {
			st.Included++
		} else {
			st.Failed++
		}
	}
	st.ContextItems = len(items)
	st.PromptChars = reviewPromptChars(prompt)
	withoutContext := reviewChars(mc, nil, nil)
	st.ContextChars = st.PromptChars - withoutContext
	out.Stats = st
	if mc.Coverage != nil {
		out.Coverage = *mc.Coverage
		if out.Coverage.ExcludedByReason == nil {
			out.Coverage.ExcludedByReason = map[string]int{}
		}
	} else {
		out.Coverage = pipeline.CoverageOf(len(mc.Files), mc.Excluded)
	}
	out.Coverage.ContextDropped = len(st.Dropped)
	return out
}

// mergeItems turns the batch results and the needs stage's refusals into
// context items, in request order.
func mergeItems(in MergeInput, lim pipeline.Limits) ([]contextItem, []string, error) {
	var warnings []string
	changed := map[string]bool{}
	for _, f := range in.Context.Files {
		changed[f.Path] = true
	}
	items := make([]contextItem, 0, len(in.Results)+len(in.Rejected))
	seen := map[string]bool{}
	for i, r := range in.Results {
		field := fmt.Sprintf("results[%d]", i)
		op := strings.ToLower(strings.TrimSpace(r.Op))
		hasContent := r.Content != nil || r.Entries != nil
		ok := (r.OK || hasContent) && r.Error == ""
		if !ok {
			msg := r.Error
			if msg == "" {
				msg = "could not be read (no error given)"
			}
			items = append(items, contextItem{ContextItem: pipeline.ContextItem{Op: r.Op, Path: r.Path, Error: msg}})
			seen[r.Op+"\x00"+r.Path] = true
			continue
		}
		switch op {
		case "", pipeline.OpGetFile:
			op = pipeline.OpGetFile
		case pipeline.OpListDir:
		default:
			return nil, nil, pipeline.Invalidf(field+".op", "unsupported op %q: use get_file or list_dir", r.Op)
		}
		it := contextItem{ContextItem: pipeline.ContextItem{OK: true, Op: op, Path: r.Path}}
		if op == pipeline.OpGetFile {
			if strings.TrimSpace(r.Path) == "" {
				return nil, nil, pipeline.Invalidf(field+".path", "missing path")
			}
			// Never trust the caller: a secret or malformed path is not
			// put in front of a model, whoever fetched it.
			if _, _, err := lookup.CheckLookupPath(r.Path, lim); err != nil {
				it.OK, it.Error = false, err.Error()
				warnings = append(warnings, fmt.Sprintf("%s: %s refused: %v", field, r.Path, err))
			} else if r.Content != nil {
				it.Content = *r.Content
			}
		} else {
			it.entries, it.truncated = r.Entries, r.Truncated
			it.Content = reviewListing(r.Entries, r.Truncated)
		}
		items = append(items, it)
		seen[op+"\x00"+r.Path] = true
	}
	for _, r := range in.Rejected {
		// A duplicate was read under its first request; a changed file is
		// in the prompt already.
		if r.Reason == "duplicate" || r.Reason == "changed_file" || changed[r.Path] || seen[r.Op+"\x00"+r.Path] {
			continue
		}
		seen[r.Op+"\x00"+r.Path] = true
		msg := r.Error
		if msg == "" {
			msg = "refused (no error given)"
		}
		items = append(items, contextItem{ContextItem: pipeline.ContextItem{Op: r.Op, Path: r.Path, Error: msg}})
	}
	return items, warnings, nil
}

// reviewListing writes a listing one entry a line: "dir  path/",
// "file path (N bytes)", and a last line when the listing was cut.
func reviewListing(entries []pipeline.DirEntry, truncated bool) string {
	var b strings.Builder
	for _, e := range entries {
		typ := e.Type
		if typ == "" {
			typ = "file"
		}
		p := e.Path
		if typ == "dir" && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		fmt.Fprintf(&b, "%-9s %s", typ, p)
		if e.Size != nil {
			fmt.Fprintf(&b, " (%d bytes)", *e.Size)
		}
		b.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&b, "(listing cut at %d entries: more exist)\n", len(entries))
	}
	return b.String()
}

func reviewItemNoun(op string) string {
	if op == pipeline.OpListDir {
		return "listing"
	}
	return "file"
}

func reviewPromptChars(p pipeline.Prompt) int {
	return utf8.RuneCountInString(p.System) + utf8.RuneCountInString(p.User)
}
