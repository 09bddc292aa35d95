package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/anchor"
	"github.com/prscout/prscout/pipeline/criteria"
	"github.com/prscout/prscout/pipeline/llmanswer"
	"github.com/prscout/prscout/pipeline/reviewanswer"
	"github.com/prscout/prscout/pipeline/sanitize"
)

// A change too large for one review is reviewed in groups (the context
// answer's groups[]); the workflow gathers the groups' reviews and sends them
// here at once as reviews[], beside the context's groups. Render then posts
// one summary and one set of inline comments for the whole change: findings
// deduplicated across groups, coverage summed, and every group whose review
// is missing or failed named with its files as not reviewed.

// GroupID is a review group's id as the workflow sends it: a string ("g2")
// or a number (2), read as a string.
type GroupID string

// UnmarshalJSON accepts a string, a number or null.
func (g *GroupID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*g = ""
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*g = GroupID(strings.TrimSpace(s))
	default:
		var n json.Number
		if err := json.Unmarshal(data, &n); err != nil {
			return &json.UnmarshalTypeError{Value: "non-id", Type: typeOfGroupID}
		}
		*g = GroupID(n.String())
	}
	return nil
}

var typeOfGroupID = reflect.TypeFor[GroupID]()

// groupIDRe is what a group id may be: the context answer writes "g1",
// "g2", ...; a workflow may number them. Anything else (a newline, Markdown,
// a hidden data line) is refused before a word of the summary is written.
var groupIDRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkGroupID refuses an id groupIDRe does not accept, naming the field.
func checkGroupID(field, id string) error {
	if id == "" || groupIDRe.MatchString(id) {
		return nil
	}
	return pipeline.Invalidf(field, "%q is not a group id: letters, digits, '.', '_' and '-', at most 64, as the context answer's groups[].id", pipeline.ClipRunes(id, 40))
}

// CommentsGroup is one review group as /v1/comments reads it from the
// context answer's groups[]: its id (id or group), label and files.
type CommentsGroup struct {
	ID    GroupID                `json:"id"`
	Group GroupID                `json:"group"`
	Part  *groupPartLabel        `json:"part,omitempty"`
	Files []pipeline.ChangedFile `json:"files"`
}

type groupPartLabel struct {
	Label string `json:"label"`
}

func (g CommentsGroup) id() string {
	if g.ID != "" {
		return string(g.ID)
	}
	return string(g.Group)
}

// GroupReview is one group's review: the group id and the review LLM's
// answer (raw text, a parsed object, or n8n's error item when the call
// failed). The group's /v1/merge answer may come along whole (its
// additionalContext, stats.dropped, files and coverage are read).
type GroupReview struct {
	Group             GroupID                   `json:"group"`
	Review            json.RawMessage           `json:"review"`
	AdditionalContext []pipeline.ContextItem    `json:"additionalContext,omitempty"`
	Dropped           []pipeline.DroppedContext `json:"dropped,omitempty"`
	MergeStats        struct {
		Dropped []pipeline.DroppedContext `json:"dropped"`
	} `json:"stats"`
	Files    []pipeline.ChangedFile `json:"files,omitempty"`
	Coverage *pipeline.Coverage     `json:"coverage,omitempty"`
	Part     *groupPartLabel        `json:"part,omitempty"`
}

// groupOutcome is one group's review as rendered: its findings and summary,
// or why it failed.
type groupOutcome struct {
	id, label string
	files     []string
	parsed    reviewanswer.Parsed
	failed    string // why the group has no review ("" when it has one)
}

// renderGroups renders reviews[] (see the comment at the top of this file).
// A group's failure is never an error of the request: it is named in the
// summary. Only a request that names no group at all is refused.
func renderGroups(in CommentsInput, ref string) (Rendered, *Summary, error) {
	groups, reviewOf, warnings, err := pairReviews(in)
	if err != nil {
		return Rendered{}, nil, err
	}
	files, err := changeFiles(in, groups)
	if err != nil {
		return Rendered{}, nil, err
	}
	outcomes, context, dropped := groupOutcomes(in, groups, reviewOf)
	merged := mergeOutcomes(outcomes, warnings)

	// Coverage: the context's, with the failed groups' files moved from
	// reviewed to not reviewed; context dropped summed over the groups.
	cov := sumCoverage(in, groups)
	var failed []groupOutcome
	for _, o := range outcomes {
		if o.failed != "" {
			failed = append(failed, o)
			cov.FailedGroups++
			cov.NotReviewed += len(o.files)
			cov.Reviewed = max(cov.Reviewed-len(o.files), 0)
			merged.Warnings = append(merged.Warnings, fmt.Sprintf("group %s not reviewed: %s", o.id, o.failed))
		}
	}
	if len(groups) > 1 && cov.Groups < len(groups) {
		cov.Groups = len(groups)
	}
	in.Files = files
	in.AdditionalContext = uniqueContext(context)
	in.Dropped = uniqueDropped(dropped)
	cov.ContextDropped = len(in.Dropped)
	in.Coverage = &cov
	out, sum := renderParsed(in, ref, merged, failed, groupsCover(outcomes))
	return out, sum, nil
}

