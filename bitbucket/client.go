// Package bitbucket is the Bitbucket Cloud (REST 2.0) adapter: it implements
// pipeline.Repository, pipeline.DiffSource, pipeline.PullRequests (with
// pipeline.PullRequestCommits) and pipeline.CommentStore, and offers pure webhook helpers (VerifySignature,
// ParseWebhook).
//
// Every call is bounded: each attempt has Config.Timeout (a context deadline
// that really cancels the request and the body read), 429 and 5xx answers are
// retried with backoff within Config.MaxRetries and Config.MaxRetryWait, and
// the whole call is bounded by an http.Client timeout. Every attempt is
// reported to Config.Observer by operation name.
//
// go-bitbucket is used where it is correct; the thin client in api.go says
// for each other endpoint which go-bitbucket bug or gap it works around.
package bitbucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// DefaultBaseURL is Bitbucket Cloud's REST API root.
const DefaultBaseURL = "https://api.bitbucket.org/2.0"

// Defaults applied by New to zero Config fields.
const (
	defaultTimeout       = 20 * time.Second
	defaultMaxRetries    = 3
	defaultMaxRetryWait  = 30 * time.Second
	defaultRetryBaseWait = 500 * time.Millisecond
	defaultMaxDiffBytes  = 32 << 20
	// pageLen is the page size asked for on paged lists (the API's maximum).
	pageLen = 100
	// maxPages bounds every `next` walk, so a misbehaving server cannot keep
	// a call paging forever.
	maxPages = 200
	maxJSON  = 16 << 20
)

// errLFS marks a file stored in Git LFS: its content is not in the
// repository, so it is refused like a binary file (it also wraps
// pipeline.ErrBinary).
var errLFS = errors.New("LFS file")

// Config configures the adapter. cmd/prscout fills it from
// PRSCOUT_BITBUCKET_BASE_URL, PRSCOUT_BITBUCKET_EMAIL + PRSCOUT_BITBUCKET_TOKEN
// (an Atlassian API token, sent as HTTP Basic) or
// PRSCOUT_BITBUCKET_ACCESS_TOKEN (a repository/project/workspace access token,
// sent as Bearer).
type Config struct {
	BaseURL     string // default DefaultBaseURL
	Email       string
	Token       string
	AccessToken string

	// Timeout bounds one attempt, body read included (default 20s).
	Timeout time.Duration
	// MaxRetries bounds the retries of one request after 429 or 5xx
	// (default 3; negative disables retries).
	MaxRetries int
	// MaxRetryWait bounds the total time one request sleeps between attempts
	// (default 30s). A Retry-After longer than what is left is not waited
	// for: the 429 is returned.
	MaxRetryWait time.Duration
	// RetryBaseWait is the first backoff step, doubled per retry (default 0.5s).
	RetryBaseWait time.Duration
	// MaxDiffBytes refuses larger diffs with pipeline.ErrTooLarge (default 32 MiB).
	MaxDiffBytes int64

	// AccountID is prscout's own Bitbucket account (its account_id or
	// {uuid}), from the optional PRSCOUT_BITBUCKET_ACCOUNT_ID. It is used
	// only when GET /user cannot tell who the credentials act as (see
	// ListComments).
	AccountID string

	// HTTPClient is optional (tests): only its Transport is used; timeouts,
	// redirects and retries stay the adapter's.
	HTTPClient *http.Client
	// Observer is an optional metrics hook.
	Observer Observer
	// Logger receives the adapter's rare warnings (default slog.Default())
	// and, when set, every upstream attempt: debug level for good answers,
	// warn for failures, 429s and retries, with the request id of the
	// prscout request that caused them (pipeline.RequestID).
	Logger *slog.Logger
}

// Client is the Bitbucket Cloud adapter.
type Client struct {
	api     apiClient
	overall time.Duration
	self    selfAccount
}

// selfAccount is prscout's own account, learnt once (lazily) from GET /user,
// else the configured Config.AccountID.
type selfAccount struct {
	configured string
	log        *slog.Logger
	mu         sync.Mutex
	settled    bool     // ids are final: learnt, configured, or /user refused us
	ids        []string // normalised account_id and uuid; nil: unknown
	warned     bool
}

