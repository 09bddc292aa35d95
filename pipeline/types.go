package pipeline

import (
	"fmt"
	"strings"
)

// Prompt is one LLM call's messages, built by prscout so n8n only forwards them.
type Prompt struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// PullRequest is the metadata the prompts show.
type PullRequest struct {
	Title             string `json:"title"`
	Description       string `json:"description"`
	Author            string `json:"author"`
	SourceBranch      string `json:"sourceBranch"`
	DestinationBranch string `json:"destinationBranch"`
	// URL is the pull request's web page, when the provider has one.
	URL string `json:"url,omitempty"`
}

// Issue is one Jira issue as the prompts show it.
type Issue struct {
	Key                string `json:"key"`
	Summary            string `json:"summary"`
	Status             string `json:"status"`
	Description        string `json:"description"`
	AcceptanceCriteria string `json:"acceptanceCriteria,omitempty"`
	URL                string `json:"url,omitempty"`
	// Requirements are the acceptance criteria one by one, taken from
	// RequirementsSource (`field "Acceptance Criteria" (customfield_10042)`
	// or `description section "Acceptance criteria"`); RequirementsWarnings
	// state what was cut or could not be read.
	Requirements         []Requirement `json:"requirements,omitempty"`
	RequirementsSource   string        `json:"requirementsSource,omitempty"`
	RequirementsWarnings []string      `json:"requirementsWarnings,omitempty"`
	// CriteriaText is the issue's acceptance criteria as the tracker holds
	// them, not yet split: an IssueLookup fills it, and the context stage
	// splits it into Requirements (criteria.Fill). nil: nothing to split.
	CriteriaText *CriteriaText `json:"-"`
}

// CriteriaText is what an issue tracker holds of an issue's acceptance
// criteria: the criteria field's value (nil when unset) with its id and
// name, and the description, each as the tracker's JSON holds it (a
// string of wiki markup or Markdown, or an ADF document).
type CriteriaText struct {
	Field              any
	FieldID, FieldName string
	Description        any
}

// SourceRange says which lines of a new source a file shows: From..To of
// Total, 1-based and inclusive. Windows lists every shown window when the
// source is not whole.
type SourceRange struct {
	From    int         `json:"from"`
	To      int         `json:"to"`
	Total   int         `json:"total"`
	Windows []LineRange `json:"windows,omitempty"`
}

// LineRange is an inclusive 1-based line range.
type LineRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Need is one scout request for more context.
type Need struct {
	Op   string `json:"op"`
	Path string `json:"path"`
}

// ChangedFile is one file of the pull request as the stages pass it on.
type ChangedFile struct {
	Path        string       `json:"path"`
	OldPath     string       `json:"oldPath,omitempty"`
	Status      string       `json:"status"` // added, modified, renamed, deleted
	Language    string       `json:"language,omitempty"`
	Diff        string       `json:"diff"`
	Source      string       `json:"source,omitempty"`
	SourceRange *SourceRange `json:"sourceRange,omitempty"`
	Needs       []Need       `json:"needs,omitempty"`
	// Rules is the review guidance for this file from the winning rule
	// layer; RuleSource names the layer and pattern (see RuleSet).
	Rules      string `json:"rules,omitempty"`
	RuleSource string `json:"ruleSource,omitempty"`
	// DiffOmitted lists the new-file line ranges of changes whose diff lines
	// were left out because the file alone is over the prompt budget: Diff
	// shows the rest, and the prompts and the summary name these ranges
	// (never a silently cut file). Empty when the whole diff is shown.
	DiffOmitted []LineRange `json:"diffOmitted,omitempty"`
}

// Excluded is a changed file the review does not see, with the reason.
type Excluded struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Request is one repository lookup, as /v1/needs gives it and
// /v1/repository/batch takes it.
type Request struct {
	Op        string `json:"op"`
	Path      string `json:"path"`
	Workspace string `json:"workspace,omitempty"`
	RepoSlug  string `json:"repoSlug,omitempty"`
	Ref       string `json:"ref,omitempty"`
	// Source says who asked for it: "scout" (the scout model) or
	// "candidate" (a context candidate /v1/needs added). Empty on requests
	// made elsewhere.
	Source string `json:"source,omitempty"`
}

// Request sources.
const (
	SourceScout     = "scout"
	SourceCandidate = "candidate"
)

// Rejected is a refused request: always ok:false with a specific error.
type Rejected struct {
	OK    bool   `json:"ok"`
	Op    string `json:"op"`
	Path  string `json:"path"`
	Error string `json:"error"`
	// Reason is the stable snake_case code of Error (a metrics label), e.g.
	// "parent_escape", "secret", "duplicate", "total_cap".
	Reason string `json:"reason,omitempty"`
}

// ContextItem is one entry of the review's additionalContext, in the shape
// n8n expressions rely on: content and error are always present ("" when
// not set).
type ContextItem struct {
	OK      bool   `json:"ok"`
	Op      string `json:"op"`
	Path    string `json:"path"`
	Content string `json:"content"`
	Error   string `json:"error"`
}

// Review is the review LLM's answer.
type Review struct {
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
}

// Finding is one review finding as the review LLM answers it.
type Finding struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	// EndLine is the last new-file line of a finding that spans lines
	// (Line..EndLine); 0 when the finding names one line.
	EndLine      int    `json:"endLine,omitempty"`
	ExistingCode string `json:"existingCode,omitempty"`
	Severity     string `json:"severity"` // critical, high, medium, low
	Title        string `json:"title"`
	Body         string `json:"body"`
	// Fix is the change the model proposes, when it proposes one.
	Fix *Fix `json:"fix,omitempty"`
	// Confidence is the model's confidence in the finding, 0 to 1; 0 when
	// the answer gives none. It breaks severity ties for the inline budget.
	Confidence float64 `json:"confidence,omitempty"`
}

// Fix is a proposed change: Before is the code as the model read it at the
// head, After what it should become. Both are code, never Markdown.
type Fix struct {
	Before string `json:"before,omitempty"`
	After  string `json:"after"`
}

// DroppedContext is one context file /v1/merge left out to meet the prompt
// budget (its stats.dropped[]), shown in the summary's context table.
type DroppedContext struct {
	Path   string `json:"path"`
	Op     string `json:"op,omitempty"`
	Chars  int    `json:"chars"`
	Reason string `json:"reason"`
}

// Text says in words why the item was dropped, for the summary's context
// table: "dropped for budget (N chars)", and the reason when it is not the
// budget.
func (d DroppedContext) Text() string {
	s := "dropped for budget"
	if d.Chars > 0 {
		s += fmt.Sprintf(" (%d chars)", d.Chars)
	}
	switch r := strings.TrimSpace(d.Reason); r {
	case "", "budget":
	case "over_budget":
		s += ": the changed files alone fill the budget"
	default:
		s += ": " + OneLine(r)
	}
	return s
}
