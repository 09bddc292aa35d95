package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Repo addresses one repository with the flat names of the stage contract (docs/architecture.md).
type Repo struct {
	Workspace string `json:"workspace"`
	RepoSlug  string `json:"repoSlug"`
}

// DirEntry is one typed entry of a directory listing.
type DirEntry struct {
	Path string `json:"path"`
	Type string `json:"type"` // "file", "dir", "symlink" or "submodule"
	Size *int64 `json:"size,omitempty"`
}

// Repository reads a repository's content at a commit. Content at a commit id
// never changes, which is what makes lookups cacheable by (repo, commit, path).
//
// Implementations return errors that wrap ErrNotFound, ErrBinary, ErrTooLarge,
// ErrIsDir or ErrNotDir where they apply, so stages can report a precise reason.
type Repository interface {
	// ResolveCommit turns any revision (branch, tag, short or full sha) into a
	// full commit id. Unknown revisions wrap ErrNotFound.
	ResolveCommit(ctx context.Context, repo Repo, rev string) (string, error)
	// ReadFile returns the file's bytes at commit. A file larger than maxBytes
	// is refused with an error wrapping ErrTooLarge (never truncated); a binary
	// file wraps ErrBinary; a directory wraps ErrIsDir.
	ReadFile(ctx context.Context, repo Repo, commit, path string, maxBytes int64) ([]byte, error)
	// ListDir lists the direct children of path at commit ("" is the root), at
	// most limit entries; truncated reports that more exist.
	ListDir(ctx context.Context, repo Repo, commit, path string, limit int) (entries []DirEntry, truncated bool, err error)
}

// DiffOptions shape a diff.
type DiffOptions struct {
	// ContextLines around each hunk (30 by default).
	ContextLines int
	// TwoDot compares base and head directly (a delta review from the last
	// reviewed commit). Without it the diff runs from the merge base of base
	// and head to head: what a pull request from head into base introduces.
	TwoDot bool
}

// DiffSource produces raw unified git diffs (as `git diff` prints them, with
// rename detection) between two revisions.
type DiffSource interface {
	Diff(ctx context.Context, repo Repo, base, head string, opts DiffOptions) ([]byte, error)
}

// PullRequestInfo is what a provider knows about one pull request.
type PullRequestInfo struct {
	ID int `json:"id"`
	PullRequest
	// State is the provider's state, upper case: OPEN, MERGED, DECLINED or
	// SUPERSEDED on Bitbucket Cloud ("" when the provider does not say).
	State string `json:"state"`
	// SourceCommit is the head of the pull request, DestinationCommit the tip
	// of the branch it merges into. Providers may give abbreviated ids;
	// Repository.ResolveCommit expands them.
	SourceCommit      string `json:"sourceCommit"`
	DestinationCommit string `json:"destinationCommit"`
	// Draft marks a pull request its author has not marked ready for
	// review (Bitbucket Cloud's draft; false where a provider has none).
	Draft bool `json:"draft,omitempty"`
	// AuthorAccount is every name the provider knows the author by, so a
	// bot account is recognised by any of them (PullRequest.Author is the
	// one the prompts show).
	AuthorAccount Account `json:"authorAccount,omitzero"`
	// SourceRepository is the full name ("workspace/slug") of the
	// repository the source branch lives in, when the provider says:
	// another repository's name marks a pull request from a fork.
	SourceRepository string `json:"-"`
}

// Account is a provider account's names; each is "" when the provider does
// not give it.
type Account struct {
	DisplayName string `json:"displayName,omitempty"`
	Nickname    string `json:"nickname,omitempty"`
	AccountID   string `json:"accountId,omitempty"`
	UUID        string `json:"uuid,omitempty"`
	// Type is the provider's account type where it says one (Bitbucket:
	// "user", "team", "app_user" for an access token's bot account).
	Type string `json:"type,omitempty"`
}

// IsBot reports whether the account's type names an automated account
// (Bitbucket's app_user, or any type containing "bot" or "app").
func (a Account) IsBot() bool {
	t := strings.ToLower(strings.TrimSpace(a.Type))
	return t != "" && t != "user" && t != "team" && (strings.Contains(t, "bot") || strings.Contains(t, "app"))
}

