package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// PullRequest is a pull request held by the fake. Commits are full ids; the
// payload shows their first 12 characters like Bitbucket does.
type PullRequest struct {
	ID          int
	Title       string
	Description string
	Author      string
	// AuthorID is the author's account_id (default "user-<nickname>").
	AuthorID string
	State    string // default "OPEN"
	// Draft is Bitbucket's draft flag: not yet marked ready for review.
	Draft             bool
	SourceBranch      string
	DestinationBranch string
	SourceCommit      string
	DestinationCommit string
	// SourceRepo is the full name of the repository the source branch is
	// in ("owner/fork" for a pull request from a fork); "" is the
	// repository itself.
	SourceRepo string
}

// AddPullRequest stores a pull request; its commits are added if unknown.
func (s *Server) AddPullRequest(ws, slug string, pr PullRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(ws, slug)
	if pr.State == "" {
		pr.State = "OPEN"
	}
	for _, c := range []string{pr.SourceCommit, pr.DestinationCommit} {
		if _, ok := r.commits[c]; !ok && c != "" {
			r.commits[c] = nil
		}
	}
	r.prs[pr.ID] = &pr
}

// SetPullRequestState sets a stored pull request's state (OPEN, MERGED,
// DECLINED or SUPERSEDED) and reports whether the pull request exists.
func (s *Server) SetPullRequestState(ws, slug string, id int, state string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.repo(ws, slug).prs[id]
	if pr == nil {
		return false
	}
	pr.State = state
	return true
}

// SetPullRequestDraft sets a stored pull request's draft flag (false: marked
// ready for review) and reports whether the pull request exists.
func (s *Server) SetPullRequestDraft(ws, slug string, id int, draft bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.repo(ws, slug).prs[id]
	if pr == nil {
		return false
	}
	pr.Draft = draft
	return true
}

// PullRequestEvent returns a webhook body {actor, pullrequest, repository}
// for a stored pull request, as Bitbucket posts for pullrequest:created and
// pullrequest:updated. Sign it with bitbucket.Sign.
func (s *Server) PullRequestEvent(ws, slug string, id int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.repo(ws, slug).prs[id]
	if pr == nil {
		return nil
	}
	b, _ := json.Marshal(map[string]any{
		"actor":       account(pr.Author, pr.AuthorID),
		"pullrequest": s.prJSON(ws, slug, pr),
		"repository":  repository(ws, slug),
	})
	return b
}

func (s *Server) prJSON(ws, slug string, pr *PullRequest) map[string]any {
	self := fmt.Sprintf("%s/repositories/%s/%s/pullrequests/%d", s.BaseURL, ws, slug, pr.ID)
	spec := fmt.Sprintf("%s/%s:%s%%0D%s?from_pullrequest_id=%d&topic=true", ws, slug, short(pr.SourceCommit), short(pr.DestinationCommit), pr.ID)
	endpoint := func(branch, commit, fullName string) map[string]any {
		repo := repository(ws, slug)
		if fullName != "" {
			repo["full_name"] = fullName
		}
		return map[string]any{
			"branch":     map[string]any{"name": branch},
			"commit":     map[string]any{"hash": short(commit)},
			"repository": repo,
		}
	}
	text := func(s string) map[string]any {
		return map[string]any{"raw": s, "markup": "markdown", "html": "<p>" + s + "</p>"}
	}
	open := 0 // task_count: the pull request's unresolved tasks
	for _, t := range s.repo(ws, slug).tasks[pr.ID] {
		if !t.Resolved {
			open++
		}
	}
	return map[string]any{
		"type": "pullrequest", "id": pr.ID, "title": pr.Title, "description": pr.Description,
		"summary":  text(pr.Description),
		"rendered": map[string]any{"title": text(pr.Title), "description": text(pr.Description)},
		"state":    pr.State, "draft": pr.Draft, "author": account(pr.Author, pr.AuthorID),
		"source":        endpoint(pr.SourceBranch, pr.SourceCommit, pr.SourceRepo),
		"destination":   endpoint(pr.DestinationBranch, pr.DestinationCommit, ""),
		"comment_count": 0, "task_count": open, "close_source_branch": false, "reason": "",
		"created_on": "2026-11-02T09:14:07.118226+00:00", "updated_on": "2026-11-02T10:01:44.530841+00:00",
		"links": map[string]any{
			"self":     map[string]any{"href": self},
			"html":     map[string]any{"href": fmt.Sprintf("https://bitbucket.example/%s/%s/pull-requests/%d", ws, slug, pr.ID)},
			"comments": map[string]any{"href": self + "/comments"},
			"diff":     map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/diff/%s", s.BaseURL, ws, slug, spec)},
			"diffstat": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/diffstat/%s", s.BaseURL, ws, slug, spec)},
		},
	}
}

// pullRequest returns the pull request {id} names, or answers 404.
func (s *Server) pullRequest(c *call) *PullRequest {
	pr := s.pr(c.rd, c.r.PathValue("id"))
	if pr == nil {
		writeError(c.w, http.StatusNotFound, "Pull request not found")
	}
	return pr
}

func (s *Server) getPullRequest(c *call) {
	if pr := s.pullRequest(c); pr != nil {
		writeJSON(c.w, http.StatusOK, s.prJSON(c.ws, c.slug, pr))
	}
}

// prRedirect answers a pull request's diff or diffstat with a 302 to its
// link; like Bitbucket, the redirect carries the link's own query only.
func (s *Server) prRedirect(kind string) func(*call) {
	return func(c *call) {
		pr := s.pullRequest(c)
		if pr == nil {
			return
		}
		links := s.prJSON(c.ws, c.slug, pr)["links"].(map[string]any)
		http.Redirect(c.w, c.r, links[kind].(map[string]any)["href"].(string), http.StatusFound)
	}
}

func (s *Server) listPRCommits(c *call) {
	pr := s.pullRequest(c)
	if pr == nil {
		return
	}
	var vals []any
	for _, id := range prCommits(c.rd, pr.SourceCommit, pr.DestinationCommit) {
		vals = append(vals, map[string]any{"type": "commit", "hash": id, "message": c.rd.messages[id], "parents": parentsJSON(c.rd.commits[id])})
	}
	s.writePage(c.w, c.r, vals, 10)
}

// prID returns the pull request id of the path, or answers 404 when no such
// pull request exists.
func (s *Server) prID(c *call) (int, bool) {
	id, _ := strconv.Atoi(c.r.PathValue("id"))
	if c.rd.prs[id] == nil {
		writeError(c.w, http.StatusNotFound, "Pull request not found")
		return 0, false
	}
	return id, true
}

func (s *Server) pr(rd *repoData, id string) *PullRequest {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil
	}
	return rd.prs[n]
}

// prCommits lists the commits reachable from source and not from
// destination, newest first (breadth-first from the source).
func prCommits(rd *repoData, source, destination string) []string {
	base := ancestors(rd, destination)
	var out []string
	seen := map[string]bool{}
	queue := []string{source}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] || base[c] || c == "" {
			continue
		}
		seen[c] = true
		out = append(out, c)
		queue = append(queue, rd.commits[c]...)
	}
	return out
}
