package collect

import (
	"errors"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/groups"
	"github.com/prscout/prscout/pipeline/insights"
	"github.com/prscout/prscout/pipeline/merge"
	"github.com/prscout/prscout/pipeline/scope"
)

// ContextInput is the /v1/context request for a base..head review.
type ContextInput struct {
	Workspace    string   `json:"workspace"`
	RepoSlug     string   `json:"repoSlug"`
	PRID         int      `json:"prId,omitempty"`
	Base         string   `json:"base"`
	Head         string   `json:"head"`
	ContextLines *int     `json:"contextLines,omitempty"`
	JiraKeys     []string `json:"jiraKeys,omitempty"`
	// PR metadata when the caller knows it (local provider).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Requirements is free requirements text (a string), or acceptance
	// criteria to judge ([{id, issue, text}]) besides the linked issues'.
	// Rules is free rules text for the whole review (a string) or a rule
	// file object, the highest rule layer (see RuleSet).
	Requirements pipeline.RequirementsField `json:"requirements,omitempty"`
	Rules        scope.RulesField           `json:"rules,omitempty"`
	// Include and Exclude are file gate globs (see FileGates): an exclude
	// match leaves a file out; an include match skips the unsupported_ext
	// and default_path gates (it is not an allow-list).
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// ServiceRules is the service's rule file (PRSCOUT_RULES_FILE), set by
	// the API, never by the request; ServiceRulesSource names it.
	ServiceRules       *scope.RuleFile `json:"-"`
	ServiceRulesSource string          `json:"-"`
	// Jira holds the issues of JiraKeys when the caller has looked them up
	// (collectRange has no issue lookup of its own).
	Jira []pipeline.Issue `json:"-"`
	// Surfaces switch the build status set through ContextSources.Reporter
	// (PRSCOUT_BUILD_STATUS), set by the API, never by the request.
	Surfaces insights.Settings `json:"-"`
	// Skips say which pull request reviews are skipped (drafts, bot
	// authors, trivial changes, pushes), set by the API from the service's
	// settings, never by the request.
	Skips SkipPolicy `json:"-"`
	// Instructions say which instruction files (AGENTS.md, REVIEW.md, ...)
	// are read at the destination commit, set by the API, never by the
	// request.
	Instructions scope.InstructionSettings `json:"-"`
	// Command is set when a thread command started the review
	// (CommandReview, CommandFullReview): full review ignores earlier
	// reviews' markers; both run while paused or with push reviews off.
	Command string `json:"command,omitempty"`

	// search and searchOff come from ContextSources (see Collect).
	search    pipeline.CodeSearch
	searchOff string
	readings  *candidates.Cache
}

// ContextMeta is what assemble needs besides the raw diff: where the
// change lives, which commits it spans and what the prompt shows about it.
type ContextMeta struct {
	Repo pipeline.Repo
	PRID int
	// Head and Base are full commit ids; sources are read at Head.
	Head, Base     string
	ReviewedCommit string
	// Mode is "full" (default), "delta" or "skip"; skip yields no files.
	Mode string
	// SkipCode and SkipReason say why a skip skips (see
	// ContextResult.SkipCode).
	SkipCode, SkipReason string
	// SkipTrivial makes assemble skip a change whose every file is a lock
	// file, generated code or docs (trivialReason).
	SkipTrivial bool
	// Interdiff marks a delta whose files carry the pull request's own diff
	// (see ContextResult.Interdiff).
	Interdiff bool
	PR        pipeline.PullRequest
	Jira      []pipeline.Issue
	Rules     string
	// Instructions are the repository's instruction files read at the
	// destination commit (not yet redacted).
	Instructions []pipeline.InstructionFile
	Warnings     []string
	// ContextLines is the diff's context (it also pads source windows).
	ContextLines int
	// MaxSourceBytes bounds one changed file's source read for the prompt
	// (0: DefaultMaxSourceBytes); a larger file keeps its diff, shows no
	// source and gets a warning.
	MaxSourceBytes int64
	// MaxTotalSourceBytes guards memory: once the sources kept (whole or
	// windows) reach it, further files show no source and get a warning
	// (0: DefaultMaxTotalSourceBytes). Limiting what a prompt may hold is the
	// too-large gate's job, not this guard's.
	MaxTotalSourceBytes int64
	// Gates are the file gates (include/exclude globs).
	Gates scope.FileGates
	// PathRules resolves each shown file's review rules (nil: none).
	PathRules *scope.RuleSet

	// RequirementsText is free requirements text; Criteria are acceptance
	// criteria the request gave, judged with the linked issues' own.
	RequirementsText string
	Criteria         []pipeline.Requirement
	// Search finds the context candidates (nil: none, with a warning that
	// gives SearchOff as the reason).
	Search    pipeline.CodeSearch
	SearchOff string
	// Readings keeps the candidates readers' readings across requests.
	Readings *candidates.Cache
	// OldFromDiff says the raw diff runs from the commit the candidates
	// read old sources at (mode full, from the merge base of Base and
	// Head): they are rebuilt from the diff and the new sources instead,
	// where the diff says them (see diff.OldSide).
	OldFromDiff bool
}

