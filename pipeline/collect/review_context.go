package collect

import (
	"context"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/candidates"
	"github.com/prscout/prscout/pipeline/insights"
	issuespkg "github.com/prscout/prscout/pipeline/issues"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/scope"
)

// ContextSources are the ports /v1/context reads. Only Repo and Diffs are
// required: without PRs a review needs base and head, without Comments every
// review is full (no markers to read), without Issues there is no Jira,
// without Search (or a Repo that implements pipeline.CodeSearch) there are
// no candidates, and a warning says why: SearchOff, or a general reason.
// Reporter, when set, gets the INPROGRESS build status of a full or delta
// pull request review (ContextInput.Surfaces switches it).
type ContextSources struct {
	Repo      pipeline.Repository
	Diffs     pipeline.DiffSource
	PRs       pipeline.PullRequests
	Comments  pipeline.CommentStore
	Issues    pipeline.IssueLookup
	Search    pipeline.CodeSearch
	SearchOff string
	Reporter  pipeline.CommitReporter
	// Readings keeps the candidates readers' readings of files across
	// requests (nil: none kept); a server keeps one for its lifetime.
	Readings *candidates.Cache
}

// search is the code search of src: Search, else Repo when it can search.
func (src ContextSources) search() pipeline.CodeSearch {
	if src.Search != nil {
		return src.Search
	}
	cs, _ := src.Repo.(pipeline.CodeSearch)
	return cs
}

// Collect answers /v1/context. With a prId and no head it reviews the pull
// request as the provider knows it, incrementally from prscout's own summary
// marker (see collectPR); otherwise it reviews base..head (collectRange).
// Jira issues named by jiraKeys, the title, the branch or the description are
// looked up when an IssueLookup is configured (or keys were given explicitly);
// failures become warnings, never a failed review.
func Collect(ctx context.Context, src ContextSources, in ContextInput, lim pipeline.Limits) (ContextResult, error) {
	if in.PRID > 0 && strings.TrimSpace(in.Head) == "" {
		return collectPR(ctx, src, in, lim)
	}
	if in.PRID < 0 {
		return ContextResult{}, pipeline.Invalidf("prId", "must be a positive pull request id")
	}
	var warnings []string
	if src.Issues != nil || len(in.JiraKeys) > 0 {
		var commits func(context.Context) ([]string, error)
		if rc, ok := src.Repo.(pipeline.RangeCommits); ok && strings.TrimSpace(in.Base) != "" && strings.TrimSpace(in.Head) != "" {
			repo := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
			commits = func(ctx context.Context) ([]string, error) {
				return rc.CommitMessages(ctx, repo, in.Base, in.Head, pipeline.MaxCommitMessages)
			}
		}
		in.Jira, warnings = linkIssues(ctx, src.Issues, pipeline.KeySources{
			Explicit: in.JiraKeys, Title: in.Title, Description: in.Description,
		}, commits)
		in.JiraKeys = nil // looked up here: collectRange must not warn again
	}
	in.search, in.searchOff, in.readings = src.search(), src.SearchOff, src.Readings
	res, err := collectRange(ctx, src.Repo, src.Diffs, in, lim)
	if err != nil {
		return res, err
	}
	res.Warnings = append(res.Warnings, pipeline.RedactStrings(warnings, res.Stats.Redactions)...)
	return res, nil
}