var (
	_ pipeline.Repository     = (*Client)(nil)
	_ pipeline.DiffSource     = (*Client)(nil)
	_ pipeline.PullRequests   = (*Client)(nil)
	_ pipeline.CommentStore   = (*Client)(nil)
	_ pipeline.ThreadResolver = (*Client)(nil)
	_ pipeline.MergeBases     = (*Client)(nil)
)

// New validates cfg, applies defaults and builds a Client. Error messages name
// the environment variable to fix.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("PRSCOUT_BITBUCKET_BASE_URL must be an absolute http(s) URL, got %q", cfg.BaseURL)
	}
	switch {
	case cfg.AccessToken != "" && (cfg.Email != "" || cfg.Token != ""):
		return nil, errors.New("set either PRSCOUT_BITBUCKET_ACCESS_TOKEN or PRSCOUT_BITBUCKET_EMAIL and PRSCOUT_BITBUCKET_TOKEN, not both")
	case cfg.AccessToken != "":
	case cfg.Token != "" && cfg.Email == "":
		return nil, errors.New("PRSCOUT_BITBUCKET_TOKEN is set but PRSCOUT_BITBUCKET_EMAIL is empty")
	case cfg.Email != "" && cfg.Token == "":
		return nil, errors.New("PRSCOUT_BITBUCKET_EMAIL is set but PRSCOUT_BITBUCKET_TOKEN is empty")
	case cfg.Email == "":
		return nil, errors.New("no Bitbucket credentials: set PRSCOUT_BITBUCKET_ACCESS_TOKEN, or PRSCOUT_BITBUCKET_EMAIL and PRSCOUT_BITBUCKET_TOKEN")
	}
	if cfg.Timeout < 0 || cfg.MaxRetryWait < 0 || cfg.RetryBaseWait < 0 || cfg.MaxDiffBytes < 0 {
		return nil, errors.New("bitbucket: Timeout, MaxRetryWait, RetryBaseWait and MaxDiffBytes must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = defaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxRetryWait == 0 {
		cfg.MaxRetryWait = defaultMaxRetryWait
	}
	if cfg.RetryBaseWait == 0 {
		cfg.RetryBaseWait = defaultRetryBaseWait
	}
	if cfg.MaxDiffBytes == 0 {
		cfg.MaxDiffBytes = defaultMaxDiffBytes
	}
	var baseRT http.RoundTripper = http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		baseRT = cfg.HTTPClient.Transport
	}
	obs := cfg.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	email, token, bearer := cfg.Email, cfg.Token, cfg.AccessToken
	tr := &transport{
		base: baseRT,
		host: base.Host,
		authorize: func(r *http.Request) {
			if bearer != "" {
				r.Header.Set("Authorization", "Bearer "+bearer)
			} else {
				r.SetBasicAuth(email, token)
			}
		},
		timeout: cfg.Timeout,
		policy: retry.Policy{
			MaxRetries:           cfg.MaxRetries,
			BaseWait:             cfg.RetryBaseWait,
			Jitter:               true,
			Budget:               cfg.MaxRetryWait,
			Final:                []int{statusDiffTooLarge},
			RetryTransportErrors: true,
		},
		obs: obs,
		log: cfg.Logger,
		now: time.Now,
	}
	// The whole call: every attempt plus every allowed sleep.
	overall := cfg.Timeout*time.Duration(cfg.MaxRetries+1) + cfg.MaxRetryWait
	hc := &http.Client{Transport: tr, Timeout: overall, CheckRedirect: checkRedirect(base.Host)}
	return &Client{
		overall: overall,
		self:    selfAccount{configured: strings.TrimSpace(cfg.AccountID), log: cfg.Logger},
		api: &httpAPI{
			base: base, baseStr: base.String(), hc: hc,
			email: email, token: token, bearer: bearer,
			maxDiff: cfg.MaxDiffBytes, maxJSON: maxJSON, pagelen: pageLen,
		},
	}, nil
}