// defaultMaxSourceBytes bounds one changed file's new source.
const defaultMaxSourceBytes = 8 << 20

// defaultMaxTotalSourceBytes bounds the sources one context keeps.
const defaultMaxTotalSourceBytes = 64 << 20

// errSourceGuard marks a source left out by MaxTotalSourceBytes.
var errSourceGuard = errors.New("sources over the memory guard")

// maxContextLines is the largest contextLines accepted.
const maxContextLines = 1000

// sourceParallel is how many sources are read at once through ReadFile.
const sourceParallel = 8

// ContextResult is the /v1/context answer. Slices are never nil, so JSON
// never holds null where a list is expected.
type ContextResult struct {
	Mode string `json:"mode"` // full | delta | skip
	Skip bool   `json:"skip"`
	// SkipReason says why mode is skip, for people: the head was already
	// reviewed, the pull request is MERGED/DECLINED/SUPERSEDED, a draft or
	// a bot account's, its title asks for no review, a merge from the
	// destination changed nothing of the pull request's own, push reviews
	// are off, or only lock files, generated files or docs changed.
	// SkipCode says the same for machines: one of SkipCodes.
	SkipReason string `json:"skipReason,omitempty"`
	SkipCode   string `json:"skipCode,omitempty"`
	// Interdiff marks a delta after the source branch merged the
	// destination: files carry the pull request's own diff (merge
	// base..head) of the files whose changes differ from the reviewed
	// commit, not the diff from the reviewed commit. /v1/comments reads it
	// (review memory compares by code there, not by line).
	Interdiff      bool                 `json:"interdiff,omitempty"`
	Workspace      string               `json:"workspace"`
	RepoSlug       string               `json:"repoSlug"`
	PRID           int                  `json:"prId,omitempty"`
	Ref            string               `json:"ref"`  // head commit id (full)
	Base           string               `json:"base"` // base commit id (full)
	ReviewedCommit string               `json:"reviewedCommit"`
	PR             pipeline.PullRequest `json:"pr"`
	Jira           []pipeline.Issue     `json:"jira"`
	Rules          string               `json:"rules"`
	// Instructions are the instruction files teams keep for reviewers and
	// agents (AGENTS.md, REVIEW.md, ...), read at the destination commit,
	// redacted and bounded: the review prompt shows them as repository
	// guidance, and the summary's coverage line names them.
	Instructions []pipeline.InstructionFile `json:"instructions,omitempty"`
	Files        []pipeline.ChangedFile     `json:"files"`
	Excluded     []pipeline.Excluded        `json:"excluded"`
	ScoutPrompt  pipeline.Prompt            `json:"scoutPrompt"`
	// Candidates are files outside the change that the code ties to it,
	// best first (see findCandidates); the scout prompt lists them.
	Candidates []pipeline.Candidate `json:"candidates"`
	Stats      ContextStats         `json:"stats"`
	// Coverage says how many changed files were reviewed, excluded (by
	// reason) and dropped for budget.
	Coverage pipeline.Coverage `json:"coverage"`
	Warnings []string          `json:"warnings"`
	// BuildStatus says whether the INPROGRESS build status was set on the
	// head (a full or delta pull request review with a provider that has
	// commit statuses); absent otherwise.
	BuildStatus *insights.StatusResult `json:"buildStatus,omitempty"`

	// RequirementsText is the request's free requirements text.
	RequirementsText string `json:"requirementsText,omitempty"`
	// Requirements are the acceptance criteria the review judges one by
	// one: the request's, then each linked issue's, in issue order.
	Requirements []pipeline.Requirement `json:"requirements"`

	// planPrep, when set, brings the review groups' preparation made in
	// the background (see startPlanPrep); prep is it once received.
	planPrep chan *planPrep
	prep     *planPrep
	// countMemo counts each diff and source once for all the prompt sizes
	// planning the groups asks (merge.TextMemo); it lives while the answer
	// is assembled.
	countMemo *merge.TextMemo
	// ahead is what dropAhead dropped before the candidates were found,
	// and the units it kept (zero when it dropped nothing): formGroups
	// makes the groups of those units.
	ahead droppedAhead
	// answerOnly counts redactions in text the answer carries but the scout
	// prompt does not show (Jira acceptance criteria items); finish adds
	// them to Stats.Redactions after the prompt's note is written.
	answerOnly map[string]int
	// Groups are the review groups (groups.go): exactly one, mirroring the
	// fields above, when the change fits one review; otherwise each group's
	// files, scout prompt, stats and coverage fit Limits.MaxPromptChars.
	// Absent in mode skip.
	Groups []ContextGroup `json:"groups,omitempty"`
	// Group and Part are set on a review group's item only.
	Group string       `json:"group,omitempty"`
	Part  *groups.Part `json:"part,omitempty"`
}