// collectPR reviews pull request in.PRID. Bitbucket is the source of truth,
// no database: the highest-id summary comment carrying prscout's marker says
// which head was reviewed last.
//   - that head is the PR's head now → mode "skip", and no diff is fetched;
//   - it is an ancestor of the head → mode "delta": the diff from it to the
//     head, or, when the source branch merged the destination in between,
//     the interdiff of the pull request's own changes (interdiff.go);
//   - otherwise (rebase, force-push, marker unreadable) → mode "full", the
//     reason in warnings.
//
// A pull request that is MERGED, DECLINED or SUPERSEDED, a draft, a bot
// account's or one whose title asks for no review is skipped first (prSkip,
// in.Skips), with that reason in skipReason and skipCode: nothing is read but
// the pull request. A push to a reviewed pull request is skipped when the
// rules or in.Skips.Push say push reviews are off (after the rules are read
// at the destination), and a change of only lock files, generated files and
// docs when in.Skips.Trivial (after the diff is read).
func collectPR(ctx context.Context, src ContextSources, in ContextInput, lim pipeline.Limits) (ContextResult, error) {
	contextLines, err := checkPRInput(src, in, lim)
	if err != nil {
		return ContextResult{}, err
	}
	repo := pipeline.Repo{Workspace: in.Workspace, RepoSlug: in.RepoSlug}
	pr, err := src.PRs.PullRequest(ctx, repo, in.PRID)
	if err != nil {
		return ContextResult{}, err // the adapter's error already names the pull request
	}
	if code, reason := prSkip(in.Skips, pr, in.Command); code != "" {
		meta := ContextMeta{Repo: repo, PRID: in.PRID, Mode: "skip", Head: pr.SourceCommit, Base: pr.DestinationCommit,
			PR: pr.PullRequest, SkipCode: code, SkipReason: reason, ContextLines: contextLines}
		return assemble(ctx, src.Repo, meta, nil, lim)
	}
	// Earlier reviews first: when the marker already names the head, the
	// answer is skip and nothing else is fetched (no commit resolution, no
	// diff), which keeps a no-op webhook at 2 upstream calls.
	reviewed, state, warnings := lastReviewed(ctx, src.Comments, repo, in.PRID)
	if in.Command == CommandFullReview {
		// Asked for in a thread: the whole pull request again.
		reviewed = ""
	}
	meta := ContextMeta{
		Repo: repo, PRID: in.PRID, Mode: "full", ReviewedCommit: reviewed, Warnings: warnings,
		PR: pr.PullRequest, Rules: in.Rules.Text, ContextLines: contextLines,
		RequirementsText: in.Requirements.Text, Criteria: in.Requirements.Criteria,
		Search: src.search(), SearchOff: src.SearchOff, Readings: src.Readings,
	}
	if in.Title != "" && meta.PR.Title == "" {
		meta.PR.Title = in.Title
	}
	if reviewed != "" && pipeline.SameCommit(reviewed, pr.SourceCommit) {
		meta.Mode, meta.Head = "skip", reviewed
		meta.SkipCode, meta.SkipReason = SkipReviewed, skipReviewed
		return assemble(ctx, src.Repo, meta, nil, lim)
	}
	if state.Paused && in.Command == "" {
		meta.Mode, meta.Head = "skip", pr.SourceCommit
		meta.SkipCode, meta.SkipReason = SkipPaused, pausedReason(state)
		return assemble(ctx, src.Repo, meta, nil, lim)
	}

	if err := resolveCommits(ctx, src, pr.SourceCommit, pr.DestinationCommit, &meta); err != nil {
		return ContextResult{}, err
	}
	if meta.Mode == "skip" {
		return assemble(ctx, src.Repo, meta, nil, lim)
	}
	head, base := meta.Head, meta.Base

	// Rules come from the destination commit, never from the PR's head
	// (read only now: a skipped review needs none).
	gates, rules, root, scopeWarnings, err := scopeOf(ctx, src.Repo, repo, base, in)
	if err != nil {
		return ContextResult{}, err
	}
	meta.Gates, meta.PathRules = gates, rules
	meta.Warnings = append(meta.Warnings, scopeWarnings...)
	meta.SkipTrivial = in.Skips.Trivial

	// A push to a reviewed pull request: the rule files' reviews.push, else
	// the setting, say whether it is reviewed. The first review always is.
	if reviewed != "" && in.Command == "" {
		push, _, warns := rules.PushReviews(in.Skips.Push)
		meta.Warnings = append(meta.Warnings, warns...)
		if push == scope.PushOff {
			meta.Mode = "skip"
			meta.SkipCode, meta.SkipReason = SkipPushOff, skipPushOffReason
			return assemble(ctx, src.Repo, meta, nil, lim)
		}
	}

	readGuidance(ctx, src, in, pr.PullRequest, root, &meta)

	raw, err := prDiff(ctx, src, &meta, in.PRID)
	if err != nil {
		return ContextResult{}, err
	}
	res, err := assemble(ctx, src.Repo, meta, raw, lim)
	if err != nil || res.Skip {
		return res, err // a trivial change: skipped, and no build status
	}
	// The review starts now: INPROGRESS on the head until /v1/comments
	// sets the result (or the workflow's error path, POST /v1/status, stops
	// it). Set last, so a context that fails leaves no status behind.
	if st := insights.Start(ctx, src.Reporter, in.Surfaces, repo, head, pr.URL, pr.SourceBranch); st != nil {
		res.BuildStatus = st
		res.Warnings = append(res.Warnings, st.Warnings...)
	}
	return res, nil
}

