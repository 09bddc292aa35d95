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
	// Budget records the rate-limit headers of every answer. Give every
	// Client that uses the same token the same Budget; nil: the Client
	// makes its own (Client.Budget).
	Budget *Budget
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
	budget  *Budget
}

// Budget is the rate-limit budget the Client records into (Config.Budget).
func (c *Client) Budget() *Budget { return c.budget }

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
	_ pipeline.TaskStore      = (*Client)(nil)
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
	budget := cfg.Budget
	if budget == nil {
		budget = NewBudget()
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
		obs:    obs,
		budget: budget,
		log:    cfg.Logger,
		now:    time.Now,
	}
	// The whole call: every attempt plus every allowed sleep.
	overall := cfg.Timeout*time.Duration(cfg.MaxRetries+1) + cfg.MaxRetryWait
	hc := &http.Client{Transport: tr, Timeout: overall, CheckRedirect: checkRedirect(base.Host)}
	return &Client{
		overall: overall,
		budget:  budget,
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