// pairReviews pairs reviews[] with the context's groups: the groups by id
// (a review for a group the context does not name becomes a group of its
// own), the review of each group by id, and the warnings of the pairing.
// Without the context's groups, each review names its group (and may bring
// its files from its merge answer).
func pairReviews(in CommentsInput) (groups []CommentsGroup, reviewOf map[string]int, warnings []string, err error) {
	if len(bytes.TrimSpace(in.Review)) > 0 && string(bytes.TrimSpace(in.Review)) != "null" {
		warnings = append(warnings, "review and reviews both given: reviews is used")
	}
	groups = in.Groups
	byID := map[string]int{}
	for i, g := range groups {
		id := g.id()
		if err := checkGroupID(fmt.Sprintf("groups[%d].id", i), id); err != nil {
			return nil, nil, nil, err
		}
		if id == "" {
			return nil, nil, nil, pipeline.Invalidf(fmt.Sprintf("groups[%d].id", i), "required: the group's id from the context answer")
		}
		if _, dup := byID[id]; dup {
			return nil, nil, nil, pipeline.Invalidf(fmt.Sprintf("groups[%d].id", i), "%q appears twice", pipeline.ClipRunes(id, 40))
		}
		byID[id] = i
	}
	reviewOf = map[string]int{}
	for i, r := range in.Reviews {
		id := string(r.Group)
		if err := checkGroupID(fmt.Sprintf("reviews[%d].group", i), id); err != nil {
			return nil, nil, nil, err
		}
		if id == "" {
			if len(in.Reviews) == 1 && len(groups) <= 1 {
				if len(groups) == 1 {
					id = groups[0].id()
				} else {
					id = "g1"
				}
			} else {
				return nil, nil, nil, pipeline.Invalidf(fmt.Sprintf("reviews[%d].group", i), "required: the id of the group this review is for")
			}
		}
		if _, ok := byID[id]; !ok {
			if len(in.Groups) > 0 {
				warnings = append(warnings, fmt.Sprintf("reviews[%d]: group %q is not among the context's groups: reviewed as its own group", i, pipeline.ClipRunes(id, 40)))
			}
			byID[id] = len(groups)
			groups = append(groups, CommentsGroup{ID: GroupID(id), Part: r.Part, Files: r.Files})
		}
		if prev, dup := reviewOf[id]; dup {
			// n8n does not send a group twice; if it happens, the first
			// usable review counts.
			if _, failed := reviewanswer.Failure(in.Reviews[prev].Review); !failed {
				warnings = append(warnings, fmt.Sprintf("reviews[%d]: a second review of group %s: ignored", i, pipeline.ClipRunes(id, 40)))
				continue
			}
		}
		reviewOf[id] = i
	}
	return groups, reviewOf, warnings, nil
}

// changeFiles are the changed files findings are anchored in: every file of
// the change, whichever group a finding comes from (the request's files, or
// else those the groups and reviews bring).
func changeFiles(in CommentsInput, groups []CommentsGroup) ([]pipeline.ChangedFile, error) {
	files := in.Files
	if len(files) == 0 {
		seen := map[string]bool{}
		for _, g := range groups {
			for _, f := range g.Files {
				if !seen[f.Path] {
					seen[f.Path] = true
					files = append(files, f)
				}
			}
		}
		for _, r := range in.Reviews {
			for _, f := range r.Files {
				if !seen[f.Path] {
					seen[f.Path] = true
					files = append(files, f)
				}
			}
		}
	}
	for i, f := range files {
		if strings.TrimSpace(f.Path) == "" {
			return nil, pipeline.Invalidf(fmt.Sprintf("files[%d].path", i), "required")
		}
	}
	return files, nil
}