// bound gives one adapter call its overall deadline. go-bitbucket's requests
// get it through ctxTransport.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.overall <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.overall)
}

// Workspace ids and repository slugs are URL-safe in Bitbucket; anything else
// is refused before it reaches a URL (go-bitbucket does not escape them).
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func checkRepo(repo pipeline.Repo) error {
	if !namePattern.MatchString(repo.Workspace) {
		return pipeline.Invalidf("workspace", "invalid Bitbucket workspace %q", repo.Workspace)
	}
	if !namePattern.MatchString(repo.RepoSlug) {
		return pipeline.Invalidf("repoSlug", "invalid Bitbucket repository slug %q", repo.RepoSlug)
	}
	return nil
}

// Revisions are commit ids, branch or tag names; refuse what could change
// the URL's meaning (".." splits diff specs).
// checkRange checks a repository and the two revisions of a range, naming
// the field at fault.
func checkRange(repo pipeline.Repo, fieldA, a, fieldB, b string) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	if err := checkRev(fieldA, a); err != nil {
		return err
	}
	return checkRev(fieldB, b)
}

func checkRev(field, rev string) error {
	if rev == "" || strings.Contains(rev, "..") || strings.ContainsAny(rev, " \t\r\n?#\\~^:") {
		return pipeline.Invalidf(field, "invalid revision %q", rev)
	}
	return nil
}

// PullRequest returns pull request metadata: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}.
// Commit ids are Bitbucket's 12-character abbreviations. An unknown id wraps
// pipeline.ErrNotFound.
func (c *Client) PullRequest(ctx context.Context, repo pipeline.Repo, id int) (pipeline.PullRequestInfo, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.PullRequestInfo{}, err
	}
	if id <= 0 {
		return pipeline.PullRequestInfo{}, pipeline.Invalidf("prId", "must be a positive pull request id, got %d", id)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	pr, err := c.api.pullRequest(ctx, repo, id)
	if err != nil {
		return pipeline.PullRequestInfo{}, fmt.Errorf("get pull request %d: %w", id, err)
	}
	return prInfo(pr), nil
}

func prInfo(pr wirePR) pipeline.PullRequestInfo {
	desc := pr.Description
	if desc == "" {
		desc = pr.Summary.Raw
	}
	author := pr.Author.DisplayName
	if author == "" {
		author = pr.Author.Nickname
	}
	return pipeline.PullRequestInfo{
		ID: pr.ID,
		PullRequest: pipeline.PullRequest{
			Title:             pr.Title,
			Description:       desc,
			Author:            author,
			SourceBranch:      pr.Source.Branch.Name,
			DestinationBranch: pr.Destination.Branch.Name,
			URL:               pr.Links.HTML.Href,
		},
		State:             pr.State,
		SourceCommit:      pr.Source.Commit.Hash,
		DestinationCommit: pr.Destination.Commit.Hash,
	}
}

