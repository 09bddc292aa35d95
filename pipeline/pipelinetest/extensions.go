package pipelinetest

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/prscout/prscout/pipeline"
)

// ThreadStore is a Fake whose comment threads resolve: a
// pipeline.ThreadResolver as well as a CommentStore.
type ThreadStore struct{ *Fake }

// Comment implements pipeline.CommentGetter: comment id of pull request
// prID as ListComments gives it.
func (s ThreadStore) Comment(ctx context.Context, _ pipeline.Repo, prID int, id int64) (pipeline.Comment, error) {
	done, err := s.enter(ctx, OpGetComment, strconv.FormatInt(id, 10))
	if err != nil {
		return pipeline.Comment{}, err
	}
	defer done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments[prID] {
		if c.ID == id {
			return cloneComments([]pipeline.Comment{c})[0], nil
		}
	}
	return pipeline.Comment{}, fmt.Errorf("comment %d: %w", id, pipeline.ErrNotFound)
}

// FindOwnComments implements pipeline.OwnCommentFinder: the comments not
// marked Foreign or Unverified whose body matches q, highest id first. It
// fails while the Fake has no own account ids (SetSelf), as a provider
// that cannot tell its own comments does.
func (s ThreadStore) FindOwnComments(ctx context.Context, _ pipeline.Repo, prID int, q pipeline.OwnCommentQuery) ([]pipeline.Comment, error) {
	done, err := s.enter(ctx, OpFindComments, strconv.Itoa(prID))
	if err != nil {
		return nil, err
	}
	defer done()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.selfIDs) == 0 {
		return nil, fmt.Errorf("find own comments: own account unknown: %w", pipeline.ErrUpstream)
	}
	var out []pipeline.Comment
	for _, c := range slices.Backward(s.comments[prID]) {
		if !c.Foreign && !c.Unverified && q.Match(c.Body) && len(out) < q.Limit {
			out = append(out, c)
		}
	}
	return cloneComments(out), nil
}

// ResolveThread implements pipeline.ThreadResolver for top-level comment id
// of any pull request. A thread already resolved answers an error wrapping
// ErrUpstream, as Bitbucket answers 409.
func (s ThreadStore) ResolveThread(ctx context.Context, _ pipeline.Repo, prID int, id int64) error {
	done, err := s.enter(ctx, OpResolveThread, strconv.FormatInt(id, 10))
	if err != nil {
		return err
	}
	defer done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments[prID] {
		c := &s.comments[prID][i]
		if c.ID != id || c.Deleted {
			continue
		}
		if c.Resolved {
			return fmt.Errorf("resolve %d: already resolved: %w", id, pipeline.ErrUpstream)
		}
		c.Resolved = true
		return nil
	}
	return fmt.Errorf("resolve %d: %w", id, pipeline.ErrNotFound)
}

// MergeBaseRepo is a Fake that finds merge bases: a pipeline.MergeBases as
// well as a PullRequests.
type MergeBaseRepo struct{ *Fake }

// MergeBase implements pipeline.MergeBases over the parents AddCommit gave:
// the nearest ancestor of a (breadth first) that is also an ancestor of b.
func (r MergeBaseRepo) MergeBase(ctx context.Context, _ pipeline.Repo, a, b string) (string, error) {
	done, err := r.enter(ctx, OpMergeBase, a+"|"+b)
	if err != nil {
		return "", err
	}
	defer done()
	r.mu.Lock()
	defer r.mu.Unlock()
	ofB := r.ancestorsLocked(b)
	seen := map[string]bool{}
	for queue := []string{a}; len(queue) > 0; queue = queue[1:] {
		c := queue[0]
		if seen[c] {
			continue
		}
		seen[c] = true
		if ofB[c] {
			return c, nil
		}
		queue = append(queue, r.commits[c]...)
	}
	return "", fmt.Errorf("merge base of %s and %s: %w", a, b, pipeline.ErrNotFound)
}

// FilesRepo is a Fake that reads many files in one call: a
// pipeline.FilesReader as well as a Repository.
type FilesRepo struct{ *Fake }

