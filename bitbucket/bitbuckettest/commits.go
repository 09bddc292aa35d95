package bitbuckettest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// diffSpec resolves {spec}, or answers 404.
func (s *Server) diffSpec(c *call) (head, base string, ok bool) {
	head, base, ok = s.spec(c.rd, c.r.PathValue("spec"))
	if !ok {
		writeError(c.w, http.StatusNotFound, "Commit not found")
	}
	return head, base, ok
}

// getDiff answers the raw diff as stored, bytes as they are.
func (s *Server) getDiff(c *call) {
	head, base, ok := s.diffSpec(c)
	if !ok {
		return
	}
	d, ok := c.rd.diffs[[2]string{head, base}]
	if !ok {
		writeError(c.w, http.StatusNotFound, "No diff stored for "+head+".."+base)
		return
	}
	c.w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(c.w, d)
}

func (s *Server) getDiffstat(c *call) {
	head, base, ok := s.diffSpec(c)
	if !ok {
		return
	}
	entries := c.rd.stats[[2]string{head, base}]
	vals := make([]any, 0, len(entries))
	for _, e := range entries {
		vals = append(vals, diffstatJSON(s, c.ws, c.slug, head, base, e))
	}
	s.writePage(c.w, c.r, vals, 500)
}

func (s *Server) getCommit(c *call) {
	id, ok := s.resolve(c.rd, c.r.PathValue("rev"))
	if !ok {
		writeError(c.w, http.StatusNotFound, "Commit not found")
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{"type": "commit", "hash": id, "message": c.rd.messages[id], "parents": parentsJSON(c.rd.commits[id])})
}

func (s *Server) getMergeBase(c *call) {
	a, b, found := strings.Cut(c.r.PathValue("spec"), "..")
	ia, oka := s.resolve(c.rd, a)
	ib, okb := s.resolve(c.rd, b)
	if !found || !oka || !okb {
		writeError(c.w, http.StatusNotFound, "Commit not found")
		return
	}
	mb := mergeBase(c.rd, ia, ib)
	if mb == "" {
		writeError(c.w, http.StatusNotFound, "No common ancestor")
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]any{"type": "commit", "hash": mb})
}

func parentsJSON(ps []string) []any {
	out := []any{}
	for _, p := range ps {
		out = append(out, map[string]any{"type": "commit", "hash": p})
	}
	return out
}

// diffstatJSON is a diffstat; the side a file does not have (old for an
// added one, new for a removed one) is left out: the description's
// commit_file is not nullable.
func diffstatJSON(s *Server, ws, slug, head, base string, e DiffstatEntry) map[string]any {
	m := map[string]any{"type": "diffstat", "status": e.Status, "lines_added": e.LinesAdded, "lines_removed": e.LinesRemoved}
	for side, f := range map[string][2]string{"old": {base, e.OldPath}, "new": {head, e.Path}} {
		if commit, p := f[0], f[1]; p != "" {
			m[side] = map[string]any{
				"type": "commit_file", "path": p, "escaped_path": p,
				"links": map[string]any{"self": map[string]any{"href": fmt.Sprintf("%s/repositories/%s/%s/src/%s/%s", s.BaseURL, ws, slug, commit, p)}},
			}
		}
	}
	return m
}

// resolve turns a full or abbreviated (>= 7) id or a branch name into a full id.
func (s *Server) resolve(rd *repoData, rev string) (string, bool) {
	if id, ok := rd.branches[rev]; ok {
		return id, true
	}
	if _, ok := rd.commits[rev]; ok {
		return rev, true
	}
	if len(rev) < 7 {
		return "", false
	}
	var hit string
	for id := range rd.commits {
		if strings.HasPrefix(id, rev) {
			if hit != "" {
				return "", false // ambiguous
			}
			hit = id
		}
	}
	return hit, hit != ""
}

// spec parses "first..second" or the pull request link's
// "ws/repo:first\rsecond" (the %0D form); first is the commit with the changes.
func (s *Server) spec(rd *repoData, spec string) (head, base string, ok bool) {
	a, b, found := strings.Cut(spec, "\r")
	if found {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			a = a[i+1:]
		}
	} else if a, b, found = strings.Cut(spec, ".."); !found {
		return "", "", false
	}
	head, okh := s.resolve(rd, a)
	base, okb := s.resolve(rd, b)
	return head, base, okh && okb
}

func ancestors(rd *repoData, id string) map[string]bool {
	seen := map[string]bool{}
	queue := []string{id}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		queue = append(queue, rd.commits[c]...)
	}
	return seen
}

func mergeBase(rd *repoData, a, b string) string {
	inA := ancestors(rd, a)
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if inA[c] {
			return c
		}
		queue = append(queue, rd.commits[c]...)
	}
	return ""
}
