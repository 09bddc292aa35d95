package bitbuckettest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"

	"strings"
)

// Operations of the write side: a branch's head, a commit through the src
// endpoint, and pull request listing, creation and update.
const (
	OpGetBranch         = "get_branch"         // GET .../refs/branches/{name}
	OpCommitSrc         = "commit_src"         // POST .../src
	OpListPullRequests  = "list_pullrequests"  // GET .../pullrequests
	OpCreatePullRequest = "create_pullrequest" // POST .../pullrequests
	OpUpdatePullRequest = "update_pullrequest" // PUT .../pullrequests/{id}
)

// The fake's rules for these endpoints, from Bitbucket's API reference:
//   - POST /src takes a form (application/x-www-form-urlencoded or
//     multipart/form-data): every field other than message, author,
//     branch, parents and files is a file, named by its path, with its
//     content; parents names the one parent commit, whose content the
//     files are laid over (default: the branch's tip, else the main
//     branch's head): the API description deprecates several parents,
//     "only a single SHA1 is accepted" (the fake answers 400 to more), and
//     for an existing branch the parent must be its tip (409 otherwise);
//     branch receives the commit and is created when it does not exist.
//     201 with the new commit's Location. An open pull request from the
//     branch follows its head.
//   - GET /pullrequests filters by q on source.branch.name and state
//     (only `field="value"` terms joined by AND); without q it lists the
//     OPEN ones.
//   - POST /pullrequests needs title and existing source and destination
//     branches; PUT /pullrequests/{id} changes title and description.

func (s *Server) branchRoutes(handle func(pattern, op string, h func(*call)), repo string) {
	handle("GET "+repo+"/refs/branches/{name...}", OpGetBranch, s.getBranch)
	handle("POST "+repo+"/src", OpCommitSrc, s.commitSrc)
	handle("POST "+repo+"/src/{$}", OpCommitSrc, s.commitSrc)
	for _, p := range []string{repo + "/pullrequests", repo + "/pullrequests/{$}"} {
		handle("GET "+p, OpListPullRequests, s.listPullRequests)
		handle("POST "+p, OpCreatePullRequest, s.createPullRequest)
	}
	handle("PUT "+repo+"/pullrequests/{id}", OpUpdatePullRequest, s.updatePullRequest)
}

func (s *Server) getBranch(c *call) {
	name := c.r.PathValue("name")
	id, ok := c.rd.branches[name]
	if !ok {
		writeError(c.w, http.StatusNotFound, "Branch not found: "+name)
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"type": "branch", "name": name,
		"target": map[string]any{"type": "commit", "hash": id, "parents": parentsJSON(c.rd.commits[id])},
	})
}