// PullRequests reads pull request metadata and commit ancestry.
type PullRequests interface {
	// PullRequest returns one pull request; an unknown id wraps ErrNotFound.
	PullRequest(ctx context.Context, repo Repo, id int) (PullRequestInfo, error)
	// IsAncestor reports whether ancestor is head or one of its ancestors.
	IsAncestor(ctx context.Context, repo Repo, ancestor, head string) (bool, error)
}

// InlineAnchor places a comment on a line of the new version of a file, or
// on the lines Line..EndLine of it (a multi-line comment).
type InlineAnchor struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	// EndLine is the last line of a multi-line anchor; 0 for one line.
	EndLine int `json:"endLine,omitempty"`
}

// Comment is a pull request comment as a provider lists it.
type Comment struct {
	ID      int64         `json:"id"`
	Body    string        `json:"body"`
	Inline  *InlineAnchor `json:"inline,omitempty"`
	Deleted bool          `json:"deleted,omitempty"`
	Author  string        `json:"author,omitempty"`
	// Foreign marks a comment written by an account other than prscout's
	// own; its markers and fingerprints are ignored, and prscout never
	// updates or deletes it. False when the adapter does not know.
	Foreign bool `json:"foreign,omitempty"`
	// ParentID is the comment this one replies to (0: top level).
	ParentID int64 `json:"parentId,omitempty"`
	// Resolved reports a top-level comment whose thread is resolved.
	Resolved bool `json:"resolved,omitempty"`
	// Unverified marks a comment whose author could not be checked because
	// prscout's own account is unknown: it may be prscout's or anyone's.
	// Its review marker never decides skip or delta, and prscout never
	// updates or deletes it.
	Unverified bool `json:"unverified,omitempty"`
	// URL is the comment's web link ("" when the provider has none); the
	// build status and the report of a review link to its summary comment.
	URL string `json:"url,omitempty"`
	// CreatedOn is when the comment was written (zero when the provider
	// does not say).
	CreatedOn time.Time `json:"createdOn,omitzero"`
	// AuthorAccount is every name the provider knows the author by.
	AuthorAccount Account `json:"authorAccount,omitzero"`
}

// NewComment is a comment to create: general when Inline is nil, a reply
// in the thread of comment ParentID when it is not 0 (Inline is then
// ignored: a reply sits where its thread does).
type NewComment struct {
	Body     string
	Inline   *InlineAnchor
	ParentID int64
}

// SelfIdentity is an optional CommentStore extension: the ids prscout's
// own account is known by (account id, uuid; normalised lower case
// without braces), so a mention of it can be recognised. nil when unknown.
type SelfIdentity interface {
	SelfAccountIDs(ctx context.Context) []string
}

// CommentStore lists and writes pull request comments.
type CommentStore interface {
	// ListComments returns every comment of the pull request (all pages), in
	// no promised order. An adapter that knows prscout's own account sets
	// Comment.Foreign on every comment another account wrote, so a marker
	// pasted by a participant can neither skip a review, nor be taken for
	// prscout's summary, nor suppress a finding. One that does not know
	// leaves it false (every marker is trusted).
	ListComments(ctx context.Context, repo Repo, prID int) ([]Comment, error)
	CreateComment(ctx context.Context, repo Repo, prID int, c NewComment) (Comment, error)
	UpdateComment(ctx context.Context, repo Repo, prID int, id int64, body string) (Comment, error)
	DeleteComment(ctx context.Context, repo Repo, prID int, id int64) error
}

// CommentGetter is an optional CommentStore extension for providers that
// read one comment by id (Bitbucket Cloud): a comment event is judged from
// the comment and its parents, without listing every comment of the pull
// request. The comment carries Foreign and Unverified as ListComments sets
// them; an unknown comment wraps ErrNotFound.
type CommentGetter interface {
	Comment(ctx context.Context, repo Repo, prID int, id int64) (Comment, error)
}

// OwnCommentFinder is an optional CommentStore extension for providers
// that filter comments server-side (Bitbucket Cloud's `q`): prscout's own
// comments are found by their hidden markers with one request, whatever
// the pull request's comment count.
type OwnCommentFinder interface {
	// FindOwnComments returns comments of the pull request written by
	// prscout's own account whose raw text contains one of q.AnyOf (and
	// each of q.AllOf), case-insensitively, newest first, at most q.Limit
	// (1 to 100). Deleted comments may be among them (Deleted set). It
	// fails (never guesses) when prscout's own account is unknown.
	FindOwnComments(ctx context.Context, repo Repo, prID int, q OwnCommentQuery) ([]Comment, error)
}

