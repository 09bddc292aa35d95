package groups

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// ContextReserve is the share of Limits.MaxPromptChars a group's review
// prompt keeps free for the additional context the scout asks for.
const ContextReserve = 0.25

// MaxLabelRunes bounds a group's label.
const MaxLabelRunes = 120

// Part says which part of a large change a review group is; the
// prompts of a group state it so the model does not report the files of
// other parts as missing.
type Part struct {
	Index int `json:"index"` // 1-based
	Of    int `json:"of"`    // number of groups reviewed
	// Files is the number of changed files this group shows; TotalFiles
	// those of all groups; Dropped the changed files past the group limit.
	Files      int `json:"files"`
	TotalFiles int `json:"totalFiles"`
	Dropped    int `json:"dropped,omitempty"`
	// Label names the group's directories (or its one windowed file).
	Label string `json:"label"`
}

// Label names a group by its directories ("internal/api, internal/store"),
// or by its one file when that file is windowed.
func Label(files []pipeline.ChangedFile) string {
	if len(files) == 1 && len(files[0].DiffOmitted) > 0 {
		return pipeline.ClipRunes(files[0].Path+" (windowed)", MaxLabelRunes)
	}
	var dirs []string
	seen := map[string]bool{}
	for _, f := range files {
		d := path.Dir(f.Path)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	label := strings.Join(dirs[:min(3, len(dirs))], ", ")
	if len(dirs) > 3 {
		label += fmt.Sprintf(" (+%d more)", len(dirs)-3)
	}
	return pipeline.ClipRunes(label, MaxLabelRunes)
}

// ChangedLines counts the added and removed lines of the files' diffs.
func ChangedLines(files []pipeline.ChangedFile) int {
	n := 0
	for _, f := range files {
		for rest := f.Diff; rest != ""; {
			var line string
			line, rest, _ = strings.Cut(rest, "\n")
			if (strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++ ")) ||
				(strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "--- ")) {
				n++
			}
		}
	}
	return n
}

// PartNote tells a group's prompt which part of the change it shows.
// stage is "scout" or "review".
func PartNote(p Part, stage string) string {
	var b strings.Builder
	b.WriteString("# Part " + strconv.Itoa(p.Index) + " of " + strconv.Itoa(p.Of) + " of this pull request\n\n")
	fmt.Fprintf(&b, "The pull request is too large for one review, so it is reviewed in %d parts, each on its own. This part shows %d of the %d changed files under review (%s). ",
		p.Of, p.Files, p.TotalFiles, pipeline.ClipRunes(pipeline.OneLine(p.Label), MaxLabelRunes))
	if stage == "scout" {
		b.WriteString("Ask only for what the files shown here need; the other changed files are handled in the other parts.")
	} else {
		b.WriteString("Review only the files shown here; the other changed files are reviewed in the other parts, so do not report them as missing.")
	}
	if p.Dropped > 0 {
		fmt.Fprintf(&b, " %s over the limit of review groups are not reviewed at all.", pipeline.CountNoun(p.Dropped, "further changed file"))
	}
	b.WriteString("\n\n")
	return b.String()
}

// MaxNamedRanges bounds the omitted ranges a note names one by one.
const MaxNamedRanges = 12

// OmittedSentence names the lines a windowed file leaves out, e.g. "the
// changes at new-file lines 2101-50000 are left out (not shown, not
// reviewed)".
func OmittedSentence(f pipeline.ChangedFile) string {
	parts := make([]string, 0, min(len(f.DiffOmitted), MaxNamedRanges)+1)
	for i, r := range f.DiffOmitted {
		if i == MaxNamedRanges {
			parts = append(parts, fmt.Sprintf("and %d more ranges", len(f.DiffOmitted)-i))
			break
		}
		if r.From == r.To {
			parts = append(parts, strconv.Itoa(r.From))
		} else {
			parts = append(parts, strconv.Itoa(r.From)+"-"+strconv.Itoa(r.To))
		}
	}
	return "the changes at new-file lines " + strings.Join(parts, ", ") + " are left out (not shown, not reviewed)"
}

// OmittedNote is the line a prompt writes above a windowed file's diff.
func OmittedNote(f pipeline.ChangedFile) string {
	return "Only part of this file's diff is shown: the file alone is over the prompt budget, so " + OmittedSentence(f) + "."
}