// resolveCommits resolves the pull request's head and destination into
// meta and, after an earlier review (meta.ReviewedCommit), the review's
// mode: delta, full, or skip when the head adds nothing to review.
func resolveCommits(ctx context.Context, src ContextSources, headRef, baseRef string, meta *ContextMeta) error {
	head, err := src.Repo.ResolveCommit(ctx, meta.Repo, headRef)
	if err != nil {
		return fmt.Errorf("resolve pull request head %s: %w", headRef, err)
	}
	base, err := src.Repo.ResolveCommit(ctx, meta.Repo, baseRef)
	if err != nil {
		return fmt.Errorf("resolve pull request destination %s: %w", baseRef, err)
	}
	meta.Head, meta.Base = head, base
	if meta.ReviewedCommit == "" {
		return nil
	}
	var warn string
	meta.Mode, warn = reviewMode(ctx, src.PRs, meta.Repo, meta.ReviewedCommit, head)
	if warn != "" {
		meta.Warnings = append(meta.Warnings, warn)
	}
	if meta.Mode == "skip" {
		meta.SkipCode, meta.SkipReason = SkipReviewed, skipReviewed
	}
	return nil
}

// prDiff fetches the diff the review reads: since the last reviewed commit
// in delta mode (deltaDiff), else from the destination to the head.
func prDiff(ctx context.Context, src ContextSources, meta *ContextMeta, prID int) ([]byte, error) {
	var raw []byte
	var err error
	if meta.Mode == "delta" {
		raw, err = deltaDiff(ctx, src, meta, meta.Base, meta.Head)
	} else {
		raw, err = src.Diffs.Diff(ctx, meta.Repo, meta.Base, meta.Head, pipeline.DiffOptions{ContextLines: meta.ContextLines})
	}
	if err != nil {
		return nil, fmt.Errorf("diff pull request %d (%s): %w", prID, meta.Mode, err)
	}
	return raw, nil
}

// checkPRInput refuses a pull request request the provider cannot answer or
// that is malformed, before any upstream call, and returns the diff's
// context lines.
func checkPRInput(src ContextSources, in ContextInput, lim pipeline.Limits) (int, error) {
	switch in.Command {
	case "", CommandReview, CommandFullReview:
	default:
		return 0, pipeline.Invalidf("command", "want %q or %q, got %q", CommandReview, CommandFullReview, pipeline.ClipRunes(in.Command, 40))
	}
	if src.PRs == nil {
		return 0, pipeline.Invalidf("prId", "the configured provider has no pull requests: send base and head instead")
	}
	if strings.TrimSpace(in.Workspace) == "" {
		return 0, pipeline.Invalidf("workspace", "required with prId")
	}
	if strings.TrimSpace(in.RepoSlug) == "" {
		return 0, pipeline.Invalidf("repoSlug", "required with prId")
	}
	contextLines := lim.ContextLines
	if in.ContextLines != nil {
		contextLines = *in.ContextLines
		if contextLines < 0 || contextLines > maxContextLines {
			return 0, pipeline.Invalidf("contextLines", "must be between 0 and %d", maxContextLines)
		}
	}
	// Bad globs fail before any upstream call.
	if _, err := scope.CompileGlobs("include", in.Include); err != nil {
		return 0, err
	}
	if _, err := scope.CompileGlobs("exclude", in.Exclude); err != nil {
		return 0, err
	}
	return contextLines, nil
}

// prIssues are the Jira issues the pull request links (its keys in the
// request, title, branch, description and commit messages) and the
// warnings of looking them up.
func prIssues(ctx context.Context, src ContextSources, repo pipeline.Repo, in ContextInput, pr pipeline.PullRequest) ([]pipeline.Issue, []string) {
	var commits func(context.Context) ([]string, error)
	if pc, ok := src.PRs.(pipeline.PullRequestCommits); ok {
		commits = func(ctx context.Context) ([]string, error) {
			return pc.PullRequestCommitMessages(ctx, repo, in.PRID, pipeline.MaxCommitMessages)
		}
	}
	return linkIssues(ctx, src.Issues, pipeline.KeySources{
		Explicit: in.JiraKeys, Title: pr.Title, Branch: pr.SourceBranch, Description: pr.Description,
	}, commits)
}