// srcForm reads the src endpoint's form, URL-encoded or multipart.
func srcForm(c *call) (url.Values, error) {
	ct, params, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		return url.ParseQuery(string(c.body))
	case "multipart/form-data":
		r := c.r.Clone(c.r.Context())
		r.Body = ioNopCloser(c.body)
		r.Header.Set("Content-Type", mime.FormatMediaType(ct, params))
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			return nil, err
		}
		out := url.Values(maps.Clone(r.MultipartForm.Value))
		for name, fhs := range r.MultipartForm.File {
			for _, fh := range fhs {
				f, err := fh.Open()
				if err != nil {
					return nil, err
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil {
					return nil, err
				}
				out.Add(name, string(b))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("content type %q is not a form", ct)
}

func (s *Server) commitSrc(c *call) {
	form, err := srcForm(c)
	if err != nil {
		writeError(c.w, http.StatusBadRequest, err.Error())
		return
	}
	rd := c.rd
	branch := form.Get("branch")
	if branch == "" {
		branch = "main"
	}
	var parents []string
	for _, p := range strings.Split(form.Get("parents"), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		id, ok := s.resolve(rd, p)
		if !ok {
			writeError(c.w, http.StatusBadRequest, "Unknown parent commit "+p)
			return
		}
		parents = append(parents, id)
	}
	if len(parents) > 1 {
		writeFieldError(c.w, "parents", "Only a single SHA1 is accepted as parent.")
		return
	}
	head, exists := rd.branches[branch]
	if len(parents) == 0 {
		if exists {
			parents = []string{head}
		} else if id, ok := rd.branches["main"]; ok {
			parents = []string{id}
		}
	}
	if exists && parents[0] != head {
		writeError(c.w, http.StatusConflict, "The parent "+short(parents[0])+" is not the tip "+short(head)+" of branch "+branch)
		return
	}
	files := map[string]file{}
	if len(parents) > 0 {
		maps.Copy(files, rd.files[parents[0]])
	}
	changed := 0
	for name, vals := range form {
		switch name {
		case "message", "author", "branch", "parents":
			continue
		case "files": // paths to delete
			for _, p := range vals {
				delete(files, strings.Trim(p, "/"))
				changed++
			}
			continue
		}
		files[strings.Trim(name, "/")] = file{content: []byte(vals[0])}
		changed++
	}
	if changed == 0 {
		writeError(c.w, http.StatusBadRequest, "No files to commit")
		return
	}
	s.nextID++
	id := newCommitID(s.nextID, parents)
	rd.commits[id] = parents
	rd.messages[id] = form.Get("message")
	rd.files[id] = files
	rd.branches[branch] = id
	for _, pr := range rd.prs {
		if pr.SourceBranch == branch && pr.State == "OPEN" {
			pr.SourceCommit = id
		}
	}
	c.w.Header().Set("Location", fmt.Sprintf("%s/repositories/%s/%s/commit/%s", s.BaseURL, c.ws, c.slug, id))
	c.w.WriteHeader(http.StatusCreated)
}

func (s *Server) listPullRequests(c *call) {
	var objs []map[string]any
	for _, id := range slices.Sorted(maps.Keys(c.rd.prs)) {
		pr := c.rd.prs[id]
		if c.r.URL.Query().Get("q") == "" && pr.State != "OPEN" {
			continue // by default only open pull requests
		}
		objs = append(objs, s.prJSON(c.ws, c.slug, pr))
	}
	vals, ok := queryObjects(c.w, c.r, objs, pullRequestQuery)
	if !ok {
		return
	}
	s.writePage(c.w, c.r, vals, 10)
}

func (s *Server) createPullRequest(c *call) {
	var body struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Source      struct {
			Branch struct {
				Name string `json:"name"`
			} `json:"branch"`
		} `json:"source"`
		Destination struct {
			Branch struct {
				Name string `json:"name"`
			} `json:"branch"`
		} `json:"destination"`
	}
	if err := json.Unmarshal(c.body, &body); err != nil {
		writeError(c.w, http.StatusBadRequest, err.Error())
		return
	}
	src, ok := c.rd.branches[body.Source.Branch.Name]
	if !ok || body.Title == "" {
		writeErrorDetail(c.w, http.StatusBadRequest, "Bad request", "source: a title and an existing source branch are required")
		return
	}
	dest := body.Destination.Branch.Name
	if dest == "" {
		dest = "main"
	}
	dst, ok := c.rd.branches[dest]
	if !ok {
		writeErrorDetail(c.w, http.StatusBadRequest, "Bad request", "destination: branch not found")
		return
	}
	id := 1
	for k := range c.rd.prs {
		id = max(id, k+1)
	}
	pr := &PullRequest{ID: id, Title: body.Title, Description: body.Description, Author: botName, AuthorID: s.self,
		State: "OPEN", SourceBranch: body.Source.Branch.Name, DestinationBranch: dest, SourceCommit: src, DestinationCommit: dst}
	c.rd.prs[id] = pr
	writeJSON(c.w, http.StatusCreated, s.prJSON(c.ws, c.slug, pr))
}

func (s *Server) updatePullRequest(c *call) {
	pr := s.pullRequest(c)
	if pr == nil {
		return
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(c.body, &body); err != nil {
		writeError(c.w, http.StatusBadRequest, err.Error())
		return
	}
	for k, dst := range map[string]*string{"title": &pr.Title, "description": &pr.Description} {
		if raw, ok := body[k]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				writeError(c.w, http.StatusBadRequest, k+": "+err.Error())
				return
			}
		}
	}
	writeJSON(c.w, http.StatusOK, s.prJSON(c.ws, c.slug, pr))
}

// PullRequests returns copies of the stored pull requests by id.
func (s *Server) PullRequests(ws, slug string) map[int]PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]PullRequest{}
	for id, pr := range s.repo(ws, slug).prs {
		out[id] = *pr
	}
	return out
}

// MergePullRequest merges a stored pull request: its destination branch
// moves to a new commit (parents: the destination's head, then the
// source's) holding the source's files, and its state becomes MERGED.
func (s *Server) MergePullRequest(ws, slug string, id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repo(ws, slug)
	pr := rd.prs[id]
	if pr == nil {
		return false
	}
	src, dst := rd.branches[pr.SourceBranch], rd.branches[pr.DestinationBranch]
	s.nextID++
	merged := newCommitID(s.nextID, []string{dst, src})
	rd.commits[merged] = []string{dst, src}
	rd.files[merged] = maps.Clone(rd.files[src])
	rd.branches[pr.DestinationBranch] = merged
	pr.State = "MERGED"
	return true
}

// FileAt returns a file's content at a revision (a branch or commit id).
func (s *Server) FileAt(ws, slug, rev, p string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repo(ws, slug)
	id, ok := s.resolve(rd, rev)
	if !ok {
		return nil, false
	}
	f, ok := rd.files[id][strings.Trim(p, "/")]
	return f.content, ok
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func ioNopCloser(b []byte) nopCloser { return nopCloser{strings.NewReader(string(b))} }

// BranchHead returns the commit a branch points at.
func (s *Server) BranchHead(ws, slug, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.repo(ws, slug).branches[name]
	return id, ok
}

// newCommitID makes a 40-hex commit id unique in the fake and distinct in
// its first 12 characters (pull request payloads abbreviate to them).
func newCommitID(n int64, parents []string) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(n, parents)))
	return hex.EncodeToString(sum[:20])
}
