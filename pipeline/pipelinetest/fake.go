// Package pipelinetest provides an in-memory implementation of the pipeline
// ports for tests, in the way net/http/httptest provides a server: one Fake
// holds commits, files, diffs, pull requests, comments, issues and commit
// results, keeps the ports' contracts (the errors of pipeline/ports.go), and
// records every call.
//
// The optional port extensions change what a stage does when they are
// present, so Fake does not implement them itself: wrap it (ThreadStore,
// MergeBaseRepo, FilesRepo, ListingDiffs, CommitsRepo, Issues, SearchRepo,
// Committer)
// when a test wants one.
package pipelinetest

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// The operations a Fake records, as Calls, Hook and Fail name them.
const (
	OpResolve       = "resolve"        // ResolveCommit; arg: the revision
	OpRead          = "read"           // ReadFile; arg: the path
	OpList          = "list"           // ListDir; arg: the path
	OpReadFiles     = "read_files"     // FilesRepo.ReadFiles; arg: the paths joined by ","
	OpDiff          = "diff"           // Diff; arg: "base...head" or "base..head" (two-dot)
	OpChangedPaths  = "changed_paths"  // ListingDiffs.ChangedPaths; arg as for OpDiff
	OpPullRequest   = "pr"             // PullRequest; arg: the id
	OpAncestor      = "ancestor"       // IsAncestor; arg: "ancestor|head"
	OpMergeBase     = "merge_base"     // MergeBaseRepo.MergeBase; arg: "a|b"
	OpListComments  = "list_comments"  // ListComments; arg: the pull request id
	OpFindComments  = "find_comments"  // ThreadStore.FindOwnComments; arg: the pull request id
	OpGetComment    = "get_comment"    // ThreadStore.Comment; arg: the comment id
	OpCreateComment = "create_comment" // CreateComment; arg: the pull request id
	OpUpdateComment = "update_comment" // UpdateComment; arg: the comment id
	OpDeleteComment = "delete_comment" // DeleteComment; arg: the comment id
	OpResolveThread = "resolve_thread" // ThreadStore.ResolveThread; arg: the comment id
	OpListTasks     = "list_tasks"     // ListTasks; arg: the pull request id
	OpCreateTask    = "create_task"    // CreateTask; arg: the comment id
	OpResolveTask   = "resolve_task"   // ResolveTask; arg: the task id
	OpPRCommits     = "pr_commits"     // CommitsRepo.PullRequestCommitMessages; arg: the id and the limit, "7 50"
	OpRangeCommits  = "range_commits"  // CommitsRepo.CommitMessages; arg: "base..head 50" (with the limit)
	OpOpenTree      = "open_tree"      // SearchRepo.OpenTree; arg: the commit
	OpIssue         = "issue"          // LookupIssue; arg: the key
	OpSetStatus     = "set_status"     // SetBuildStatus; arg: the commit
	OpPutReport     = "put_report"     // PutReport; arg: the commit
)

// Fake is an in-memory pipeline.Repository, DiffSource, PullRequests,
// CommentStore, IssueLookup and CommitReporter. Its zero value is not
// usable: call New. Set Hook before the first call; every other setter may
// be called at any time (the Fake is safe for concurrent use).
type Fake struct {
	// Hook, when set, runs first in every call, after the call is counted,
	// and may block it (on a channel or the context) or fail it: a non-nil
	// error is the call's answer. op is one of the Op constants.
	Hook func(ctx context.Context, op, arg string) error
	// CreateHook, when set, runs in CreateComment after Hook, outside the
	// Fake's lock, with the comment asked for: it may fail the call or
	// write (AddComment) as another replica would at the same time.
	CreateHook func(ctx context.Context, prID int, c pipeline.NewComment) error

	mu sync.Mutex
	// commits maps every known commit id to its parents.
	commits  map[string][]string
	messages map[string]string
	refs     map[string]string
	// defaultCommit answers revisions nothing else resolves.
	defaultCommit string
	// files maps a commit ("" for every commit) to path -> content.
	files    map[string]map[string]string
	listings map[string][]pipeline.DirEntry // commit + "\x00" + dir
	careless map[string]bool
	diffs    map[string]string
	prs      map[int]pipeline.PullRequestInfo
	comments map[int][]pipeline.Comment
	tasks    map[int][]pipeline.Task
	nextID   int64
	urlFmt   string
	account  string
	selfIDs  []string
	now      func() time.Time
	shuffle  *rand.Rand
	issues   map[string]pipeline.Issue
	statuses []StatusCall
	reports  []ReportCall

	calls    map[string]int
	inFlight atomic.Int64
	maxSeen  atomic.Int64
}

