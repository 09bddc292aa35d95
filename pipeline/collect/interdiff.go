package collect

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/diff"
)

// A delta review diffs the reviewed commit against the head. When the
// author merged the destination branch into the source branch in between,
// that diff also holds every change the merge brought from the
// destination: changes of other people, already reviewed in their own pull
// requests. Then the delta is an interdiff instead: the pull request's own
// diff at the reviewed commit (merge base..reviewed) is compared with its
// diff now (merge base..head), file by file, and only the files whose own
// changes differ are reviewed, with their pull request diff (which holds
// nothing of the destination's). Comparing a file's changes ignores where
// they sit (hunk positions move when the destination changed the same file
// elsewhere) and the blob ids: only the removed and added lines count, and
// for a file without hunks (binary, mode change) its header lines.

// deltaDiff returns the raw diff of a delta review of head after
// meta.ReviewedCommit, checking for a merge from the destination (base)
// first when the provider can tell merge bases. It may change meta: the
// interdiff flag and warnings, mode "full" when the interdiff cannot be
// computed (the reason in warnings, and the pull request's diff returned),
// or mode "skip" when the merge brought nothing of the pull request's own.
func deltaDiff(ctx context.Context, src ContextSources, meta *ContextMeta, base, head string) ([]byte, error) {
	repo, reviewed := meta.Repo, meta.ReviewedCommit
	plain := func() ([]byte, error) {
		return src.Diffs.Diff(ctx, repo, reviewed, head, pipeline.DiffOptions{ContextLines: meta.ContextLines, TwoDot: true})
	}
	full := func(reason string) ([]byte, error) {
		meta.Mode = "full"
		meta.Warnings = append(meta.Warnings, reason+": full review")
		return src.Diffs.Diff(ctx, repo, base, head, pipeline.DiffOptions{ContextLines: meta.ContextLines})
	}
	mbs, ok := src.PRs.(pipeline.MergeBases)
	if !ok {
		return plain()
	}
	before, err := mbs.MergeBase(ctx, repo, reviewed, base)
	if err != nil {
		return full(fmt.Sprintf("could not tell whether the destination was merged since the reviewed commit %s (%v)", pipeline.ShortCommit(reviewed), err))
	}
	now, err := mbs.MergeBase(ctx, repo, head, base)
	if err != nil {
		return full(fmt.Sprintf("could not tell whether the destination was merged since the reviewed commit %s (%v)", pipeline.ShortCommit(reviewed), err))
	}
	if pipeline.SameCommit(before, now) {
		return plain()
	}
	// The merge base moved: the destination was merged into the source.
	prNow, err := src.Diffs.Diff(ctx, repo, base, head, pipeline.DiffOptions{ContextLines: meta.ContextLines})
	if err != nil {
		return nil, err
	}
	prBefore, err := src.Diffs.Diff(ctx, repo, base, reviewed, pipeline.DiffOptions{ContextLines: meta.ContextLines})
	if err != nil {
		meta.Mode = "full"
		meta.Warnings = append(meta.Warnings, fmt.Sprintf("the destination was merged into the source since the reviewed commit %s, and the pull request's diff at that commit could not be read (%v): full review", pipeline.ShortCommit(reviewed), err))
		return prNow, nil
	}
	raw, changed, left, err := interdiff(ctx, prBefore, prNow)
	if err != nil {
		meta.Mode = "full"
		meta.Warnings = append(meta.Warnings, fmt.Sprintf("the destination was merged into the source since the reviewed commit %s, and the interdiff failed (%v): full review", pipeline.ShortCommit(reviewed), err))
		return prNow, nil
	}
	if changed == 0 {
		meta.Mode, meta.SkipCode = "skip", SkipMergeUnchanged
		meta.SkipReason = fmt.Sprintf("the source branch merged the destination since the reviewed commit %s and the pull request's own changes are the same", pipeline.ShortCommit(reviewed))
		if left > 0 {
			meta.SkipReason += fmt.Sprintf(" (%s left the pull request)", pipeline.CountNoun(left, "file"))
		}
		return nil, nil
	}
	meta.Interdiff = true
	msg := fmt.Sprintf("the source branch merged the destination (merge base %s, was %s) since the reviewed commit %s: this delta is an interdiff, the pull request's own diff of the %s whose changes differ from the reviewed commit; the destination's changes are not reviewed",
		pipeline.ShortCommit(now), pipeline.ShortCommit(before), pipeline.ShortCommit(reviewed), pipeline.CountNoun(changed, "file"))
	if left > 0 {
		msg += fmt.Sprintf("; %s left the pull request", pipeline.CountNoun(left, "file"))
	}
	meta.Warnings = append(meta.Warnings, msg)
	return raw, nil
}

// interdiff keeps the sections of the pull request's diff now whose own
// changes differ from its diff before (new files included), and counts the
// files of before that are no longer in the pull request.
func interdiff(ctx context.Context, before, now []byte) (raw []byte, changed, left int, err error) {
	_, bs := diff.Split(bytesString(before))
	_, ns := diff.Split(bytesString(now))
	bf, err := parseSections(ctx, bs)
	if err != nil {
		return nil, 0, 0, err
	}
	nf, err := parseSections(ctx, ns)
	if err != nil {
		return nil, 0, 0, err
	}
	was := map[string]string{}
	for _, d := range bf {
		was[fileKey(d)] = diff.Signature(d.Section)
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, d := range nf {
		k := fileKey(d)
		seen[k] = true
		if sig, ok := was[k]; ok && sig == diff.Signature(d.Section) {
			continue
		}
		changed++
		b.WriteString(d.Section)
		if !strings.HasSuffix(d.Section, "\n") {
			b.WriteByte('\n')
		}
	}
	for k := range was {
		if !seen[k] {
			left++
		}
	}
	return []byte(b.String()), changed, left, nil
}

// fileKey names a file of a pull request diff: its new path, or its old
// one when deleted.
func fileKey(d diffFile) string {
	if d.Path != "" {
		return d.Path
	}
	return d.OldPath
}
