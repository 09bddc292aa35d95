package review

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/placement"
)

// CommentsInput is the /v1/comments request.
type CommentsInput struct {
	Workspace string                 `json:"workspace"`
	RepoSlug  string                 `json:"repoSlug"`
	PRID      int                    `json:"prId"`
	Ref       string                 `json:"ref"` // the reviewed head sha; goes into the summary marker
	Files     []pipeline.ChangedFile `json:"files"`
	// Review is the review LLM's answer: raw text (a JSON string) or a parsed
	// object. See reviewanswer.Parse for every accepted shape.
	Review json.RawMessage `json:"review"`
	DryRun bool            `json:"dryRun"`
	// Mode is the context's review mode (full or delta), shown in the summary.
	Mode string `json:"mode,omitempty"`
	// Interdiff is the context's interdiff flag: a delta whose files carry
	// the pull request's own diff (merge base..head) instead of the diff
	// from the reviewed commit (review memory reads them differently).
	Interdiff bool `json:"interdiff,omitempty"`
	// AdditionalContext is /v1/merge's additionalContext, for the context table.
	AdditionalContext []pipeline.ContextItem `json:"additionalContext,omitempty"`
	// Dropped is /v1/merge's stats.dropped, for the context table.
	Dropped []pipeline.DroppedContext `json:"dropped,omitempty"`
	// MergeStats is read when the merge answer is passed on whole (n8n's
	// `{...$json, review}`): its stats.dropped fills Dropped when that is empty.
	MergeStats struct {
		Dropped []pipeline.DroppedContext `json:"dropped"`
	} `json:"stats"`
	// Excluded is the context's excluded[], for the coverage line.
	Excluded []pipeline.Excluded `json:"excluded,omitempty"`
	// Instructions are the instruction files the review prompt showed
	// (the context's or merge's instructions[]; paths are read), named in
	// the coverage line.
	Instructions []pipeline.InstructionFile `json:"instructions,omitempty"`
	// Coverage is the context's or merge's coverage; when absent it is
	// computed from files, excluded and dropped.
	Coverage *pipeline.Coverage `json:"coverage,omitempty"`
	// RequestID is the request's id (pipeline.RequestID: n8n sends its
	// execution id as X-Request-Id). A summary that cannot show the
	// model's answer points to it.
	RequestID string `json:"-"`
	// LinkHosts are the hosts model-written links may point at (the pull
	// request's own host); set by the service, never by the request. Other
	// links lose their target (see sanitize.Markdown).
	LinkHosts []string `json:"-"`
	// Models names the models of the review (the workflow passes them),
	// shown in the Code Insights report.
	Models *Models `json:"models,omitempty"`
	// Formats asks for more formats of the findings in the answer:
	// "sarif" adds `sarif`, a SARIF 2.1.0 log ("json" is always given).
	Formats []string `json:"formats,omitempty"`

	// Requirements are the acceptance criteria the review judged (the
	// context's and merge's requirements[]); a string is free text and
	// carries none.
	Requirements pipeline.RequirementsField `json:"requirements"`
	// PRURL is the pull request's web page (merge's prUrl): evidence links
	// into its diff. Without it evidence is shown as text. When the request
	// is the context answer itself (a change reviewed in groups), its
	// pr.url is read instead.
	PRURL string `json:"prUrl,omitempty"`
	PR    struct {
		URL          string `json:"url"`
		SourceBranch string `json:"sourceBranch"`
	} `json:"pr"`
	// SourceBranch is the pull request's source branch (merge's
	// sourceBranch, or the context answer's pr.sourceBranch): the build
	// status is set on it (Branch).
	SourceBranch string `json:"sourceBranch,omitempty"`
	// Reviews are the reviews of a change reviewed in groups, one per group
	// (groups.go); Groups are the context answer's groups[] they belong to
	// (id, label and files are read). With reviews, review is not read.
	Groups  []CommentsGroup `json:"groups,omitempty"`
	Reviews []GroupReview   `json:"reviews,omitempty"`
	// Verify is the verify call's answer on the findings /v1/verify asked
	// about (any shape verify.Read reads); the findings it drops are
	// recorded and never posted. Absent: no verify pass.
	Verify json.RawMessage `json:"verify,omitempty"`

	// Policy is the service's placement policy (its settings: profile,
	// comment budget, severity floor, unverified findings); set by the
	// service, never by the request.
	Policy placement.Policy `json:"-"`
	// CommentPolicy is the request's override of Policy (see placement.Policy.Over).
	CommentPolicy *placement.Policy `json:"commentPolicy,omitempty"`
	// policy is the effective policy (checkCommentsInput).
	policy placement.Policy
}