// StatusCall is one SetBuildStatus the Fake accepted.
type StatusCall struct {
	Commit string
	Status pipeline.BuildStatus
}

// ReportCall is one PutReport the Fake accepted.
type ReportCall struct {
	Commit, Key string
	Report      pipeline.InsightsReport
	Annotations []pipeline.Annotation
}

// TooLargeError is ReadFile's refusal of a file over maxBytes. It wraps
// pipeline.ErrTooLarge and knows the file's size, as the real adapters'
// refusals do.
type TooLargeError struct {
	Path string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: file of %d bytes refused", e.Path, e.Size)
}
func (e *TooLargeError) Unwrap() error   { return pipeline.ErrTooLarge }
func (e *TooLargeError) FileSize() int64 { return e.Size }

// New returns an empty Fake.
func New() *Fake {
	return &Fake{
		commits:  map[string][]string{},
		messages: map[string]string{},
		refs:     map[string]string{},
		files:    map[string]map[string]string{},
		listings: map[string][]pipeline.DirEntry{},
		careless: map[string]bool{},
		diffs:    map[string]string{},
		prs:      map[int]pipeline.PullRequestInfo{},
		comments: map[int][]pipeline.Comment{},
		tasks:    map[int][]pipeline.Task{},
		nextID:   1000,
		issues:   map[string]pipeline.Issue{},
		calls:    map[string]int{},
	}
}

// AddCommit makes commit known with its parents (IsAncestor and MergeBase
// walk them). Any string is a commit id; full ids also resolve from their
// first seven or more characters.
func (f *Fake) AddCommit(commit string, parents ...string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addCommitLocked(commit)
	f.commits[commit] = append(f.commits[commit], parents...)
	for _, p := range parents {
		f.addCommitLocked(p)
	}
	return f
}

func (f *Fake) addCommitLocked(commit string) {
	if _, ok := f.commits[commit]; !ok && commit != "" {
		f.commits[commit] = nil
	}
}

// SetCommitMessage gives commit (made known) its message, which
// CommitsRepo reads.
func (f *Fake) SetCommitMessage(commit, message string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addCommitLocked(commit)
	f.messages[commit] = message
	return f
}

// AddRef makes the revision name (a branch or tag) resolve to commit.
func (f *Fake) AddRef(name, commit string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addCommitLocked(commit)
	f.refs[name] = commit
	return f
}

// ResolveAll makes every revision nothing else resolves resolve to commit,
// for tests that do not care which revision they ask for.
func (f *Fake) ResolveAll(commit string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addCommitLocked(commit)
	f.defaultCommit = commit
	return f
}

// AddFiles adds files (path -> content) at commit; commit "" adds them at
// every commit (a commit's own files win). Directories follow from the
// paths.
func (f *Fake) AddFiles(commit string, files map[string]string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addCommitLocked(commit)
	m := f.files[commit]
	if m == nil {
		m = map[string]string{}
		f.files[commit] = m
	}
	for p, c := range files {
		m[p] = c
	}
	return f
}