// linkIssues finds the Jira keys of a review in ks and in the commit
// messages commits reads (nil: none; read only when issues can be looked
// up), keeps the lookup's projects (pipeline.IssueProjects) and looks the
// keys up. Every problem is a warning.
func linkIssues(ctx context.Context, issues pipeline.IssueLookup, ks pipeline.KeySources, commits func(context.Context) ([]string, error)) ([]pipeline.Issue, []string) {
	var warnings []string
	if issues != nil && commits != nil {
		msgs, err := commits(ctx)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("jira: commit messages not read for issue keys (%v)", err))
		}
		ks.Commits = msgs
	}
	ks.Projects = issuespkg.Projects(issues)
	keys := pipeline.ExtractKeysFrom(ks)
	if len(keys) == 0 {
		return nil, warnings
	}
	found, warns := issuespkg.LookupAll(ctx, issues, keys)
	return found, append(warnings, warns...)
}

// skipReviewed is the skip reason when the head was reviewed already.
const skipReviewed = "the head commit was already reviewed"

// closedReason is the skip reason for a pull request that is no longer
// open ("" for an open one, or a state the provider does not give).
func closedReason(state string) string {
	switch s := strings.ToUpper(strings.TrimSpace(state)); s {
	case "MERGED", "DECLINED", "SUPERSEDED":
		return "the pull request is " + s
	}
	return ""
}

// lastReviewed reads the head that prscout's own summary marker says was
// reviewed last ("" when none); any reason for a full review is a warning.
func lastReviewed(ctx context.Context, store pipeline.CommentStore, repo pipeline.Repo, prID int) (string, marker.State, []string) {
	if store == nil {
		return "", marker.State{}, []string{"no comment access configured: full review"}
	}
	comments, err := store.ListComments(ctx, repo, prID)
	if err != nil {
		return "", marker.State{}, []string{fmt.Sprintf("could not read earlier reviews (%v): full review", err)}
	}
	state, _, _ := marker.CurrentState(comments)
	var warnings []string
	if n := marker.UnverifiedSummaries(comments); n > 0 {
		warnings = append(warnings, fmt.Sprintf("prscout's own account is unknown, so %s with a review marker cannot be proven prscout's: ignored (full review, a new summary); set PRSCOUT_BITBUCKET_ACCOUNT_ID", pipeline.CountNoun(n, "comment")))
	}
	if sha, _, ok := marker.LastReviewedCommit(comments); ok {
		return sha, state, warnings
	}
	return "", state, warnings
}

// reviewMode decides how to review head after reviewed: skip when it is the
// same commit, delta when reviewed is an ancestor of head, otherwise full
// with the reason as a warning.
func reviewMode(ctx context.Context, prs pipeline.PullRequests, repo pipeline.Repo, reviewed, head string) (mode, warning string) {
	switch anc, err := prs.IsAncestor(ctx, repo, reviewed, head); {
	case pipeline.SameCommit(reviewed, head):
		return "skip", ""
	case err != nil:
		return "full", fmt.Sprintf("could not tell whether the reviewed commit %s is an ancestor of the head (%v): full review", pipeline.ShortCommit(reviewed), err)
	case !anc:
		return "full", fmt.Sprintf("the reviewed commit %s is no longer an ancestor of the head %s (rebase or force-push): full review", pipeline.ShortCommit(reviewed), pipeline.ShortCommit(head))
	default:
		return "delta", ""
	}
}

// readGuidance reads what a review that runs is told besides the change:
// the instruction files at the destination commit and the Jira issues.
func readGuidance(ctx context.Context, src ContextSources, in ContextInput, pr pipeline.PullRequest, root *scope.RootListing, meta *ContextMeta) {
	var warns []string
	meta.Instructions, warns = scope.ReadInstructions(ctx, src.Repo, meta.Repo, meta.Base, in.Instructions, root)
	meta.Warnings = append(meta.Warnings, warns...)
	if src.Issues != nil || len(in.JiraKeys) > 0 {
		meta.Jira, warns = prIssues(ctx, src, meta.Repo, in, pr)
		meta.Warnings = append(meta.Warnings, warns...)
	}
}