// ReadFiles implements pipeline.FilesReader: fn sees, per path, what
// ReadFile would answer.
func (r FilesRepo) ReadFiles(ctx context.Context, _ pipeline.Repo, commit string, paths []string, maxBytes int64, fn func(i int, data []byte, err error)) error {
	done, err := r.enter(ctx, OpReadFiles, strings.Join(paths, ","))
	if err != nil {
		return err
	}
	defer done()
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.mu.Lock()
		data, err := r.readLocked(commit, p, maxBytes)
		r.mu.Unlock()
		fn(i, data, err)
	}
	return nil
}

// ListingDiffs is a Fake that names a diff's files before producing it: a
// pipeline.ChangeLister as well as a DiffSource.
type ListingDiffs struct{ *Fake }

// ChangedPaths implements pipeline.ChangeLister: the new paths of the files
// the diff SetDiff gave shows, deleted files left out.
func (d ListingDiffs) ChangedPaths(ctx context.Context, _ pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]string, error) {
	spec := diffSpec(base, head, opts)
	done, err := d.enter(ctx, OpChangedPaths, spec)
	if err != nil {
		return nil, err
	}
	defer done()
	raw, err := d.diff(spec)
	if err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(strings.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", spec, err)
	}
	var out []string
	for _, f := range files {
		if !f.IsDelete {
			out = append(out, f.NewName)
		}
	}
	return out, nil
}

var (
	_ pipeline.ThreadResolver = ThreadStore{}
	_ pipeline.MergeBases     = MergeBaseRepo{}
	_ pipeline.FilesReader    = FilesRepo{}
	_ pipeline.ChangeLister   = ListingDiffs{}
)

// CommitsRepo is a Fake that reads commit messages: a
// pipeline.PullRequestCommits and a pipeline.RangeCommits as well.
type CommitsRepo struct{ *Fake }

// PullRequestCommitMessages implements pipeline.PullRequestCommits: the
// messages SetCommitMessage gave of the commits reachable from the pull
// request's source and not from its destination, newest first.
func (r CommitsRepo) PullRequestCommitMessages(ctx context.Context, _ pipeline.Repo, prID, limit int) ([]string, error) {
	done, err := r.enter(ctx, OpPRCommits, strconv.Itoa(prID)+" "+strconv.Itoa(limit))
	if err != nil {
		return nil, err
	}
	defer done()
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := r.prs[prID]
	if !ok {
		return nil, fmt.Errorf("pull request %d: %w", prID, pipeline.ErrNotFound)
	}
	return r.messagesLocked(r.expandLocked(pr.DestinationCommit), r.expandLocked(pr.SourceCommit), limit), nil
}

// CommitMessages implements pipeline.RangeCommits for base..head.
func (r CommitsRepo) CommitMessages(ctx context.Context, _ pipeline.Repo, base, head string, limit int) ([]string, error) {
	done, err := r.enter(ctx, OpRangeCommits, base+".."+head+" "+strconv.Itoa(limit))
	if err != nil {
		return nil, err
	}
	defer done()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range []string{base, head} {
		if _, ok := r.commits[r.expandLocked(c)]; !ok {
			return nil, fmt.Errorf("revision %s: %w", c, pipeline.ErrNotFound)
		}
	}
	return r.messagesLocked(r.expandLocked(base), r.expandLocked(head), limit), nil
}

// expandLocked turns a ref or a unique abbreviation into a commit id (or
// returns rev as it is).
func (f *Fake) expandLocked(rev string) string {
	if c, ok := f.refs[rev]; ok {
		return c
	}
	if _, ok := f.commits[rev]; ok || len(rev) < 7 {
		return rev
	}
	hit := ""
	for c := range f.commits {
		if strings.HasPrefix(c, rev) {
			if hit != "" {
				return rev
			}
			hit = c
		}
	}
	if hit == "" {
		return rev
	}
	return hit
}

// messagesLocked lists the messages of head's ancestors that are not
// base's, breadth first from head, at most limit (0: all).
func (f *Fake) messagesLocked(base, head string, limit int) []string {
	exclude := f.ancestorsLocked(base)
	out := []string{}
	seen := map[string]bool{}
	for queue := []string{head}; len(queue) > 0 && (limit <= 0 || len(out) < limit); queue = queue[1:] {
		c := queue[0]
		if seen[c] || exclude[c] {
			continue
		}
		seen[c] = true
		out = append(out, f.messages[c])
		queue = append(queue, f.commits[c]...)
	}
	return out
}