// OwnCommentQuery selects prscout's own comments by their text.
type OwnCommentQuery struct {
	AnyOf []string
	AllOf []string
	Limit int
}

// Match reports whether text satisfies q's text conditions, as
// FindOwnComments applies them.
func (q OwnCommentQuery) Match(text string) bool {
	text = strings.ToLower(text)
	ok := len(q.AnyOf) == 0
	for _, s := range q.AnyOf {
		ok = ok || strings.Contains(text, strings.ToLower(s))
	}
	for _, s := range q.AllOf {
		ok = ok && strings.Contains(text, strings.ToLower(s))
	}
	return ok
}

// ThreadResolver is an optional CommentStore extension for providers whose
// comment threads can be resolved (Bitbucket Cloud). The comments stage
// resolves the thread of prscout's own inline comment when its finding is
// resolved by a later commit.
type ThreadResolver interface {
	// ResolveThread resolves the thread of top-level comment id. A thread
	// that is already resolved is not an error.
	ResolveThread(ctx context.Context, repo Repo, prID int, id int64) error
}

// Task is a pull request task, attached to the comment CommentID (0: none).
type Task struct {
	ID        int64  `json:"id"`
	CommentID int64  `json:"commentId,omitempty"`
	Body      string `json:"body"`
	Resolved  bool   `json:"resolved,omitempty"`
	// Foreign marks a task another account created (or one whose creator
	// is unknown): prscout never resolves it.
	Foreign bool `json:"foreign,omitempty"`
}

// TaskStore is an optional CommentStore extension for providers with pull
// request tasks (Bitbucket Cloud), which a merge check can require to be
// resolved. The comments stage opens a task on the inline comment of each
// critical finding when asked to, and resolves it when review memory
// resolves the finding. A provider without tasks does not implement it.
type TaskStore interface {
	// ListTasks returns every task of the pull request (all pages).
	ListTasks(ctx context.Context, repo Repo, prID int) ([]Task, error)
	// CreateTask opens a task with body, attached to comment commentID.
	CreateTask(ctx context.Context, repo Repo, prID int, commentID int64, body string) (Task, error)
	// ResolveTask marks task id resolved; a resolved task is not an error.
	ResolveTask(ctx context.Context, repo Repo, prID int, id int64) error
}

// MergeBases is an optional PullRequests extension: the best common
// ancestor of two commits. The context stage uses it to tell whether the
// source branch merged the destination since the reviewed commit.
type MergeBases interface {
	// MergeBase returns the full id of a and b's merge base; histories
	// without one wrap ErrNotFound.
	MergeBase(ctx context.Context, repo Repo, a, b string) (string, error)
}

// IssueLookup reads issue tracker entries (Jira) by key.
type IssueLookup interface {
	// LookupIssue returns one issue; a missing key wraps ErrNotFound.
	LookupIssue(ctx context.Context, key string) (Issue, error)
}

// ResolveCommit resolves one revision of the request, renaming a provider's
// invalid-revision error to the request field.
func ResolveCommit(ctx context.Context, repo Repository, r Repo, field, rev string) (string, error) {
	sha, err := repo.ResolveCommit(ctx, r, rev)
	if err != nil {
		var inv *InvalidError
		if errors.As(err, &inv) && (inv.Field == "ref" || inv.Field == "") {
			return "", Invalidf(field, "%s", inv.Message)
		}
		return "", fmt.Errorf("resolve %s %q: %w", field, rev, err)
	}
	return sha, nil
}