// PostTarget validates the fields posting needs and returns them.
func (in CommentsInput) PostTarget() (pipeline.Repo, int, error) {
	switch {
	case strings.TrimSpace(in.Workspace) == "":
		return pipeline.Repo{}, 0, pipeline.Invalidf("workspace", "required to post comments")
	case strings.TrimSpace(in.RepoSlug) == "":
		return pipeline.Repo{}, 0, pipeline.Invalidf("repoSlug", "required to post comments")
	case in.PRID <= 0:
		return pipeline.Repo{}, 0, pipeline.Invalidf("prId", "required to post comments: a pull request id above 0")
	}
	return pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}, in.PRID, nil
}

// Models names the models of a review: the scout's and the reviewer's.
type Models struct {
	Scout  string `json:"scout,omitempty"`
	Review string `json:"review,omitempty"`
}

// Names lists the models for the report, each with its role; one model in
// both roles is named once.
func (m *Models) Names() []string {
	if m == nil {
		return nil
	}
	scout, review := pipeline.OneLine(m.Scout), pipeline.OneLine(m.Review)
	if scout != "" && scout == review {
		return []string{scout + " (scout, review)"}
	}
	var out []string
	if scout != "" {
		out = append(out, scout+" (scout)")
	}
	if review != "" {
		out = append(out, review+" (review)")
	}
	return out
}

// Formats of the /v1/comments answer besides its JSON.
const (
	FormatJSON  = "json"
	FormatSARIF = "sarif"
)

// WantsSARIF reports whether the request asks for the findings as SARIF
// (`formats: ["sarif"]`). An unknown format is an *InvalidError naming it.
func (in CommentsInput) WantsSARIF() (bool, error) {
	want := false
	for i, f := range in.Formats {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case FormatSARIF:
			want = true
		case FormatJSON:
		default:
			return false, pipeline.Invalidf(fmt.Sprintf("formats[%d]", i), "%q is not a format: json or sarif", pipeline.ClipRunes(f, 40))
		}
	}
	return want, nil
}

var refRe = regexp.MustCompile(`^[0-9A-Za-z._/-]{1,200}$`)

// checkCommentsInput validates the request's ref, mode and files and
// returns the trimmed ref. A merge answer passed on whole lends its
// stats.dropped to in.Dropped.
func checkCommentsInput(in *CommentsInput) (string, error) {
	ref := strings.TrimSpace(in.Ref)
	switch {
	case ref == "":
		return "", pipeline.Invalidf("ref", "required: the reviewed head commit")
	case !refRe.MatchString(ref):
		return "", pipeline.Invalidf("ref", "%q is not a commit id", pipeline.ClipRunes(ref, 60))
	case in.PRID < 0:
		return "", pipeline.Invalidf("prId", "must not be negative")
	}
	switch in.Mode {
	case "", "full", "delta", "skip":
	default:
		return "", pipeline.Invalidf("mode", "%q is not full, delta or skip", pipeline.ClipRunes(in.Mode, 40))
	}
	for i, f := range in.Files {
		if strings.TrimSpace(f.Path) == "" {
			return "", pipeline.Invalidf(fmt.Sprintf("files[%d].path", i), "required")
		}
	}
	if len(in.Dropped) == 0 {
		in.Dropped = in.MergeStats.Dropped
	}
	pol := in.Policy
	if in.CommentPolicy != nil {
		if err := in.CommentPolicy.Check("commentPolicy"); err != nil {
			return "", err
		}
		pol = in.CommentPolicy.Over(pol)
	}
	in.policy = pol.Effective()
	return ref, nil
}

// Branch is the pull request's source branch the request carries
// (sourceBranch, else pr.sourceBranch), "" when it carries none.
func (in CommentsInput) Branch() string {
	if b := strings.TrimSpace(in.SourceBranch); b != "" {
		return b
	}
	return strings.TrimSpace(in.PR.SourceBranch)
}