// groupOutcomes reads each group's review: its parsed answer or why it
// failed, and the context rows and drops its merge answer reported.
func groupOutcomes(in CommentsInput, groups []CommentsGroup, reviewOf map[string]int) ([]groupOutcome, []pipeline.ContextItem, []pipeline.DroppedContext) {
	outcomes := make([]groupOutcome, len(groups))
	var context []pipeline.ContextItem
	var dropped []pipeline.DroppedContext
	for gi, g := range groups {
		o := groupOutcome{id: g.id()}
		if g.Part != nil {
			o.label = g.Part.Label
		}
		for _, f := range g.Files {
			o.files = append(o.files, f.Path)
		}
		ri, ok := reviewOf[o.id]
		switch {
		case !ok:
			o.failed = "no review was received"
		default:
			r := in.Reviews[ri]
			if o.label == "" && r.Part != nil {
				o.label = r.Part.Label
			}
			if len(o.files) == 0 {
				for _, f := range r.Files {
					o.files = append(o.files, f.Path)
				}
			}
			if msg, failed := reviewanswer.Failure(r.Review); failed {
				o.failed = msg
				break
			}
			parsed, err := reviewanswer.Parse(r.Review)
			if err != nil {
				o.failed = "the review could not be read: " + err.Error()
				break
			}
			o.parsed = parsed
			context = append(context, r.AdditionalContext...)
			d := r.Dropped
			if len(d) == 0 {
				d = r.MergeStats.Dropped
			}
			dropped = append(dropped, d...)
		}
		outcomes[gi] = o
	}
	return outcomes, context, dropped
}

// mergeOutcomes makes one review of the groups' for the rest of the stage:
// their findings in group order (duplicates across groups are dropped by
// fingerprint later), their summaries, the worst answer quality; warnings
// come first.
func mergeOutcomes(outcomes []groupOutcome, warnings []string) reviewanswer.Parsed {
	var merged reviewanswer.Parsed
	var summaries []string
	okGroups := 0
	for _, o := range outcomes {
		if o.failed != "" {
			continue
		}
		okGroups++
		if merged.Format == "" {
			merged.Format = o.parsed.Format
		}
		merged.Findings = append(merged.Findings, o.parsed.Findings...)
		merged.SeverityNormalized += o.parsed.SeverityNormalized
		merged.DroppedFindings += o.parsed.DroppedFindings
		for _, w := range o.parsed.Warnings {
			merged.Warnings = append(merged.Warnings, o.id+": "+w)
		}
		if s := strings.TrimSpace(o.parsed.Summary); s != "" {
			summaries = append(summaries, o.summaryLine(s, len(outcomes)))
		}
		merged.VerdictsGiven = merged.VerdictsGiven || o.parsed.VerdictsGiven
		// How the answers were read: the worst group's quality, and a cut in
		// any group is the review's cut.
		if qualityRank(o.parsed.Quality) > qualityRank(merged.Quality) {
			merged.Quality = o.parsed.Quality
		}
		if o.parsed.CutOff {
			merged.CutOff = true
			merged.FinishReason = o.parsed.FinishReason
		}
		merged.Kept += o.parsed.Kept
		merged.Incomplete += o.parsed.Incomplete
	}
	merged.Verdicts = mergeVerdicts(outcomes)
	merged.Warnings = append(warnings, merged.Warnings...)
	if len(outcomes) == 1 && okGroups == 1 {
		merged.Summary = outcomes[0].parsed.Summary
	} else {
		merged.Summary = strings.Join(summaries, "\n\n")
	}
	if merged.Format == "" {
		merged.Format = "none"
	}
	return merged
}

// groupsCover is which files the groups' reviews covered: a file of a group
// whose review failed, was cut off or could not be read was not.
func groupsCover(outcomes []groupOutcome) reviewCover {
	c := reviewCover{files: map[string]string{}}
	for _, o := range outcomes {
		why := o.failed
		if why == "" {
			why = answerCover(o.parsed, "its group's review").all
		} else {
			why = "its group's review failed: " + why
		}
		if why == "" {
			continue
		}
		for _, p := range o.files {
			c.files[anchor.NormalizePath(p)] = why
		}
	}
	return c
}

// summaryLine is a group's summary in the combined summary: as is for a
// single group, prefixed with the group otherwise.
func (o groupOutcome) summaryLine(s string, groups int) string {
	if groups == 1 {
		return s
	}
	head := o.name()
	if o.label != "" {
		head += " (" + o.inertLabel() + ")"
	}
	return "**" + head + ":** " + s
}

// name is the group's id as the summary shows it: as is when it is
// letters, digits, '.' and '-' only (nothing Markdown reads), else in a code
// span.
func (o groupOutcome) name() string {
	if plainIDRe.MatchString(o.id) {
		return o.id
	}
	return sanitize.CodeSpan(o.id)
}

var plainIDRe = regexp.MustCompile(`^[A-Za-z0-9.-]+$`)

// inertLabel is the group's label (caller-supplied) on one line, through
// the sanitizer.
func (o groupOutcome) inertLabel() string {
	return sanitize.Markdown(pipeline.OneLine(o.label), nil)
}