// IsAncestor reports whether ancestor is head or one of its ancestors: GET
// /repositories/{workspace}/{repo_slug}/merge-base/{ancestor}..{head} equals
// ancestor. Ids may be abbreviated.
//
// Unverified against live Bitbucket: that the merge-base answer is a commit
// object with a full "hash" (the spec names the response a commit, and the
// operation takes a revspec "3a8b42..9ff173"); that abbreviated ids are
// accepted in the revspec. An unknown commit, or histories without a common
// ancestor, wrap pipeline.ErrNotFound.
func (c *Client) IsAncestor(ctx context.Context, repo pipeline.Repo, ancestor, head string) (bool, error) {
	if err := checkRange(repo, "ancestor", ancestor, "head", head); err != nil {
		return false, err
	}
	if pipeline.SameCommit(ancestor, head) {
		return true, nil
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	mb, err := c.api.mergeBase(ctx, repo, ancestor, head)
	if err != nil {
		return false, fmt.Errorf("merge base of %s and %s: %w", ancestor, head, err)
	}
	return pipeline.SameCommit(mb.Hash, ancestor), nil
}

// MergeBase returns the merge base of a and b: GET
// /repositories/{workspace}/{repo_slug}/merge-base/{a}..{b}. Ids may be
// abbreviated; the answer's hash is returned as Bitbucket gives it (a full
// id, unverified against live Bitbucket: see IsAncestor). An unknown commit,
// or histories without a common ancestor, wrap pipeline.ErrNotFound.
func (c *Client) MergeBase(ctx context.Context, repo pipeline.Repo, a, b string) (string, error) {
	if err := checkRange(repo, "base", a, "head", b); err != nil {
		return "", err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	mb, err := c.api.mergeBase(ctx, repo, a, b)
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if mb.Hash == "" {
		return "", fmt.Errorf("merge base of %s and %s: answer has no hash: %w", a, b, pipeline.ErrUpstream)
	}
	return mb.Hash, nil
}

// ResolveCommit expands a revision to a full commit id: GET
// /repositories/{workspace}/{repo_slug}/commit/{commit}. Unknown revisions
// wrap pipeline.ErrNotFound.
func (c *Client) ResolveCommit(ctx context.Context, repo pipeline.Repo, rev string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	if err := checkRev("ref", rev); err != nil {
		return "", err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	cm, err := c.api.commit(ctx, repo, rev)
	if err != nil {
		return "", fmt.Errorf("resolve commit %s: %w", rev, err)
	}
	if cm.Hash == "" {
		return "", fmt.Errorf("resolve commit %s: answer has no hash: %w", rev, pipeline.ErrUpstream)
	}
	return cm.Hash, nil
}

// diffQuery is the query of a diff: context lines, rename detection on (the
// API default, said explicitly), and topic true for the three-dot diff a pull
// request shows or false for a two-dot delta.
func diffQuery(opts pipeline.DiffOptions) url.Values {
	q := url.Values{}
	if opts.ContextLines > 0 {
		q.Set("context", strconv.Itoa(opts.ContextLines))
	}
	q.Set("renames", "true")
	q.Set("topic", strconv.FormatBool(!opts.TwoDot))
	return q
}

// diffSpec is Bitbucket's "A..B" spec for the git range base..head.
// Bitbucket's order is the reverse of git's: the first commit is the one
// with the changes, the second the state compared against.
func diffSpec(base, head string) string {
	return escapePath(head) + ".." + escapePath(base)
}

// Diff returns the raw unified diff from base to head: GET
// /repositories/{workspace}/{repo_slug}/diff/{head}..{base}?context=N&renames=true&topic=...
// Without opts.TwoDot it is the three-dot diff (from the merge base, what a
// pull request shows, topic=true); with it the plain two-dot delta
// (topic=false). A 555 answer (too large, timed out) wraps
// pipeline.ErrTooLarge (see isDiffTooLarge); so does a diff over
// Config.MaxDiffBytes.
func (c *Client) Diff(ctx context.Context, repo pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]byte, error) {
	if err := checkRange(repo, "base", base, "head", head); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	b, err := c.api.diff(ctx, repo, diffSpec(base, head), diffQuery(opts))
	if err != nil {
		return nil, fmt.Errorf("diff %s...%s: %w", base, head, err)
	}
	return b, nil
}

// PRDiff returns the pull request's diff with contextLines of context. It
// reads the pull request and fetches its links.diff.href (the target of
// /pullrequests/{id}/diff's 302, which may not pass query parameters on)
// with context=N added. When the link is missing or names another host
// (a proxy BaseURL) it falls back to /diff/{source}..{destination} with
// topic=true, the same three-dot diff for a same-repository pull request.
func (c *Client) PRDiff(ctx context.Context, repo pipeline.Repo, id, contextLines int) ([]byte, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	pr, err := c.api.pullRequest(ctx, repo, id)
	if err != nil {
		return nil, fmt.Errorf("get pull request %d: %w", id, err)
	}
	var b []byte
	err = errForeignLink
	if pr.Links.Diff.Href != "" {
		q := url.Values{}
		if contextLines > 0 {
			q.Set("context", strconv.Itoa(contextLines))
		}
		q.Set("renames", "true")
		b, err = c.api.diffLink(ctx, pr.Links.Diff.Href, q)
	}
	if errors.Is(err, errForeignLink) {
		// No usable link: the same three-dot diff by commit ids (not
		// fork-qualified, so it needs the source commit in this repository).
		src, dst := pr.Source.Commit.Hash, pr.Destination.Commit.Hash
		if checkRev("source", src) != nil || checkRev("destination", dst) != nil {
			return nil, fmt.Errorf("diff pull request %d: no commits in pull request: %w", id, pipeline.ErrUpstream)
		}
		b, err = c.api.diff(ctx, repo, diffSpec(dst, src), diffQuery(pipeline.DiffOptions{ContextLines: contextLines}))
	}
	if err != nil {
		return nil, fmt.Errorf("diff pull request %d: %w", id, err)
	}
	return b, nil
}

// DiffstatEntry is one changed file of a diffstat.
type DiffstatEntry struct {
	Status       string `json:"status"` // added, removed, modified, renamed (as Bitbucket says)
	Path         string `json:"path"`   // new path; old path for removed files
	OldPath      string `json:"oldPath,omitempty"`
	LinesAdded   int    `json:"linesAdded"`
	LinesRemoved int    `json:"linesRemoved"`
}

// Diffstat lists the files changed from base to head, all pages: GET
// /repositories/{workspace}/{repo_slug}/diffstat/{head}..{base}?renames=true&topic=...
// following `next` links. opts.ContextLines is ignored.
func (c *Client) Diffstat(ctx context.Context, repo pipeline.Repo, base, head string, opts pipeline.DiffOptions) ([]DiffstatEntry, error) {
	if err := checkRange(repo, "base", base, "head", head); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	q := diffQuery(opts)
	q.Del("context")
	spec := diffSpec(base, head)
	var out []DiffstatEntry
	err := walk(func(next string) (string, error) {
		p, err := c.api.diffstatPage(ctx, repo, spec, q, next)
		for _, v := range p.Values {
			e := DiffstatEntry{Status: v.Status, LinesAdded: v.LinesAdded, LinesRemoved: v.LinesRemoved}
			if v.New != nil {
				e.Path = v.New.Path
			}
			if v.Old != nil {
				if e.Path == "" {
					e.Path = v.Old.Path
				} else if v.Old.Path != e.Path {
					e.OldPath = v.Old.Path
				}
			}
			out = append(out, e)
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("diffstat %s...%s: %w", base, head, err)
	}
	return out, nil
}

// walk calls fetch with "" and then with each returned `next` link until
// there is none, at most maxPages times. A repeated link is an error.
func walk(fetch func(next string) (string, error)) error {
	seen := map[string]bool{}
	next := ""
	for range maxPages {
		n, err := fetch(next)
		if err != nil {
			return err
		}
		if n == "" {
			return nil
		}
		if seen[n] {
			return fmt.Errorf("pagination loops at %s: %w", n, pipeline.ErrUpstream)
		}
		seen[n] = true
		next = n
	}
	return fmt.Errorf("more than %d pages: %w", maxPages, pipeline.ErrUpstream)
}

func cleanPath(p string) string { return strings.Trim(p, "/") }

// ReadFile returns a file's bytes at commit. It first asks for the file's
// metadata (GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}?format=meta)
// and refuses directories (pipeline.ErrIsDir), binary files
// (pipeline.ErrBinary), LFS files (errLFS, which also wraps ErrBinary) and
// files over maxBytes (pipeline.ErrTooLarge) before fetching the content
// (the same URL without format). A missing path or commit wraps
// pipeline.ErrNotFound.
func (c *Client) ReadFile(ctx context.Context, repo pipeline.Repo, commit, path string, maxBytes int64) ([]byte, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if err := checkRev("ref", commit); err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		return nil, pipeline.Invalidf("maxBytes", "must be positive, got %d", maxBytes)
	}
	path = cleanPath(path)
	if path == "" {
		return nil, fmt.Errorf("read %q: %w", path, pipeline.ErrIsDir)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	meta, err := c.api.srcMeta(ctx, repo, commit, path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	switch {
	case meta.Type == "commit_directory":
		return nil, fmt.Errorf("read %s: %w", path, pipeline.ErrIsDir)
	case slices.Contains(meta.Attributes, "lfs"):
		return nil, fmt.Errorf("read %s: %w: %w", path, errLFS, pipeline.ErrBinary)
	case slices.Contains(meta.Attributes, "binary"):
		return nil, fmt.Errorf("read %s: %w", path, pipeline.ErrBinary)
	case slices.Contains(meta.Attributes, "subrepository"):
		return nil, fmt.Errorf("read %s: submodule: %w", path, pipeline.ErrIsDir)
	case meta.Size != nil && *meta.Size > maxBytes:
		return nil, fmt.Errorf("read %s: %d bytes, limit %d: %w", path, *meta.Size, maxBytes, pipeline.ErrTooLarge)
	}
	b, err := c.api.srcRaw(ctx, repo, commit, path, maxBytes)
	if err != nil {
		if s := statusOf(err); s >= 300 && s < 400 {
			// An LFS file redirects to the media platform (not followed).
			return nil, fmt.Errorf("read %s: redirected: %w: %w", path, errLFS, pipeline.ErrBinary)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return nil, fmt.Errorf("read %s: NUL byte in content: %w", path, pipeline.ErrBinary)
	}
	return b, nil
}

// ListDir lists the direct children of dir at commit: GET
// /repositories/{workspace}/{repo_slug}/src/{commit}/{dir}/ (the trailing
// slash is required for the root), following `next` links until limit
// entries. Entry paths are from the repository root. Listing a file wraps
// pipeline.ErrNotDir; a missing path wraps pipeline.ErrNotFound.
func (c *Client) ListDir(ctx context.Context, repo pipeline.Repo, commit, dir string, limit int) ([]pipeline.DirEntry, bool, error) {
	if err := checkRepo(repo); err != nil {
		return nil, false, err
	}
	if err := checkRev("ref", commit); err != nil {
		return nil, false, err
	}
	if limit <= 0 {
		return nil, false, pipeline.Invalidf("limit", "must be positive, got %d", limit)
	}
	dir = cleanPath(dir)
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var (
		out       []pipeline.DirEntry
		truncated bool
		first     = true
	)
	errFull := errors.New("full")
	err := walk(func(next string) (string, error) {
		p, err := c.api.srcPage(ctx, repo, commit, dir, next)
		if err != nil && first && dir != "" && statusOf(err) == 0 && ctx.Err() == nil {
			// A file's URL with a trailing slash does not answer a listing.
			if meta, merr := c.api.srcMeta(ctx, repo, commit, dir); merr == nil && meta.Type == "commit_file" {
				return "", pipeline.ErrNotDir
			}
		}
		first = false
		if err != nil {
			return "", err
		}
		for _, v := range p.Values {
			if len(out) == limit {
				truncated = true
				return "", errFull
			}
			out = append(out, dirEntry(v))
		}
		if len(out) == limit && p.Next != "" {
			truncated = true
			return "", errFull
		}
		return p.Next, nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return nil, false, fmt.Errorf("list %s/: %w", dir, err)
	}
	return out, truncated, nil
}

func dirEntry(v wireEntry) pipeline.DirEntry {
	e := pipeline.DirEntry{Path: v.Path, Type: "file"}
	switch {
	case v.Type == "commit_directory":
		e.Type = "dir"
	case slices.Contains(v.Attributes, "subrepository"):
		e.Type = "submodule"
	case slices.Contains(v.Attributes, "link"):
		e.Type = "symlink"
	}
	if e.Type == "file" {
		e.Size = v.Size
	}
	return e
}

// ListComments returns every comment of the pull request, deleted ones
// included (Deleted set), following `next` links: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments?pagelen=100.
//
// Each comment another account wrote is marked Foreign, so its markers are
// not trusted. prscout's own account is learnt once from GET /user (op
// get_user) and cached; if that fails, Config.AccountID is used; if neither
// is known, every comment is marked Unverified (its markers decide nothing
// and it is never edited) until prscout creates a comment, whose author is
// then its own account. A /user failure never fails the listing.
func (c *Client) ListComments(ctx context.Context, repo pipeline.Repo, prID int) ([]pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	self := c.selfIDs(ctx)
	var out []pipeline.Comment
	err := walk(func(next string) (string, error) {
		p, err := c.api.commentsPage(ctx, repo, prID, next)
		for _, v := range p.Values {
			cm := comment(v)
			cm.Foreign = self != nil && !isSelf(self, v.User)
			cm.Unverified = self == nil
			out = append(out, cm)
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("list comments of pull request %d: %w", prID, err)
	}
	return out, nil
}

var _ pipeline.PullRequestCommits = (*Client)(nil)

// PullRequestCommitMessages returns the messages of at most limit of the
// pull request's commits, newest first as Bitbucket lists them, following
// `next` links only while more are wanted: GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits?pagelen=min(limit,100).
// The list is empty when the source branch no longer exists; an unknown pull
// request wraps pipeline.ErrNotFound.
func (c *Client) PullRequestCommitMessages(ctx context.Context, repo pipeline.Repo, prID, limit int) ([]string, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var out []string
	err := walk(func(next string) (string, error) {
		p, err := c.api.prCommitsPage(ctx, repo, prID, min(limit, pageLen), next)
		for _, v := range p.Values {
			if len(out) < limit {
				out = append(out, v.Message)
			}
		}
		if len(out) >= limit {
			return "", err
		}
		return p.Next, err
	})
	if err != nil {
		return nil, fmt.Errorf("list commits of pull request %d: %w", prID, err)
	}
	return out, nil
}

// selfIDs returns prscout's own account ids (normalised), or nil when
// unknown. GET /user is asked until it answers or refuses the credentials
// (401/403/404: then Config.AccountID, or unknown, for good); after another
// failure Config.AccountID is used for good, or, without it, /user is asked
// again on the next listing.
func (c *Client) selfIDs(ctx context.Context) []string {
	s := &c.self
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settled {
		return s.ids
	}
	log := s.log
	if log == nil {
		log = slog.Default()
	}
	u, err := c.api.currentUser(ctx)
	if err == nil {
		for _, id := range []string{u.AccountID, u.UUID} {
			if id = normID(id); id != "" {
				s.ids = append(s.ids, id)
			}
		}
		if s.ids != nil {
			s.settled = true
			return s.ids
		}
		err = fmt.Errorf("bitbucket get_user: answer has neither account_id nor uuid: %w", pipeline.ErrUpstream)
	}
	if s.configured != "" {
		s.settled, s.ids = true, []string{normID(s.configured)}
		log.Info("bitbucket: GET /user failed; using PRSCOUT_BITBUCKET_ACCOUNT_ID as prscout's own account", "error", err.Error())
		return s.ids
	}
	switch statusOf(err) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		s.settled = true
	}
	if !s.warned {
		s.warned = true
		log.Warn("bitbucket: prscout's own account is unknown (GET /user failed and PRSCOUT_BITBUCKET_ACCOUNT_ID is not set): earlier markers are not trusted and no comment is edited until prscout has posted one", "error", err.Error())
	}
	return nil
}

// isSelf reports whether the account is one of ids (account_id or uuid).
func isSelf(ids []string, u wireAccount) bool {
	for _, id := range []string{u.AccountID, u.UUID} {
		if id = normID(id); id != "" && slices.Contains(ids, id) {
			return true
		}
	}
	return false
}

// normID compares account ids and uuids with or without braces, any case.
func normID(id string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(id), "{}"))
}

func comment(v wireComment) pipeline.Comment {
	c := pipeline.Comment{ID: v.ID, Body: v.Content.Raw, Deleted: v.Deleted, Author: v.User.DisplayName, URL: v.Links.HTML.Href}
	if v.Parent != nil {
		c.ParentID = v.Parent.ID
	}
	if r := strings.TrimSpace(string(v.Resolution)); r != "" && r != "null" {
		c.Resolved = true
	}
	if c.Author == "" {
		c.Author = v.User.Nickname
	}
	if v.Inline != nil {
		a := &pipeline.InlineAnchor{Path: v.Inline.Path}
		switch {
		case v.Inline.To != nil:
			a.Line = *v.Inline.To
		case v.Inline.From != nil:
			// Anchored on a removed line (old version only); 0 marks "no new line".
			a.Line = 0
		}
		c.Inline = a
	}
	return c
}

// CreateComment posts a general comment, or an inline one on line
// Inline.Line of the new version of Inline.Path (inline {path, to}): POST
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments.
// It is retried only after 429, never after a timeout or 5xx, so a comment is
// not posted twice.
func (c *Client) CreateComment(ctx context.Context, repo pipeline.Repo, prID int, nc pipeline.NewComment) (pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Comment{}, err
	}
	if strings.TrimSpace(nc.Body) == "" {
		return pipeline.Comment{}, pipeline.Invalidf("body", "comment body is empty")
	}
	var inline *wireInline
	if nc.Inline != nil {
		p := cleanPath(nc.Inline.Path)
		if p == "" {
			return pipeline.Comment{}, pipeline.Invalidf("inline.path", "inline comment needs a path")
		}
		if nc.Inline.Line < 1 {
			return pipeline.Comment{}, pipeline.Invalidf("inline.line", "must be >= 1, got %d", nc.Inline.Line)
		}
		line := nc.Inline.Line
		inline = &wireInline{Path: p, To: &line}
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	v, err := c.api.createComment(ctx, repo, prID, nc.Body, inline)
	if err != nil {
		return pipeline.Comment{}, fmt.Errorf("create comment on pull request %d: %w", prID, err)
	}
	c.learnSelf(v.User)
	return comment(v), nil
}

// learnSelf takes prscout's own account from a comment it has just created,
// when neither GET /user nor Config.AccountID told it: the author of that
// comment is, by construction, the account prscout posts as.
func (c *Client) learnSelf(u wireAccount) {
	s := &c.self
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids != nil || !(s.settled || s.warned) {
		return // known, or GET /user not asked yet: it is the first source
	}
	for _, id := range []string{u.AccountID, u.UUID} {
		if id = normID(id); id != "" {
			s.ids = append(s.ids, id)
		}
	}
	if s.ids != nil {
		s.settled = true
	}
}

// UpdateComment replaces a comment's body: PUT
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}.
func (c *Client) UpdateComment(ctx context.Context, repo pipeline.Repo, prID int, id int64, body string) (pipeline.Comment, error) {
	if err := checkRepo(repo); err != nil {
		return pipeline.Comment{}, err
	}
	if strings.TrimSpace(body) == "" {
		return pipeline.Comment{}, pipeline.Invalidf("body", "comment body is empty")
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	v, err := c.api.updateComment(ctx, repo, prID, id, body)
	if err != nil {
		return pipeline.Comment{}, fmt.Errorf("update comment %d on pull request %d: %w", id, prID, err)
	}
	return comment(v), nil
}

// ResolveThread resolves the thread of top-level comment id: POST
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}/resolve.
// Bitbucket's 409 (the thread is already resolved) is not an error. Like
// every POST it is retried only after 429.
func (c *Client) ResolveThread(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.api.resolveComment(ctx, repo, prID, id); err != nil && statusOf(err) != http.StatusConflict {
		return fmt.Errorf("resolve thread of comment %d on pull request %d: %w", id, prID, err)
	}
	return nil
}

// DeleteComment deletes a comment: DELETE
// /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id} (204).
func (c *Client) DeleteComment(ctx context.Context, repo pipeline.Repo, prID int, id int64) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.api.deleteComment(ctx, repo, prID, id); err != nil {
		return fmt.Errorf("delete comment %d on pull request %d: %w", id, prID, err)
	}
	return nil
}
