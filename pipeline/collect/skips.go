package collect

import (
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/marker"
	"github.com/prscout/prscout/pipeline/scope"
)

// Skip codes: ContextResult.SkipCode, a stable machine-readable reason for
// mode "skip" (SkipReason is the readable one). Metrics count skips by them.
const (
	// SkipClosed: the pull request is MERGED, DECLINED or SUPERSEDED.
	SkipClosed = "closed"
	// SkipDraft: the pull request is a draft (SkipPolicy.Drafts).
	SkipDraft = "draft"
	// SkipBotAuthor: its author is a listed bot account (SkipPolicy.BotAuthors).
	SkipBotAuthor = "bot_author"
	// SkipTitleMarker: its title says [skip review] or [prscout skip].
	SkipTitleMarker = "title_marker"
	// SkipReviewed: the head commit was reviewed already.
	SkipReviewed = "reviewed"
	// SkipMergeUnchanged: a merge from the destination changed nothing of
	// the pull request's own.
	SkipMergeUnchanged = "merge_unchanged"
	// SkipPushOff: a push to a reviewed pull request while push reviews are
	// off (SkipPolicy.Push, a rule file's reviews.push).
	SkipPushOff = "push_off"
	// SkipTrivial: every changed file is a lock file, generated or docs
	// (SkipPolicy.Trivial).
	SkipTrivial = "trivial"
	// SkipIgnored: a line of the description says "prscout ignore".
	SkipIgnored = "ignored"
	// SkipPaused: reviews were paused in a thread (`prscout pause`); the
	// reason names who paused them.
	SkipPaused = "paused"
	// SkipEmpty: the diff from base to head changes no file (base and head
	// are the same commit or the same tree): nothing to scout or review.
	SkipEmpty = "empty"
)

// SkipCodes lists every skip code, in the order the checks run.
var SkipCodes = []string{SkipClosed, SkipDraft, SkipBotAuthor, SkipTitleMarker, SkipIgnored, SkipReviewed, SkipMergeUnchanged, SkipPaused, SkipPushOff, SkipEmpty, SkipTrivial}

// Commands a review may be started by (ContextInput.Command).
const (
	CommandReview     = "review"
	CommandFullReview = "full review"
)

// SkipPolicy is when a pull request review is skipped, set by the API from
// the service's settings, never by the request. The zero policy skips only
// what is always skipped: a closed pull request, a reviewed head, a merge
// that changed nothing, a title marker; every push is reviewed (delta).
type SkipPolicy struct {
	// Drafts skips draft pull requests until they are marked ready
	// (PRSCOUT_SKIP_DRAFTS); Bitbucket then sends pullrequest:updated and
	// the next context call reviews normally.
	Drafts bool
	// BotAuthors are account names (nickname, display name, account id or
	// uuid; case-insensitive) whose pull requests are not reviewed
	// (PRSCOUT_BOT_AUTHORS). Empty: none.
	BotAuthors []string
	// Trivial skips a change whose every file is a lock file, generated
	// code or docs (scope.TrivialClass; PRSCOUT_SKIP_TRIVIAL).
	Trivial bool
	// Push is how a push to a reviewed pull request is reviewed:
	// scope.PushDelta ("" too) or scope.PushOff (PRSCOUT_PUSH_REVIEWS); the
	// rule files' reviews.push overrides it.
	Push string
}

// titleMarkers in a pull request's title (case-insensitive) skip its review.
var titleMarkers = []string{"[skip review]", "[prscout skip]"}

// skipDraftReason is the skip reason of a draft.
const skipDraftReason = "draft: reviewed when marked ready"

// skipPushOffReason is the skip reason of a push while push reviews are off.
const skipPushOffReason = "push reviews are off: comment to review"

// skipEmptyReason is SkipEmpty's reason.
const skipEmptyReason = "nothing changed between base and head"