// sumCoverage is the coverage of the whole change: the context's top-level
// coverage when given, else the groups' coverage summed plus the excluded
// files.
func sumCoverage(in CommentsInput, groups []CommentsGroup) pipeline.Coverage {
	if in.Coverage != nil {
		c := *in.Coverage
		if c.ExcludedByReason == nil {
			c.ExcludedByReason = map[string]int{}
		}
		return c
	}
	cov := pipeline.CoverageOf(0, in.Excluded)
	reviewCov := map[string]*pipeline.Coverage{}
	for _, r := range in.Reviews {
		if r.Coverage != nil {
			reviewCov[string(r.Group)] = r.Coverage
		}
	}
	for _, g := range groups {
		gc := pipeline.CoverageOf(len(g.Files), nil)
		if c, ok := reviewCov[g.id()]; ok && len(g.Files) == 0 {
			gc = pipeline.Coverage{Changed: c.Reviewed, Reviewed: c.Reviewed, Windowed: c.Windowed}
		} else {
			for _, f := range g.Files {
				if len(f.DiffOmitted) > 0 {
					gc.Windowed++
				}
			}
		}
		cov = cov.Add(gc)
	}
	return cov
}

// uniqueContext keeps the first item per (op, path).
func uniqueContext(items []pipeline.ContextItem) []pipeline.ContextItem {
	seen := map[string]bool{}
	var out []pipeline.ContextItem
	for _, c := range items {
		k := opOrGetFile(c.Op) + "\x00" + c.Path
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out
}

// uniqueDropped keeps the first entry per (op, path).
func uniqueDropped(items []pipeline.DroppedContext) []pipeline.DroppedContext {
	seen := map[string]bool{}
	var out []pipeline.DroppedContext
	for _, d := range items {
		k := opOrGetFile(d.Op) + "\x00" + d.Path
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

func opOrGetFile(op string) string {
	if op == "" {
		return pipeline.OpGetFile
	}
	return op
}

// maxFailedFilesListed bounds the files named per failed group.
const maxFailedFilesListed = 20

// writeNotReviewedGroups names every group whose review is missing or
// failed, with its files.
func writeNotReviewedGroups(b *strings.Builder, failed []groupOutcome) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(b, "### Not reviewed (%s)\n\n", pipeline.CountNoun(len(failed), "group"))
	for _, o := range failed {
		fmt.Fprintf(b, "- **%s**", o.name())
		if o.label != "" {
			fmt.Fprintf(b, " (%s)", o.inertLabel())
		}
		fmt.Fprintf(b, ": %s; %s not reviewed", o.failed, pipeline.CountNoun(len(o.files), "file"))
		if len(o.files) > 0 {
			var names []string
			for i, p := range o.files {
				if i == maxFailedFilesListed {
					names = append(names, "and "+strconv.Itoa(len(o.files)-i)+" more")
					break
				}
				names = append(names, sanitize.CodeSpan(p))
			}
			b.WriteString(": " + strings.Join(names, ", "))
		}
		b.WriteString(".\n")
	}
	b.WriteString("\nA later push is reviewed as a delta and does not cover them: to review the whole change again, delete this comment and update the pull request.\n\n")
}

// verdictRank orders verdicts when groups disagree: each group judges every
// criterion from its own files, so one group that sees the criterion broken
// outweighs one that sees it met, and either outweighs "unclear".
var verdictRank = map[string]int{reviewanswer.VerdictUnclear: 1, reviewanswer.VerdictMet: 2, reviewanswer.VerdictNotMet: 3}

// mergeVerdicts gives one verdict per criterion over the groups' reviews:
// the highest ranked (verdictRank), the first group's on a tie, in the order
// the criteria first appear.
func mergeVerdicts(outcomes []groupOutcome) []reviewanswer.Verdict {
	var out []reviewanswer.Verdict
	at := map[string]int{}
	for _, o := range outcomes {
		if o.failed != "" {
			continue
		}
		for _, v := range o.parsed.Verdicts {
			key := criteria.Key(v.ID)
			i, seen := at[key]
			switch {
			case !seen:
				at[key] = len(out)
				out = append(out, v)
			case verdictRank[v.Verdict] > verdictRank[out[i].Verdict]:
				out[i] = v
			}
		}
	}
	return out
}

// qualityRank orders how answers were read as llmanswer.Qualities does,
// best first (0: none), so a change reviewed in groups reports its worst
// group's.
func qualityRank(q string) int {
	for i, x := range llmanswer.Qualities {
		if string(x) == q {
			return i + 1
		}
	}
	return 0
}