// Issues is a Fake as an issue tracker with a bound and a project filter:
// a pipeline.IssueBound and a pipeline.IssueProjects as well.
type Issues struct {
	*Fake
	Max         int      // MaxIssues
	ProjectKeys []string // Projects
}

func (i Issues) MaxIssues() int     { return i.Max }
func (i Issues) Projects() []string { return i.ProjectKeys }

// SearchRepo is a Fake that searches code: a pipeline.CodeSearch (with
// MergeBaseRepo's MergeBase) over the files AddFiles gave.
type SearchRepo struct{ MergeBaseRepo }

// NewSearchRepo wraps f.
func NewSearchRepo(f *Fake) SearchRepo { return SearchRepo{MergeBaseRepo{f}} }

// OpenTree implements pipeline.CodeSearch for a known commit (Hook may
// block it, as a mirror that is not ready yet).
func (r SearchRepo) OpenTree(ctx context.Context, _ pipeline.Repo, commit string) (pipeline.CodeTree, error) {
	done, err := r.enter(ctx, OpOpenTree, commit)
	if err != nil {
		return nil, err
	}
	defer done()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.commits[commit]; !ok {
		return nil, fmt.Errorf("commit %s: %w", commit, pipeline.ErrNotFound)
	}
	files := map[string]string{}
	for _, c := range []string{"", commit} {
		for p, content := range r.files[c] {
			files[p] = content
		}
	}
	return codeTree(files), nil
}

// NewTree returns files (path -> content) as a pipeline.CodeTree, the tree
// SearchRepo.OpenTree opens, for tests of code that takes a tree.
func NewTree(files map[string]string) pipeline.CodeTree { return codeTree(maps.Clone(files)) }

// codeTree is one commit's files, searched as git grep -l -w searches them.
type codeTree map[string]string

func (t codeTree) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []string
	for p, src := range t {
		if pipeline.LooksBinary([]byte(src)) || !matchesPathspec(p, globs) {
			continue
		}
		if slices.ContainsFunc(words, func(w string) bool { return hasWord(src, w) }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (t codeTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, ok := t[p]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: %w", p, pipeline.ErrNotFound)
	case pipeline.LooksBinary([]byte(src)):
		return nil, fmt.Errorf("%s: %w", p, pipeline.ErrBinary)
	}
	return []byte(src), nil
}

func (t codeTree) ListDir(_ context.Context, dir string) ([]string, error) {
	dir = strings.Trim(strings.TrimPrefix(dir, "."), "/")
	var out []string
	for p := range t {
		if d, _ := path.Split(p); strings.TrimSuffix(d, "/") == dir {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (codeTree) Close() error { return nil }

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hasWord reports whether w occurs in src as a whole word (git grep -w).
func hasWord(src, w string) bool {
	for i := 0; w != ""; {
		j := strings.Index(src[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isWordByte(src[j-1])) && (end == len(src) || !isWordByte(src[end])) {
			return true
		}
		i = j + 1
	}
	return false
}

// matchesPathspec applies git's pathspecs: a glob whose "*" also matches
// "/", or a path without wildcards naming a file or a directory.
func matchesPathspec(p string, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if !strings.ContainsAny(g, "*?[") {
			if p == g || strings.HasPrefix(p, strings.TrimSuffix(g, "/")+"/") {
				return true
			}
			continue
		}
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(g); i++ {
			switch c := g[i]; c {
			case '*':
				re.WriteString(".*")
			case '?':
				re.WriteString(".")
			case '[':
				j := strings.IndexByte(g[i:], ']')
				if j < 0 {
					re.WriteString(`\[`)
					continue
				}
				re.WriteString(g[i : i+j+1])
				i += j
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		if ok, _ := regexp.MatchString(re.String(), p); ok {
			return true
		}
	}
	return false
}

var (
	_ pipeline.PullRequestCommits = CommitsRepo{}
	_ pipeline.RangeCommits       = CommitsRepo{}
	_ pipeline.IssueBound         = Issues{}
	_ pipeline.IssueProjects      = Issues{}
	_ pipeline.CodeSearch         = SearchRepo{}
)