// SetListing makes ListDir of dir at commit ("" for every commit) answer
// entries as given, in their order, instead of the listing the files imply.
func (f *Fake) SetListing(commit, dir string, entries []pipeline.DirEntry) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listings[commit+"\x00"+dir] = slices.Clone(entries)
	return f
}

// Careless makes the Fake serve these paths as an adapter that trusts its
// caller: ReadFile returns the file whole whatever maxBytes says and
// whatever its bytes are, ListDir returns every entry whatever limit says.
// Tests of a caller's own guards use it.
func (f *Fake) Careless(paths ...string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range paths {
		f.careless[p] = true
	}
	return f
}

// SetDiff makes Diff answer diff for spec: "base...head" (the default, a
// merge-base diff), "base..head" (DiffOptions.TwoDot) or "*" (any diff
// without its own).
func (f *Fake) SetDiff(spec, diff string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diffs[spec] = diff
	return f
}

// AddPullRequest adds (or replaces) the pull request pr.ID.
func (f *Fake) AddPullRequest(pr pipeline.PullRequestInfo) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prs[pr.ID] = pr
	return f
}

// AddIssue adds (or replaces) the issue is.Key.
func (f *Fake) AddIssue(is pipeline.Issue) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issues[is.Key] = is
	return f
}

// Statuses returns the build statuses set so far, oldest first.
func (f *Fake) Statuses() []StatusCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.statuses)
}

// Reports returns the reports put so far, oldest first.
func (f *Fake) Reports() []ReportCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reports)
}

// Calls returns how many calls of op with arg the Fake has seen (arg ""
// counts every call of op).
func (f *Fake) Calls(op, arg string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if arg != "" {
		return f.calls[op+" "+arg]
	}
	n := 0
	for k, c := range f.calls {
		if strings.HasPrefix(k, op+" ") {
			n += c
		}
	}
	return n
}

// TotalCalls returns how many calls the Fake has seen.
func (f *Fake) TotalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

// InFlight returns how many calls are running now.
func (f *Fake) InFlight() int { return int(f.inFlight.Load()) }

// MaxInFlight returns the most calls that were running at the same time.
func (f *Fake) MaxInFlight() int { return int(f.maxSeen.Load()) }