// FilesReader is an optional Repository extension for providers that read
// many files at once more cheaply than one by one (the local git provider
// streams them through one process). The context stage (pipeline/collect)
// uses it when the Repository implements it.
type FilesReader interface {
	// ReadFiles reads paths at commit and calls fn once per path, in the
	// order of paths, with the bytes or the error ReadFile would give for it.
	// fn may keep data (the reader never reuses it). The error return is for
	// failures of the whole call (fn is then not called for the rest).
	ReadFiles(ctx context.Context, repo Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error
}

// ChangeLister is an optional DiffSource extension: it names, cheaply and
// before the diff itself, the new paths of the files a diff will show
// (deleted files left out), so the context stage can read their sources while
// the diff is still being produced.
type ChangeLister interface {
	ChangedPaths(ctx context.Context, repo Repo, base, head string, opts DiffOptions) ([]string, error)
}

// FileCommit is one commit of whole files onto a branch.
type FileCommit struct {
	// Branch receives the commit; it is created when it does not exist.
	Branch string
	// Parent is the new commit's one parent, whose content the files are
	// laid over: when Branch exists, its tip (Bitbucket accepts a single
	// parent and refuses any but the tip of an existing branch with 409, so
	// a commit never drops the branch's history); otherwise the commit the
	// new branch starts at.
	Parent  string
	Message string
	// Files are repository paths and their whole new content.
	Files map[string][]byte
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title, Description string
	SourceBranch       string
	DestinationBranch  string
}

// BranchCommitter is an optional provider extension for providers that can
// commit files onto a branch and open pull requests from it (Bitbucket
// Cloud). pipeline/learn keeps the review rules pull request with it; a
// provider without it cannot take proposed rules.
type BranchCommitter interface {
	// BranchHead returns the full commit id branch points at; an unknown
	// branch wraps ErrNotFound.
	BranchHead(ctx context.Context, repo Repo, branch string) (string, error)
	// CommitFiles makes one commit of c.Files onto c.Branch.
	CommitFiles(ctx context.Context, repo Repo, c FileCommit) error
	// OpenPullRequestFrom returns the open pull request prscout itself
	// opened from branch of repo: its source is that branch of repo itself
	// (not of a fork) and its author is prscout's own account. ok is false
	// when there is none; anyone else's pull request from a branch of the
	// same name is never returned.
	OpenPullRequestFrom(ctx context.Context, repo Repo, branch string) (pr PullRequestInfo, ok bool, err error)
	// CreatePullRequest opens a pull request.
	CreatePullRequest(ctx context.Context, repo Repo, pr NewPullRequest) (PullRequestInfo, error)
	// UpdatePullRequest sets the title and description of pull request id.
	UpdatePullRequest(ctx context.Context, repo Repo, id int, title, description string) (PullRequestInfo, error)
}

// RateBudget is an upstream's rate-limit budget as its latest answers
// reported it (bitbucket.Budget): one per credential, shared by every call
// the process makes with it. Stages read it before writes that can wait
// (see publish.Ports.Budget); it never blocks and never calls out.
type RateBudget interface {
	Headroom() Headroom
}

// Headroom is the latest rate-limit state an upstream reported for one
// resource group. Limit and Remaining are -1 when the answer did not carry
// them (Bitbucket sends X-RateLimit-Limit and X-RateLimit-NearLimit, and no
// remaining count).
type Headroom struct {
	// Known is false until an answer carried a rate-limit header.
	Known bool `json:"known"`
	// Resource is the resource group the budget belongs to
	// (X-RateLimit-Resource, "api" for /2.0/repositories); "" when unnamed.
	Resource  string `json:"resource"`
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	Near      bool   `json:"near"`
	// Spent is true when the answer was a 429 (the budget is used up) or
	// reported 0 remaining, until a later answer was served.
	Spent bool      `json:"spent"`
	Seen  time.Time `json:"seen"`
	// Until is when a spent budget is expected back: the 429's
	// Retry-After from Seen; zero when the answer gave none.
	Until time.Time `json:"until,omitzero"`
}

// RateWindow is how long a reported headroom stays true: Bitbucket's limits
// count a rolling hour, so an older report says nothing of the budget now.
const RateWindow = time.Hour

// NearLimit reports whether h says the budget is nearly spent at now: the
// upstream said so (Near), the budget is spent (SpentAt), or it reported a
// remaining count below below.
// An unknown headroom, or one seen longer than RateWindow ago, is not near.
func (h Headroom) NearLimit(below int, now time.Time) bool {
	if !h.Known || now.Sub(h.Seen) > RateWindow {
		return false
	}
	return h.Near || h.SpentAt(now) || (h.Remaining > 0 && h.Remaining < below)
}

// SpentAt reports whether h says the budget is used up at now: the latest
// answer was a 429 or reported nothing left, and neither its Retry-After
// (Until) nor RateWindow has passed since.
func (h Headroom) SpentAt(now time.Time) bool {
	if !h.Known || (!h.Spent && h.Remaining != 0) || now.Sub(h.Seen) > RateWindow {
		return false
	}
	return h.Until.IsZero() || now.Before(h.Until)
}