// ContextStats measures the context and its scout prompt. Character counts
// are Unicode code points, as a model's context window counts characters.
type ContextStats struct {
	// PromptChars is the scout prompt's size, system and user message.
	PromptChars int `json:"promptChars"`
	// ReviewPromptChars is the review prompt's size before any additional
	// context, as /v1/merge builds it from these files (0 at the top of a
	// change split into groups: see each group's). Budget is
	// Limits.MaxPromptChars: the scout prompt stays within it, and the review
	// prompt within 3/4 of it before context.
	ReviewPromptChars int `json:"reviewPromptChars"`
	Budget            int `json:"budget"`
	// SourceChars is the size of all new sources shown (whole or windows).
	SourceChars int `json:"sourceChars"`
	// SourceShare is SourceChars / PromptChars, rounded to 4 decimals (0 when
	// the prompt is empty); for a change split into groups, over the groups'
	// scout prompts together.
	SourceShare float64 `json:"sourceShare"`
	// DiffChars is the size of all shown files' diffs.
	DiffChars int `json:"diffChars"`
	// Files is the number of changed files shown, Excluded of those left out.
	Files    int `json:"files"`
	Excluded int `json:"excluded"`
	// ExcludedByReason counts excluded files per reason (GateOrder codes).
	ExcludedByReason map[string]int `json:"excludedByReason"`
	// WholeSources and WindowedSources count files whose source is shown
	// whole or as labelled windows; NoSource counts shown files without one.
	WholeSources    int `json:"wholeSources"`
	WindowedSources int `json:"windowedSources"`
	NoSource        int `json:"noSource"`
	// ShownRanges lists every shown source as "path: 910-1031 of 1031"
	// (windows joined by ", ").
	ShownRanges []string `json:"shownRanges"`
	// Additions and Deletions are the shown files' added and removed lines.
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	// DiffBytes is the raw diff's size in bytes.
	DiffBytes int `json:"diffBytes"`
	// Redactions counts secrets replaced in this answer, by kind
	// (redact.Kinds): in the pull request's title and description, Jira
	// text, rules, requirements, the shown diffs and sources, and warnings.
	Redactions map[string]int `json:"redactions"`
	// CandidatesMs is the time spent finding candidates, in milliseconds.
	CandidatesMs int `json:"candidatesMs"`
	// LearnedRules counts the learned rules (rule file entries with a
	// source: proposed in a review thread, approved by merging the review
	// rules pull request) that won for at least one shown file.
	LearnedRules int `json:"learnedRules,omitempty"`
}