// enter counts a call, tracks concurrency and runs Hook; the caller defers
// the returned func.
func (f *Fake) enter(ctx context.Context, op, arg string) (func(), error) {
	f.mu.Lock()
	f.calls[op+" "+arg]++
	f.mu.Unlock()
	n := f.inFlight.Add(1)
	for m := f.maxSeen.Load(); n > m && !f.maxSeen.CompareAndSwap(m, n); m = f.maxSeen.Load() {
	}
	done := func() { f.inFlight.Add(-1) }
	if f.Hook != nil {
		if err := f.Hook(ctx, op, arg); err != nil {
			done()
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		done()
		return nil, err
	}
	return done, nil
}

// ResolveCommit implements pipeline.Repository: a ref, a known commit id or
// a unique prefix of seven or more characters of one.
func (f *Fake) ResolveCommit(ctx context.Context, _ pipeline.Repo, rev string) (string, error) {
	done, err := f.enter(ctx, OpResolve, rev)
	if err != nil {
		return "", err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.refs[rev]; ok {
		return c, nil
	}
	if _, ok := f.commits[rev]; ok {
		return rev, nil
	}
	if len(rev) >= 7 {
		var found []string
		for c := range f.commits {
			if strings.HasPrefix(c, rev) {
				found = append(found, c)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
	}
	if f.defaultCommit != "" {
		return f.defaultCommit, nil
	}
	return "", fmt.Errorf("revision %q: %w", rev, pipeline.ErrNotFound)
}

// file returns path's content at commit (the commit's own files first).
func (f *Fake) fileLocked(commit, path string) (string, bool) {
	if c, ok := f.files[commit][path]; ok {
		return c, true
	}
	c, ok := f.files[""][path]
	return c, ok
}

// isDirLocked reports whether dir holds a file at commit or has a listing.
func (f *Fake) isDirLocked(commit, dir string) bool {
	if dir == "" {
		return true
	}
	if _, ok := f.listings[commit+"\x00"+dir]; ok {
		return true
	}
	if _, ok := f.listings["\x00"+dir]; ok {
		return true
	}
	for _, c := range []string{commit, ""} {
		for p := range f.files[c] {
			if strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
	}
	return false
}

// ReadFile implements pipeline.Repository.
func (f *Fake) ReadFile(ctx context.Context, _ pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	done, err := f.enter(ctx, OpRead, path)
	if err != nil {
		return nil, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readLocked(commit, path, maxBytes)
}

func (f *Fake) readLocked(commit, path string, maxBytes int64) ([]byte, error) {
	c, ok := f.fileLocked(commit, path)
	switch {
	case !ok && f.isDirLocked(commit, path):
		return nil, fmt.Errorf("read %s: %w", path, pipeline.ErrIsDir)
	case !ok:
		return nil, fmt.Errorf("read %s at %s: %w", path, commit, pipeline.ErrNotFound)
	case f.careless[path]:
		return []byte(c), nil
	case maxBytes > 0 && int64(len(c)) > maxBytes:
		return nil, &TooLargeError{Path: path, Size: int64(len(c))}
	case strings.IndexByte(c[:min(len(c), 8000)], 0) >= 0:
		return nil, fmt.Errorf("read %s: %w", path, pipeline.ErrBinary)
	}
	return []byte(c), nil
}

// ListDir implements pipeline.Repository: the listing set for dir, or the
// direct children the files imply, sorted by path, at most limit of them.
func (f *Fake) ListDir(ctx context.Context, _ pipeline.Repo, commit, dir string, limit int) ([]pipeline.DirEntry, bool, error) {
	done, err := f.enter(ctx, OpList, dir)
	if err != nil {
		return nil, false, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	entries, ok := f.listings[commit+"\x00"+dir]
	if !ok {
		entries, ok = f.listings["\x00"+dir]
	}
	if !ok {
		if _, isFile := f.fileLocked(commit, dir); isFile {
			return nil, false, fmt.Errorf("list %s: %w", dir, pipeline.ErrNotDir)
		}
		entries = f.childrenLocked(commit, dir)
		if len(entries) == 0 && dir != "" {
			return nil, false, fmt.Errorf("list %s at %s: %w", dir, commit, pipeline.ErrNotFound)
		}
	}
	entries = slices.Clone(entries)
	if limit > 0 && len(entries) > limit && !f.careless[dir] {
		return entries[:limit], true, nil
	}
	return entries, false, nil
}

func (f *Fake) childrenLocked(commit, dir string) []pipeline.DirEntry {
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []pipeline.DirEntry
	for _, c := range []string{commit, ""} {
		for p, content := range f.files[c] {
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok {
				continue
			}
			name, _, isDir := strings.Cut(rest, "/")
			child := prefix + name
			if seen[child] {
				continue
			}
			seen[child] = true
			if isDir {
				out = append(out, pipeline.DirEntry{Path: child, Type: "dir"})
				continue
			}
			n := int64(len(content))
			out = append(out, pipeline.DirEntry{Path: child, Type: "file", Size: &n})
		}
	}
	slices.SortFunc(out, func(a, b pipeline.DirEntry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func diffSpec(base, head string, opts pipeline.DiffOptions) string {
	if opts.TwoDot {
		return base + ".." + head
	}
	return base + "..." + head
}

// Diff implements pipeline.DiffSource with the diffs SetDiff gave.
func (f *Fake) Diff(ctx context.Context, _ pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]byte, error) {
	spec := diffSpec(base, head, opts)
	done, err := f.enter(ctx, OpDiff, spec)
	if err != nil {
		return nil, err
	}
	defer done()
	d, err := f.diff(spec)
	return []byte(d), err
}

func (f *Fake) diff(spec string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.diffs[spec]; ok {
		return d, nil
	}
	if d, ok := f.diffs["*"]; ok {
		return d, nil
	}
	return "", fmt.Errorf("diff %s: %w", spec, pipeline.ErrNotFound)
}

// PullRequest implements pipeline.PullRequests.
func (f *Fake) PullRequest(ctx context.Context, _ pipeline.Repo, id int) (pipeline.PullRequestInfo, error) {
	done, err := f.enter(ctx, OpPullRequest, strconv.Itoa(id))
	if err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	pr, ok := f.prs[id]
	if !ok {
		return pipeline.PullRequestInfo{}, fmt.Errorf("pull request %d: %w", id, pipeline.ErrNotFound)
	}
	return pr, nil
}

// IsAncestor implements pipeline.PullRequests by walking the parents
// AddCommit gave; an unknown head wraps ErrNotFound.
func (f *Fake) IsAncestor(ctx context.Context, _ pipeline.Repo, ancestor, head string) (bool, error) {
	done, err := f.enter(ctx, OpAncestor, ancestor+"|"+head)
	if err != nil {
		return false, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.commits[head]; !ok {
		return false, fmt.Errorf("commit %s: %w", head, pipeline.ErrNotFound)
	}
	return f.ancestorsLocked(head)[ancestor], nil
}

// ancestorsLocked returns commit and every commit reachable from it.
func (f *Fake) ancestorsLocked(commit string) map[string]bool {
	seen := map[string]bool{}
	for queue := []string{commit}; len(queue) > 0; queue = queue[1:] {
		c := queue[0]
		if seen[c] {
			continue
		}
		seen[c] = true
		queue = append(queue, f.commits[c]...)
	}
	return seen
}

// LookupIssue implements pipeline.IssueLookup.
func (f *Fake) LookupIssue(ctx context.Context, key string) (pipeline.Issue, error) {
	done, err := f.enter(ctx, OpIssue, key)
	if err != nil {
		return pipeline.Issue{}, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	is, ok := f.issues[key]
	if !ok {
		return pipeline.Issue{}, fmt.Errorf("issue %s: %w", key, pipeline.ErrNotFound)
	}
	return is, nil
}

// SetBuildStatus implements pipeline.CommitReporter: it validates s as the
// adapter does before sending it, and records it.
func (f *Fake) SetBuildStatus(ctx context.Context, _ pipeline.Repo, commit string, s pipeline.BuildStatus) error {
	done, err := f.enter(ctx, OpSetStatus, commit)
	if err != nil {
		return err
	}
	defer done()
	if err := s.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statuses = append(f.statuses, StatusCall{Commit: commit, Status: s})
	return nil
}

// PutReport implements pipeline.CommitReporter: it validates r and records
// it with its annotations.
func (f *Fake) PutReport(ctx context.Context, _ pipeline.Repo, commit, key string, r pipeline.InsightsReport, annotations []pipeline.Annotation) (pipeline.PutReportResult, error) {
	done, err := f.enter(ctx, OpPutReport, commit)
	if err != nil {
		return pipeline.PutReportResult{Warnings: []string{}}, err
	}
	defer done()
	if err := r.Validate(); err != nil {
		return pipeline.PutReportResult{Warnings: []string{}}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, ReportCall{Commit: commit, Key: key, Report: r, Annotations: slices.Clone(annotations)})
	return pipeline.PutReportResult{Annotations: len(annotations), Warnings: []string{}}, nil
}

var (
	_ pipeline.Repository     = (*Fake)(nil)
	_ pipeline.DiffSource     = (*Fake)(nil)
	_ pipeline.PullRequests   = (*Fake)(nil)
	_ pipeline.CommentStore   = (*Fake)(nil)
	_ pipeline.TaskStore      = (*Fake)(nil)
	_ pipeline.IssueLookup    = (*Fake)(nil)
	_ pipeline.CommitReporter = (*Fake)(nil)
)