// prSkip decides from the pull request alone (no further upstream call)
// whether its review is skipped: closed, draft, bot author, title marker,
// in that order. It returns the code and reason, or "" and "".
func prSkip(p SkipPolicy, pr pipeline.PullRequestInfo, command string) (code, reason string) {
	if reason := closedReason(pr.State); reason != "" {
		return SkipClosed, reason
	}
	if ignoredDescription(pr.Description) {
		return SkipIgnored, "the description says prscout ignore"
	}
	if command != "" {
		return "", "" // asked for in a thread: drafts, bots and title markers do not hold it
	}
	if p.Drafts && pr.Draft {
		return SkipDraft, skipDraftReason
	}
	if field, name, ok := botAuthor(p.BotAuthors, pr); ok {
		who := pr.Author
		if who == "" {
			who = name
		}
		return SkipBotAuthor, fmt.Sprintf("author %s is a bot account (%s %q is in the bot author list)", who, field, name)
	}
	lower := strings.ToLower(pr.Title)
	for _, m := range titleMarkers {
		if strings.Contains(lower, m) {
			return SkipTitleMarker, fmt.Sprintf("the title says %s", m)
		}
	}
	return "", ""
}

// botAuthor reports which of the author's names (nickname, display name,
// account id, uuid; then the shown author name) is in bots, compared
// case-insensitively and without surrounding spaces.
func botAuthor(bots []string, pr pipeline.PullRequestInfo) (field, name string, ok bool) {
	if len(bots) == 0 {
		return "", "", false
	}
	a := pr.AuthorAccount
	for _, n := range []struct{ field, name string }{
		{"nickname", a.Nickname}, {"display name", a.DisplayName}, {"account id", a.AccountID},
		{"uuid", a.UUID}, {"name", pr.Author},
	} {
		v := strings.TrimSpace(n.name)
		if v == "" {
			continue
		}
		for _, b := range bots {
			if strings.EqualFold(v, strings.TrimSpace(b)) {
				return n.field, v, true
			}
		}
	}
	return "", "", false
}

// trivialReason is the skip reason when every changed file of parsed is a
// lock file, generated code or docs (scope.TrivialClass), e.g. "only lock
// files and docs changed (3 files)"; "" when a file is anything else, is
// named by an include glob (an include asks for review), or nothing changed.
func trivialReason(parsed []diffFile, gates scope.FileGates) string {
	if len(parsed) == 0 {
		return ""
	}
	classes := map[string]bool{}
	for _, d := range parsed {
		class := scope.TrivialClass(d.Path)
		if class == "" || (d.OldPath != "" && scope.TrivialClass(d.OldPath) == "") || gates.Includes(d.Path) {
			return ""
		}
		classes[class] = true
	}
	names := map[string]string{scope.ClassLockfile: "lock files", scope.ClassGenerated: "generated files", scope.ClassDocs: "docs"}
	var kinds []string
	for _, c := range []string{scope.ClassLockfile, scope.ClassGenerated, scope.ClassDocs} {
		if classes[c] {
			kinds = append(kinds, names[c])
		}
	}
	return fmt.Sprintf("only %s changed (%s)", joinAnd(kinds), pipeline.CountNoun(len(parsed), "file"))
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// ignoredDescription reports a description line that is, case-insensitively
// and spaces collapsed, "prscout ignore", "@prscout ignore" or "/prscout ignore".
func ignoredDescription(d string) bool {
	if !strings.Contains(strings.ToLower(d), "ignore") {
		return false
	}
	for _, l := range strings.Split(d, "\n") {
		switch strings.ToLower(strings.Join(strings.Fields(l), " ")) {
		case "prscout ignore", "@prscout ignore", "/prscout ignore":
			return true
		}
	}
	return false
}

// pausedReason is the skip reason of a paused pull request.
func pausedReason(s marker.State) string {
	r := "reviews are paused"
	if s.By != "" {
		r += " by " + s.By
	}
	if !s.At.IsZero() {
		r += " since " + s.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	return r + ": comment prscout resume (or prscout review for one review)"
}
